"""SDK pieces that need no server: error mapping, URL building, JSON wrappers,
and the retry path when nothing listens."""

import socket

import pytest

from clients.sdk import (
    ApiError,
    ConnectionLost,
    DekabesClient,
    IdempotencyKeyReused,
    NotAuthenticated,
    NotFound,
    NotYourSeat,
    Paused,
    RuleRejected,
    SeatState,
    StaleVersion,
    Table,
)
from clients.sdk.errors import RULE_REJECTION_CODES, error_from_response
from clients.sdk.push import ws_url
from engine.errors import REJECTION_CODES


def test_sdk_knows_exactly_the_engine_rejection_codes():
    assert RULE_REJECTION_CODES == frozenset(REJECTION_CODES)


@pytest.mark.parametrize(
    "code, status, cls",
    [
        ("stale_version", 409, StaleVersion),
        ("paused", 409, Paused),
        ("not_authenticated", 401, NotAuthenticated),
        ("not_your_seat", 403, NotYourSeat),
        ("idempotency_key_reused", 422, IdempotencyKeyReused),
        ("tile_not_in_hand", 400, RuleRejected),
        ("not_your_turn", 409, RuleRejected),
        ("something_new", 400, ApiError),
    ],
)
def test_error_class_follows_the_server_code(code, status, cls):
    error = error_from_response(status, {"code": code, "message": "text"})
    assert type(error) is cls
    assert (error.code, error.status, error.message) == (code, status, "text")


def test_stale_version_error_carries_the_fresh_view():
    body = {"code": "stale_version", "message": "behind", "view": {"version": 9}}
    error = error_from_response(409, body)
    assert isinstance(error, StaleVersion) and error.view == {"version": 9}


def test_error_without_json_body_gets_a_code_from_the_status():
    assert type(error_from_response(404, None, "<html>")) is NotFound
    assert error_from_response(502, None).code == "http_502"
    assert isinstance(error_from_response(401, "oops"), NotAuthenticated)


def test_websocket_url_follows_the_http_scheme():
    assert (
        ws_url("http://127.0.0.1:8000/", "K7Q2MX", 3)
        == "ws://127.0.0.1:8000/ws/tables/K7Q2MX?seat=3"
    )
    assert ws_url("https://club.example", "AB", None) == "wss://club.example/ws/tables/AB"


def test_seat_state_reads_the_seat_view_response():
    body = {
        "version": 12,
        "paused": False,
        "allowed": ["play", "undo"],
        "table": {
            "code": "K7Q2MX",
            "owner": "ann",
            "rated": False,
            "version": 12,
            "paused": False,
            "phase": "play",
            "seats": {
                "1": {"kind": "human", "player": "ann", "is_bot": False},
                "2": {"kind": "bot", "player": "hb", "is_bot": True},
                "3": {"kind": "bot", "player": "hb", "is_bot": True},
                "4": {"kind": "bot", "player": None, "is_bot": False},
            },
        },
        "view": {"seat": 2, "phase": "play", "to_act": 2, "legal": [{"type": "pass", "seat": 2}]},
    }
    state = SeatState.from_json(body, code="K7Q2MX", seat=2)
    assert (state.version, state.phase, state.to_act, state.paused) == (12, "play", 2, False)
    assert state.legal == [{"type": "pass", "seat": 2}]
    assert state.table.seats_held_by("hb") == [2, 3]
    assert isinstance(state.table, Table) and state.table.owner == "ann"
    assert not state.match_over


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_unreachable_server_raises_connection_lost_after_retries():
    client = DekabesClient(
        f"http://127.0.0.1:{_closed_port()}", token="x", retries=2, backoff=0.01, timeout=1
    )
    with pytest.raises(ConnectionLost):
        client.act("K7Q2MX", 1, "accept", expected_version=3)
    assert client.request_count == 3  # the first try and two retries
