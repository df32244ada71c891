"""Seat answers built once per version (``server.tables.answers``) and sent as encoded.

The seat view and the action answer with the JSON text kept for (table, version, seat,
account): the same bytes DRF's renderer writes, never another account's answer, and
built again when presence or the seats change without a new version.
"""

from __future__ import annotations

import orjson
import pytest
from drf_orjson_renderer.renderers import ORJSONRenderer

from server.notices import presence
from server.tables import answers, selectors, services
from tests.server.conftest import Players, client_for, new_member

pytestmark = [pytest.mark.django_db(transaction=True)]

RENDERED_BY_DRF = "application/json; indent=4"  # negotiated with a parameter: DRF renders


def test_the_kept_text_is_what_drf_renders_and_other_accepts_are_negotiated_as_before():
    p = Players(kinds=("human", "human", "human", "human"))
    path = f"/api/tables/{p.code}/seats/1"
    api = p.api(1)
    fast = api.get(path)
    usual = api.get(path, HTTP_ACCEPT="*/*")
    rendered = api.get(path, HTTP_ACCEPT=RENDERED_BY_DRF)
    assert fast.status_code == usual.status_code == rendered.status_code == 200
    assert fast["Content-Type"] == "application/json"
    assert fast.content == usual.content == rendered.content
    body = orjson.loads(fast.content)
    assert fast.content == ORJSONRenderer().render(body)
    assert api.get(path, HTTP_ACCEPT="text/html").status_code == 406
    assert api.get(path, HTTP_ACCEPT="").status_code == 406
    assert api.get(path + "?format=xml").status_code == 404  # DRF: no such format

    accept = next(e for e in body["view"]["legal"] if e["type"] == "accept")
    action = {"type": "accept", "expected_version": body["version"]}
    assert accept["seat"] == 1
    html = api.post(
        f"/api/tables/{p.code}/seats/1/actions", action, format="json", HTTP_ACCEPT="text/html"
    )
    assert html.status_code == 406  # refused before anything is applied
    assert p.seat(1)["version"] == body["version"]
    done = p.act(1, action, key="k-1")
    assert done.status_code == 200 and done["Content-Type"] == "application/json"
    again = api.post(
        f"/api/tables/{p.code}/seats/1/actions",
        action,
        format="json",
        HTTP_IDEMPOTENCY_KEY="k-1",
        HTTP_ACCEPT=RENDERED_BY_DRF,
    )
    assert again.status_code == 200 and orjson.loads(again.content) == orjson.loads(done.content)
    # the answer an action gives is its seat's view at the new version
    assert orjson.loads(done.content) == orjson.loads(api.get(path).content)


def test_an_answer_is_kept_per_account_and_follows_presence_and_the_seats():
    p = Players(kinds=("human", "human", "human", "human"), humans_joined=False)
    for number in (1, 2, 3):
        services.do_join(user=p.owner, table=p.table, number=number)
    version = p.seat(1)["version"]
    first = p.seat(1)
    assert first["version"] == version and first["presence"]["2"]["connected"] is False
    p.seat(2)  # seat 2 comes: no new version, seat 1's answer must show it
    again = p.seat(1)
    assert again["version"] == version and again["presence"]["2"]["connected"] is True
    assert again["table"]["seats"]["4"]["player"] is None

    newcomer = new_member("nia")
    services.do_join(user=newcomer, table=p.table, number=4)  # seats change, same version
    joined = p.seat(1)
    assert joined["version"] == version
    assert joined["table"]["seats"]["4"]["player"] == newcomer.username

    # another account's ask for seat 1 is refused, never answered from what is kept
    stranger = client_for(newcomer)
    assert stranger.get(f"/api/tables/{p.code}/seats/1").status_code == 403
    mine = stranger.get(f"/api/tables/{p.code}/seats/4")
    assert mine.status_code == 200 and mine.json()["seat"] == 4
    assert mine.json()["view"]["hand"] != joined["view"]["hand"]


def test_an_answer_built_inside_an_action_is_kept_only_once_committed(monkeypatch):
    p = Players(kinds=("human", "human", "human", "human"))
    body = p.seat(1)
    kept: list[int] = []
    real = answers.keep

    def keeping(table, number, user, answer):
        kept.append(answer.version)
        # the hook runs after the commit: the log already holds this version
        assert selectors.current_version(table) == answer.version
        return real(table, number, user, answer)

    monkeypatch.setattr(answers, "keep", keeping)
    accept = next(e for e in body["view"]["legal"] if e["type"] == "accept")
    stale = {"type": "accept", "expected_version": body["version"] - 1}
    assert p.act(1, stale).status_code == 409
    assert kept == []  # refused: nothing built for a version that never was
    done = p.send(accept, body["version"])
    assert done.status_code == 200 and kept == [done.json()["version"]]


def test_forgetting_the_folds_forgets_the_answers():
    p = Players(kinds=("human", "bot", "bot", "bot"))
    first = p.seat(1)
    found = selectors.table_and_seats(p.code)
    assert found is not None
    table, seats = found
    state = selectors.projection.project(table)
    kept = answers.seat_answer(table, 1, state, p.owner, seats)
    assert answers.seat_answer(table, 1, state, p.owner, seats) is kept
    selectors.projection.forget()
    assert answers.seat_answer(table, 1, state, p.owner, seats) is not kept
    presence.forget_all()
    assert p.seat(1)["version"] == first["version"]


@pytest.mark.parametrize(
    "body",
    [
        b'{"type": "accept", "expected_version": 0}',
        b'{"type": "accept", "expected_version": NaN}',
        b'{"type": "accept",',
        b"\xff\xfe{}",
        b"[" * 100_000 + b"]" * 100_000,
        b"[1, 2]",
        b"",
    ],
    ids=["stale", "nan", "cut", "not-utf8", "deep", "list", "empty"],
)
def test_a_plain_json_body_is_read_as_drf_reads_it(body):
    """The action's body read directly (``Content-Type: application/json``) gives the
    answer DRF's own reading gives (here reached with a charset parameter)."""
    p = Players(kinds=("human", "bot", "bot", "bot"))
    path = f"/api/tables/{p.code}/seats/1/actions"
    direct = p.api(1).generic("POST", path, body, content_type="application/json")
    by_drf = p.api(1).generic("POST", path, body, content_type="application/json; charset=utf-8")
    assert direct.status_code == by_drf.status_code != 200
    assert direct.json() == by_drf.json()
