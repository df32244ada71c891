"""Static files go out gzipped to a client that accepts it (issue #33, point 8); the
pages, which carry CSRF tokens, stay uncompressed (BREACH)."""

from __future__ import annotations

import gzip

import pytest
import requests

pytestmark = pytest.mark.timeout(300)


def test_static_files_are_gzipped_and_pages_are_not(tmp_path):
    from tests.conftest import LiveServer

    server = LiveServer(tmp_path)
    server.start()
    try:
        plain = requests.get(
            server.url + "/static/web/site.css", headers={"Accept-Encoding": "identity"}, timeout=30
        )
        zipped = requests.get(
            server.url + "/static/web/site.css",
            headers={"Accept-Encoding": "gzip"},
            timeout=30,
            stream=True,
        )
        raw = zipped.raw.read(decode_content=False)
        assert plain.status_code == zipped.status_code == 200
        assert zipped.headers["Content-Encoding"] == "gzip"
        assert "Accept-Encoding" in zipped.headers.get("Vary", "")
        assert gzip.decompress(raw) == plain.content
        assert len(raw) < len(plain.content) / 2
        page = requests.get(
            server.url + "/register", headers={"Accept-Encoding": "gzip"}, timeout=30
        )
        assert page.status_code == 200 and "Content-Encoding" not in page.headers
    finally:
        server.stop()
