"""The desktop app as a member installs it (issue 34): its own package (the table, the
SDK and the assets: no Django, no server, no engine, no bots) with a ``dekabes`` GUI
entry point; ``dekabes://`` links (server and table, never a token) that open the app at
that table signed in with the account remembered; on Linux the app installs itself as
the user's handler of such links."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import tomllib
import uuid
from pathlib import Path

import pytest

from clients.sdk import DekabesClient
from clients.table import links

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "a long enough password 42"


@pytest.mark.parametrize(
    "link, server, code",
    [
        ("dekabes://192.168.1.20:8000/table/K7Q2MX", "http://192.168.1.20:8000", "K7Q2MX"),
        ("dekabes://club.example.org/table/k7q2mx?https", "https://club.example.org", "K7Q2MX"),
        ("DEKABES://[::1]:8000/table/ABCD12", "http://[::1]:8000", "ABCD12"),
    ],
)
def test_a_link_names_the_server_and_the_table(link, server, code):
    assert links.parse(link) == links.TableLink(server, code)
    assert links.parse(links.link_for(server, code)) == links.TableLink(server, code)


@pytest.mark.parametrize(
    "link",
    [
        "dekabes://host:8000/table/K7Q2MX?token=abc",  # never a token
        "dekabes://ann:secret@host:8000/table/K7Q2MX",  # nor a password
        "dekabes://host:8000/tables/K7Q2MX",
        "dekabes://host:8000/table/K7/../X",
        "dekabes://host:8000/table/",
        "http://host:8000/table/K7Q2MX",
        "dekabes://host:99999/table/K7Q2MX",
        "dekabes://ho st/table/K7Q2MX",
    ],
)
def test_anything_else_is_not_a_table_link(link):
    assert links.parse(link) is None
    assert links.web_table_path("k7q2mx") == "/tables/K7Q2MX/play"


def test_the_app_installs_itself_as_the_handler_of_dekabes_links(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    mimeapps = tmp_path / "config" / "mimeapps.list"
    mimeapps.parent.mkdir(parents=True)
    mimeapps.write_text(
        "[Default Applications]\nx-scheme-handler/dekabes=old.desktop\ntext/html=firefox.desktop\n"
        "\n[Added Associations]\ntext/plain=gedit.desktop\n"
    )
    app = tmp_path / "My Apps" / "dekabes-linux-x86_64"
    entry = links.install_handler([str(app)], icon=ROOT / "clients" / "assets" / "icon.png")
    assert entry == tmp_path / "data" / "applications" / "dekabes.desktop"
    text = entry.read_text()
    assert f'Exec="{app}" %u' in text and "MimeType=x-scheme-handler/dekabes;" in text
    assert "Terminal=false" in text and "Icon=dekabes" in text
    assert (tmp_path / "data" / "icons" / "hicolor" / "256x256" / "apps" / "dekabes.png").exists()
    lines = mimeapps.read_text().splitlines()
    assert "x-scheme-handler/dekabes=dekabes.desktop" in lines
    assert "x-scheme-handler/dekabes=old.desktop" not in lines
    assert "text/html=firefox.desktop" in lines and "text/plain=gedit.desktop" in lines
    assert links.install_handler([str(app)]) == entry  # again: nothing changes
    assert mimeapps.read_text().count("x-scheme-handler/dekabes=") == 1
    if shutil.which("xdg-mime"):
        default = subprocess.run(
            ["xdg-mime", "query", "default", "x-scheme-handler/dekabes"],
            capture_output=True,
            text=True,
            env=dict(os.environ),
        ).stdout.strip()
        assert default == "dekabes.desktop"


def test_the_package_is_the_table_the_sdk_and_the_assets_with_a_gui_entry_point():
    project = tomllib.loads((ROOT / "clients" / "pyproject.toml").read_text())
    assert project["project"]["gui-scripts"] == {"dekabes": "clients.table.gui:main"}
    packages = project["tool"]["setuptools"]["packages"]
    assert all(
        p == "clients" or p.startswith(("clients.table", "clients.sdk", "clients.assets"))
        for p in packages
    )
    needs = " ".join(project["project"]["dependencies"]).lower()
    assert "django" not in needs and "daphne" not in needs and "pygame-ce" in needs


def test_the_installed_app_opens_a_table_from_a_link_without_the_server_code(
    live_server_url, tmp_path
):
    """Only what the package ships on the path (a copy of it): the app starts from a
    link, resumes the remembered account and sits at the table — and never loads
    Django, the server, the engine or the bots."""
    shipped = tmp_path / "site"
    (shipped / "clients").mkdir(parents=True)
    shutil.copy(ROOT / "clients" / "__init__.py", shipped / "clients")
    for part in ("table", "sdk", "assets"):
        shutil.copytree(ROOT / "clients" / part, shipped / "clients" / part)
    owner = DekabesClient(live_server_url)
    name = f"ln{uuid.uuid4().hex[:8]}"
    token = owner.register(name, PASSWORD).token
    code = owner.create_table({n: "human" for n in (1, 2, 3, 4)}, join=[1]).code
    link = links.link_for(live_server_url, code)
    script = textwrap.dedent(
        f"""
        import sys, time
        from clients.table import config
        settings = config.Settings(server={live_server_url!r})
        settings.accounts[{live_server_url!r}] = {{"username": {name!r}, "token": {token!r}}}
        config.save(settings)
        import pygame
        from clients.table import gui
        pygame.init()
        shell = gui.build_shell(gui.parse([{link!r}]))
        shell.open_window()
        deadline = time.monotonic() + 60
        while shell.table is None or shell.table.newest is None:
            assert time.monotonic() < deadline, shell.lobby.message
            shell.tick(); time.sleep(0.02)
        print("TABLE", shell.connection.code, shell.table.seating.seats)
        shell.close()
        loaded = {{m.split(".")[0] for m in sys.modules}} | {{m for m in sys.modules if m.startswith("clients.")}}
        print("LOADED", sorted(loaded & {{"django", "server", "engine", "daphne", "clients.bots"}}))
        """
    )
    env = dict(
        os.environ,
        PYTHONPATH=str(shipped),
        DEKABES_CONFIG_DIR=str(tmp_path / "config"),
        DEKABES_TOKEN_STORE="file",
        SDL_VIDEODRIVER="dummy",
        SDL_AUDIODRIVER="dummy",
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert f"TABLE {code} [1]" in lines, done.stdout
    assert "LOADED []" in lines, done.stdout
