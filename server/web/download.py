"""``/download/``: the desktop app for the club's members, and how to start it.

The page lists the builds of the app found in the downloads folder (``make app`` puts
the Linux one there; a Windows or macOS build copied in appears too) and explains the
three steps — download, open, enter this server's address (filled in) — in the
visitor's language, with no command to type (``/download`` leads here too, Django's
``APPEND_SLASH``). ``/download/<file>`` hands one build over.
``?table=CODE`` adds that table's ``dekabes://`` link (the app opens at it, signed in)
and its web table (``/tables/<code>/play``) for a computer without the app.

Self-contained on purpose (one module, one template, one line in ``urls.py``): it reads
no model. The folder is the setting ``DEKABES_DOWNLOADS_DIR`` (or the environment
variable of that name), else ``var/downloads``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path
from django.views.decorators.http import require_GET

# dekabes-linux-x86_64, dekabes-windows-x86_64.exe, dekabes-macos-arm64.zip, ...
BUILD = re.compile(r"^dekabes-(linux|windows|macos)-[A-Za-z0-9_.-]+$")
TABLE = re.compile(r"^[A-Za-z0-9]{4,16}$")
PLATFORMS = {"linux": "Linux", "windows": "Windows", "macos": "macOS"}
AGENT = {"linux": "Linux", "windows": "Windows", "macos": "Mac OS"}


@dataclass(frozen=True)
class Build:
    name: str
    platform: str  # "linux" | "windows" | "macos"
    label: str  # "Linux", "Windows", "macOS"
    megabytes: float


def downloads_dir() -> Path:
    configured = getattr(settings, "DEKABES_DOWNLOADS_DIR", None) or os.environ.get(
        "DEKABES_DOWNLOADS_DIR"
    )
    return Path(configured) if configured else Path(settings.VAR_DIR) / "downloads"


def builds(folder: Path) -> list[Build]:
    """The builds in ``folder``: regular files named as ``BUILD`` says, by platform."""
    found = []
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return []
    for entry in entries:
        match = BUILD.match(entry.name)
        if match and entry.is_file() and not entry.is_symlink():
            size = entry.stat().st_size / 1_000_000
            found.append(Build(entry.name, match[1], PLATFORMS[match[1]], round(size, 1)))
    return found


def visitor_first(found: list[Build], agent: str) -> list[Build]:
    """The visitor's own system's builds first (by the browser's User-Agent)."""
    return sorted(found, key=lambda b: AGENT[b.platform] not in agent)


@require_GET
def download_page(request: HttpRequest) -> HttpResponse:
    server = request.build_absolute_uri("/").rstrip("/")
    code = request.GET.get("table", "").strip().upper()
    table = None
    if TABLE.match(code):
        host = request.get_host()
        secure = "?https" if request.is_secure() else ""
        table = {
            "code": code,
            "link": f"dekabes://{host}/table/{code}{secure}",  # never a token in it
            "web": f"/tables/{code}/play",
        }
    found = visitor_first(builds(downloads_dir()), request.headers.get("User-Agent", ""))
    return render(request, "web/download.html", {"builds": found, "server": server, "table": table})


@require_GET
def download_file(request: HttpRequest, name: str) -> FileResponse:
    folder = downloads_dir()
    if not any(build.name == name for build in builds(folder)):
        raise Http404("no such build")
    return FileResponse(open(folder / name, "rb"), as_attachment=True, filename=name)


urlpatterns = [
    path("", download_page, name="download"),
    path("<str:name>", download_file, name="download_file"),
]
