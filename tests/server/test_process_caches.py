"""What one server process keeps across requests stays right when another process (or
another thread of the same one) writes: a kept value is validated, or dropped, so that a
stale one is never served (docs/server.md, "Every process is stateless but for caches").
"""

from __future__ import annotations

import datetime as dt
import json
import time
import uuid

import pytest
import websocket
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import override_settings
from django.utils import timezone

from clients.sdk import DekabesClient
from clients.sdk.errors import ApiError
from server.accounts.models import AccessToken
from server.accounts.services import key_hash
from server.asgi import application
from server.tables import projection, selectors
from server.tables import services as table_services
from tests.server.conftest import PASSWORD, client_for, new_bot, new_member, token_for
from tests.server.test_leave_replace import casual_table, error
from tests.server.test_spectate import close_code

pytestmark = [pytest.mark.backend, pytest.mark.django_db(transaction=True)]


def test_seats_read_before_a_handover_are_not_kept_over_those_read_after_it(monkeypatch):
    """A thread of this process reads a full table's seats, and before it keeps them a
    handover commits elsewhere and another thread here, meeting the table's new seat
    epoch, reads and keeps the new seats (``selectors.fresh_seats``). The first thread's
    older seats must not replace them: the epoch is noted as seen, so they were served
    from then on, and the seat's old holder read its view and acted for it."""
    owner, ann, bob = new_member("own"), new_member("ann"), new_member("bob")
    table, _ = casual_table(owner, [ann, bob])
    spare = new_bot(owner)
    monkeypatch.setattr(
        table_services, "away_since", lambda t, seat: timezone.now() - dt.timedelta(hours=1)
    )
    # the handover is written as by another process: this one forgets nothing
    monkeypatch.setattr(
        table_services, "_after_handover", lambda t, state: table_services._after_commit(t, state)
    )
    selectors.forget_full_tables()
    read = selectors._read_table_and_seats
    first = []

    def read_then_handover(code):
        found = read(code)
        if not first:  # the first thread's read, before the handover
            first.append(found)
            table_services.do_replace(user=owner, table=table, seat=2, bot=spare)
            # the other thread: the seats as they are now, kept
            now = selectors.fresh_seats(found[0], found[1], projection.project(table))
            assert now[1].player_id == spare.pk
        return found

    monkeypatch.setattr(selectors, "_read_table_and_seats", read_then_handover)
    older = selectors.table_and_seats(table.code)  # the first thread keeps what it read
    assert older is not None and older[1][1].player_id == ann.pk
    monkeypatch.setattr(selectors, "_read_table_and_seats", read)

    error(client_for(ann).get(f"/api/tables/{table.code}/seats/2"), 403, "not_your_seat")
    version = projection.project(table).version
    answer = client_for(ann).post(
        f"/api/tables/{table.code}/seats/2/actions",
        {"type": "pass", "expected_version": version},
        format="json",
    )
    error(answer, 403, "not_your_seat")
    view = client_for(spare).get(f"/api/tables/{table.code}/seats/2")
    assert view.status_code == 200, view.content
    assert view.json()["table"]["seats"]["2"]["player"] == spare.username
    kept = selectors.table_and_seats(table.code)
    assert kept is not None
    seats = selectors.fresh_seats(kept[0], kept[1], projection.project(table))
    assert seats[1].player_id == spare.pk, "seats read before the handover were kept after it"


def spectator_socket(server, token: str, code: str):
    url = server.url.replace("http://", "ws://") + f"/ws/tables/{code}/spectate"
    return websocket.create_connection(url, header=[f"Authorization: Token {token}"], timeout=10)


def views_until(sock, version: int) -> tuple[list[dict], int | None]:
    """The view frames a spectator socket gets until one of ``version`` or later, or until
    it is closed (then its close code)."""
    views = []
    while True:
        opcode, data = sock.recv_data(control_frame=True)
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            return views, int.from_bytes(data[:2], "big")
        if opcode == websocket.ABNF.OPCODE_TEXT:
            body = json.loads(data)
            if body["type"] == "view":
                views.append(body)
                if body["version"] >= version:
                    return views, None


def test_a_code_holders_spectator_socket_on_another_process_closes_when_the_table_stops_being_watchable(
    redis_pair,
):
    """A casual table's owner lets the code's holders watch, then stops (at the first
    process). A holder's spectator socket at the second process was let in only because
    the table was watchable: it is closed 4403 at that change, as it would be refused
    now, and gets no frame of it; the owner's own spectator socket there goes on."""
    pair = redis_pair
    owner, code = pair.owner, pair.code
    assert owner.set_watchable(code, True) is True
    guest = DekabesClient(pair.second.url)
    guest.register(f"eve{uuid.uuid4().hex[:8]}", PASSWORD)
    sockets = []
    try:
        watcher = spectator_socket(pair.second, guest.token, code)
        sockets.append(watcher)
        own = spectator_socket(pair.second, owner.token, code)
        sockets.append(own)
        now = owner.seat_view(code, 1).version
        for sock in sockets:
            assert views_until(sock, now)[1] is None
        assert owner.set_watchable(code, False) is False
        after = owner.seat_view(code, 1).version
        assert after > now
        views, closed = views_until(watcher, after)
        assert closed == 4403, "the code's holder still watches a table no longer watchable"
        assert not views
        views, closed = views_until(own, after)
        assert closed is None and views[-1]["version"] == after
        with pytest.raises(ApiError) as refused:  # as REST answers it
            guest.spectate(code)
        assert refused.value.code == "not_watchable"
    finally:
        for sock in sockets:
            sock.close()


@pytest.mark.django_db(transaction=True)
def test_a_lobby_socket_whose_token_is_revoked_is_closed_at_a_ping():
    """``/ws/me`` was signed in once, when it opened: a revoked token's went on getting
    the account's league tables."""
    member = new_member("lob")
    token = token_for(member)

    async def scenario():
        ws = WebsocketCommunicator(
            application, "/ws/me", headers=[(b"authorization", f"Token {token}".encode())]
        )
        assert (await ws.connect())[0]
        assert json.loads(await ws.receive_from(timeout=5))["type"] == "league_tables"
        await sync_to_async(AccessToken.objects.filter(key_hash=key_hash(token)).delete)()
        return await close_code(ws)

    with override_settings(WS_PING_SECONDS=0.2):
        assert async_to_sync(scenario)() == 4401


@pytest.fixture
def two_servers(tmp_path):
    """Two Daphne processes on one SQLite file (no Redis: nothing tells one of the
    other's writes); the second looks for closed accounts every half second."""
    from tests.conftest import LiveServer

    started = []
    try:
        started.append(LiveServer(tmp_path).start())
        env = {"DEKABES_CLOSED_ACCOUNTS_CHECK_SECONDS": "0.5"}
        started.append(LiveServer(tmp_path, env=env).start())
        yield started
    finally:
        for server in started:
            server.stop()


def test_a_name_closed_in_one_process_leaves_what_another_process_keeps(two_servers):
    """A guest joins a table and leaves it (the handover names them), and the second
    process folds the table; the guest closes their account at the first. The second
    process's kept fold held the old name in the table's handovers, served to everyone
    who read the table there until it restarted; it now drops what it keeps once it sees
    an account closed, so the table shows the pseudonym."""
    first, second = two_servers
    owner = DekabesClient(first.url)
    owner.register(f"own{uuid.uuid4().hex[:8]}", PASSWORD)
    bot = owner.register_bot(f"bot{uuid.uuid4().hex[:8]}")
    code = owner.create_table(
        {1: "human", 2: "human", 3: "bot", 4: "bot"},
        join=[1],
        bots={3: bot.username, 4: bot.username},
    ).code
    guest = DekabesClient(first.url)
    name = f"gus{uuid.uuid4().hex[:8]}"
    guest.register(name, PASSWORD)
    guest.join(code, 2)
    guest.leave(code, 2)
    reader = DekabesClient(second.url, owner.token)
    assert reader.table(code).raw["handovers"][0]["from"] == name  # kept at the second

    guest.request(
        "POST", "/api/me/close", json={"password": PASSWORD, "confirm": "close my account"}
    )
    shown = name
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        shown = reader.table(code).raw["handovers"][0]["from"]
        if shown != name:
            break
        time.sleep(0.1)  # the second's next look at closed accounts (0.5 s)
    assert shown != name, "the second process still shows the closed account's name"
    assert shown.startswith("ghost-")


def test_a_spectator_frame_shows_a_seat_taken_since_without_a_new_version():
    """Taking a free seat writes no event: the table's version stays. A spectator frame
    kept for that version (by this process or another) showed the seat free to every
    spectator who opened a socket afterwards, until the table next moved."""
    from server.league import spectate
    from tests.server.conftest import Players

    p = Players(kinds=("human", "human", "bot", "bot"), humans_joined=False)
    table_services.do_join(user=p.owner, table=p.table, number=1)
    spectate.forget_frames()
    version, text = spectate.frame(p.table)  # kept for this version
    assert json.loads(text)["table"]["seats"]["2"]["player"] is None
    guest = new_member("gus")
    table_services.do_join(user=guest, table=p.table, number=2)
    again, text = spectate.frame(p.table)
    assert again == version  # no new version
    assert json.loads(text)["table"]["seats"]["2"]["player"] == guest.username


def test_the_seat_epochs_seen_are_bounded(monkeypatch):
    """``selectors._seat_epochs`` had one entry per table ever handed over, for the
    process's life; it is bounded as the kept tables are, and a table whose epoch was
    dropped reads its seats once more (the new holder served, the old one refused)."""
    owner, ann, bob = new_member("own"), new_member("ann"), new_member("bob")
    table, _ = casual_table(owner, [ann, bob])
    spare = new_bot(owner)
    monkeypatch.setattr(
        table_services, "away_since", lambda t, seat: timezone.now() - dt.timedelta(hours=1)
    )
    table_services.do_replace(user=owner, table=table, seat=2, bot=spare)
    monkeypatch.setattr(selectors, "FULL_TABLES_KEPT", 3)
    for n in range(10):
        with selectors._full_tables_lock:
            if len(selectors._seat_epochs) >= selectors.FULL_TABLES_KEPT:
                break
            selectors._seat_epochs[f"OTHER{n}"] = 1
    kept = selectors.table_and_seats(table.code)
    assert kept is not None
    seats = selectors.fresh_seats(kept[0], kept[1], projection.project(table))
    assert seats[1].player_id == spare.pk
    assert len(selectors._seat_epochs) <= selectors.FULL_TABLES_KEPT
    error(client_for(ann).get(f"/api/tables/{table.code}/seats/2"), 403, "not_your_seat")
    assert client_for(spare).get(f"/api/tables/{table.code}/seats/2").status_code == 200
