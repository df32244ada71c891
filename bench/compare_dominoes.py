"""Whole-process random self-play, side by side: ``python -m engine simulate`` with four
random bots against the PyPI ``dominoes`` package's random self-play
(``bench/dominoes_random.py``), alternated in the same run, several repetitions.

    .venv/bin/pip install -r bench/requirements.txt
    .venv/bin/python bench/compare_dominoes.py --hands 20000 --repeat 5

For each side it prints hands per second of whole processes (start-up included), from
wall time and from CPU time (user + system of the child; steadier on a shared
machine), min and median over the repetitions, and the ratio engine / dominoes.

Both sides start from byte-compiled modules: pip compiled ``dominoes`` when it installed
it, and the engine is compiled here first (``compileall``), so a ``PYTHONDONTWRITEBYTECODE``
environment does not make the engine recompile itself in every timed process.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(command: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(
        command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def summary(hands: int, samples: list[tuple[float, float]]) -> dict:
    wall = [hands / w for w, _ in samples]
    cpu = [hands / c for _, c in samples]
    return {
        "wall_hands_per_s": {"min": round(min(wall)), "median": round(statistics.median(wall))},
        "cpu_hands_per_s": {"min": round(min(cpu)), "median": round(statistics.median(cpu))},
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    python = sys.executable
    engine_cmd = [
        python,
        "-m",
        "engine",
        "simulate",
        "--hands",
        str(args.hands),
        "--bots",
        "random,random,random,random",
    ]
    dominoes_cmd = [python, str(ROOT / "bench" / "dominoes_random.py"), "--hands", str(args.hands)]
    compileall.compile_dir(str(ROOT / "engine"), quiet=1)
    engine_runs, dominoes_runs = [], []
    for _ in range(args.repeat):
        engine_runs.append(run(engine_cmd))
        dominoes_runs.append(run(dominoes_cmd))
    engine = summary(args.hands, engine_runs)
    dominoes = summary(args.hands, dominoes_runs)
    ratio = {
        kind: round(
            statistics.median(
                [
                    d / e
                    for (e, d) in zip(
                        [s[i] for s in engine_runs], [s[i] for s in dominoes_runs], strict=True
                    )
                ]
            ),
            2,
        )
        for i, kind in enumerate(("wall", "cpu"))
    }
    print(
        json.dumps(
            {
                "hands": args.hands,
                "repeat": args.repeat,
                "cpus": os.cpu_count(),
                "engine_simulate": engine,
                "dominoes": dominoes,
                "ratio_engine_over_dominoes_median": ratio,
            }
        )
    )


if __name__ == "__main__":
    main()
