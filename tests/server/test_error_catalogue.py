"""The refusal classes of ``server.errors`` are the one source of every code: each has one
status, the engine's rejections all have one, the documented codes keep theirs, and the
docs table, the served schema and the SDK agree with the classes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from clients.sdk.errors import RULE_REJECTION_CODES
from engine.errors import REJECTION_CODES, IllegalEventError
from server import error_table, errors
from server.errors import ERROR_CLASSES, ApiError, RuleRejection, StateConflict

ROOT = Path(__file__).resolve().parents[2]

# Every code docs/api.md and docs/league.md promised before the codes became classes, with
# its status: a client written against last month's docs relies on these (contract).
PROMISED = {
    400: "validation_error bad_request bad_event bad_deal tile_not_in_hand tile_does_not_fit "
    "end_required must_play must_open_double_six not_entitled opener_not_on_team",
    401: "not_authenticated",
    403: "not_your_seat permission_denied wrong_password registration_closed bad_invite "
    "quota_exceeded not_a_member organizer_only not_your_bot",
    404: "not_found invite_invalid bad_page",
    409: "stale_version paused wrong_phase not_your_turn already_accepted not_representative "
    "nothing_to_undo nothing_to_redo not_allowed_in_rated seat_taken username_taken "
    "already_paused not_paused one_seat_per_player match_annulled slug_taken already_member "
    "invite_used last_organizer wrong_format already_in_pair round_started round_in_progress "
    "not_enough_players not_enough_house_bots match_in_progress match_over not_a_league_match",
    410: "invite_expired",
    413: "body_too_large",
    422: "idempotency_key_reused",
    429: "throttled too_many_long_polls",
    503: "server_busy",
}
# Retired on purpose, and said so in docs/league.md: an outsider gets 404 not_found for a
# members club, so that it cannot tell the club exists.
RETIRED = {"club_members_only"}


def test_every_class_has_a_code_a_status_and_a_message():
    assert len(ERROR_CLASSES) > 60
    for code, cls in ERROR_CLASSES.items():
        assert re.fullmatch(r"[a-z][a-z_]+", code), code
        assert cls.code == code and issubclass(cls, ApiError)
        assert 400 <= cls.status <= 599, cls
        assert cls.message, cls


def test_a_code_has_one_class_so_one_status():
    with pytest.raises(TypeError, match="already"):

        class Again(ApiError):  # noqa: F841 (defining it is the test)
            code, status = "last_organizer", 400

    assert ERROR_CLASSES["last_organizer"] is errors.LastOrganizer


def test_the_documented_codes_keep_their_status():
    for status, codes in PROMISED.items():
        for code in codes.split():
            assert code in ERROR_CLASSES, code
            assert ERROR_CLASSES[code].status == status, (code, ERROR_CLASSES[code].status)
    assert not RETIRED & set(ERROR_CLASSES)


def test_every_engine_rejection_is_a_class_and_state_conflicts_are_409():
    rejections = {c.code: c for c in ERROR_CLASSES.values() if issubclass(c, RuleRejection)}
    assert set(rejections) == set(REJECTION_CODES) == set(RULE_REJECTION_CODES)
    for code, cls in rejections.items():
        assert cls.status == (409 if issubclass(cls, StateConflict) else 400), code
        refusal = errors.rule_rejection(IllegalEventError(code, "in the engine's words"))
        assert (type(refusal), refusal.message) == (cls, "in the engine's words")


def test_a_refusal_answers_with_its_code_status_message_and_headers():
    answer = errors.SlugTaken(slug="tuesday").response()
    assert answer.status_code == 409
    assert answer.data == {"code": "slug_taken", "message": "a club named 'tuesday' exists"}
    assert errors.NotFound("no table 'X'").body() == {
        "code": "not_found",
        "message": "no table 'X'",
    }
    stale = errors.StaleVersion(7, {"version": 7}).response()
    assert (stale.status_code, stale.data["code"], stale.data["view"]) == (
        409,
        "stale_version",
        {"version": 7},
    )
    polls = errors.TooManyLongPolls(limit=8).response()
    assert polls["Retry-After"] == "1" and "at most 8 long-polls" in polls.data["message"]
    assert errors.Throttled(wait=2.5).response()["Retry-After"] == "3"


def test_the_docs_error_table_is_made_from_the_classes():
    document = error_table.API_DOC.read_text(encoding="utf-8")
    assert error_table.with_table(document) == document, (
        "docs/api.md is stale: python -m server.error_table --write"
    )
    for code in ERROR_CLASSES:
        assert f"`{code}`" in error_table.table()


@pytest.mark.parametrize("doc", ["api.md", "league.md", "bots.md", "server.md", "web.md"])
def test_every_status_and_code_the_docs_name_together_is_the_classes(doc):
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    pairs = re.findall(r"`(\d{3}) ([a-z_]+)`", text)
    for status, code in pairs:
        if code in RETIRED:
            continue
        assert code in ERROR_CLASSES, (doc, code)
        assert ERROR_CLASSES[code].status == int(status), (doc, status, code)


def test_the_schema_lists_each_status_with_exactly_its_codes(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    components = schema["components"]["schemas"]
    by_status = {s: {c.code for c in classes} for s, classes in errors.codes_by_status().items()}
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for status, codes in by_status.items():
                answer = operation["responses"][str(status)]
                ref = answer["content"]["application/json"]["schema"]["$ref"]
                body = components[ref.rsplit("/", 1)[1]]
                code = body["properties"]["code"]
                ref = (code["allOf"][0] if "allOf" in code else code)["$ref"]
                enum = components[ref.rsplit("/", 1)[1]]
                assert set(enum["enum"]) == codes, (path, method, status)
                assert body["additionalProperties"] is False
                assert set(answer["description"].split(", ")) == codes


def test_the_schema_describes_every_league_endpoint(client):
    from server.league.urls import urlpatterns

    schema = client.get("/api/schema/", {"format": "json"}).json()
    for pattern in urlpatterns:
        route = "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", str(pattern.pattern))
        assert route in schema["paths"], route


def test_the_bots_guide_gives_each_code_its_status():
    text = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (`[a-z_]+`(?:, `[a-z_]+`)*) \| (\d{3}) \|", text, re.M)
    assert len(rows) >= 8
    for codes, status in rows:
        for code in re.findall(r"`([a-z_]+)`", codes):
            assert ERROR_CLASSES[code].status == int(status), (code, status)
