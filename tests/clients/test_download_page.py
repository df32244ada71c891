"""The club server's ``/download/`` page (issue 34): the app's builds found in the
downloads folder, the three steps with this server's address filled in, a table's
``dekabes://`` link (never a token in it) beside its web table; a build handed over,
nothing else of the folder."""

from __future__ import annotations

import re

import pytest
from django.test import Client, override_settings

pytestmark = pytest.mark.django_db


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "dekabes-linux-x86_64").write_bytes(b"\x7fELF" + b"\0" * 2_000_000)
    (tmp_path / "dekabes-windows-x86_64.exe").write_bytes(b"MZ" + b"\0" * 1000)
    (tmp_path / "notes.txt").write_text("not a build")
    (tmp_path / "dekabes-linux-old").symlink_to(tmp_path / "notes.txt")
    with override_settings(DEKABES_DOWNLOADS_DIR=str(tmp_path)):
        yield tmp_path


def test_the_page_lists_the_builds_and_fills_in_the_address(folder):
    page = Client().get("/download/", HTTP_HOST="localhost:8000", HTTP_USER_AGENT="X11; Linux")
    assert page.status_code == 200
    text = page.content.decode()
    assert "http://localhost:8000" in text  # step 3: this server's address
    names = re.findall(r'href="/download/([^"]+)"', text)
    assert names == ["dekabes-linux-x86_64", "dekabes-windows-x86_64.exe"], names
    assert "notes.txt" not in text and "dekabes-linux-old" not in text
    assert "2.0 MB" in text
    windows = Client().get("/download/", HTTP_USER_AGENT="Windows NT 10.0")
    first = re.findall(r'href="/download/([^"]+)"', windows.content.decode())[0]
    assert first == "dekabes-windows-x86_64.exe", "the visitor's system first"
    assert Client().get("/download").status_code in (301, 302), "/download leads there"


def test_the_page_in_another_language(folder):
    client = Client()
    client.cookies["django_language"] = "es"
    text = client.get("/download/").content.decode()
    assert "Descarga la aplicación" in text


def test_a_build_is_handed_over_and_nothing_else_of_the_folder(folder):
    got = Client().get("/download/dekabes-linux-x86_64")
    assert got.status_code == 200 and got["Content-Disposition"].startswith("attachment")
    assert b"".join(got.streaming_content)[:4] == b"\x7fELF"
    for name in ("notes.txt", "dekabes-linux-old", "..%2Fsecret_key", "dekabes-linux-none"):
        assert Client().get(f"/download/{name}").status_code == 404, name


def test_a_table_link_carries_the_server_and_code_only(folder):
    text = Client().get("/download/?table=k7q2mx", HTTP_HOST="127.0.0.1:8000").content.decode()
    assert 'href="dekabes://127.0.0.1:8000/table/K7Q2MX"' in text
    assert 'href="/tables/K7Q2MX/play"' in text
    link = re.search(r'href="(dekabes://[^"]+)"', text)[1]
    from clients.table.links import parse

    assert parse(link) is not None and parse(link).code == "K7Q2MX"
    assert "token" not in link.lower()


def test_no_build_yet_says_so(tmp_path):
    with override_settings(DEKABES_DOWNLOADS_DIR=str(tmp_path / "none")):
        text = Client().get("/download/").content.decode()
    assert "no copy of the app" in text
