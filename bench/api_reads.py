"""``python -m bench.api_reads``: server CPU per request of two league reads, optionally
against another checkout in the same run.

One public club with ``--matches`` finished rated matches (default 2,000; built once per
checkout with that checkout's own ``populate``: ``bench.league_reads`` or, in older trees,
``server.league.bench``) in a temporary SQLite database. A member logs in
(``POST /api/auth/token``) and every request carries ``Authorization: Token <key>``, as
docs/api.md tells clients; Django's test client sends it through the whole handler
(middleware, authentication, view, rendering; no network). Measured, per request, with
``time.process_time`` (CPU of this process, so another core's load hardly matters):

* ``GET /api/matches?club=bench`` — the first page of the club's match list (50 rows);
* ``GET /api/players/{username}`` — a member's profile (ratings with their history,
  recent matches).

Each checkout runs in its own worker process (``--worker``, built once, then asked for
rounds of ``--per-round`` requests per URL over a pipe). With ``--baseline-dir DIR`` two
workers run and the rounds alternate between them (the order flips each round), so both
sides see the same machine; the ratio ``this / baseline`` of the min and of the median
is printed per URL (below 1.00: this tree is cheaper). The last line is one JSON object.

    python -m bench.api_reads --requests 100
    git worktree add /tmp/base81 81d81f4
    nice python -m bench.api_reads --requests 200 --baseline-dir /tmp/base81
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
ROOT = HERE.parent.parent
PASSWORD = "bench-api-reads-9"  # noqa: S105 - a throwaway account in a temporary database


def _urls(player: str) -> dict[str, str]:
    return {"matches": "/api/matches?club=bench", "player": f"/api/players/{player}"}


# -- worker (one checkout) -------------------------------------------------------------------
def build(root: Path, tmp: str, matches: int, players: int, bots: int, seed: int):
    """Django set up on ``root``'s code with a fresh database in ``tmp``, the club built
    and a member logged in: ``(client, header, urls)``."""
    sys.path[:] = [str(root)] + [p for p in sys.path[1:] if Path(p or ".").resolve() != HERE.parent]
    os.chdir(root)
    for name in ("DATABASE_URL", "REDIS_URL"):
        os.environ.pop(name, None)
    os.environ.update(
        {
            "DEKABES_VAR_DIR": tmp,
            "DEKABES_SQLITE_PATH": str(Path(tmp) / "bench.sqlite3"),
            "DEKABES_LOG_LEVEL": "WARNING",
            "DJANGO_SETTINGS_MODULE": "server.settings",
            # the test client calls itself "testserver": outside pytest nothing adds it
            # (older trees' benches lacked this and every request answered 400)
            "DJANGO_ALLOWED_HOSTS": "testserver",
        }
    )
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    import importlib

    try:  # the checkout's own builder of the club
        populate = importlib.import_module("bench.league_reads").populate
    except ImportError:  # trees before the benches moved to bench/
        populate = importlib.import_module("server.league.bench").populate
    from django.test import Client

    world = populate(matches, players, bots, seed)
    member = world["users"][2]
    member.set_password(PASSWORD)
    member.save(update_fields=["password"])
    client = Client()
    login = client.post(
        "/api/auth/token",
        {"username": member.username, "password": PASSWORD, "device": "bench"},
        content_type="application/json",
    )
    if login.status_code != 200:
        raise SystemExit(f"login: HTTP {login.status_code} {login.content[:300]!r}")
    header = {"HTTP_AUTHORIZATION": f"Token {login.json()['token']}"}
    return client, header, _urls(world["users"][1].username)


def worker(root: Path, matches: int, players: int, bots: int, seed: int, profile: str) -> None:
    """Build the club in ``root``'s code, then answer ``{"url", "n"}`` lines on stdin with
    ``{"cpu_ms": [...]}`` lines on stdout until stdin closes (``profile``: instead, print
    where 100 requests of that URL spend their time)."""
    out = sys.stdout
    sys.stdout = sys.stderr  # whatever the checkout prints stays off the pipe
    with tempfile.TemporaryDirectory(prefix="dk-api-reads-") as tmp:
        t0 = time.perf_counter()
        client, header, urls = build(root, tmp, matches, players, bots, seed)
        built_s = time.perf_counter() - t0
        sizes = {}
        for name, url in urls.items():
            for _ in range(5):  # warm-up: imports, URL resolver, SQLite page cache
                response = client.get(url, **header)
            if response.status_code != 200:
                raise SystemExit(f"{url}: HTTP {response.status_code} {response.content[:300]!r}")
            sizes[name] = len(response.content)
        if profile:
            import cProfile
            import pstats

            with cProfile.Profile() as prof:
                for _ in range(100):
                    client.get(urls[profile], **header)
            pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(60)
            return
        print(json.dumps({"ready": True, "built_s": round(built_s, 1), "bytes": sizes}), file=out)
        out.flush()
        for line in sys.stdin:
            ask = json.loads(line)
            url = urls[ask["url"]]
            cpu = []
            for _ in range(ask["n"]):
                c0 = time.process_time()
                response = client.get(url, **header)
                cpu.append((time.process_time() - c0) * 1000)
                if response.status_code != 200:
                    raise SystemExit(f"{url}: HTTP {response.status_code}")
            print(json.dumps({"cpu_ms": cpu}), file=out)
            out.flush()


# -- driver ------------------------------------------------------------------------------------
class Side:
    def __init__(self, name: str, root: Path, args) -> None:
        self.name, self.root = name, root
        cmd = [
            sys.executable,
            str(HERE),
            "--worker",
            str(root),
            "--matches",
            str(args.matches),
            "--players",
            str(args.players),
            "--bots",
            str(args.bots),
            "--seed",
            str(args.seed),
        ]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.cpu: dict[str, list[float]] = {}
        self.ready = self._read()

    def _read(self) -> dict:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"{self.name} ({self.root}): the worker stopped")
        return json.loads(line)

    def run(self, url: str, n: int) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"url": url, "n": n}) + "\n")
        self.proc.stdin.flush()
        self.cpu.setdefault(url, []).extend(self._read()["cpu_ms"])

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=2_000)
    parser.add_argument("--players", type=int, default=40)
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--requests", type=int, default=100, help="per URL and side")
    parser.add_argument("--per-round", type=int, default=10, help="requests per turn of a side")
    parser.add_argument("--baseline-dir", type=Path, help="another checkout to compare with")
    parser.add_argument(
        "--this-dir", type=Path, default=ROOT, help="the checkout measured (default: this one)"
    )
    parser.add_argument(
        "--profile", choices=("matches", "player"), help="cProfile that URL in --worker's tree"
    )
    parser.add_argument("--worker", type=Path, help="(internal) measure in this checkout")
    args = parser.parse_args(argv)
    if args.profile and args.worker is None:
        args.worker = ROOT
    if args.worker is not None:
        worker(
            args.worker.resolve(), args.matches, args.players, args.bots, args.seed, args.profile
        )
        return 0

    sides = [Side("this", args.this_dir.resolve(), args)]
    if args.baseline_dir is not None:
        sides.append(Side("baseline", args.baseline_dir.resolve(), args))
    for side in sides:
        print(
            f"{side.name:8} {side.root}: built in {side.ready['built_s']} s, bytes {side.ready['bytes']}"
        )
    rounds = -(-args.requests // args.per_round)
    for r in range(rounds):
        order = sides if r % 2 == 0 else sides[::-1]
        for url in ("matches", "player"):
            for side in order:
                side.run(url, args.per_round)
    for side in sides:
        side.close()

    results: dict = {"matches": args.matches, "requests": rounds * args.per_round, "urls": {}}
    for url in ("matches", "player"):
        row: dict = {}
        for side in sides:
            cpu = side.cpu[url]
            row[side.name] = {
                "min_ms": round(min(cpu), 3),
                "median_ms": round(statistics.median(cpu), 3),
                "bytes": side.ready["bytes"][url],
            }
        line = f"{url:8}" + "".join(
            f"  {name}: min {v['min_ms']:6.2f} median {v['median_ms']:6.2f} ms"
            for name, v in row.items()
        )
        if len(sides) == 2:
            this, base = row["this"], row["baseline"]
            row["ratio_min"] = round(this["min_ms"] / base["min_ms"], 3)
            row["ratio_median"] = round(this["median_ms"] / base["median_ms"], 3)
            line += f"  ratio min {row['ratio_min']:.3f} median {row['ratio_median']:.3f}"
        results["urls"][url] = row
        print(line)
    results["load"] = os.getloadavg()
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
