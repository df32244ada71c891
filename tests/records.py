"""Records as outside checks read them: through ``python -m engine replay``."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def replay_summary(record_text: str, tmp_path: Path) -> dict:
    """Replay ``record_text`` with the engine's command line; its summary of the match."""
    path = tmp_path / f"record-{uuid.uuid4().hex[:6]}.jsonl"
    path.write_text(record_text)
    done = subprocess.run(
        [sys.executable, "-m", "engine", "replay", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)
