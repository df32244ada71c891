"""``python -m bench.web_pages``: server time of the heaviest web pages, and the bytes
of a replay page.

1. A temporary SQLite database gets the league bench's club (``bench.league_reads``:
   ``--matches`` finished rated matches, default 10,000, their seats, ratings history and
   standings). Django's test client then renders, in this process, ``/clubs/bench/`` ,
   the season's last round page, the ratings leaderboard ``/clubs/bench/ratings``,
   ``/clubs/bench/standings``, ``/players/<one player>`` (chart over every rated match,
   partner and opponent records) and ``/matches/?club=bench``; each is timed from the
   handler's entry to the full response after a warm-up (wall p50/max and CPU p50, SQL
   queries, bytes).
2. A finished match of ``--hands`` hands (default 18), played by the engine's random
   bot with seeded shuffles, is stored as a table and its replay page fetched as its
   owner, plain and gzip-compressed; the page's stylesheet and script are counted too,
   and the CPU time of folding the record into frames (done once: the page caches it).

Prints one line per figure, then one JSON object.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
import tempfile
import time
from pathlib import Path


def finished_record(hands: int, seed: int) -> list[dict]:
    """Random legal play (``engine.autoplay``, seeded) until a match lasts ``hands`` hands."""
    from engine import Match
    from engine.autoplay import ALL_BOT_SEATS, autoplay, bot_players

    for attempt in range(100_000):
        rng = random.Random(seed * 1_000_003 + attempt)
        events: list[dict] = [
            {"type": "match_started", "seats": dict(ALL_BOT_SEATS), "rated": True}
        ]
        m = Match()
        m.apply(events[0])
        players = bot_players(
            ["random"] * 4, [random.Random(rng.getrandbits(64)) for _ in range(4)]
        )
        autoplay(m, players, rng, on_event=events.append, stop=lambda m: m.hand_no > hands)
        if m.phase == "match_over" and len(m.results) == hands:
            return events
    raise SystemExit(f"no {hands}-hand match found")


def store_table(events: list[dict]):
    from server.accounts.models import User
    from server.tables.models import Event, Seat, Table

    owner = User.objects.create_user("replayer", password="a long enough password 42")
    table = Table.objects.create(code="BENCH1", owner=owner, rated=True, secret_seed="x")
    Seat.objects.bulk_create(
        [
            Seat(
                table=table,
                number=n,
                kind="human" if n == 1 else "bot",
                player=owner if n == 1 else None,
            )
            for n in (1, 2, 3, 4)
        ]
    )
    Event.objects.bulk_create(
        [
            Event(table=table, seq=i + 1, type=e["type"], payload=e, actor_kind="server")
            for i, e in enumerate(events)
        ]
    )
    return table, owner


def static_text(path: str) -> bytes:
    from django.contrib.staticfiles import finders

    found = finders.find(path)
    if not isinstance(found, str):
        raise FileNotFoundError(path)
    return Path(found).read_bytes()


def static_bytes(path: str) -> int:
    return len(static_text(path))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--players", type=int, default=40)
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--hands", type=int, default=18)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="dk-web-bench-") as tmp:
        from bench import league_reads as league_bench

        league_bench.setup_django(Path(tmp))
        from django.db import connection
        from django.test import Client

        t0 = time.perf_counter()
        world = league_bench.populate(args.matches, args.players, args.bots, args.seed)
        built = time.perf_counter() - t0
        player = world["users"][1].username
        client = Client()
        results = []
        season = world["season"]
        last_round = season.rounds.order_by("-number").values_list("number", flat=True)[0]
        for url in (
            "/clubs/bench/",
            f"/clubs/bench/seasons/{season.pk}/rounds/{last_round}",
            "/clubs/bench/ratings",
            "/clubs/bench/standings",
            f"/players/{player}",
            "/matches/?club=bench",
        ):
            figure = league_bench.measure(client, url, args.repeat)
            results.append(figure)
            print(
                f"p50 {figure['p50_ms']:8.2f} ms  max {figure['max_ms']:8.2f}  cpu p50 "
                f"{figure['cpu_p50_ms']:8.2f}  {figure['queries']:3} queries  "
                f"{figure['bytes']:8} B  {url}",
                flush=True,
            )

        events = finished_record(args.hands, args.seed)
        table, owner = store_table(events)
        viewer = Client()
        viewer.force_login(owner)
        url = f"/tables/{table.code}/replay"
        plain = viewer.get(url)
        packed = viewer.get(url, HTTP_ACCEPT_ENCODING="gzip")
        assert plain.status_code == 200 and packed["Content-Encoding"] == "gzip"
        css, js = static_bytes("web/site.css"), static_bytes("web/replay.js")
        replay = {
            "hands": args.hands,
            "events": len(events),
            "html_bytes": len(plain.content),
            "html_gzip_bytes": len(packed.content),
            "css_bytes": css,
            "js_bytes": js,
            "css_js_gzip_bytes": len(
                gzip.compress(static_text("web/site.css") + static_text("web/replay.js"))
            ),
        }
        from server.tables.selectors import record_text
        from server.web.selectors.replay import build_replay

        text = record_text(table)
        cold = []
        for _ in range(5):  # the fold into frames alone, without the page's cache
            c0 = time.process_time()
            build_replay.__wrapped__(text)
            cold.append((time.process_time() - c0) * 1000)
        replay["fold_frames_cpu_ms"] = round(sorted(cold)[2], 2)
        render = league_bench.measure(viewer, url, args.repeat)
        replay["render_p50_ms"], replay["render_cpu_p50_ms"] = (
            render["p50_ms"],
            render["cpu_p50_ms"],
        )
        print(
            f"replay of a {args.hands}-hand match ({len(events)} events): HTML {replay['html_bytes']} B, "
            f"{replay['html_gzip_bytes']} B gzip; site.css {css} B + replay.js {js} B; "
            f"render p50 {render['p50_ms']} ms (cpu {render['cpu_p50_ms']} ms, frames cached); "
            f"folding the record into frames: {replay['fold_frames_cpu_ms']} ms cpu",
            flush=True,
        )
        connection.close()
    print(
        json.dumps(
            {
                "matches": args.matches,
                "players": args.players,
                "build_s": round(built, 1),
                "database": "sqlite (temporary file)",
                "pages": results,
                "replay": replay,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
