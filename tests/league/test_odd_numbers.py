"""Numbers from the client that no database integer can hold, or that only look like
digits, are a 400 validation_error (or a 404 for a path id), never a 500."""

from __future__ import annotations

import pytest

from tests.server.conftest import client_for, new_member

pytestmark = pytest.mark.django_db

HUGE = str(10**30)


@pytest.fixture
def organizer_api():
    api = client_for(new_member())
    assert api.post("/api/clubs", {"slug": "odd", "name": "Odd"}, format="json").status_code == 201
    season = api.post("/api/clubs/odd/seasons", {"name": "S", "format": "pairs"}, format="json")
    assert season.status_code == 201, season.content
    api.season = season.json()["id"]
    return api


@pytest.mark.parametrize(
    "query",
    [
        f"season={HUGE}",
        "season=²",
        "season=-1",
        "page_size=²",
        f"page_size={HUGE}",
        "page=²",
        f"page={HUGE}",
    ],
)
def test_odd_query_numbers_are_refused_cleanly(organizer_api, query):
    answer = organizer_api.get(f"/api/matches?{query}")
    assert answer.status_code in (400, 404), answer.content
    assert answer.json()["code"] in ("validation_error", "bad_page")


@pytest.mark.parametrize("pairs", [[10**30], [2**63], [-5]])
def test_check_in_of_impossible_pair_ids_is_a_validation_error(organizer_api, pairs):
    base = f"/api/clubs/odd/seasons/{organizer_api.season}/rounds"
    created = organizer_api.post(base, {}, format="json")
    assert created.status_code in (200, 201), created.content
    number = created.json()["number"]
    answer = organizer_api.post(f"{base}/{number}/checkin", {"pairs": pairs}, format="json")
    assert answer.status_code == 400 and answer.json()["code"] == "validation_error", answer.content


def test_the_round_tables_list_is_paginated_as_its_schema_says(organizer_api):
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    path = "/api/clubs/{slug}/seasons/{season_id}/rounds/{number}/tables"
    ref = schema["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    component = schema["components"]["schemas"][ref["$ref"].rsplit("/", 1)[1]]
    assert component["type"] == "object"
    assert {"count", "next", "previous", "results"} <= set(component["properties"])
    base = f"/api/clubs/odd/seasons/{organizer_api.season}/rounds"
    number = organizer_api.post(base, {}, format="json").json()["number"]
    body = organizer_api.get(f"{base}/{number}/tables").json()
    assert body == {"count": 0, "next": None, "previous": None, "results": []}
