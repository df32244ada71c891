"""Links that open the desktop app at a table: ``dekabes://HOST[:PORT]/table/CODE``.

The link names the club server and the table, nothing else: **never a token** (a link is
copied, pasted, logged by browsers); the app signs in with the account it remembers for
that server (``tokens.py``), or asks for the name and password first and then opens the
table. ``?https`` says the server answers on HTTPS (else HTTP, as ``make serve``).

    dekabes://192.168.1.20:8000/table/K7Q2MX        -> http://192.168.1.20:8000, K7Q2MX
    dekabes://club.example.org/table/K7Q2MX?https   -> https://club.example.org, K7Q2MX

On Linux the app installs itself for the user as the handler of ``x-scheme-handler/
dekabes`` (``install_handler``: a ``.desktop`` entry in ``$XDG_DATA_HOME/applications``
made the default in ``$XDG_CONFIG_HOME/mimeapps.list``), so a browser hands it such a
link. Elsewhere (or before the app is installed) the web page links to the web table,
``/tables/<code>/play``, instead (``web_table_path``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

SCHEME = "dekabes"
MIME = f"x-scheme-handler/{SCHEME}"
DESKTOP_FILE = "dekabes.desktop"
CODE = re.compile(r"^[A-Za-z0-9]{4,16}$")
HOST = re.compile(r"^[A-Za-z0-9.\-]+$|^\[[0-9A-Fa-f:.]+\]$")


@dataclass(frozen=True)
class TableLink:
    server: str  # "http://192.168.1.20:8000"
    code: str  # "K7Q2MX"


def parse(link: str) -> TableLink | None:
    """The server and table of a ``dekabes://`` link; None when it is not one (a link
    carrying anything else — a user, a password, a token in its query — is refused)."""
    try:
        parts = urlsplit(link.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme.lower() != SCHEME or parts.username or parts.password:
        return None
    host = parts.hostname or ""
    if not host or not HOST.match(host if ":" not in host else f"[{host}]"):
        return None
    segments = [s for s in parts.path.split("/") if s]
    if len(segments) != 2 or segments[0] != "table" or not CODE.match(segments[1]):
        return None
    if parts.query not in ("", "https") or parts.fragment:
        return None
    scheme = "https" if parts.query == "https" else "http"
    shown_host = f"[{host}]" if ":" in host else host
    server = f"{scheme}://{shown_host}" + (f":{port}" if port else "")
    return TableLink(server, segments[1].upper())


def link_for(server: str, code: str) -> str:
    """The ``dekabes://`` link of table ``code`` on ``server`` (the web page writes the
    same from the request's host)."""
    parts = urlsplit(server)
    host = parts.netloc.rsplit("@", 1)[-1]
    return f"{SCHEME}://{host}/table/{code.upper()}" + ("?https" if parts.scheme == "https" else "")


def web_table_path(code: str) -> str:
    """Where the same table is played in a browser (the fallback of the link)."""
    return f"/tables/{code.upper()}/play"


# ---------------------------------------------------------------------- the handler (Linux)
def data_home() -> Path:
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")


def config_home() -> Path:
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")


def app_command() -> list[str] | None:
    """How to start this app again (the installed program); None when it is not one (a
    checkout run with ``python -m clients.table``: no handler is installed for that)."""
    if getattr(sys, "frozen", False):  # the one-file app (PyInstaller)
        return [str(Path(sys.executable).resolve())]
    script = shutil.which("dekabes")
    return [script] if script else None


def desktop_entry(command: list[str], icon: str | None) -> str:
    quoted = " ".join(_quote(part) for part in command)
    lines = [
        "[Desktop Entry]",
        "Type=Application",
        "Version=1.0",
        "Name=Dékabès",
        "GenericName=Domino game",
        "Comment=The club's tables, league and lobby",
        f"Exec={quoted} %u",
        f"Icon={icon or 'applications-games'}",
        "Terminal=false",
        "Categories=Game;BoardGame;",
        f"MimeType={MIME};",
        "StartupWMClass=dekabes",  # the window's class (gui.py sets it)
    ]
    return "\n".join(lines) + "\n"


def _quote(part: str) -> str:
    """An argument of a desktop entry's Exec key (the spec's quoting)."""
    if re.fullmatch(r"[A-Za-z0-9_./+\-@]+", part):
        return part
    escaped = part.replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`")
    return '"' + escaped.replace("$", "\\$") + '"'


def install_handler(command: list[str] | None = None, icon: Path | None = None) -> Path | None:
    """Make this app the user's handler of ``dekabes://`` links (Linux and other XDG
    desktops): its ``.desktop`` entry, its icon, the default for the scheme. Quietly
    nothing where it does not apply (Windows, macOS, a checkout) or cannot be written.
    Returns the entry's path when it is in place."""
    if sys.platform in ("win32", "darwin"):
        return None
    command = command or app_command()
    if not command:
        return None
    try:
        icon_name = _install_icon(icon)
        entry = data_home() / "applications" / DESKTOP_FILE
        text = desktop_entry(command, icon_name)
        if not entry.exists() or entry.read_text(encoding="utf-8") != text:
            entry.parent.mkdir(parents=True, exist_ok=True)
            entry.write_text(text, encoding="utf-8")
            _refresh_database(entry.parent)
        _make_default(config_home() / "mimeapps.list")
        return entry
    except OSError:
        return None


def _install_icon(icon: Path | None) -> str | None:
    if icon is None or not icon.is_file():
        return None
    target = data_home() / "icons" / "hicolor" / "256x256" / "apps" / "dekabes.png"
    if not target.exists() or target.read_bytes() != icon.read_bytes():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(icon, target)
    return "dekabes"


def _refresh_database(folder: Path) -> None:
    tool = shutil.which("update-desktop-database")
    if tool:
        subprocess.run([tool, str(folder)], capture_output=True, timeout=20, check=False)


def _make_default(mimeapps: Path) -> None:
    """``x-scheme-handler/dekabes=dekabes.desktop`` under ``[Default Applications]`` of
    the user's ``mimeapps.list`` (what ``xdg-mime default`` writes), the rest kept."""
    lines = mimeapps.read_text(encoding="utf-8").splitlines() if mimeapps.exists() else []
    wanted = f"{MIME}={DESKTOP_FILE}"
    if wanted in lines:
        return
    out: list[str] = []
    section = None
    placed = False
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("[") and stripped.endswith("]"):
            if section == "[Default Applications]" and not placed:
                out.append(wanted)
                placed = True
            section = stripped
        elif section == "[Default Applications]" and stripped.startswith(f"{MIME}="):
            continue  # another handler was the default: this app is now
        out.append(line)
    if section == "[Default Applications]" and not placed:
        out.append(wanted)
        placed = True
    if not placed:
        out += ([""] if out else []) + ["[Default Applications]", wanted]
    mimeapps.parent.mkdir(parents=True, exist_ok=True)
    mimeapps.write_text("\n".join(out) + "\n", encoding="utf-8")
