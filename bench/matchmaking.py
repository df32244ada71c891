"""``python -m bench.matchmaking``: what the open seats cost the server as seeks pile up.

A temporary SQLite database with ``--seeks`` open seeks (each a member's casual table
with three open seats; default 200, the most the list shows) and as many members; one
more member reads. Measured per request with ``time.process_time`` (this process's CPU,
through Django's whole handler, no network): ``GET /api/tables/open`` (every seek),
``GET /api/tables/open?fits=1`` (those the reader may take: the admission rule per
seek), and a long-poll's version read (``seeks_version``, what a parked poll reads on a
notice); then one tick closing them all (``expire_due_seeks``) once they have expired.

    python -m bench.matchmaking --seeks 200 --requests 50
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def build(tmp: str, seeks: int):
    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))
    for name in ("DATABASE_URL", "REDIS_URL"):
        os.environ.pop(name, None)
    os.environ.update(
        {
            "DEKABES_VAR_DIR": tmp,
            "DEKABES_SQLITE_PATH": str(Path(tmp) / "bench.sqlite3"),
            "DEKABES_LOG_LEVEL": "WARNING",
            "DJANGO_SETTINGS_MODULE": "server.settings",
            "DJANGO_ALLOWED_HOSTS": "testserver",
            "DEKABES_MAX_TABLES": "100000",
        }
    )
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    from server.accounts.models import User
    from server.accounts.services import issue_token
    from server.matchmaking.seeks import SeekPlan, do_seek

    plan = SeekPlan(wanted="people", join=[1], bots={}, min_level=None, max_level=30.0, minutes=30)
    for n in range(seeks):
        do_seek(user=User.objects.create_user(username=f"seeker{n}"), plan=plan)
    reader = User.objects.create_user(username="reader")
    return {"HTTP_AUTHORIZATION": f"Token {issue_token(reader, 'bench')}"}


def cpu_ms(call, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t0 = time.process_time()
        call()
        out.append((time.process_time() - t0) * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.matchmaking")
    parser.add_argument("--seeks", type=int, default=200)
    parser.add_argument("--requests", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="dk-matchmaking-") as tmp:
        t0 = time.perf_counter()
        header = build(tmp, args.seeks)
        built = time.perf_counter() - t0
        from django.test import Client
        from django.utils import timezone

        from server.matchmaking import selectors
        from server.matchmaking.models import Seek
        from server.matchmaking.seeks import expire_due_seeks

        client = Client()
        figures: dict[str, Any] = {"seeks": args.seeks, "build_s": round(built, 1)}
        for name, url in (("list", "/api/tables/open"), ("fits", "/api/tables/open?fits=1")):
            answer = client.get(url, **header)
            assert answer.status_code == 200, answer.content[:300]
            listed = len(answer.json()["seeks"])
            times = cpu_ms(lambda url=url: client.get(url, **header), args.requests)
            figures[name] = {
                "listed": listed,
                "bytes": len(answer.content),
                "cpu_ms_median": round(statistics.median(times), 2),
                "cpu_ms_min": round(min(times), 2),
            }
        times = cpu_ms(selectors.seeks_version, args.requests)
        figures["version_cpu_ms_median"] = round(statistics.median(times), 3)
        Seek.objects.update(expires_at=timezone.now())
        t0 = time.process_time()
        closed = expire_due_seeks()
        figures["tick"] = {
            "closed": len(closed),
            "cpu_ms": round((time.process_time() - t0) * 1000, 1),
        }
        for name in ("list", "fits"):
            row = figures[name]
            print(f"GET /api/tables/open{'?fits=1' if name == 'fits' else ''}: "
                  f"{row['listed']} seeks listed, {row['bytes']} bytes, "
                  f"median {row['cpu_ms_median']} ms CPU (min {row['cpu_ms_min']})")  # fmt: skip
        print(f"version read: median {figures['version_cpu_ms_median']} ms CPU")
        print(f"tick closing {figures['tick']['closed']} seeks: {figures['tick']['cpu_ms']} ms CPU")
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
