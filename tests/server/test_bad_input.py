"""Bad shapes in the path and the query never reach the database (issue 20): every URL
pattern of the server (API and web, read from the resolver) gets each bad shape in each
of its path parameters (with each method its view answers) and in each query parameter
the views read (GET), and answers something below 500: ``400 validation_error`` or ``404`` on the API, the
site's 400/404 page on the web. On SQLite here, on PostgreSQL in the backend run (where
a NUL byte in text is refused by the database)."""

from __future__ import annotations

import re
import sys

import pytest
from django.http import QueryDict
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from server.league.models import Club, Round, Season
from tests.server.conftest import client_for, new_member

pytestmark = [pytest.mark.backend, pytest.mark.django_db]

BAD = ("%00", "a%00b", "%C2%B2", "99999999999999999999", "-1", "%1F")
BAD_QUERY = ("%00", "%C2%B2", "99999999999999999999", "-1")  # read by GET views
QUERY = (
    "season",
    "club",
    "player",
    "page",
    "page_size",
    "after",
    "verb",
    "status",
    "since",
    "until",
    "removed",
    "wait",
)
PARAM = re.compile(r"<(?:(\w+):)?(\w+)>")
SKIP = ("api/schema", "api/docs", "static/", "media/")
# Not sent: no path parameter nor query to spoil, and they end the test's own token or
# count against a rate limit.
PASSWORDS = {"api/auth/logout", "api/auth/rotate", "api/auth/password", "api/auth/token"}


def patterns(resolver=None, prefix="") -> dict[str, tuple[str, ...]]:
    """Every route (Django's syntax) with the methods its view answers."""
    out: dict[str, tuple[str, ...]] = {}
    for entry in (resolver or get_resolver()).url_patterns:
        route = (prefix + str(entry.pattern)).lstrip("^").rstrip("$")
        if isinstance(entry, URLResolver):
            out.update(patterns(entry, route))
        elif isinstance(entry, URLPattern) and not route.startswith(SKIP):
            if route in PASSWORDS or route == "api/auth/register":
                continue
            view = getattr(entry.callback, "view_class", None)
            methods = ("get", "post", "patch", "delete")
            out[route] = tuple(m for m in methods if view is None or hasattr(view, m))
    return out


@pytest.fixture
def world():
    organizer = new_member()
    club = Club.objects.create(slug="bad-input", name="Bad input", created_by=organizer)
    club.memberships.create(user=organizer, role="organizer")
    season = Season.objects.create(club=club, name="S", format="individual", seed=1)
    Round.objects.create(season=season, number=1)
    api = client_for(organizer)
    web = Client()
    web.force_login(organizer)
    good = {
        "slug": club.slug,
        "season_id": str(season.pk),
        "number": "1",
        "username": organizer.username,
        "code": "ABCDEF",
        "seat": "1",
        "token_id": "999999",  # not the test's own token
    }
    return api, web, good


def fill(route: str, good: dict, bad_param: str | None = None, bad: str = "") -> str:
    def value(m: re.Match) -> str:
        name = m.group(2)
        return bad if name == bad_param else good.get(name, "1")

    return "/" + PARAM.sub(value, route)


class QueryReads:
    """The query names read while it is on (QueryDict's readers, patched for the test);
    a view that walks the whole query (``items()``…) counts as reading every name."""

    def __init__(self, monkeypatch) -> None:
        self.names: set[str] = set()
        self.on = False
        for reader in ("__getitem__", "get", "getlist", "__contains__"):
            monkeypatch.setattr(QueryDict, reader, self._named(getattr(QueryDict, reader)))
        for walker in ("items", "lists", "keys", "values", "__iter__", "dict", "copy"):
            monkeypatch.setattr(QueryDict, walker, self._walked(getattr(QueryDict, walker)))

    def _named(self, method):
        def read(query, key, *args, **kwargs):
            # the query's own filling (``setlistdefault``, when it is parsed) reads nothing
            if self.on and sys._getframe(1).f_code.co_name != "setlistdefault":
                self.names.add(key)
            return method(query, key, *args, **kwargs)

        return read

    def _walked(self, method):
        def walk(query, *args, **kwargs):
            if self.on:
                self.names.update(QUERY)
            return method(query, *args, **kwargs)

        return walk

    def of(self, api, web, path: str) -> list[str]:
        """The names of QUERY that a GET of ``path`` reads, bare or with every name set
        (``wait=0``: no long-poll); sending a bad shape to a name no view reads proves
        nothing and cost most of the test's thousands of requests."""
        self.names, self.on = set(), True
        try:
            for query in ("", "&".join(f"{q}={0 if q == 'wait' else 1}" for q in QUERY)):
                for _ in answers(api, web, ("get",), path, query):
                    pass
        finally:
            self.on = False
        return [q for q in QUERY if q in self.names]


def answers(api, web, methods, path: str, query: str = ""):
    url = path + ("?" + query if query else "")
    if path.startswith("/api/"):
        for method in methods:
            if method == "get":
                yield method, url, getattr(api, method)(url)
            else:
                yield method, url, getattr(api, method)(url, {}, format="json")
    else:
        yield "get", url, web.get(url)


@pytest.mark.timeout(900)  # some thousands of requests, on a busy machine
def test_every_route_answers_bad_path_and_query_shapes_below_500(world, monkeypatch):
    api, web, good = world
    reads = QueryReads(monkeypatch)
    routes = patterns()
    assert len(routes) > 40 and "api/matches" in routes and "matches/" in routes
    failures = []
    queried = 0  # routes whose view reads a name of QUERY
    for route, methods in sorted(routes.items()):
        names = [m.group(2) for m in PARAM.finditer(route)]
        tries = [(fill(route, good, name, bad), "") for name in names for bad in BAD]
        base = fill(route, good)
        if "get" in methods:
            read = reads.of(api, web, base)
            tries += [(base, f"{q}={bad}") for q in read for bad in BAD_QUERY]
            queried += bool(read)
        for path, query in tries:
            sent = [m for m in methods if m == "get"] if query else methods
            for method, url, response in answers(api, web, sent, path, query):
                if response.status_code >= 500:
                    failures.append(f"{method.upper()} {url} {response.status_code}")
    assert failures == [], "\n".join(failures[:40])
    assert queried > 15  # the reads were seen (the patch works)


@pytest.mark.parametrize("query", ["season=%C2%B2", "season=99999999999999999999", "club=%00"])
def test_bad_query_is_a_validation_error_on_the_api(world, query):
    api, _web, _good = world
    response = api.get(f"/api/matches?{query}")
    assert response.status_code == 400
    assert response.json()["code"] == "validation_error"


@pytest.mark.parametrize(
    "url",
    [
        "/matches/?season=%C2%B2",
        "/matches/?season=99999999999999999999",
        "/matches/?player=%00",
        "/clubs/bad-input/standings?season=%C2%B2",
        "/clubs/bad-input/standings?season=99999999999999999999",
        "/players/%00",
        "/tables/%00/replay",
    ],
)
def test_bad_input_is_a_not_found_page_on_the_web(world, url):
    _api, web, _good = world
    assert web.get(url).status_code == 404
