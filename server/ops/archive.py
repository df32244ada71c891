"""A backup file: one uncompressed tar that the server writes and reads, owner-only.

Members:

- ``manifest.json``: what the backup is (``Manifest``): when, by which release and
  commit, the database's kind and version, the migrations it had applied, row counts,
  the settings that matter and the secret key's fingerprint (never the key);
- ``database.sqlite3.gz`` (SQLite, a copy made with SQLite's online backup API, gzipped)
  or ``database.pgdump`` (PostgreSQL, ``pg_dump --format=custom``);
- ``events.json``: per table, its event count and a SHA-256 of its log, taken from the
  same consistent copy: ``verify_backup`` recomputes them after restoring and names a
  table whose log changed since (bit rot, a damaged copy). They guard against accidents,
  not against someone who rewrites the file: the replay is the proof.

The name is ``dekabes-<UTC time>-v<release>[-<label>].tar``: rotation only ever deletes
unlabelled ones (the scheduled backups), never a ``pre-upgrade`` or a hand-made backup.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import os
import re
import tarfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

FORMAT = "dekabes-backup/1"
MANIFEST, EVENTS = "manifest.json", "events.json"
SQLITE_MEMBER, PGDUMP_MEMBER = "database.sqlite3.gz", "database.pgdump"
STAMP = "%Y%m%dT%H%M%SZ"
# Scheduled backups (no label): the only files rotation may delete.
SCHEDULED_NAME = re.compile(r"^dekabes-(\d{8}T\d{6}Z)-v[0-9A-Za-z.+]+\.tar$")
ANY_NAME = re.compile(r"^dekabes-(\d{8}T\d{6}Z)-v[0-9A-Za-z.+]+(-[a-z0-9-]+)?\.tar$")
LABEL = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")


class BackupError(Exception):
    """A backup, restore or verification that cannot go on, with the reason to show."""


@dataclass
class Manifest:
    created_at: str
    server_version: str
    commit: str | None
    vendor: str  # "sqlite" | "postgresql"
    database_version: str
    migrations: list[str]
    counts: dict[str, int]
    settings: dict[str, object]
    secret_key: dict[str, str]
    label: str = ""
    seconds: float = 0.0
    format: str = FORMAT
    extra: dict[str, object] = field(default_factory=dict)

    def to_json(self) -> bytes:
        return json.dumps(asdict(self), indent=2, sort_keys=True).encode()

    @classmethod
    def from_json(cls, text: bytes) -> Manifest:
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise BackupError(
                f"not a Dékabès backup of format {FORMAT} (format: {data.get('format')!r})"
                if isinstance(data, dict)
                else "the manifest is not an object"
            )
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in known})

    @property
    def created(self) -> dt.datetime:
        return dt.datetime.fromisoformat(self.created_at)


def backup_name(when: dt.datetime, version: str, label: str = "") -> str:
    suffix = f"-{label}" if label else ""
    return f"dekabes-{when.strftime(STAMP)}-v{version}{suffix}.tar"


def stamp_of(name: str) -> dt.datetime | None:
    found = ANY_NAME.match(name)
    if found is None:
        return None
    return dt.datetime.strptime(found.group(1), STAMP).replace(tzinfo=dt.UTC)


class SyncedWrites:
    """A file whose writes reach the disk every ``every`` bytes (``fdatasync``): a
    backup of hundreds of MB written at once fills the page cache, and the kernel then
    flushes it in one burst that the server's own commits (an fsync each, SQLite FULL)
    queue behind. Small, regular flushes keep those waits short."""

    def __init__(self, file, every: int = 8 << 20):
        self.file, self.every, self.pending = file, every, 0

    def write(self, data) -> int:
        written = self.file.write(data)
        self.pending += len(data)
        if self.pending >= self.every:
            self.sync()
        return written

    def sync(self) -> None:
        self.file.flush()
        os.fdatasync(self.file.fileno())
        self.pending = 0

    def flush(self) -> None:
        self.file.flush()

    def tell(self) -> int:
        return self.file.tell()

    def __enter__(self) -> SyncedWrites:
        return self

    def __exit__(self, *exc) -> None:
        if exc[0] is None:
            self.sync()


def write(path: Path, manifest: Manifest, database: Path, database_member: str, events: dict):
    """Write the backup to ``path`` (owner-only), through a temporary name in the same
    folder, synced, then renamed: a file with the final name is always whole."""
    partial = path.with_name(path.name + ".partial")
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as file, SyncedWrites(file) as stream:
            with tarfile.open(fileobj=stream, mode="w") as tar:  # type: ignore[call-overload]  # a file-like writer
                _add_bytes(tar, MANIFEST, manifest.to_json())
                _add_bytes(tar, EVENTS, json.dumps(events, sort_keys=True).encode())
                tar.add(str(database), arcname=database_member)
            os.fsync(file.fileno())
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    _sync_folder(path.parent)


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o600
    tar.addfile(info, io.BytesIO(data))


def _sync_folder(folder: Path) -> None:
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def read_manifest(path: Path) -> Manifest:
    with _open(path) as tar:
        return Manifest.from_json(_member(tar, MANIFEST))


def read_events(path: Path) -> dict[str, list]:
    with _open(path) as tar:
        return json.loads(_member(tar, EVENTS))


def extract_database(path: Path, folder: Path) -> tuple[Manifest, Path]:
    """The manifest and the database member, extracted into ``folder`` (SQLite:
    ungzipped to ``database.sqlite3``)."""
    import gzip
    import shutil

    with _open(path) as tar:
        manifest = Manifest.from_json(_member(tar, MANIFEST))
        name = SQLITE_MEMBER if manifest.vendor == "sqlite" else PGDUMP_MEMBER
        try:
            source = tar.extractfile(name)
        except KeyError:
            source = None
        if source is None:
            raise BackupError(f"the backup has no {name}")
        if manifest.vendor == "sqlite":
            target = folder / "database.sqlite3"
            try:
                with gzip.GzipFile(fileobj=source) as unzipped, open(target, "wb") as out:
                    shutil.copyfileobj(unzipped, out, 1 << 20)
            except (OSError, EOFError) as err:
                raise BackupError(f"the database in the backup is damaged: {err}") from None
        else:
            target = folder / "database.pgdump"
            with open(target, "wb") as out:
                shutil.copyfileobj(source, out, 1 << 20)
    os.chmod(target, 0o600)
    return manifest, target


def _open(path: Path) -> tarfile.TarFile:
    try:
        return tarfile.open(path, mode="r:")
    except (OSError, tarfile.TarError) as err:
        raise BackupError(f"cannot read the backup {path}: {err}") from None


def _member(tar: tarfile.TarFile, name: str) -> bytes:
    try:
        stream = tar.extractfile(name)
    except KeyError:
        stream = None
    except tarfile.TarError as err:
        raise BackupError(f"the backup is damaged: {err}") from None
    if stream is None:
        raise BackupError(f"the backup has no {name}: not a Dékabès backup, or damaged")
    try:
        return stream.read()
    except (OSError, tarfile.TarError) as err:
        raise BackupError(f"the backup is damaged: {err}") from None
