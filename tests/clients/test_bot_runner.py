"""The runner's decision layer on real engine seat views (no server needed)."""

import random
import threading

import pytest

from clients.bots.__main__ import parse_args
from clients.bots.policy import _checked, choose_event
from clients.bots.runner import RunnerOptions, RunnerStats, TableWorker, seats_to_act
from clients.sdk import SeatState
from engine import Match
from engine.bots import LEVELS

ALL_BOTS = {"1": "bot", "2": "bot", "3": "bot", "4": "bot"}
# Seat 2 holds five doubles: it is entitled to a redeal.
REDEAL_DEAL = {
    "type": "deal",
    "hands": {
        "1": ["0-1", "0-2", "0-3", "0-4", "0-5", "0-6", "1-2"],
        "2": ["0-0", "1-1", "2-2", "3-3", "4-4", "1-3", "1-4"],
        "3": ["5-5", "6-6", "1-5", "1-6", "2-3", "2-4", "2-5"],
        "4": ["2-6", "3-4", "3-5", "3-6", "4-5", "4-6", "5-6"],
    },
}


def match_after(*events) -> Match:
    match = Match()
    match.apply({"type": "match_started", "seats": ALL_BOTS, "rated": False})
    for event in events:
        match.apply(event)
    return match


def state_of(match: Match, seat: int, version: int = 5) -> SeatState:
    return SeatState.from_json(
        {"version": version, "paused": False, "allowed": [], "view": match.seat_view(seat)},
        code="T",
        seat=seat,
    )


def test_a_bot_entitled_to_a_redeal_always_claims_it():
    match = match_after(REDEAL_DEAL)
    view = match.seat_view(2)
    assert view["can_claim_redeal"]
    for level in LEVELS:
        assert choose_event(view, level, random.Random(1)) == {"type": "claim_redeal", "seat": 2}
    assert choose_event(match.seat_view(1), "greedy", random.Random(1))["type"] == "accept"


def test_every_seat_that_has_not_accepted_must_act_in_the_accept_phase():
    match = match_after(REDEAL_DEAL, {"type": "accept", "seat": 3})
    assert seats_to_act(state_of(match, 1), [1, 2, 3, 4]) == [1, 2, 4]
    assert seats_to_act(state_of(match, 3), [3, 4]) == [4]


def test_in_play_only_the_seat_to_act_is_asked_and_it_opens_with_double_six():
    accepts = [{"type": "accept", "seat": n} for n in (1, 2, 3, 4)]
    match = match_after(REDEAL_DEAL, *accepts)
    state = state_of(match, 3)
    assert state.phase == "play" and state.to_act == 3
    assert seats_to_act(state, [1, 2, 3, 4]) == [3]
    assert seats_to_act(state_of(match, 1), [1, 2, 4]) == []
    opening = choose_event(state.view, "greedy", random.Random(2))
    assert (opening["type"], opening["seat"], opening["tile"]) == ("play", 3, "6-6")


def test_a_seat_with_nothing_to_do_sends_nothing():
    accepts = [{"type": "accept", "seat": n} for n in (1, 2, 3, 4)]
    match = match_after(REDEAL_DEAL, *accepts)
    assert choose_event(match.seat_view(1), "strong", random.Random(3)) is None


class WaitsRecorded(threading.Event):
    """A stop event that records each pause it is asked for and returns at once."""

    def __init__(self):
        super().__init__()
        self.pauses: list[float] = []

    def wait(self, timeout=None):
        self.pauses.append(timeout)
        return False


class SendsRecorded:
    def __init__(self, answer: SeatState):
        self.answer = answer
        self.sent: list[dict] = []

    def send_event(self, code, event, expected_version=None, key=None, socket=None):
        self.sent.append(event)
        return self.answer


def paced_before(state: SeatState, level: str = "greedy") -> list[float]:
    stop = WaitsRecorded()
    client = SendsRecorded(state)
    options = RunnerOptions(level=level, delay=30.0)
    worker = TableWorker(client, "T", "bot", options, RunnerStats(), stop, follow_forever=False)
    assert worker._act(state) is state and len(client.sent) == 1
    return stop.pauses


def test_a_deal_is_answered_at_once_and_a_move_after_the_delay():
    # Accepting a deal leaves nothing on the board to follow: no pause, nor before a
    # claim (an answer to a deal takes the same time whatever the hand).
    dealt = match_after(REDEAL_DEAL)
    assert paced_before(state_of(dealt, 1)) == []  # accept
    assert paced_before(state_of(dealt, 2)) == []  # claim_redeal (five doubles)
    accepts = [{"type": "accept", "seat": n} for n in (1, 2, 3, 4)]
    pauses = paced_before(state_of(match_after(REDEAL_DEAL, *accepts), 3))  # the 6-6
    assert len(pauses) == 1 and 29 < pauses[0] <= 30


def test_a_decision_outside_the_legal_list_is_never_sent():
    legal = [
        {"type": "play", "seat": 2, "tile": "3-4", "end": "left"},
        {"type": "play", "seat": 2, "tile": "3-4", "end": "right"},
        {"type": "play", "seat": 2, "tile": "1-4", "end": "right"},
    ]
    view = {"seat": 2, "legal": legal}
    assert _checked({"type": "play", "seat": 2, "tile": "6-6"}, legal, view) == legal[0]
    assert _checked("nonsense", legal, view) == legal[0]
    # Field order and a missing end on a one-end tile are not differences.
    assert _checked({"end": "right", "tile": "3-4", "seat": 2, "type": "play"}, legal, view) == {
        "end": "right",
        "tile": "3-4",
        "seat": 2,
        "type": "play",
    }
    assert _checked({"type": "play", "seat": 2, "tile": "1-4"}, legal, view) == legal[2]


def test_cli_defaults_and_refusals(monkeypatch):
    monkeypatch.delenv("DEKABES_TOKEN", raising=False)
    args = parse_args(["--token", "abc", "--seat", "2", "4", "--table", "K7", "--table", "Q2"])
    assert (args.level, args.delay, args.seat, args.table) == ("strong", 0.7, [2, 4], ["K7", "Q2"])
    for bad in (
        [],
        ["--token", "x", "--seat", "5"],
        ["--token", "x", "--delay", "-1"],
        ["--token", "x", "--level", "genius"],
    ):
        with pytest.raises(SystemExit) as refused:
            parse_args(bad)
        assert refused.value.code == 2


def test_token_can_come_from_a_file_or_the_environment(tmp_path, monkeypatch):
    secret = tmp_path / "token"
    secret.write_text("from-file\n")
    monkeypatch.setenv("DEKABES_TOKEN", "from-env")
    assert parse_args([]).token == "from-env"
    assert parse_args(["--token-file", str(secret)]).token == "from-file"


class FinishedTableClient:
    """A server whose table ``T`` is over, seat 2 held by ``bot``; records long-polls."""

    def __init__(self, stop):
        self.stop = stop
        self.long_polls = 0
        table = {
            "code": "T",
            "phase": "match_over",
            "seats": {
                "1": {"kind": "human", "player": "ann"},
                "2": {"kind": "bot", "player": "bot"},
            },
        }
        self.state = SeatState.from_json(
            {"version": 40, "table": table, "view": {"phase": "match_over", "seat": 2}}, seat=2
        )

    def table(self, code):
        return self.state.table

    def seat_view(self, code, seat, wait=None, after=None):
        if wait is not None:
            self.long_polls += 1
            self.stop.set()  # a worker that waits on a finished table would wait for long
        return self.state


def test_a_discovered_table_is_left_as_soon_as_its_match_is_over():
    # Discovery brings a worker back if the owner starts a new match (tests/clients/
    # test_bot_runner_live.py); staying on the finished table only holds a long-poll open.
    stop = threading.Event()
    client = FinishedTableClient(stop)
    worker = TableWorker(
        client, "T", "bot", RunnerOptions(delay=0), RunnerStats(), stop, follow_forever=False
    )
    assert worker._serve() is True
    assert client.long_polls == 0


def test_a_linger_caps_the_long_poll_at_its_end():
    stop = threading.Event()
    client = FinishedTableClient(stop)
    asked = []
    original = client.seat_view

    def seat_view(code, seat, wait=None, after=None):
        asked.append(wait)
        return original(code, seat, wait, after)

    client.seat_view = seat_view
    options = RunnerOptions(delay=0, linger=2.0, poll_wait=25.0)
    worker = TableWorker(client, "T", "bot", options, RunnerStats(), stop, follow_forever=False)
    assert worker._serve() is False  # stopped while lingering
    assert [w for w in asked if w is not None] and all(w <= 2.0 for w in asked if w is not None)


class _FakeClient:
    """``me`` and the table list of a runner, no server."""

    request_count = 0

    def __init__(self, is_bot: bool, tables: list):
        from clients.sdk.types import Account

        self.account = Account(username="ann", is_bot=is_bot)
        self._tables = {t.code: t for t in tables}

    def me(self):
        return self.account

    def tables(self, mine=True):
        return list(self._tables.values())

    def table(self, code):
        return self._tables[code]


def _table(code: str, rated: bool):
    from clients.sdk.types import Table

    seats = {str(n): {"kind": "human", "player": "ann", "is_bot": False} for n in (1, 2, 3, 4)}
    return Table.from_json({"code": code, "rated": rated, "phase": "accept", "seats": seats})


@pytest.mark.parametrize("is_bot", [False, True])
def test_a_persons_token_never_plays_a_rated_table(is_bot, monkeypatch):
    from clients.bots.runner import Runner

    tables = [_table("RATED1", True), _table("CASUAL", False)]
    for named in ((), ("RATED1", "CASUAL")):
        runner = Runner(_FakeClient(is_bot, tables), RunnerOptions(tables=named))
        started: list[str] = []
        monkeypatch.setattr(runner, "_start_worker", lambda code, **_: started.append(code))
        if named:
            runner.run()  # the named tables (no worker starts, so it returns at once)
        else:
            runner.username = runner._whoami()
            runner._discover()
        if is_bot:
            assert sorted(started) == ["CASUAL", "RATED1"]
        else:
            assert started == ["CASUAL"]
            assert runner.stats.as_dict().get("refused_rated") == 1


class _UnwellServer(_FakeClient):
    """A table list answered first with a 500, then with a reply the client cannot read,
    then at last with the table."""

    def __init__(self, tables: list):
        super().__init__(True, tables)
        self.answers = iter(["500", "garbled"])

    def tables(self, mine=True):
        from clients.sdk import ApiError

        answer = next(self.answers, None)
        if answer == "500":
            raise ApiError("http_500", "Internal Server Error", status=500)
        if answer == "garbled":
            raise KeyError("seats")
        return super().tables(mine)


def test_a_table_list_refused_or_unreadable_does_not_end_the_discovery(monkeypatch):
    from clients.bots.runner import Runner

    runner = Runner(_UnwellServer([_table("LATER", False)]), RunnerOptions(discover_every=0.01))
    started: list[str] = []

    def start_worker(code, **_):
        started.append(code)
        runner.stop_event.set()

    monkeypatch.setattr(runner, "_start_worker", start_worker)
    runner.start()
    assert runner.join(timeout=30), "the runner did not find the table"
    assert started == ["LATER"]
    assert runner.stats.discovery_errors == 2


def test_a_revoked_token_ends_the_discovery_with_its_refusal():
    from clients.bots.runner import Runner
    from clients.sdk import NotAuthenticated

    class Revoked(_FakeClient):
        def tables(self, mine=True):
            raise NotAuthenticated("not_authenticated", "Invalid token.", status=401)

    with pytest.raises(NotAuthenticated):
        Runner(Revoked(True, []), RunnerOptions(discover_every=0.01)).run()
