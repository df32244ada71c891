"""Every refusal has its code and leaves the event log byte-identical."""

from __future__ import annotations

import json
import random

import pytest
from rest_framework.test import APIClient

from server.tables.models import Event
from tests.server.conftest import Players, client_for, new_member

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("action_path")]  # REST and socket


def log_bytes(p: Players) -> bytes:
    rows = (
        Event.objects.filter(table=p.table)
        .order_by("seq")
        .values_list("seq", "type", "payload", "seat", "actor_kind", "command_id", "created_at")
    )
    return json.dumps([list(r) for r in rows], default=str, sort_keys=True).encode()


def refused(
    p: Players,
    seat: int,
    body,
    expect_code: str,
    expect_status: int | None = None,
    api=None,
    raw: bytes | None = None,
    key: str | None = None,
):
    before = log_bytes(p)
    client = api or p.api(seat)
    url = f"/api/tables/{p.code}/seats/{seat}/actions"
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    if raw is not None:
        response = client.post(url, raw, content_type="application/json", **headers)
    else:
        response = client.post(url, body, format="json", **headers)
    data = response.json()
    assert data["code"] == expect_code, data
    assert data["message"]
    if expect_status is not None:
        assert response.status_code == expect_status
    assert log_bytes(p) == before, f"{expect_code}: the log changed"
    return data


def advance_until(p: Players, rng, condition, limit=600):
    for _ in range(limit):
        bodies = {n: p.seat(n) for n in (1, 2, 3, 4)}
        found = condition(bodies)
        if found:
            return found
        if p.step(rng) is None:
            break
    pytest.skip("situation not reached")


def test_request_shape_errors_are_validation_error():
    p = Players()
    v = p.seat(1)["version"]
    refused(p, 1, None, "validation_error", 400, raw=b"{not json")
    refused(p, 1, None, "validation_error", 400, raw=b"[1, 2]")
    refused(p, 1, {"expected_version": v}, "validation_error", 400)
    refused(p, 1, {"type": "accept"}, "validation_error", 400)  # no version
    refused(p, 1, {"type": "accept", "expected_version": "three"}, "validation_error", 400)
    refused(
        p, 1, {"type": "accept", "expected_version": v, "colour": "red"}, "validation_error", 400
    )
    refused(p, 1, {"type": "dance", "expected_version": v}, "validation_error", 400)
    refused(p, 1, {"type": "play", "tile": 35, "expected_version": v}, "validation_error", 400)
    refused(
        p,
        1,
        {"type": "play", "tile": "3-5", "end": "top", "expected_version": v},
        "validation_error",
        400,
    )
    refused(
        p, 1, {"type": "choose_opener", "opener": 7, "expected_version": v}, "validation_error", 400
    )


def test_a_malformed_tile_is_the_engine_s_bad_event():
    p = Players()
    v = p.seat(1)["version"]
    refused(p, 1, {"type": "play", "tile": "7-7", "expected_version": v}, "bad_event", 400)


def test_auth_seat_and_lookup_errors():
    p = Players()
    v = p.seat(1)["version"]
    refused(
        p, 1, {"type": "accept", "expected_version": v}, "not_authenticated", 401, api=APIClient()
    )
    stranger = client_for(new_member("eve"))
    refused(p, 1, {"type": "accept", "expected_version": v}, "not_your_seat", 403, api=stranger)
    refused(p, 2, {"type": "accept", "expected_version": v}, "not_your_seat", 403, api=p.owner_api)
    missing = p.owner_api.post(
        "/api/tables/NOPE42/seats/1/actions",
        {"type": "accept", "expected_version": 1},
        format="json",
    )
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    assert p.owner_api.get(f"/api/tables/{p.code}/seats/9").json()["code"] == "not_found"
    bad_token = APIClient()
    bad_token.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
    assert bad_token.get("/api/me").status_code == 401


def test_stale_version_carries_the_current_view_of_the_caller_only():
    p = Players()
    v = p.seat(1)["version"]
    assert p.act(2, {"type": "accept", "expected_version": v}).status_code == 200
    data = refused(p, 1, {"type": "accept", "expected_version": v}, "stale_version", 409)
    assert data["view"]["version"] == v + 1 and data["view"]["seat"] == 1
    assert data["view"]["view"]["hand"] == p.seat(1)["view"]["hand"]


def test_idempotency_same_key_same_answer_and_other_body_is_refused():
    p = Players()
    v = p.seat(1)["version"]
    first = p.act(1, {"type": "accept", "expected_version": v}, key="k-1")
    again = p.act(1, {"type": "accept", "expected_version": v}, key="k-1")
    assert first.status_code == again.status_code == 200 and first.json() == again.json()
    assert Event.objects.filter(table=p.table, type="accept").count() == 1
    assert Event.objects.get(table=p.table, type="accept").command_id == "k-1"
    refused(
        p, 1, {"type": "pause", "expected_version": v}, "idempotency_key_reused", 422, key="k-1"
    )
    body_key = p.act(2, {"type": "accept", "expected_version": v + 1, "command_id": "k-2"})
    assert body_key.status_code == 200
    receipts = Event.objects.filter(table=p.table, command_id="k-2").values_list("receipt")
    assert [json.loads(text) for (text,) in receipts] == [{"version": body_key.json()["version"]}]


def test_paused_table_refuses_bot_seats():
    p = Players()
    v = p.act(1, {"type": "pause", "expected_version": p.seat(1)["version"]}).json()["version"]
    refused(p, 2, {"type": "accept", "expected_version": v}, "paused", 409)
    refused(p, 1, {"type": "pause", "expected_version": v}, "already_paused", 409)


def test_every_engine_rejection_through_the_api():
    p = Players()
    rng = random.Random(2)
    body = p.seat(1)
    v = body["version"]
    refused(
        p,
        1,
        {"type": "play", "tile": body["view"]["hand"][0], "expected_version": v},
        "wrong_phase",
        409,
    )
    refused(p, 1, {"type": "undo", "expected_version": v}, "nothing_to_undo", 409)
    refused(p, 1, {"type": "redo", "expected_version": v}, "nothing_to_redo", 409)
    if not body["view"]["can_claim_redeal"]:
        refused(p, 1, {"type": "claim_redeal", "expected_version": v}, "not_entitled", 400)
    v = p.act(1, {"type": "accept", "expected_version": v}).json()["version"]
    refused(p, 1, {"type": "accept", "expected_version": v}, "already_accepted", 409)

    def opening(bodies):
        for n, b in bodies.items():
            view = b["view"]
            if (
                view["phase"] == "play"
                and view["to_act"] == n
                and not view["line"]
                and view["first_hand"]
            ):
                return n, b

    n, b = advance_until(p, rng, opening)
    other = next(t for t in b["view"]["hand"] if t != "6-6")
    refused(
        p,
        n,
        {"type": "play", "tile": other, "expected_version": b["version"]},
        "must_open_double_six",
        400,
    )
    foreign = next(t for m in (1, 2, 3, 4) if m != n for t in p.seat(m)["view"]["hand"])
    refused(
        p,
        n,
        {"type": "play", "tile": foreign, "expected_version": b["version"]},
        "tile_not_in_hand",
        400,
    )
    waiting = n % 4 + 1
    mine = p.seat(waiting)["view"]["hand"][0]
    refused(
        p,
        waiting,
        {"type": "play", "tile": mine, "expected_version": b["version"]},
        "not_your_turn",
        409,
    )

    def must_play(bodies):
        for n, b in bodies.items():
            view = b["view"]
            if (
                view["phase"] == "play"
                and view["to_act"] == n
                and view["line"]
                and view["legal"]
                and view["legal"][0]["type"] == "play"
            ):
                return n, b

    n, b = advance_until(p, rng, must_play)
    refused(p, n, {"type": "pass", "expected_version": b["version"]}, "must_play", 400)

    def misfit(bodies):
        for n, b in bodies.items():
            view = b["view"]
            legal_tiles = {e.get("tile") for e in view["legal"]}
            if view["phase"] == "play" and view["to_act"] == n and view["line"]:
                spare = [t for t in view["hand"] if t not in legal_tiles]
                if spare:
                    return n, b, spare[0]

    n, b, spare = advance_until(p, rng, misfit)
    refused(
        p,
        n,
        {"type": "play", "tile": spare, "expected_version": b["version"]},
        "tile_does_not_fit",
        400,
    )

    def both_ends(bodies):
        for n, b in bodies.items():
            view = b["view"]
            tiles = [e["tile"] for e in view["legal"] if e.get("end")]
            doubled = [t for t in tiles if tiles.count(t) == 2]
            if view["phase"] == "play" and view["to_act"] == n and doubled:
                return n, b, doubled[0]

    n, b, tile = advance_until(p, rng, both_ends)
    refused(
        p, n, {"type": "play", "tile": tile, "expected_version": b["version"]}, "end_required", 400
    )

    def choosing(bodies):
        for n, b in bodies.items():
            view = b["view"]
            if view["phase"] == "choose_opener" and view["to_act"] == n:
                return n, b

    n, b = advance_until(p, rng, choosing)
    partner = b["view"]["partner"]
    opponent = n % 4 + 1
    refused(
        p,
        partner,
        {"type": "choose_opener", "opener": partner, "expected_version": b["version"]},
        "not_representative",
        409,
    )
    refused(
        p,
        n,
        {"type": "choose_opener", "opener": opponent, "expected_version": b["version"]},
        "opener_not_on_team",
        400,
    )


def test_rated_tables_refuse_table_commands_with_the_engine_code():
    p = Players(rated=True)
    v = p.seat(1)["version"]
    for command in ("undo", "redo", "restart_hand", "new_match"):
        refused(p, 1, {"type": command, "expected_version": v}, "not_allowed_in_rated", 409)
