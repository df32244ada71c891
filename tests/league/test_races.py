"""League writes under concurrency (issue 20): two live server processes on one
PostgreSQL database (Redis for their notices and rate-limit counts), each answering
several requests at once, and requests fired together behind a barrier, half to each.

Each scenario is repeated ``DEKABES_RACE_RUNS`` times (default 8); a run is *bad* when
an answer is a 5xx or the database ends in a state the docs rule out. Before the league's
writes locked the club row (``server.league.actions``) most runs of each were bad.
"""

from __future__ import annotations

import os
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit, urlunsplit

import pytest
import requests

from tests.conftest import LiveServer

pytestmark = [
    pytest.mark.backend,
    pytest.mark.skipif(
        not (
            os.environ.get("DATABASE_URL", "").startswith("postgres")
            and os.environ.get("REDIS_URL")
        ),
        reason="races are tested on PostgreSQL + Redis (DATABASE_URL, REDIS_URL)",
    ),
]

PASSWORD = "a long enough password 42"
RUNS = int(os.environ.get("DEKABES_RACE_RUNS", "8"))


def _with_db(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + name))


@pytest.fixture(scope="module")
def pg():
    """A private database for the two servers (dropped at the end)."""
    import psycopg

    base = os.environ["DATABASE_URL"]
    name = f"races_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(base, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield _with_db(base, name)
    finally:
        with psycopg.connect(base, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="module")
def servers(pg, tmp_path_factory):
    env = {
        "DATABASE_URL": pg,
        "REDIS_URL": os.environ["REDIS_URL"],
        "DEKABES_CHANNEL_PREFIX": f"r{uuid.uuid4().hex[:8]}",
        "DEKABES_HTTP_THREADS": "4",
        "DEKABES_LOG_LEVEL": "ERROR",
        "DEKABES_MAX_TABLES": "1000",
        "DEKABES_MAX_BOTS": "1000",
    }
    started = []
    try:
        for name in ("a", "b"):
            started.append(LiveServer(tmp_path_factory.mktemp(name), env=env).start())
        yield [s.url for s in started]
    finally:
        for server in started:
            server.stop()


def sql(pg: str, query: str, *args) -> list[tuple]:
    import psycopg

    with psycopg.connect(pg) as conn:
        return conn.execute(query, args).fetchall()


class League:
    """Accounts and clubs made over HTTP, requests fired together at both servers."""

    def __init__(self, urls: list[str]):
        self.urls = urls
        self.tokens: dict[str, str] = {}

    def call(self, method: str, path: str, who: str | None, body=None, server: int = 0):
        headers = {"Connection": "close"}
        if who is not None:
            headers["Authorization"] = f"Token {self.tokens[who]}"
        return requests.request(
            method, self.urls[server % 2] + path, json=body, headers=headers, timeout=120
        )

    def ok(self, method: str, path: str, who: str | None, body=None, status=(200, 201)):
        response = self.call(method, path, who, body)
        assert response.status_code in status, (path, response.status_code, response.text)
        return response.json()

    def people(self, n: int) -> list[str]:
        names = [f"p{uuid.uuid4().hex[:10]}" for _ in range(n)]
        with ThreadPoolExecutor(2) as pool:
            answers = list(
                pool.map(
                    lambda i: self.call(
                        "POST",
                        "/api/auth/register",
                        None,
                        {"username": names[i], "password": PASSWORD},
                        server=i,
                    ),
                    range(n),
                )
            )
        for name, answer in zip(names, answers, strict=True):
            assert answer.status_code == 201, answer.text
            self.tokens[name] = answer.json()["token"]
        return names

    def club(self, organizer: str, members: list[str], visibility="public") -> str:
        slug = f"c{uuid.uuid4().hex[:12]}"
        self.ok("POST", "/api/clubs", organizer, {"slug": slug, "name": slug})
        if members:
            code = self.ok("POST", f"/api/clubs/{slug}/invites", organizer, {})["code"]
            for m in members:
                self.ok("POST", f"/api/clubs/{slug}/join", m, {"code": code})
        return slug

    def fire(self, calls: list[tuple]) -> list[requests.Response]:
        """Every ``(method, path, who, body)`` at once, alternately to each server."""
        barrier = threading.Barrier(len(calls))

        def one(i: int):
            method, path, who, body = calls[i]
            barrier.wait(60)
            return self.call(method, path, who, body, server=i)

        with ThreadPoolExecutor(len(calls)) as pool:
            return list(pool.map(one, range(len(calls))))


@pytest.fixture(scope="module")
def league(servers):
    return League(servers)


def codes(answers: list[requests.Response]) -> list:
    out = []
    for r in answers:
        try:
            out.append((r.status_code, r.json().get("code")))
        except ValueError:
            out.append((r.status_code, None))
    return sorted(out, key=str)


def server_errors(answers) -> int:
    return sum(r.status_code >= 500 for r in answers)


def test_a_single_use_invite_admits_one_person(league, pg):
    organizer, *joiners = league.people(7)
    slug = league.club(organizer, [])
    bad = []
    for _ in range(RUNS):
        code = league.ok("POST", f"/api/clubs/{slug}/invites", organizer, {"single_use": True})[
            "code"
        ]
        answers = league.fire(
            [("POST", f"/api/clubs/{slug}/join", j, {"code": code}) for j in joiners]
        )
        admitted = [r for r in answers if r.status_code == 201]
        (uses,) = sql(pg, "SELECT uses FROM league_invite WHERE code = %s", code)[0]
        others = {c for c in codes(answers) if c[0] != 201}
        if len(admitted) != 1 or uses != 1 or others - {(409, "invite_used")}:
            bad.append((codes(answers), uses))
        for r in admitted:  # the next run starts with the same outsiders
            name = r.json()["username"]
            league.ok("DELETE", f"/api/clubs/{slug}/members/{name}", organizer)
            league.ok("DELETE", f"/api/clubs/{slug}/removed/{name}", organizer)  # allowed back
    assert not bad, f"{len(bad)} of {RUNS} runs bad: {bad}"


def test_two_organizers_demoting_or_removing_each_other_leave_one(league, pg):
    bad = []
    for run in range(RUNS):
        first, second = league.people(2)
        slug = league.club(first, [second])
        league.ok("PATCH", f"/api/clubs/{slug}/members/{second}", first, {"role": "organizer"})
        if run % 2 == 0:
            calls = [
                ("PATCH", f"/api/clubs/{slug}/members/{second}", first, {"role": "member"}),
                ("PATCH", f"/api/clubs/{slug}/members/{first}", second, {"role": "member"}),
            ]
        else:
            calls = [
                ("DELETE", f"/api/clubs/{slug}/members/{second}", first, None),
                ("DELETE", f"/api/clubs/{slug}/members/{first}", second, None),
            ]
        answers = league.fire(calls)
        (organizers,) = sql(
            pg,
            "SELECT count(*) FROM league_membership m JOIN league_club c ON m.club_id = c.id"
            " WHERE c.slug = %s AND m.active AND m.role = 'organizer'",
            slug,
        )[0]
        # Overlapping: the second is refused last_organizer; one finished before the
        # other began: the second comes from a member (organizer_only) or an ex-member.
        refused = {(409, "last_organizer"), (403, "organizer_only"), (403, "not_a_member")}
        ok, loser = codes(answers)[0], codes(answers)[1:]
        if organizers != 1 or ok != (200, None) or not set(loser) <= refused:
            bad.append((codes(answers), organizers))
    assert not bad, f"{len(bad)} of {RUNS} runs bad: {bad}"


def test_a_pair_is_registered_once(league, pg):
    organizer, *members = league.people(1 + 2 * RUNS)
    slug = league.club(organizer, members)
    season = league.ok(
        "POST", f"/api/clubs/{slug}/seasons", organizer, {"name": "S", "format": "pairs"}
    )["id"]
    bad = []
    for run in range(RUNS):
        players = members[2 * run : 2 * run + 2]
        path = f"/api/clubs/{slug}/seasons/{season}/pairs"
        answers = league.fire([("POST", path, organizer, {"players": players})] * 10)
        (pairs,) = sql(
            pg,
            "SELECT count(*) FROM league_pair p JOIN accounts_user u ON p.player_1_id = u.id"
            " WHERE p.season_id = %s AND u.username = %s",
            season,
            players[0],
        )[0]
        created = sum(r.status_code == 201 for r in answers)
        others = {c for c in codes(answers) if c[0] != 201}
        if created != 1 or pairs != 1 or others - {(409, "already_in_pair")}:
            bad.append((codes(answers), pairs))
    assert not bad, f"{len(bad)} of {RUNS} runs bad: {bad}"


def test_a_check_in_racing_the_round_start_is_before_it_or_refused(league, pg):
    organizer, *members = league.people(6)
    slug = league.club(organizer, members)
    bad = []
    for run in range(RUNS):
        season = league.ok(
            "POST",
            f"/api/clubs/{slug}/seasons",
            organizer,
            {"name": f"S{run}", "format": "individual"},
        )["id"]
        base = f"/api/clubs/{slug}/seasons/{season}/rounds"
        league.ok("POST", base, organizer, {})
        league.ok("POST", f"{base}/1/checkin", organizer, {"players": members[:4]})
        answers = league.fire(
            [
                ("POST", f"{base}/1/start", organizer, {}),
                ("POST", f"{base}/1/checkin", organizer, {"players": members[:5]}),
            ]
        )
        present, seated, byes = sql(
            pg,
            "SELECT (SELECT count(*) FROM league_checkin c WHERE c.round_id = r.id),"
            " (SELECT count(*) FROM league_leaguematchseat s JOIN league_leaguematch m"
            "   ON s.match_id = m.id WHERE m.round_id = r.id),"
            " (SELECT count(*) FROM league_checkin c WHERE c.round_id = r.id AND c.bye)"
            " FROM league_round r WHERE r.season_id = %s AND r.number = 1",
            season,
        )[0]
        start, checkin = answers
        fine = start.status_code == 200 and (
            (checkin.status_code == 200 and (present, seated, byes) == (5, 4, 1))
            or (
                checkin.status_code == 409
                and checkin.json()["code"] == "round_started"
                and (present, seated, byes) == (4, 4, 0)
            )
        )
        if not fine:
            bad.append((codes(answers), present, seated, byes))
    assert not bad, f"{len(bad)} of {RUNS} runs bad: {bad}"


def test_parallel_round_opens_open_one_round(league, pg):
    """One open round at a time (issue #33): six clicks of New round at once open round 1
    once; the others answer 409 round_open."""
    (organizer,) = league.people(1)
    slug = league.club(organizer, [])
    bad = []
    for run in range(RUNS):
        season = league.ok(
            "POST", f"/api/clubs/{slug}/seasons", organizer, {"name": f"S{run}", "format": "pairs"}
        )["id"]
        path = f"/api/clubs/{slug}/seasons/{season}/rounds"
        answers = league.fire([("POST", path, organizer, {})] * 6)
        numbers = sorted(r.json()["number"] for r in answers if r.status_code == 201)
        others = {c for c in codes(answers) if c[0] != 201}
        opened = sql(pg, "SELECT count(*) FROM league_round WHERE season_id = %s", season)[0][0]
        if (
            server_errors(answers)
            or numbers != [1]
            or others - {(409, "round_open")}
            or opened != 1
        ):
            bad.append(codes(answers))
    assert not bad, f"{len(bad)} of {RUNS} runs bad: {bad}"


def test_parallel_joins_of_one_account_admit_it_once(league, pg):
    organizer, joiner = league.people(2)
    slug = league.club(organizer, [])
    code = league.ok("POST", f"/api/clubs/{slug}/invites", organizer, {})["code"]
    bad = []
    for _ in range(RUNS):
        answers = league.fire([("POST", f"/api/clubs/{slug}/join", joiner, {"code": code})] * 6)
        created = sum(r.status_code == 201 for r in answers)
        others = {c for c in codes(answers) if c[0] != 201}
        if created != 1 or others - {(409, "already_member")}:
            bad.append(codes(answers))
        league.ok("DELETE", f"/api/clubs/{slug}/members/{joiner}", organizer)
        league.ok("DELETE", f"/api/clubs/{slug}/removed/{joiner}", organizer)  # allowed back
    assert not bad, f"{len(bad)} of {RUNS} runs bad: {bad}"


def test_parallel_entries_of_one_bot_enter_it_once(league, pg):
    organizer, owner = league.people(2)
    slug = league.club(organizer, [owner])
    bad = []
    for _ in range(RUNS):
        bot = league.ok("POST", "/api/bots", owner, {"name": f"b{uuid.uuid4().hex[:10]}"})
        answers = league.fire(
            [("POST", f"/api/clubs/{slug}/members", owner, {"bot": bot["username"]})] * 6
        )
        created = sum(r.status_code == 201 for r in answers)
        others = {c for c in codes(answers) if c[0] != 201}
        if created != 1 or others - {(409, "already_member")}:
            bad.append(codes(answers))
    assert not bad, f"{len(bad)} of {RUNS} runs bad: {bad}"


def test_bots_joining_the_ladder_at_once_make_one_ladder(league, pg):
    """The ladder is made by the first bot's opt-in: six at once, half to each server, all
    answer 200 and there is one ladder, one house account and one anchor per level (a
    loser of the race got 409 username_taken, and its runner stopped for good)."""
    owners = league.people(6)
    bots = [
        league.ok("POST", "/api/bots", owner, {"name": f"b{uuid.uuid4().hex[:10]}"})["username"]
        for owner in owners
    ]
    answers = league.fire(
        [
            ("POST", f"/api/ladder/bots/{bot}", owner, {"version": "1.0"})
            for bot, owner in zip(bots, owners, strict=True)
        ]
    )
    assert codes(answers) == [(200, None)] * 6, codes(answers)
    assert sql(pg, "SELECT COUNT(*) FROM ladder_ladder") == [(1,)]
    anchors = sql(
        pg,
        "SELECT house_level, COUNT(*) FROM ladder_entry WHERE house_level <> '' "
        "GROUP BY house_level",
    )
    assert anchors and all(count == 1 for _, count in anchors), anchors
    entrants = sql(pg, "SELECT COUNT(*) FROM ladder_entry WHERE house_level = '' AND active")
    assert entrants == [(6,)]
