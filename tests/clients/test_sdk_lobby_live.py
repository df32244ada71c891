"""The SDK calls the desktop lobby needs, against the live test server: sign-out (revoked
where the server has ``POST /api/auth/logout``, reported as not supported where it
answers 404), my unfinished and finished tables, the web replay probe, and the league
calls on a server that may not have leagues."""

import uuid

import pytest

from clients.bots import Runner, RunnerOptions
from clients.sdk import DekabesClient, NotAuthenticated, NotFound
from tests.clients.test_sdk_live import human_and_bots_table, member


def test_logout_revokes_the_token_on_the_server(live_server_url):
    client = member(live_server_url)
    token = client.token
    assert client.logout() is True
    assert client.token is None
    with pytest.raises(NotAuthenticated):
        DekabesClient(live_server_url, token).me()


def test_unfinished_and_finished_tables(live_server_url):
    owner = member(live_server_url)
    table, bot = human_and_bots_table(owner)
    assert [t.code for t in owner.unfinished_tables()] == [table.code]
    assert owner.finished_tables() == []
    # a whole match played by bots: then it is finished
    other = member(live_server_url, "own")
    robot = other.register_bot(f"rb{uuid.uuid4().hex[:10]}")
    done = other.create_table(
        {n: "bot" for n in (1, 2, 3, 4)}, bots={n: robot.username for n in (1, 2, 3, 4)}
    )
    runner = Runner(
        DekabesClient(live_server_url, robot.token),
        RunnerOptions(
            level="random", delay=0, tables=(done.code,), poll_wait=1, seed=1, exit_when_over=True
        ),
    ).start()
    try:
        assert runner.join(timeout=180)
    finally:
        runner.stop()
    assert [t.code for t in other.finished_tables()] == [done.code]
    assert other.unfinished_tables() == []


def test_replay_url_is_offered_only_when_the_server_has_the_page(live_server_url):
    owner = member(live_server_url)
    table, _ = human_and_bots_table(owner)
    url = owner.replay_url(table.code)
    probe = owner._session.get(
        f"{live_server_url}/tables/{table.code}/replay", allow_redirects=False
    )
    assert (url is None) == (probe.status_code == 404)
    if url:
        assert url == f"{live_server_url}/tables/{table.code}/replay"


def test_league_calls_on_this_server(live_server_url):
    client = member(live_server_url)
    try:
        clubs = client.clubs()
    except NotFound:
        with pytest.raises(NotFound):
            client.league_tables()
        return
    assert isinstance(clubs, list)
    data = client.league_tables()
    assert isinstance(data, dict)
