"""``make bench-league`` (``python -m bench.league_reads``): server time of the league's
heaviest reads.

A temporary SQLite database gets one public club with ``--matches`` finished rated matches
(default 10,000) among ``--players`` players in one season, their seats, the ratings
history (one point per player per match, rated in finish order with ``ratings.py``) and
the stored standings (``projections.rebuild_standings``). Then, in this process, Django's
test client calls the URLs the users call and times each request from the handler's
entry to the full response (no network):

* ``GET /api/clubs/bench/seasons/{id}/standings`` — the standings, first page;
* ``GET /api/players/{username}`` — a player's clubs, ratings **with their full
  history** and recent matches;
* ``GET /api/clubs/bench/ratings`` — the club's ratings, first page;
* ``GET /api/matches?club=bench`` — the match list (first page, a deep page, and
  filtered by player).

Each URL is requested ``--repeat`` times after a warm-up, anonymously and as a member.
Prints wall-clock p50/max and CPU p50 in milliseconds, the SQL queries per request and
the response size, then one JSON object. The goal is 50 ms or less per request (exit
status 1 when a wall-clock p50 is over it); on a busy machine the CPU figures are the
ones to compare, wall times there include waiting for a core.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

GOAL_MS = 50.0


def setup_django(workdir: Path) -> None:
    for name in ("DATABASE_URL", "REDIS_URL"):
        os.environ.pop(name, None)
    os.environ.update(
        {
            "DEKABES_VAR_DIR": str(workdir),
            "DEKABES_SQLITE_PATH": str(workdir / "bench.sqlite3"),
            "DEKABES_LOG_LEVEL": "WARNING",
            "DJANGO_SETTINGS_MODULE": "server.settings",
            # Django's test client calls itself "testserver"; outside pytest nothing adds
            # that name to ALLOWED_HOSTS, and every request answered 400.
            "DJANGO_ALLOWED_HOSTS": "testserver",
        }
    )
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def populate(n_matches: int, n_players: int, n_bots: int, seed: int) -> dict:
    """Rows as the projections would have written them after ``n_matches`` matches."""
    from django.db import transaction

    from server.accounts.models import User
    from server.league import projections
    from server.league import ratings as rating_model
    from server.league.models import (
        CheckIn,
        Club,
        LeagueMatch,
        LeagueMatchSeat,
        Membership,
        Rating,
        RatingPoint,
        Round,
        Season,
        StandingRow,
    )
    from server.tables.models import Table

    rng = random.Random(seed)
    with transaction.atomic():
        users = User.objects.bulk_create(
            [
                User(username=f"bench{i:03}", password="!", is_bot=i >= n_players - n_bots)
                for i in range(n_players)
            ]
        )
        organizer = users[0]
        club = Club.objects.create(
            slug="bench", name="Bench club", visibility="public", created_by=organizer
        )
        Membership.objects.bulk_create(
            [
                Membership(club=club, user=u, role="organizer" if u is organizer else "member")
                for u in users
            ]
        )
        season = Season.objects.create(
            club=club, name="Bench season", format="individual", seed=seed
        )
        per_round = n_players // 4
        n_rounds = -(-n_matches // per_round)
        start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
        rounds = Round.objects.bulk_create(
            [
                Round(
                    season=season,
                    number=n + 1,
                    status="finished",
                    started_at=start + dt.timedelta(hours=n),
                )
                for n in range(n_rounds)
            ]
        )
        # everybody present at every round: the standings list the checked-in players
        CheckIn.objects.bulk_create(
            [CheckIn(round=r, player=u) for r in rounds for u in users], batch_size=2000
        )
        tables = Table.objects.bulk_create(
            [
                Table(code=f"B{i:07d}", owner=organizer, rated=True, secret_seed="0" * 64)
                for i in range(n_matches)
            ]
        )
        matches, seatings = [], []
        for i, table in enumerate(tables):
            number = i % per_round
            if number == 0:
                order = list(users)
                rng.shuffle(order)
            seats = order[4 * number : 4 * number + 4]
            round_ = rounds[i // per_round]
            matches.append(_finished_match(rng, table, club, season, round_, number + 1))
            seatings.append(seats)
        matches = LeagueMatch.objects.bulk_create(matches)
        LeagueMatchSeat.objects.bulk_create(
            [
                LeagueMatchSeat(
                    match=m, number=n, player=p, team="A" if n in (1, 3) else "B", is_bot=p.is_bot
                )
                for m, seats in zip(matches, seatings, strict=True)
                for n, p in zip((1, 2, 3, 4), seats, strict=True)
            ]
        )
        current: dict = {}
        points = []
        for m, seats in zip(matches, seatings, strict=True):
            team_a, team_b = (seats[0].pk, seats[2].pk), (seats[1].pk, seats[3].pk)
            new = rating_model.rate_match(current, team_a, team_b, projections.decided(m))
            current.update(new)
            points += [
                RatingPoint(
                    club=club, player_id=p, match=m, mu=r.mu, sigma=r.sigma, ordinal=r.ordinal
                )
                for p, r in sorted(new.items())
            ]
        RatingPoint.objects.bulk_create(points, batch_size=2000)
        played = {u.pk: 0 for u in users}
        for seats in seatings:
            for p in seats:
                played[p.pk] += 1
        Rating.objects.bulk_create(
            [
                Rating(
                    club=club,
                    player_id=p,
                    mu=r.mu,
                    sigma=r.sigma,
                    ordinal=r.ordinal,
                    matches=played[p],
                )
                for p, r in sorted(current.items())
            ]
        )
        projections.rebuild_standings(season)
        if StandingRow.objects.filter(season=season).count() != n_players:
            raise SystemExit("the stored standings do not list every player: bench data wrong")
    return {"club": club, "season": season, "users": users}


def _finished_match(rng, table, club, season, round_, number):
    from server.league.models import LeagueMatch

    winner = rng.choice("AB")
    hands_won = {"A": rng.randint(0, 3), "B": rng.randint(0, 3)}
    hands_won[winner] = rng.randint(2, 4)
    tied = rng.randint(0, 2)
    points = {t: hands_won[t] + rng.randint(0, 1) for t in "AB"}
    points[winner] = max(points[winner], 4)
    started = round_.started_at + dt.timedelta(seconds=number)
    return LeagueMatch(
        table=table,
        club=club,
        season=season,
        round=round_,
        table_number=number,
        rated=True,
        started_at=started,
        status="finished",
        finished_at=started + dt.timedelta(minutes=20 + number),
        end_seq=200,
        winner=winner,
        score_a=4 if winner == "A" else rng.randint(0, 3),
        score_b=4 if winner == "B" else rng.randint(0, 3),
        hands=hands_won["A"] + hands_won["B"] + tied,
        hands_won_a=hands_won["A"],
        hands_won_b=hands_won["B"],
        hands_tied=tied,
        points_a=points["A"],
        points_b=points["B"],
        dekabes_a=rng.randint(0, 1),
        dekabes_b=rng.randint(0, 1),
    )


def measure(client, url: str, repeat: int) -> dict:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for _ in range(3):  # warm-up: imports, URL resolver, SQLite page cache
        _get(client, url)
    wall, cpu = [], []
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        response = _get(client, url)
        cpu.append((time.process_time() - c0) * 1000)
        wall.append((time.perf_counter() - w0) * 1000)
    with CaptureQueriesContext(connection) as queries:
        response = _get(client, url)
    return {
        "url": url,
        "p50_ms": round(statistics.median(wall), 2),
        "max_ms": round(max(wall), 2),
        "cpu_p50_ms": round(statistics.median(cpu), 2),
        "queries": len(queries),
        "bytes": len(response.content),
    }


def _get(client, url: str):
    response = client.get(url)
    if response.status_code != 200:
        raise SystemExit(f"{url}: HTTP {response.status_code} {response.content[:300]!r}")
    return response


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--players", type=int, default=40)
    parser.add_argument("--bots", type=int, default=8, help="of the players, house bots")
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.players < 4 or args.bots > args.players:
        parser.error("need at least 4 players, and no more bots than players")

    with tempfile.TemporaryDirectory(prefix="dk-league-bench-") as tmp:
        setup_django(Path(tmp))
        from django.db import connection
        from rest_framework.test import APIClient

        t0 = time.perf_counter()
        world = populate(args.matches, args.players, args.bots, args.seed)
        built_s = time.perf_counter() - t0
        season, users = world["season"], world["users"]
        player = users[1].username
        matches_pages = -(-args.matches // 50)
        urls = [
            f"/api/clubs/bench/seasons/{season.pk}/standings",
            f"/api/players/{player}",
            "/api/clubs/bench/ratings",
            "/api/matches?club=bench",
            f"/api/matches?club=bench&page={matches_pages // 2}",
            f"/api/matches?club=bench&player={player}",
        ]
        anonymous, member = APIClient(), APIClient()
        member.force_authenticate(users[2])
        results = []
        for who, client in (("anonymous", anonymous), ("member", member)):
            for url in urls:
                figure = measure(client, url, args.repeat)
                figure["as"] = who
                results.append(figure)
                ok = "ok  " if figure["p50_ms"] <= GOAL_MS else "over"
                cpu_ok = "ok  " if figure["cpu_p50_ms"] <= GOAL_MS else "over"
                print(
                    f"wall {ok} cpu {cpu_ok} {who:9} p50 {figure['p50_ms']:7.2f} ms  max {figure['max_ms']:7.2f}"
                    f"  cpu p50 {figure['cpu_p50_ms']:7.2f}  {figure['queries']:3} queries"
                    f"  {figure['bytes']:7} B  {url}",
                    flush=True,
                )
        connection.close()
    summary = {
        "matches": args.matches,
        "players": args.players,
        "repeat": args.repeat,
        "database": "sqlite (temporary file)",
        "build_s": round(built_s, 1),
        "goal_ms": GOAL_MS,
        "results": results,
    }
    print(json.dumps(summary))
    return 0 if all(r["p50_ms"] <= GOAL_MS for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
