"""Schemathesis over every league endpoint, in-process (the backend run does it again on
PostgreSQL): generated paths, queries and bodies, with the ids of a real season most of
the time; no answer may be a 5xx, use an undeclared status, or leave the served schema.

Kept to a few examples per operation (``DEKABES_LEAGUE_FUZZ_EXAMPLES``, default 4): tens
of seconds. tests/server/test_hardening_fuzz.py fuzzes the whole API against a live server.
"""

from __future__ import annotations

import os
import random
from contextlib import contextmanager

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance, status_code_conformance

from server.league.models import LeagueMatch
from tests.league.conftest import play_out
from tests.league.test_league_api import League
from tests.server.conftest import token_for

pytestmark = [pytest.mark.backend, pytest.mark.django_db]

LEAGUE_PATHS = r"^/api/(clubs|matches|players|me/league-tables)"
EXAMPLES = int(os.environ.get("DEKABES_LEAGUE_FUZZ_EXAMPLES", "4"))
CHECKS = [not_a_server_error, status_code_conformance, response_schema_conformance]


@contextmanager
def connections_kept():
    """The WSGI handler closes the database connection after each request, and the test's
    transaction lives on it: keep it open, as Django's test client does for its requests
    (it reconnects the same receivers after each one, so this is entered after seeding)."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def test_the_league_endpoints_keep_to_the_schema_under_fuzzing():
    league = League(members=8)
    league.start_round()
    finished = LeagueMatch.objects.filter(season_id=league.season).order_by("id").first()
    play_out(finished.table, random.Random(3))
    real = {
        "slug": league.club.slug,
        "season_id": league.season,
        "number": 1,
        "match_id": finished.pk,
        "username": league.members[0].username,
    }
    headers = {"Authorization": f"Token {token_for(league.organizer)}"}
    with connections_kept():
        calls = fuzz_every_operation(real, headers)
    assert len(calls) >= 25 * 2
    assert any(status == 200 for _, status in calls)


def fuzz_every_operation(real: dict, headers: dict) -> list[tuple[str, int]]:
    schema = schemathesis.openapi.from_wsgi(
        "/api/schema/?format=json", get_wsgi_application()
    ).include(path_regex=LEAGUE_PATHS)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 25
    calls: list[tuple[str, int]] = []
    for operation in operations:

        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            derandomize=True,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(case=operation.as_strategy(), use_real_ids=st.booleans())
        def fuzz(case, use_real_ids):
            if use_real_ids:
                for name in case.path_parameters or {}:
                    if name in real:
                        case.path_parameters[name] = real[name]
            if case.query and "wait" in case.query:
                case.query["wait"] = 0  # in-process a long-poll would sleep its wait out
            response = case.call(headers=headers)
            calls.append((operation.label, response.status_code))
            case.validate_response(response, checks=CHECKS)

        fuzz()
    assert len({label for label, _ in calls}) == len(operations)
    return calls
