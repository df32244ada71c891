"""A duplicate round's play stays at its table until the round is over (issue #30).

Two tables of one duplicate round play the same deals, one fast and one slow. At moments
along the way — after every few moves, just after the fast table ends a hand, once it
has finished its match while the slow one plays on — every kind of reader (the players
of each table, an organizer who plays, the organizer who started the round and sits at
no table, a member outside the round, an anonymous visitor) asks every path that reads a
table or a match: REST, long-poll, spectator sockets, the watch, replay and record
pages, the match API and pages, the lists and exports. Two checks:

- **As unknown.** A read of another table of the round answers exactly what the same
  read of a code (or id) that does not exist answers; spectating answers so for everyone.
  Lists and pages never name another table of the round (its code, its match).
- **No deal fact.** Every JSON answer a reader gets is searched for which seat holds or
  played which tile in which hand (views, records, event logs, socket frames); none may
  be a fact of a deal still in play, or yet to come, at a table of the round — unless
  that reader already knows it at their own table.
"""

from __future__ import annotations

import json
import random
import re

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async as database
from channels.testing import WebsocketCommunicator
from django.test import Client
from rest_framework.test import APIClient

from server.asgi import application
from server.league import spectate
from server.league.models import LeagueMatch, Round
from server.tables import projection
from server.tables import services as table_services
from server.tables.models import Event, Seat
from tests.league.conftest import add_member, client_for, new_member, play_out
from tests.league.test_duplicate import DuplicateLeague
from tests.server.conftest import token_for

pytestmark = [pytest.mark.backend, pytest.mark.django_db(transaction=True)]

TILE = re.compile(r"\A[0-6]-[0-6]\Z")
UNKNOWN_CODE = "ZQ9ZQ9"
UNKNOWN_MATCH = 987654321


# -- the deals as they stand at each table ------------------------------------------------
def table_log(table) -> tuple[dict[int, list[dict[str, list[str]]]], set[tuple[int, int, str]]]:
    """Every deal the table's log holds, by hand number (a redeal is a second deal of the
    same hand), and every (hand, seat, tile) played."""
    deals: dict[int, list[dict]] = {}
    plays: set[tuple[int, int, str]] = set()
    hand, redealing = 0, False
    for payload in (
        Event.objects.filter(table=table).order_by("seq").values_list("payload", flat=True)
    ):
        if payload["type"] == "deal":
            if not redealing:
                hand += 1
            redealing = False
            deals.setdefault(hand, []).append(payload["hands"])
        elif payload["type"] == "claim_redeal":
            redealing = True
        elif payload["type"] == "play":
            plays.add((hand, payload["seat"], payload["tile"]))
    return deals, plays


def record_facts(lines: list[dict]) -> set[tuple[int, int, str]]:
    """(hand, seat, tile) facts of a record's or event log's events, in order."""
    facts: set[tuple[int, int, str]] = set()
    hand, redealing = 0, False
    for event in lines:
        if event.get("type") == "deal":
            if not redealing:
                hand += 1
            redealing = False
            for seat, tiles in (event.get("hands") or {}).items():
                for tile in tiles or ():
                    facts.add((hand, int(seat), tile))
        elif event.get("type") == "claim_redeal":
            redealing = True
        elif event.get("type") == "play" and event.get("tile"):
            facts.add((hand, int(event["seat"]), event["tile"]))
    return facts


def view_facts(view: dict, own_seat: int | None) -> set[tuple[int, int, str]]:
    """(hand, seat, tile) facts of a seat's or a spectator's view."""
    facts: set[tuple[int, int, str]] = set()
    hand = view.get("hand_no")
    if isinstance(hand, int):
        for entry in list(view.get("line") or []) + list(view.get("turns") or []):
            if isinstance(entry, dict) and entry.get("tile") and entry.get("seat"):
                facts.add((hand, int(entry["seat"]), entry["tile"]))
        if own_seat is not None:
            for tile in view.get("hand") or []:
                facts.add((hand, own_seat, tile))
    last = view.get("last_hand")
    if isinstance(last, dict) and isinstance(last.get("hand_no"), int):
        for key in ("dealt", "hands"):
            for seat, tiles in (last.get(key) or {}).items():
                for tile in tiles or ():
                    facts.add((last["hand_no"], int(seat), tile))
    return facts


def facts_in(body) -> set[tuple[int, int, str]]:
    """Every deal fact found anywhere in a JSON answer: views (nested anywhere), event
    lists, records."""
    found: set[tuple[int, int, str]] = set()

    def walk(node, own_seat=None):
        if isinstance(node, dict):
            if "hand_no" in node and ("line" in node or "last_hand" in node):
                found.update(view_facts(node, node.get("seat") if "hand" in node else None))
            elif isinstance(node.get("hand_no"), int):  # a hand's summary
                found.update(view_facts({"last_hand": node}, None))
            if isinstance(node.get("events"), list):
                events = [e.get("event", e) for e in node["events"] if isinstance(e, dict)]
                found.update(record_facts(events))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(body)
    return found


def matches_named(body) -> set[int]:
    """The ids of the matches an answer names (a match's answer, or a row naming one)."""
    named: set[int] = set()

    def walk(node):
        if isinstance(node, dict):
            if "table" in node and isinstance(node.get("id"), int):
                named.add(node["id"])
            if isinstance(node.get("match"), int):
                named.add(node["match"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(body)
    return named


def jsonl_facts(text: str) -> set[tuple[int, int, str]]:
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    if lines and isinstance(lines[0].get("events"), list):  # a season's NDJSON export
        return set().union(*(record_facts(line["events"]) for line in lines))
    return record_facts(lines)


class Moment:
    """The round's deals at one moment: what is still secret somewhere, and what each
    seated reader knows at their own table."""

    def __init__(self, tables):
        self.logs = {t.pk: table_log(t) for t in tables}
        self.state = {t.pk: projection.project(t) for t in tables}
        every: set[tuple[int, int, str]] = set()
        for deals, _plays in self.logs.values():
            for hand, hand_deals in deals.items():
                for hands in hand_deals:
                    for seat, tiles in hands.items():
                        every.update((hand, int(seat), tile) for tile in tiles)
        # secret: a fact of a hand that has not ended at some table of the round
        self.secret = {f for f in every if any(not self.public_at(pk, f[0]) for pk in self.logs)}

    def public_at(self, table_id: int, hand: int) -> bool:
        match = self.state[table_id].match
        return match.phase == "match_over" or hand <= match.hands_finished

    def known(self, seat) -> set[tuple[int, int, str]]:
        """What the holder of ``seat`` (a Seat row, or None) knows at their own table: the
        hands ended there, their own tiles and every tile played in the hand in play."""
        if seat is None:
            return set()
        deals, plays = self.logs[seat.table_id]
        current = self.state[seat.table_id].match.hands_finished + 1
        known = {p for p in plays if p[0] == current}
        for hand, hand_deals in deals.items():
            if self.public_at(seat.table_id, hand):
                for hands in hand_deals:
                    for s, tiles in hands.items():
                        known.update((hand, int(s), t) for t in tiles)
            elif hand == current:  # their own tiles, in a deal voided by a redeal too
                for hands in hand_deals:
                    known.update((hand, seat.number, t) for t in hands[str(seat.number)])
        return known

    def leaked(self, facts, seat) -> set[tuple[int, int, str]]:
        return (facts & self.secret) - self.known(seat)


# -- the readers ---------------------------------------------------------------------------
class Reader:
    def __init__(self, name, user=None):
        self.name, self.user = name, user
        self.api = client_for(user) if user is not None else APIClient()
        self.web = Client()
        if user is not None:
            self.web.force_login(user)

    def seat_at(self, table):
        if self.user is None:
            return None
        return Seat.objects.filter(table=table, player=self.user).first()


def same_as_unknown(reader, path, real, fake, *, web=False):
    """The answer to ``path`` naming ``real`` is the answer naming ``fake``, which does not
    exist (the status, and for the API the body with the one name swapped)."""
    client = reader.web if web else reader.api
    got = client.get(path.format(real))
    unknown = client.get(path.format(fake))
    assert got.status_code == unknown.status_code, (reader.name, path.format(real), got.content)
    if not web and unknown["Content-Type"].startswith("application/json"):
        named = re.sub(rf"\b{re.escape(str(real))}\b", str(fake), got.content.decode())
        assert named == unknown.content.decode(), (reader.name, path, named)
    return got


async def spectator_close_code(token, code) -> int | None:
    ws = WebsocketCommunicator(
        application,
        f"/ws/tables/{code}/spectate",
        headers=[(b"authorization", f"Token {token}".encode())],
    )
    await ws.connect()
    try:
        message = await ws.receive_output(timeout=5)
    finally:
        await ws.disconnect()
    return message.get("code") if message["type"] == "websocket.close" else None


class Round2:
    """A duplicate round of two tables with every kind of reader."""

    def __init__(self):
        league = DuplicateLeague(members=8)
        playing_organizer = league.members[0]
        answer = league.org_api.patch(
            league.url(f"/members/{playing_organizer.username}"),
            {"role": "organizer"},
            format="json",
        )
        assert answer.status_code == 200, answer.content
        league.start_round()
        outsider = new_member("out")
        add_member(league.club, league.org_api, outsider)
        self.league = league
        self.fast, self.slow = LeagueMatch.objects.filter(season_id=league.season).order_by(
            "table_number"
        )
        fast_players = [s.player for s in self.fast.seats.order_by("number")]
        slow_players = [s.player for s in self.slow.seats.order_by("number")]
        pick = lambda players: next(p for p in players if p != playing_organizer)  # noqa: E731
        self.readers = [
            Reader("anonymous"),
            Reader("member outside the round", outsider),
            Reader("organizer overseeing", league.organizer),
            Reader("organizer playing", playing_organizer),
            Reader("player at the fast table", pick(fast_players)),
            Reader("player at the slow table", pick(slow_players)),
        ]
        self.slug = league.club.slug

    @property
    def matches(self):
        return [self.fast, self.slow]

    def check_tables(self, moment: Moment, full: bool) -> None:
        for m in self.matches:
            code = m.table.code
            version = moment.state[m.table_id].version
            for r in self.readers:
                seat = r.seat_at(m.table)
                # spectating: nobody, however asked, with the unknown code's answer
                same_as_unknown(r, "/api/tables/{}/spectate", code, UNKNOWN_CODE)
                if seat is not None:
                    own = r.api.get(f"/api/tables/{code}/seats/{seat.number}")
                    assert own.status_code == 200
                    self.scan(r, moment, own, seat)
                if not full:
                    continue
                same_as_unknown(
                    r,
                    "/api/tables/{}/spectate?wait=0.2&after=" + str(version - 1),
                    code,
                    UNKNOWN_CODE,
                )
                same_as_unknown(r, "/tables/{}/watch", code, UNKNOWN_CODE, web=True)
                for path in ("/api/tables/{}", "/api/tables/{}/record"):
                    if seat is None:
                        same_as_unknown(r, path, code, UNKNOWN_CODE)
                    else:
                        self.scan(r, moment, r.api.get(path.format(code)), seat)
                if seat is not None:
                    self.scan(
                        r, moment, r.api.get(f"/api/tables/{code}/seats/{seat.number}/events"), seat
                    )
                for path in ("/tables/{}/replay", "/tables/{}/record"):
                    if seat is None:
                        same_as_unknown(r, path, code, UNKNOWN_CODE, web=True)
                drawn = r.user is not None and m.seats.filter(player=r.user).exists()
                overseer = r.name == "organizer overseeing"
                for path in (
                    "/api/matches/{}",
                    "/api/matches/{}/record",
                    "/api/matches/{}/hands",
                    "/api/matches/{}/analysis",
                ):
                    if drawn or overseer:
                        self.scan(r, moment, r.api.get(path.format(m.pk)), seat)
                    else:
                        same_as_unknown(r, path, m.pk, UNKNOWN_MATCH)
                if not (drawn or overseer):
                    for path in ("/matches/{}", "/matches/{}/record"):
                        same_as_unknown(r, path, m.pk, UNKNOWN_MATCH, web=True)

    def check_lists(self, moment: Moment) -> None:
        league = self.league
        season = league.season
        for r in self.readers:
            if r.name == "organizer overseeing":
                continue  # sees every table of the round listed, by design (docs/league.md)
            hidden = [
                m
                for m in self.matches
                if not (r.user is not None and m.seats.filter(player=r.user).exists())
                and r.name != "organizer overseeing"
            ]
            seat = next((s for m in self.matches if (s := r.seat_at(m.table))), None)
            api_lists = [
                f"/api/matches?club={self.slug}",
                "/api/matches?status=playing",
                f"/api/matches?status=finished&club={self.slug}",
                league.season_url("/rounds/1/tables"),
                league.season_url("/rounds/1"),
                league.season_url("/standings"),
                league.url("/ratings"),
            ]
            for m in self.matches:  # one player of each table, drawn at random
                for s in m.seats.order_by("?")[:1]:
                    api_lists += [
                        f"/api/players/{s.player.username}",
                        f"/api/players/{s.player.username}/stats",
                    ]
            for path in api_lists:
                answer = r.api.get(path)
                if answer.status_code != 200:
                    continue
                self.scan(r, moment, answer, seat)
                text = json.dumps(answer.json())
                named = matches_named(answer.json())
                for m in hidden:
                    assert m.table.code not in text, (r.name, path)
                    assert m.pk not in named, (r.name, path)
            pages = [
                f"/clubs/{self.slug}/",
                f"/clubs/{self.slug}/seasons/{season}/crosstable",
                f"/clubs/{self.slug}/seasons/{season}/rounds/1",
                f"/clubs/{self.slug}/seasons/{season}/rounds/1/deals",
                f"/clubs/{self.slug}/standings?season={season}",
                "/matches/",
                "/",
            ]
            for m in self.matches:
                pages += [f"/players/{s.player.username}" for s in m.seats.order_by("?")[:1]]
            for path in pages:
                page = r.web.get(path)
                if page.status_code != 200:
                    continue
                text = page.content.decode()
                for m in hidden:
                    assert m.table.code not in text, (r.name, path)
                    assert f'/matches/{m.pk}"' not in text, (r.name, path)
            export = r.web.get(f"/clubs/{self.slug}/seasons/{season}/records.ndjson")
            if export.status_code == 200:
                text = b"".join(export.streaming_content).decode()
                assert not moment.leaked(jsonl_facts(text), seat), (r.name, "records.ndjson")
                for m in hidden:
                    assert m.table.code not in text

    def scan(self, reader, moment: Moment, answer, seat) -> None:
        if answer.status_code != 200:
            return
        kind = answer.get("Content-Type", "")
        if kind.startswith("text/plain"):
            facts = jsonl_facts(answer.content.decode())
        else:
            facts = facts_in(answer.json())
        leaked = moment.leaked(facts, seat)
        assert not leaked, (reader.name, answer.request["PATH_INFO"], sorted(leaked)[:5])


def play_slowly(table, rng: random.Random, moves: int, *, finish: bool) -> None:
    """``moves`` random legal moves at ``table``, but not the one that would end its
    match unless ``finish``."""
    seats = {s.number: s.player for s in Seat.objects.filter(table=table).select_related("player")}
    for _ in range(moves):
        state = projection.project(table)
        if state.match.phase == "match_over":
            return
        number = next(n for n in (1, 2, 3, 4) if state.match.legal_events(n))
        event = rng.choice(state.match.legal_events(number))
        if not finish:
            trial = state.match.copy()
            trial.apply(event)
            while trial.phase == "play" and (forced := trial.forced_pass()) is not None:
                trial.apply(forced)  # the passes the server adds after the move
            if trial.phase == "match_over":
                return
        body = {k: v for k, v in event.items() if k != "seat"}
        body["expected_version"] = state.version
        table_services.do_action(
            user=seats[number], table=table, seat=number, action=body, key=None
        )


def test_a_duplicate_round_is_watched_by_no_one_and_its_tables_show_nowhere_until_it_ends():
    r = Round2()
    rng_fast, rng_slow = random.Random(11), random.Random(12)
    tables = [r.fast.table, r.slow.table]
    club_version = Client().get(f"/clubs/{r.slug}/live").json()
    moments, full_moments, ended_before, ahead, fast_alone_over = 0, 0, 0, 0, 0
    while True:
        # the fast table plays two to three times as many moves as the slow one, and the
        # slow one does not end its match before the fast one has
        # (its last move waits for a moment after the fast table's end)
        fast_was_over = projection.project(r.fast.table).match.phase == "match_over"
        play_out(r.fast.table, rng_fast, stop_after=rng_fast.randint(20, 30))
        play_slowly(r.slow.table, rng_slow, rng_slow.randint(9, 13), finish=fast_was_over)
        fast = projection.project(r.fast.table).match
        # every path at the fast table's hand ends (its last hand shown there, not yet
        # here) and now and then; the table paths at every moment
        # (four of its hand ends, and its first moment over alone: each read is ~100)
        alone = fast.phase == "match_over" and not fast_alone_over
        full = (fast.hands_finished != ended_before and full_moments < 4) or alone
        ended_before = fast.hands_finished
        moment = Moment(tables)
        if all(state.match.phase == "match_over" for state in moment.state.values()):
            break  # the round is over
        slow = moment.state[r.slow.table.pk].match
        ahead += fast.hands_finished > slow.hands_finished
        r.check_tables(moment, full)
        if full:
            r.check_lists(moment)
            full_moments += 1
        moments += 1
        if fast.phase == "match_over" and moment.state[r.slow.table.pk].match.phase != "match_over":
            # the fast table is over, the round is not: the club's live pages wait on
            fast_alone_over += 1
            assert Client().get(f"/clubs/{r.slug}/live").json() == club_version
    assert Round.objects.get(season_id=r.league.season, number=1).status == "finished"
    # the moments that matter were met: the fast table a hand ahead, then over alone
    assert ahead >= 1 and fast_alone_over >= 1 and full_moments >= 2, (ahead, fast_alone_over)
    # once over, the tables open as any other: watched, read, listed
    for m in r.matches:
        assert APIClient().get(f"/api/tables/{m.table.code}/spectate").status_code == 200
        assert APIClient().get(f"/api/matches/{m.pk}/record").status_code == 200
        assert APIClient().get(f"/tables/{m.table.code}/watch").status_code == 200


def test_no_spectator_socket_reaches_a_live_duplicate_table_not_even_one_opened_before():
    r = Round2()
    users = [x.user for x in r.readers if x.user is not None]
    for m in r.matches:
        for user in users:
            token = token_for(user)
            assert async_to_sync(spectator_close_code)(token, m.table.code) == 4404
            assert async_to_sync(spectator_close_code)(token, UNKNOWN_CODE) == 4404
    # A socket opened while the table could be watched (before the hiding applied: a
    # round row read as not yet started) is closed at the table's next change, and no
    # frame of the live table reaches it.
    table = r.slow.table
    round_ = Round.objects.get(season_id=r.league.season, number=1)
    spectate.forget_frames()

    async def scenario():
        await database(lambda: Round.objects.filter(pk=round_.pk).update(status="open"))()
        ws = WebsocketCommunicator(
            application,
            f"/ws/tables/{table.code}/spectate",
            headers=[(b"authorization", f"Token {token}".encode())],
        )
        assert (await ws.connect())[0]
        first = json.loads(await ws.receive_from(timeout=5))
        assert first["type"] == "view"
        await database(lambda: Round.objects.filter(pk=round_.pk).update(status="started"))()
        await database(lambda: play_out(table, random.Random(3), stop_after=3))()
        seen = []
        while True:
            message = await ws.receive_output(timeout=10)
            if message["type"] == "websocket.close":
                return first, seen, message["code"]
            seen.append(message)

    token = token_for(r.league.organizer)
    first, seen, code = async_to_sync(scenario)()
    assert code == 4404
    assert not [m for m in seen if '"view"' in m.get("text", "")], seen
    assert spectate.cached_frame(table.pk, projection.project(table).version) is None
