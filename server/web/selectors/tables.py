"""Reads for the tables' pages (the home page's tables, a casual table's replay, record
and spectator page). Who may see what is decided by the tables' own selectors; this
module only gathers what a page shows."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q
from django.http import Http404

from engine.phases import MATCH_OVER
from server.accounts.models import User
from server.league.holders import Holding, Holdings, match_holdings
from server.tables import projection
from server.tables import selectors as tables
from server.tables.models import Table
from server.web.selectors.replay import Replay, build_replay


@dataclass(frozen=True)
class TableRow:
    table: Table
    over: bool
    scores: dict  # live or final score: public at any time
    hand_no: int
    winner: str | None
    annulled: bool = False  # a league match the organizer annulled: neither over nor live


def my_tables(user: User) -> list[TableRow]:
    """The tables ``user`` sits at, and the casual tables they own: not every league table
    an organizer started (those belong to the players seated at them)."""
    mine = (
        Table.objects.filter(Q(seats__player=user) | Q(owner=user, league_match__isnull=True))
        .distinct()
        .select_related("owner", "league_match")
        .order_by("-created_at")[:50]
    )
    return [table_row(table) for table in mine]


def readable_table(user: User | None, code: str) -> Table:
    """The table if ``user`` may read its record; 404 otherwise (as if it did not exist)."""
    table = Table.objects.filter(code=code).select_related("owner").first()
    if table is None or not tables.may_read_record(user, table):
        raise Http404("no such table")
    return table


def seat_players(table: Table) -> dict[str, dict]:
    return {
        str(s.number): {
            "name": s.player.username if s.player is not None else None,
            "is_bot": s.player is not None and s.player.is_bot,
            "kind": s.kind,
        }
        for s in tables.load_seats(table)
    }


def table_replay(table: Table) -> Replay:
    """The replay of a finished table; ``NotReplayable("in_progress")`` while it is played."""
    return build_replay(tables.record_text(table))


def finished_record(table: Table) -> str:
    """The record download of the web pages: only once the match is over."""
    text = tables.record_text(table)
    build_replay(text)  # raises NotReplayable unless the fold ends in match_over
    return text


def table_row(table: Table) -> TableRow:
    summary = projection.project(table).match.summary()
    league_match = getattr(table, "league_match", None)
    return TableRow(
        table,
        summary["phase"] == MATCH_OVER,
        summary["scores"],
        summary["hand_no"],
        summary["winner"],
        league_match is not None and league_match.status == "annulled",
    )


@dataclass(frozen=True)
class LogEntry:
    step: int
    type: str
    seat: int | None
    tile: str | None
    end: str | None
    opener: int | None
    hand_no: int
    result: dict | None  # the engine's hand result, on the event that ended the hand
    handovers: tuple[Holding, ...] = ()  # seats that changed hands just before this event


def replay_log(replay: Replay, held: Holdings | None = None) -> list[LogEntry]:
    """One line per record event, with the facts the fold gave (no rule is re-derived);
    a seat that changed hands is told on the line of the first event after it."""
    results = {h.end_step: h.result for h in replay.hands}
    changes: dict[int, list[Holding]] = {}
    for holding in held.handovers() if held is not None else ():
        changes.setdefault(min(holding.step, replay.steps - 1), []).append(holding)
    return [
        LogEntry(
            step,
            event["type"],
            event.get("seat"),
            event.get("tile"),
            replay.play_ends.get(step),
            event.get("opener"),
            frame["hand_no"],
            results.get(step),
            tuple(changes.get(step, ())),
        )
        for step, (event, frame) in enumerate(zip(replay.events, replay.frames, strict=True))
    ]


def table_holdings(table: Table) -> Holdings | None:
    """Who held each seat of a finished table when (its match's holdings; None for a
    table with no match row yet)."""
    match = getattr(table, "league_match", None)
    return match_holdings(match) if match is not None else None


# Where each seat sits on the screen, drawn from seat 1's point of view: turn order runs
# counter-clockwise, so the next seat (2) is on the right and the partner (3) across.
BOARD_POSITIONS = (("1", "bottom"), ("2", "right"), ("3", "top"), ("4", "left"))


@dataclass(frozen=True)
class BoardHolder:
    """One holder of a seat that changed hands, shown from ``from_step`` to before
    ``until_step`` (the replay script shows the one of the current step)."""

    name: str | None
    is_bot: bool
    from_step: int
    until_step: int
    hand: int


@dataclass(frozen=True)
class BoardSeat:
    number: str
    position: str
    team: str
    name: str | None
    is_bot: bool
    holders: tuple[BoardHolder, ...] = ()  # when the seat changed hands: each holder


def board_seats(
    replay: Replay, players: dict[str, dict], held: Holdings | None = None
) -> list[BoardSeat]:
    bots = _bots(held) if held is not None and held.changed_hands else set()
    seats = []
    for n, pos in BOARD_POSITIONS:
        holders: tuple[BoardHolder, ...] = ()
        if held is not None and len(held.by_seat[int(n)]) > 1:
            spans = held.by_seat[int(n)]
            holders = tuple(
                BoardHolder(
                    h.player,
                    h.player in bots,
                    h.step,
                    spans[i + 1].step if i + 1 < len(spans) else replay.steps,
                    h.hand,
                )
                for i, h in enumerate(spans)
            )
        seats.append(
            BoardSeat(
                n,
                pos,
                replay.teams[n],
                players.get(n, {}).get("name"),
                players.get(n, {}).get("is_bot", replay.seats[n] == "bot"),
                holders,
            )
        )
    return seats


def _bots(held: Holdings) -> set[str]:
    names = {h.player for h in held.all if h.player}
    return set(
        User.objects.filter(username__in=names, is_bot=True).values_list("username", flat=True)
    )


def watch_context(table: Table, answer: dict) -> dict:
    """What the watch page shows of a spectator answer (``spectate.spectator_answer``)."""
    view = answer["view"]
    presence = answer["presence"]
    players = seat_players(table)
    seats = []
    for n in ("1", "2", "3", "4"):
        seats.append(
            {
                "number": int(n),
                "team": "A" if n in ("1", "3") else "B",
                "name": players[n]["name"],
                "is_bot": players[n]["is_bot"],
                "tiles": (view.get("tile_counts") or {}).get(n),
                "here": presence[n]["connected"],
                "away_since": presence[n]["away_since"],
                "to_act": int(n) in answer["seats_to_act"],
                "paused": int(n) in answer["table"]["paused_by"],
            }
        )
    line = [f"{entry['a']}-{entry['b']}" for entry in view["line"]]  # as laid, left to right
    return {
        "news": watch_news(answer),
        "ends": view["ends"],
        "table": table,
        "version": answer["version"],
        "phase": view["phase"],
        "scores": view["scores"],
        "base": view["base"],
        "hand_no": view["hand_no"],
        "line": line,
        "passes": view["passes_in_row"],
        "seats": seats,
        "last_hand": view["last_hand"],
        "winner": view["winner"],
        "annulled": answer["table"]["annulled"],
    }


@dataclass(frozen=True)
class OpenSeatRow:
    code: str
    owner: str
    wanted: str  # people, bots, any
    min_level: float | None
    max_level: float | None
    open_seats: int
    seated: list[str]
    expires_at: object


def open_seat_rows(found) -> list[OpenSeatRow]:
    """The open seeks as the page lists them: names and numbers, nothing of the match."""
    rows = []
    for seek in found.seeks:
        seats = seek.table.seat_rows
        rows.append(
            OpenSeatRow(
                code=seek.table.code,
                owner=seek.owner.username,
                wanted=seek.wanted,
                min_level=seek.min_level,
                max_level=seek.max_level,
                open_seats=sum(1 for s in seats if s.player_id is None),
                seated=[s.player.username for s in seats if s.player is not None],
                expires_at=seek.expires_at,
            )
        )
    return rows


def watch_news(answer: dict) -> str:
    """What the watch page says has just happened, in one line that its live region reads
    out when it changes: the last move of the hand (or how the last hand ended), then whose
    turn it is. Public facts only, in the table's own words (``play_strings``)."""
    from server.web.play_strings import STRINGS

    def say(key: str, **values) -> str:
        text = str(STRINGS[key]) % values
        return text if text.endswith((".", "!", "?", "…")) else text + "."

    view = answer["view"]
    said = []
    if answer["table"]["annulled"]:
        return say("annulled")
    if view["turns"]:
        t = view["turns"][-1]
        if t["type"] == "pass":
            said.append(say("passed", n=t["seat"], a=t["ends"][0], b=t["ends"][1]))
        else:
            # the tile as the line shows it (laid "6-0", not the record's "0-6")
            laid = [f"{e['a']}-{e['b']}" for e in view["line"] if e["tile"] == t["tile"]]
            key = {"left": "log_play_left", "right": "log_play_right"}.get(t.get("end") or "")
            said.append(say(key or "log_play", s=t["seat"], t=(laid or [t["tile"]])[0]))
    elif view["last_hand"]:
        last = view["last_hand"]
        said.append(say("hand_over", n=last["hand_no"]))
        points = str(STRINGS["point_one" if last["points"] == 1 else "points_many"])
        points %= {"n": last["points"]}
        if last["result"] == "tie":
            said.append(say("result_tie"))
        else:
            key = "result_dekabes" if last["dekabes"] else f"result_{last['result']}"
            said.append(say(key, team=last["team"], points=points))
    acting = answer["seats_to_act"]
    if view["phase"] == MATCH_OVER and view["winner"]:
        scores = view["scores"]
        said.append(say("match_won", team=view["winner"], a=scores["A"], b=scores["B"]))
    elif view["phase"] == "play" and len(acting) == 1:
        said.append(say("waiting_for", n=acting[0]))
    elif view["phase"] == "choose_opener" and len(acting) == 1:
        said.append(say("opener_wait", n=acting[0]))
    return " ".join(said)
