"""Every code the league raises is registered with one status and documented."""

from __future__ import annotations

import re
from pathlib import Path

from server.errors import LEAGUE_ERROR_CODES

ROOT = Path(__file__).resolve().parents[2]
RAISED = re.compile(r'ApiError\(\s*"([a-z_]+)"[^)]*?(\d{3})\)', re.S)


def raised_codes() -> set[tuple[str, int]]:
    found = set()
    for path in [*ROOT.glob("server/league/*.py"), ROOT / "server/tables/services.py"]:
        for code, status in RAISED.findall(path.read_text()):
            found.add((code, int(status)))
    return found


def test_every_raised_league_code_is_registered_with_its_status():
    registered = {(code, status) for status, codes in LEAGUE_ERROR_CODES.items() for code in codes}
    league_codes = {code for _, codes in LEAGUE_ERROR_CODES.items() for code in codes}
    for code, status in raised_codes():
        if code in league_codes:
            assert (code, status) in registered, (code, status)
    names = [code for codes in LEAGUE_ERROR_CODES.values() for code in codes if code != "not_found"]
    assert len(names) == len(set(names)), "a code has one status"
    raised = {code for code, _ in raised_codes()}
    assert {"organizer_only", "one_seat_per_player", "match_annulled", "invite_expired"} <= raised


def test_the_error_table_documents_every_league_code():
    table = (ROOT / "docs/api.md").read_text()
    for status, codes in LEAGUE_ERROR_CODES.items():
        row = next((line for line in table.splitlines() if line.startswith(f"| {status} |")), "")
        for code in codes:
            assert f"`{code}`" in row, (status, code)


def test_the_openapi_schema_describes_every_league_endpoint(db):
    from rest_framework.test import APIClient

    from server.league.urls import urlpatterns

    schema = APIClient().get("/api/schema/", HTTP_ACCEPT="application/json").json()
    for pattern in urlpatterns:
        route = "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", str(pattern.pattern))
        assert route in schema["paths"], route
        for method, operation in schema["paths"][route].items():
            assert {"401", "403", "404", "409"} <= set(operation["responses"]), (route, method)
    start = schema["paths"]["/api/clubs/{slug}/seasons/{season_id}/rounds/{number}/start"]["post"]
    assert "organizer_only" in str(start["responses"]["403"])
