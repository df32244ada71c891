"""People at the table (issue 24): presence per seat (the server's ``presence`` when it
sends one, else what the client knows), who paused the computer players, "rated" at a
rated table, and "your turn" in the window title and a sound while the window is in
the background; and what issue 22's API adds: another player's takeback request asked
and answered (or waited for), seats changing hands, a match ended by forfeit. Engine
folds stand in for the server (``EngineTable``)."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest

from clients.sdk import SeatState
from clients.table import draw as d
from clients.table.connection import NewState
from clients.table.render.bars import status_text
from clients.table.render.seats import presence_text, seat_label
from clients.table.ui import AnswerTakeback, Screen
from engine.table_commands import seats_to_act
from tests.table.driver import ARTIFACTS
from tests.table.test_table_offline import app_for, match_where, tap


@pytest.fixture(autouse=True)
def _pygame():
    yield
    pygame.quit()


@pytest.fixture
def drawn(monkeypatch):
    seen: list[str] = []
    real = d.text

    def recording(surface, value, *args, **kwargs):
        seen.append(str(value))
        return real(surface, value, *args, **kwargs)

    monkeypatch.setattr(d, "text", recording)
    return seen


def _state(conn, seat: int, **extra) -> SeatState:
    """The seat's response as the server sends it, with fields the server may add."""
    view = conn.match.seat_view(seat)
    table = {
        "code": conn.code,
        "owner": "me",
        "rated": extra.pop("rated", False),
        "version": conn.version,
        "paused": bool(extra.get("paused_by")),
        "paused_by": extra.pop("paused_by", []),
        "phase": view["phase"],
        "handovers": extra.pop("handovers", []),
        "forfeited": extra.pop("forfeited", False),
        "seats": {
            "1": {"kind": "human", "player": "me", "is_bot": False},
            "2": {"kind": "bot", "player": "house", "is_bot": True},
            "3": {"kind": "human", "player": "ann", "is_bot": False},
            "4": {"kind": "bot", "player": "house", "is_bot": True},
        },
    }
    return SeatState.from_json(
        {
            "version": conn.version + 1,
            "seat": seat,
            "paused": table["paused"],
            "allowed": [e["type"] for e in conn.match.legal_events(seat)]
            + extra.pop("allowed", []),
            "view": view,
            "seats_to_act": seats_to_act(view),
            "table": table,
            **extra,
        },
        code=conn.code,
        seat=seat,
    )


def test_presence_from_the_servers_field(drawn):
    m = match_where(lambda m: m.phase == "play" and m.to_act == 2)
    app, conn = app_for(m, [1])
    presence = {
        "1": {"connected": True, "away_since": None},
        "2": {"connected": True, "away_since": None},
        "3": {"connected": False, "away_since": "2026-12-04T10:00:00+00:00"},
        "4": {"connected": True, "away_since": None},
    }
    conn.updates.put(NewState(_state(conn, 1, presence=presence)))
    drawn.clear()
    app.tick([])
    # Seats 2 and 4 are computers: no person to be here or away (issue 34).
    assert app.presence(2) == ("computer", None) and presence_text(app, 2) is None
    state, since = app.presence(3)
    assert state == "away" and since is not None
    assert presence_text(app, 3).startswith("○ away ")
    assert "● here" not in drawn and any(t.startswith("○ away") for t in drawn)
    presence["3"] = {"connected": True, "away_since": None}
    conn.updates.put(NewState(_state(conn, 1, presence=presence)))
    drawn.clear()
    app.tick([])
    assert presence_text(app, 3) == "● here" and "● here" in drawn


def test_presence_without_the_field_is_what_the_client_saw(drawn):
    m = match_where(lambda m: m.phase == "play" and m.to_act == 2)
    app, conn = app_for(m, [1])
    app.tick([])
    assert app.presence(1) == ("here", None), "my own seat, while online"
    assert app.presence(3) == ("unknown", None), "nothing seen of seat 3 yet"
    assert presence_text(app, 3) is None
    event = conn.match.legal_events(2)[0]  # seat 2 acts: its action arrives
    conn.act(2, event["type"], **{k: v for k, v in event.items() if k not in ("seat", "type")})
    drawn.clear()
    app.tick([])
    assert app.presence(2) == ("here", None)  # (no table seats known: seat 2 may be a person)
    assert "● here" in drawn


def test_who_paused_the_computers_and_a_rated_table_are_shown(drawn):
    m = match_where(lambda m: m.phase == "play" and m.to_act == 2)
    app, conn = app_for(m, [1])
    conn.updates.put(NewState(_state(conn, 1, paused_by=[3], rated=True)))
    drawn.clear()
    app.tick([])
    assert status_text(app).startswith("Computers paused by Seat 3")
    assert any(t.startswith("Computers paused by Seat 3") for t in drawn)
    assert "★ Rated" in drawn
    assert "Seat 3 · ann" == seat_label(app, 3)


def test_a_pass_and_play_seat_is_named_by_the_seat_not_the_account():
    m = match_where(lambda m: m.phase == "play" and m.to_act == 2)
    app, conn = app_for(m, [1, 3])
    conn.updates.put(NewState(_state(conn, 1)))
    app.tick([])
    table = app.newest.table
    table.seats[3] = type(table.seats[3])(kind="human", player="me", is_bot=False)
    assert seat_label(app, 3) == "Seat 3 · player", "not the OS user's name"


def test_my_turn_while_the_window_is_in_the_background_is_told_in_the_title_and_by_a_sound():
    m = match_where(lambda m: m.phase == "play" and m.to_act == 2 and len(m.legal_events(2)) > 0)
    app, conn = app_for(m, [1])
    app.sound.enabled = True
    app.handle_event(pygame.event.Event(pygame.WINDOWFOCUSLOST))
    app.tick([])
    assert pygame.display.get_caption()[0] == "Dékabès"
    while conn.match.phase == "play" and conn.match.to_act != 1:
        seat = conn.match.to_act
        event = conn.match.legal_events(seat)[0]
        conn.act(
            seat, event["type"], **{k: v for k, v in event.items() if k not in ("seat", "type")}
        )
    if conn.match.phase != "play":
        pytest.skip("the hand ended before seat 1's turn")
    app.tick([])
    assert pygame.display.get_caption()[0] == "▶ Your turn — Dékabès"
    assert app.sound.played.count("turn") == 1
    app.tick([])
    assert app.sound.played.count("turn") == 1, "once per turn"
    app.handle_event(pygame.event.Event(pygame.WINDOWFOCUSGAINED))
    app.tick([])
    assert pygame.display.get_caption()[0] == "Dékabès"


def test_no_turn_sound_while_the_window_has_the_focus():
    m = match_where(lambda m: m.phase == "play" and m.to_act == 1)
    app, conn = app_for(m, [1])
    app.sound.enabled = True
    app.tick([])
    assert "turn" not in app.sound.played
    assert pygame.display.get_caption()[0] == "Dékabès"


REQUEST = {"seat": 3, "command": "undo", "waiting_for": [1]}


def test_another_players_takeback_request_is_asked_and_answered(drawn):
    m = match_where(lambda m: m.phase == "play" and m.to_act == 2)
    app, conn = app_for(m, [1])
    conn.updates.put(
        NewState(_state(conn, 1, takeback=REQUEST, allowed=["accept_takeback", "decline_takeback"]))
    )
    drawn.clear()
    app.tick([])
    assert "Seat 3 · ann asks to take back the last move." in drawn
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pygame.image.save(app.window.surface, str(ARTIFACTS / "takeback.png"))
    asked = [h.action for h in app.hits]
    assert asked == [AnswerTakeback(1, True), AnswerTakeback(1, False)], "a modal question"
    tap(app, AnswerTakeback(1, False))
    assert conn.sent[-1] == {"type": "decline_takeback", "seat": 1}
    app.command("confirm")  # Enter accepts, Esc declines; no other key reaches the table
    assert conn.sent[-1] == {"type": "accept_takeback", "seat": 1}
    sent = len(conn.sent)
    app.command("select_next")
    assert len(conn.sent) == sent and app.selection.tile is None


def test_a_takeback_request_waiting_for_others_is_a_line_not_a_question(drawn):
    m = match_where(lambda m: m.phase == "play" and m.to_act == 2)
    app, conn = app_for(m, [1])
    mine = {"seat": 1, "command": "restart_hand", "waiting_for": [3]}
    conn.updates.put(NewState(_state(conn, 1, takeback=mine)))
    drawn.clear()
    app.tick([])
    line = "You asked to restart the hand: waiting for Seat 3 · ann"  # the asker's own screen
    assert line in drawn
    assert app.takeback_question(Screen("table", 1)) is None
    assert not any(isinstance(h.action, AnswerTakeback) for h in app.hits)
    # the request goes with nothing changed on the board: declined, and said so
    conn.version += 1
    conn.updates.put(NewState(_state(conn, 1)))
    app.tick([])
    assert any(
        t.text == "The request to restart the hand was declined." for t in app.effects.toasts
    )


def test_seats_changing_hands_and_a_forfeit_are_told(drawn):
    m = match_where(lambda m: m.phase == "play" and m.to_act == 2)
    app, conn = app_for(m, [1])
    before = {
        "seq": 5,
        "seat": 2,
        "from": "old",
        "to": "house",
        "kind": "bot",
        "reason": "computer",
    }
    conn.updates.put(NewState(_state(conn, 1, handovers=[before])))
    app.tick([])
    assert not any("old" in t.text for t in app.effects.toasts), "before we came: no news"
    substitute = {
        "seq": 9, "seat": 3, "from": "ann", "to": "bob", "kind": "human",
        "reason": "substitute", "note": "",
    }  # fmt: skip
    left = {"seq": 12, "seat": 3, "from": "bob", "to": None, "kind": "human", "reason": "leave"}
    conn.version += 1
    conn.updates.put(NewState(_state(conn, 1, handovers=[before, substitute, left])))
    app.tick([])
    texts = [t.text for t in app.effects.toasts]
    assert "Seat 3: bob substitutes for ann." in texts
    assert "Seat 3: bob left the table; the seat is open." in texts
    conn.version += 1
    conn.updates.put(
        NewState(_state(conn, 1, handovers=[before, substitute, left], forfeited=True))
    )
    drawn.clear()
    app.tick([])
    assert "Match ended by forfeit" in drawn
    assert any(t.text == "Match ended by forfeit" for t in app.effects.toasts)


@pytest.mark.parametrize("lang", ["es", "ru", "ms"])
def test_the_people_texts_in_every_language(lang):
    from clients.table.i18n import Translator
    from clients.table.people import Takeback, handover_text, takeback_text, waiting_text

    tr = Translator(lang)
    request = Takeback(3, "new_match", (1, 2))
    for text in (
        takeback_text(tr, request, str),
        waiting_text(tr, request, str),
        handover_text(
            tr, {"seat": 2, "from": "a", "to": "b", "kind": "human", "reason": "replace"}
        ),
        handover_text(tr, {"seat": 2, "from": "a", "to": "c", "kind": "bot", "reason": "computer"}),
    ):
        assert "{" not in text and text == text.strip()
    assert tr("takeback.new_match") != Translator("en")("takeback.new_match")


def test_leaving_my_seat_asks_first_then_goes_back_to_the_lobby():
    from clients.table.connection import Left
    from clients.table.ui import Answer, Press

    m = match_where(lambda m: m.phase == "play" and m.to_act == 2)
    app, conn = app_for(m, [1])
    back: list[bool] = []
    app.on_lobby = lambda: back.append(True)
    conn.updates.put(NewState(_state(conn, 1)))
    app.tick([])
    assert any(h.action == Press("leave") for h in app.hits), "a casual table offers Leave"
    tap(app, Press("leave"))
    assert app.progress.confirm == "leave_seat" and not any(e["type"] == "leave" for e in conn.sent)
    tap(app, Answer(True))
    assert conn.sent[-1] == {"type": "leave", "seat": 1}
    conn.updates.put(Left(1))
    app.tick([])
    assert back == [True] and app.seating.seats == [] and 1 not in app.seating.states
    # a rated table has no Leave (its organizer substitutes)
    app2, conn2 = app_for(m, [1])
    conn2.updates.put(NewState(_state(conn2, 1, rated=True)))
    app2.tick([])
    assert not any(h.action == Press("leave") for h in app2.hits)


def test_the_connection_leaves_through_the_seats_endpoint():
    from clients.sdk import ApiError
    from clients.table.connection import Connection, Left, Refused

    class Client:
        def __init__(self):
            self.posted: list[str] = []
            self.refuse = False

        def request(self, method, path, **kwargs):
            self.posted.append(f"{method} {path}")
            assert kwargs in ({}, {"json": {"bot": "house"}}), kwargs
            if self.refuse:
                raise ApiError("not_allowed_in_rated", "rated", status=409)
            return {"code": "ABCDEF", "seats": {}}

        def seat_view(self, code, seat):
            return SeatState.from_json({"version": 9, "seat": seat, "view": {}}, code=code)

        def close(self):
            pass

    client = Client()
    link = Connection("http://x", "t", "abcdef", client=client)
    link.seats = [1, 3]
    link.busy.set()
    link._act(3, "leave", None, {}, "key")
    assert client.posted == ["POST /api/tables/ABCDEF/seats/3/leave"]
    assert link.poll() == [Left(3)] and link.seats == [1] and not link.busy.is_set()
    client.refuse = True
    link._act(1, "leave", None, {}, "key")
    (refused,) = link.poll()
    assert isinstance(refused, Refused) and refused.code == "not_allowed_in_rated"
    assert link.seats == [1]
    client.refuse = False
    link._act(3, "replace", None, {"bot": "house"}, "key")  # the owner, for another's seat
    assert client.posted[-1] == "POST /api/tables/ABCDEF/seats/3/replace"
    assert [type(u).__name__ for u in link.poll()] == ["NewState"], "the seats read again"


def test_the_owner_replaces_a_seat_away_five_minutes_after_asking(drawn):
    from clients.table.people import replaceable
    from clients.table.ui import Answer, ReplaceSeat

    m = match_where(lambda m: m.phase == "play" and m.to_act == 2)
    app, conn = app_for(m, [1])
    presence = {
        "1": {"connected": True, "away_since": None},
        "2": {"connected": True, "away_since": None},
        "3": {"connected": False, "away_since": "2026-12-04T10:00:00+00:00"},
        "4": {"connected": True, "away_since": None},
    }
    conn.updates.put(NewState(_state(conn, 1, presence=presence)))
    app.tick([])
    assert [h.action for h in app.hits if isinstance(h.action, ReplaceSeat)] == [ReplaceSeat(3)]
    drawn.clear()
    tap(app, ReplaceSeat(3))
    assert "Give Seat 3 · ann to the computer player house? The match goes on from here." in drawn
    tap(app, Answer(True))
    assert conn.sent[-1] == {"type": "replace", "seat": 3, "bot": "house"}
    assert app.progress.replacing is None and app.progress.confirm is None
    # who may: the owner only, a person's seat once away five minutes, an open seat at once
    table = app.newest.table.raw
    now = 1_000_000.0
    assert replaceable(table, "me", 3, ("away", now - 301), now)
    assert not replaceable(table, "me", 3, ("away", now - 200), now)
    assert not replaceable(table, "me", 3, ("here", None), now)
    assert not replaceable(table, "ann", 3, ("away", now - 301), now), "not the owner"
    assert not replaceable(table, "me", 2, ("away", now - 301), now), "a computer's seat"
    assert not replaceable(table, "me", 1, ("away", now - 301), now), "my own seat"
    opened = {**table, "seats": {**table["seats"], "3": {"kind": "human", "player": None}}}
    assert replaceable(opened, "me", 3, ("unknown", None), now)
    assert not replaceable({**table, "rated": True}, "me", 3, ("away", now - 301), now)


def test_the_log_tells_takebacks_handovers_and_forfeits_in_words():
    from clients.table.i18n import Translator
    from clients.table.render.panel import log_lines

    tr = Translator("en")
    events = [
        {"seq": 1, "type": "match_started"},
        {"seq": 2, "type": "deal"},
        {"seq": 3, "type": "takeback_request", "seat": 3, "command": "undo"},
        {"seq": 4, "type": "takeback_answer", "seat": 1, "accept": False},
        {"seq": 5, "type": "watchable", "watchable": True},
        {"seq": 6, "type": "seat_handover", "seat": 3, "from": "ann", "to": "bob",
         "kind": "human", "reason": "substitute", "note": ""},
        {"seq": 7, "type": "forfeit", "seat": 2, "team": "B"},
    ]  # fmt: skip
    lines = log_lines(tr, events, {})
    assert "3. Seat 3 asks to take back the last move" in lines
    assert "4. Seat 1 declines" in lines
    assert "6. Seat 3: bob substitutes for ann." in lines
    assert "7. Match ended by forfeit" in lines
    assert not any(line.startswith("5.") for line in lines), "quiet: who may watch"
