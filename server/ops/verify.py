"""``manage.py verify_backup FILE``: restore a backup into a scratch database and prove it.

The parent process checks the file, restores it into a scratch database (SQLite: a
temporary file; PostgreSQL: a new database next to the server's, dropped afterwards),
then runs ``manage.py verify_backup --here`` on that database in a child process (the
server's code, pointed at the copy), which makes the checks below and answers them as
JSON; the parent prints the verdict on one screen. The checks, on the restored rows:

1. **migrations**: the ones applied are this code's;
2. **event logs**: each table's log is gap-free and equals, event for event, the log
   the backup read (the SHA-256 per table in ``events.json``);
3. **replay**: every table's log folds through the engine (``TableState.fold``, the
   server's own fold: the engine refuses an event that breaks a rule), and every stored
   snapshot equals the fold at its event;
4. **league**: ``rebuild_league`` recomputes the results, standings, ratings and rating
   history from the logs, and they equal the stored ones; then ``rebuild_ladder``
   replays the bot ladder's rated pairs over those results, and every version's rating
   and every pair's result equal the stored ones;
5. **records**: every finished or annulled match's record (as the API serves it) replays
   with the engine's record reader (``load_record`` and ``Match.from_events``, what
   ``python -m engine replay`` runs) to the stored score and winner.

A problem is named (table and match ids, the event's number and type), never shown
(no hand, no tile, no seed: the verdict may be pasted into a report).
"""

from __future__ import annotations

import json
import os
import pickle
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import quote

from django.db import connection
from django.db.models import Max

from engine import Match
from engine.errors import IllegalEventError
from engine.record import load_record
from server.ladder import rebuild as ladder_rebuild
from server.league import selectors as league_selectors
from server.league.models import LeagueMatch, Rating, RatingPoint, StandingRow
from server.league.projections import rebuild
from server.ops import archive
from server.ops.archive import BackupError, Manifest
from server.ops.backup import event_digests, events_sql, fetch_in_chunks
from server.ops.restore import check_restorable, do_restore, pg_connect
from server.ops.version import applied_migrations, code_migrations
from server.tables.models import Event, Table, TableSnapshot
from server.tables.projection import SNAPSHOT_FORMAT
from server.tables.table_state import TableState

ROOT = Path(__file__).resolve().parents[2]
NAMED = 8  # problems named per check; the rest counted


@dataclass
class Check:
    name: str
    ok: bool = True
    summary: str = ""
    problems: list[str] = field(default_factory=list)
    more: int = 0
    seconds: float = 0.0
    skipped: bool = False

    def problem(self, text: str) -> None:
        self.ok = False
        if len(self.problems) < NAMED:
            self.problems.append(text)
        else:
            self.more += 1


@dataclass
class Verdict:
    path: str
    manifest: Manifest | None
    checks: list[Check]
    restore_seconds: float = 0.0
    seconds: float = 0.0
    refused: str | None = None

    @property
    def ok(self) -> bool:
        return self.refused is None and all(c.ok for c in self.checks)


# -- the parent: the file, the scratch database, the verdict ---------------------------------
def verify_backup(path: Path) -> Verdict:
    started = time.monotonic()
    try:
        manifest = archive.read_manifest(path)
        check_restorable(manifest, connection.vendor)
        expected = archive.read_events(path)
    except BackupError as err:
        return Verdict(str(path), None, [], refused=str(err))
    with tempfile.TemporaryDirectory(prefix="dekabes-verify-") as tmp:
        work = Path(tmp)
        (work / archive.EVENTS).write_text(json.dumps(expected))
        scratch, env, drop = _scratch(work)
        try:
            try:
                restored = do_restore(path=path, database=scratch)
            except BackupError as err:
                return Verdict(str(path), manifest, [], refused=f"the restore failed: {err}")
            checks = _run_child(env, work / archive.EVENTS, path)
        finally:
            drop()
    return Verdict(
        str(path),
        manifest,
        checks,
        restore_seconds=restored.seconds,
        seconds=round(time.monotonic() - started, 1),
    )


def _scratch(work: Path) -> tuple[dict, dict, Callable[[], None]]:
    """A scratch database's settings, the child's environment for it, and its drop."""
    env = dict(os.environ)
    env["DEKABES_VAR_DIR"] = str(work / "var")
    database = dict(connection.settings_dict)
    if connection.vendor == "sqlite":
        database["NAME"] = str(work / "scratch.sqlite3")
        env.pop("DATABASE_URL", None)
        env["DEKABES_SQLITE_PATH"] = database["NAME"]
        return database, env, lambda: None
    name = f"{database['NAME']}_verify_{secrets.token_hex(4)}"[:63]
    with pg_connect(database) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    database["NAME"] = name
    credentials = quote(database.get("USER") or "", safe="")
    if database.get("PASSWORD"):
        credentials += ":" + quote(database["PASSWORD"], safe="")
    host = database.get("HOST") or "localhost"
    port = database.get("PORT") or 5432
    env["DATABASE_URL"] = f"postgres://{credentials}@{host}:{port}/{name}"
    env.pop("DEKABES_TEST_DB_NAME", None)

    def drop() -> None:
        with pg_connect(database, name=connection.settings_dict["NAME"]) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    return database, env, drop


def _run_child(env: dict, events: Path, path: Path) -> list[Check]:
    done = subprocess.run(
        [sys.executable, "manage.py", "verify_backup", "--here", str(events), str(path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        answer = json.loads(done.stdout.strip().splitlines()[-1])
        return [Check(**c) for c in answer["checks"]]
    except (IndexError, KeyError, TypeError, ValueError):
        failed = Check("the checks", ok=False, summary="the checking process failed")
        failed.problems.append((done.stderr or done.stdout).strip()[-1500:])
        return [failed]


def render(verdict: Verdict) -> str:
    """The verdict on one screen (about 25 lines when everything holds)."""
    lines = [f"Backup {Path(verdict.path).name}"]
    m = verdict.manifest
    if m is not None:
        commit = f", commit {m.commit[:12]}" if m.commit else ""
        lines.append(
            f"  made {m.created_at} by Dékabès {m.server_version}{commit}; "
            f"{m.vendor} {m.database_version}; {len(m.migrations)} migrations; "
            f"backup took {m.seconds:.1f} s"
        )
        c = m.counts
        lines.append(
            f"  holds {c.get('accounts', 0):,} accounts, {c.get('clubs', 0):,} clubs, "
            f"{c.get('tables', 0):,} tables, {c.get('events', 0):,} events, "
            f"{c.get('finished_matches', 0):,} finished matches"
        )
    if verdict.refused:
        lines += ["", f"REFUSED: {verdict.refused}"]
        return "\n".join(lines)
    lines.append(f"  restored into a scratch database in {verdict.restore_seconds:.1f} s")
    lines.append("")
    for check in verdict.checks:
        mark = "skip" if check.skipped else ("ok  " if check.ok else "FAIL")
        lines.append(f"  [{mark}] {check.name}: {check.summary} ({check.seconds:.1f} s)")
        lines += [f"         - {p}" for p in check.problems]
        if check.more:
            lines.append(f"         … and {check.more} more")
    lines.append("")
    if verdict.ok:
        lines.append(
            f"PROVEN: this backup restores to a server whose every log replays to its "
            f"stored state ({verdict.seconds:.1f} s)."
        )
    else:
        failed = ", ".join(c.name for c in verdict.checks if not c.ok)
        lines.append(f"NOT PROVEN: {failed} failed. Keep the older backups; see above.")
    return "\n".join(lines)


# -- the child: the checks on the restored database ----------------------------------------
def check_this_database(expected_events: dict, manifest: Manifest) -> list[Check]:
    checks = [
        _timed(lambda: _check_migrations(manifest)),
        _timed(lambda: _check_logs(expected_events)),
    ]
    replay = _timed(_check_replay)
    checks.append(replay)
    if replay.ok:
        checks.append(_timed(_check_league))
        checks.append(_timed(_check_records))
    else:
        for name in ("league", "records"):
            checks.append(
                Check(name, ok=False, skipped=True, summary="not run: some logs do not replay")
            )
    return checks


def _timed(run: Callable[[], Check]) -> Check:
    started = time.monotonic()
    check = run()
    check.seconds = round(time.monotonic() - started, 2)
    return check


def _check_migrations(manifest: Manifest) -> Check:
    check = Check("migrations")
    applied, known = applied_migrations(), set(code_migrations())
    for name in sorted(set(applied) - known):
        check.problem(f"{name} is applied but not in this code")
    if applied != sorted(manifest.migrations):
        check.problem("the restored migrations are not the ones the backup recorded")
    check.summary = f"{len(applied)} applied, all this code's" if check.ok else "differ"
    return check


def _check_logs(expected: dict) -> Check:
    check = Check("event logs")
    if connection.vendor == "postgresql":
        with connection.chunked_cursor() as cursor:
            cursor.execute(events_sql("payload::text"))
            found = event_digests(fetch_in_chunks(cursor))
    else:
        with connection.cursor() as cursor:
            cursor.execute(events_sql("payload"))
            found = event_digests(fetch_in_chunks(cursor))
    matches = dict(LeagueMatch.objects.values_list("table_id", "pk"))
    for table_id in sorted(set(expected) | set(found), key=int):
        if expected.get(table_id) != found.get(table_id):
            check.problem(
                f"{_table(int(table_id), matches)}: its log differs from the one backed up "
                f"({_count(expected.get(table_id))} events then, {_count(found.get(table_id))} "
                "now)"
            )
    events = sum(n for n, _ in found.values())
    check.summary = (
        f"{len(found):,} tables, {events:,} events, each log equal to the one backed up"
        if check.ok
        else "changed since the backup"
    )
    return check


def _count(entry) -> int:
    return entry[0] if entry else 0


def _table(table_id: int, matches: dict[int, int]) -> str:
    match = matches.get(table_id)
    return f"table {table_id}" + (f" (match {match})" if match else "")


def _state_facts(state: TableState) -> tuple:
    """What a snapshot must agree on with the fold (compared, never printed)."""
    return (
        state.version,
        state.match.summary(),
        [state.match.seat_view(seat) for seat in (1, 2, 3, 4)],
        sorted(state.paused_by),
        state.revealed,
        state.annulled,
        state.forfeited,
        state.handovers,
        state.hand_deals,
        state.match_deals,
        state.watchable,
    )


def _check_replay(*, batch: int = 200) -> Check:
    """Fold every table's log with the server's fold and compare the snapshots."""
    check = Check("replay")
    matches = dict(LeagueMatch.objects.values_list("table_id", "pk"))
    snapshots: dict[int, list[tuple[int, bytes]]] = {}
    for table_id, seq, blob in TableSnapshot.objects.filter(format=SNAPSHOT_FORMAT).values_list(
        "table_id", "seq", "state"
    ):
        snapshots.setdefault(table_id, []).append((seq, bytes(blob)))
    ids = list(Table.objects.order_by("pk").values_list("pk", flat=True))
    events = compared = 0
    for start in range(0, len(ids), batch):
        chunk = ids[start : start + batch]
        rows = (
            Event.objects.filter(table_id__in=chunk)
            .order_by("table_id", "seq")
            .values_list("table_id", "seq", "type", "payload")
        )
        logs: dict[int, list[tuple[int, str, dict]]] = {t: [] for t in chunk}
        for table_id, seq, kind, payload in rows.iterator(chunk_size=5000):
            logs[table_id].append((seq, kind, payload))
        for table_id in chunk:
            wanted = dict(snapshots.get(table_id, []))
            state = TableState(Match())
            for expected_seq, (seq, kind, payload) in enumerate(logs[table_id], 1):
                if seq != expected_seq:
                    check.problem(f"{_table(table_id, matches)}: event #{expected_seq} missing")
                    break
                try:
                    state.fold(seq, payload)
                except IllegalEventError as err:
                    check.problem(
                        f"{_table(table_id, matches)}: event #{seq} ({kind}) is refused by the "
                        f"engine: {err.code}"
                    )
                    break
                except Exception as err:  # a damaged payload: name it, go on with the rest
                    check.problem(
                        f"{_table(table_id, matches)}: event #{seq} ({kind}) does not fold: "
                        f"{type(err).__name__}"
                    )
                    break
                events += 1
                if seq in wanted:
                    compared += 1
                    if not _snapshot_agrees(wanted.pop(seq), state):
                        check.problem(
                            f"{_table(table_id, matches)}: the snapshot at event #{seq} differs "
                            "from the fold of the log"
                        )
    check.summary = (
        f"{len(ids):,} tables, {events:,} events folded by the engine; "
        f"{compared:,} snapshots equal their fold"
        if check.ok
        else "some logs do not replay"
    )
    return check


def _snapshot_agrees(blob: bytes, state: TableState) -> bool:
    try:
        kept = pickle.loads(blob)
    except Exception:
        return False
    return isinstance(kept, TableState) and _state_facts(kept) == _state_facts(state)


def league_rows() -> dict[str, dict]:
    """The league's stored projections, keyed so that a difference names its row."""
    match_fields = [
        "status",
        "end_seq",
        "winner",
        "score_a",
        "score_b",
        "hands",
        "hands_won_a",
        "hands_won_b",
        "hands_tied",
        "points_a",
        "points_b",
        "dekabes_a",
        "dekabes_b",
        "annul_reason",
        "forfeited_by",
    ]
    standing_fields = [
        "player_id",
        "pair_id",
        "played",
        "wins",
        "byes",
        "hands_won",
        "hands_lost",
        "points",
        "dekabes",
        "ties",
        "forfeits",
        "duplicate",
    ]
    return {
        "result": {
            f"match {row[0]} (table {row[1]})": row[2:]
            for row in LeagueMatch.objects.values_list("pk", "table_id", *match_fields)
        },
        "standing": {
            f"season {row[0]} position {row[1]}": row[2:]
            for row in StandingRow.objects.values_list("season_id", "position", *standing_fields)
        },
        "rating": {
            f"club {row[0]} player {row[1]}": row[2:]
            for row in Rating.objects.values_list(
                "club_id", "player_id", "mu", "sigma", "ordinal", "matches"
            )
        },
        "rating point": {
            f"club {row[0]} player {row[1]} match {row[2]}": row[3:]
            for row in RatingPoint.objects.values_list(
                "club_id", "player_id", "match_id", "mu", "sigma", "ordinal"
            )
        },
    }


def _check_league() -> Check:
    check = Check("league")
    stored = {**league_rows(), **ladder_rebuild.stored_rows()}
    rebuild()
    ladder_rebuild.rebuild()  # its pairs' margins are the league results just rebuilt
    rebuilt = {**league_rows(), **ladder_rebuild.stored_rows()}
    for kind in stored:
        for key in sorted(set(stored[kind]) | set(rebuilt[kind])):
            if stored[kind].get(key) != rebuilt[kind].get(key):
                what = (
                    "missing from the backup"
                    if key not in stored[kind]
                    else "not given by the logs"
                    if key not in rebuilt[kind]
                    else "differs from the logs"
                )
                check.problem(f"{kind} of {key}: {what}")
    n = {kind: len(rows) for kind, rows in stored.items()}
    check.summary = (
        f"rebuild_league equals the stored {n['result']:,} match results, "
        f"{n['standing']:,} standing rows, {n['rating']:,} ratings, "
        f"{n['rating point']:,} rating points; rebuild_ladder the {n['ladder version']:,} "
        f"bot versions' ratings over {n['ladder result']:,} rated pairs"
        if check.ok
        else "rebuild_league or rebuild_ladder differs from the stored projections"
    )
    return check


def _check_records() -> Check:
    check = Check("records")
    last_seq = dict(
        Event.objects.values("table_id")
        .order_by("table_id")
        .annotate(last=Max("seq"))
        .values_list("table_id", "last")
    )
    verified = 0
    matches = LeagueMatch.objects.exclude(status="playing").select_related("table")
    for m in matches.order_by("pk").iterator(chunk_size=500):
        name = f"match {m.pk} (table {m.table_id})"
        try:
            text = league_selectors.record_text(m)
            replayed = Match.from_events(load_record(text))
        except IllegalEventError as err:
            check.problem(f"{name}: its record is refused by the engine at line {err.index}")
            continue
        except Exception as err:
            check.problem(f"{name}: its record cannot be built: {type(err).__name__}")
            continue
        summary = replayed.summary()
        whole = last_seq.get(m.table_id) == m.end_seq  # the table did not play on after
        if m.status == "finished" and m.forfeited_by is None and whole:
            if summary["scores"] != {"A": m.score_a, "B": m.score_b} or (
                summary["winner"] != m.winner
            ):
                check.problem(f"{name}: its record replays to another score or winner")
                continue
        verified += 1
    check.summary = (
        f"{verified:,} finished or annulled matches' records replay (engine) to their result"
        if check.ok
        else "some records do not verify"
    )
    return check


def child_answer(checks: list[Check]) -> str:
    return json.dumps({"checks": [asdict(c) for c in checks]})
