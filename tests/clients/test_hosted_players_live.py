"""Server-hosted computer players against a real Daphne server: an organizer adds them
through the API, the host (``clients.bots.host``, signed in as the house account) plays
them at their level within seconds, a round seating four of them plays a hand, and a
removed player loses its runner."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import uuid

from clients.bots.host import Host, HostOptions
from clients.sdk import ApiError, DekabesClient, StaleVersion
from tests.conftest import ROOT, wait_for

PASSWORD = "a long enough password 42"


def house_token(server) -> str:
    """A token of the server's house account, as ``make serve`` gets one."""
    return subprocess.run(
        [sys.executable, "manage.py", "createbot", "house", "--device", f"t{uuid.uuid4().hex[:8]}"],
        cwd=ROOT,
        env=server.env,
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout.strip()


def test_hosted_players_added_through_the_api_play_and_leave_when_removed(
    live_server_process,
):
    url = live_server_process.url
    organizer = DekabesClient(url)
    organizer.register(f"org{uuid.uuid4().hex[:10]}", PASSWORD)
    slug = f"hosted-{uuid.uuid4().hex[:8]}"
    organizer.request("POST", "/api/clubs", json={"slug": slug, "name": "Hosted"})
    club = f"/api/clubs/{slug}"
    names = [
        organizer.request("POST", club + "/hosted-players", json={"level": "random"})["username"]
        for _ in range(4)
    ]
    options = HostOptions(
        delay=0, refresh_every=0.3, own_level=None, poll_wait=5, discover_every=0.3
    )
    host = Host(DekabesClient(url, house_token(live_server_process)), options).start()
    try:
        wait_for(lambda: set(names) <= set(host.runners), 60, "a runner for each hosted player")
        assert {host.runners[n].options.level for n in names} == {"random"}
        season = organizer.request(
            "POST", club + "/seasons", json={"name": "S", "format": "individual"}
        )["id"]
        rounds = f"{club}/seasons/{season}/rounds"
        organizer.request("POST", rounds)
        organizer.request("POST", rounds + "/1/checkin", json={"players": names})
        match = organizer.request("POST", rounds + "/1/start")["tables"][0]
        assert {s["player"] for s in match["seats"]} == set(names)

        # Seen through one of the players' own seats (its token is the host's): the
        # first hand ends; one hand proves the point, so the organizer then stops the match.
        first = match["seats"][0]
        seat_of_first = host.runners[first["player"]].client.clone()
        wait_for(
            lambda: seat_of_first.seat_view(match["table"], first["seat"]).view.get("results"),
            120,
            "the four hosted players finishing a hand",
        )
        with contextlib.suppress(ApiError):  # match_over: they were quicker still
            organizer.request(
                "POST", f"/api/matches/{match['id']}/annul", json={"reason": "a hand is enough"}
            )
        result = organizer.request("GET", f"/api/matches/{match['id']}")
        assert result["status"] in ("annulled", "finished") and result["hands"] >= 1
        assert organizer.request("GET", rounds + "/1")["status"] == "finished"

        organizer.request("DELETE", f"{club}/members/{names[0]}")
        wait_for(lambda: names[0] not in host.runners, 30, "the removed player's runner gone")
        assert set(names[1:]) <= set(host.runners)
    finally:
        host.stop()
        for name in names:  # nothing of this test stays in service on the shared server
            with contextlib.suppress(ApiError):  # removed already
                organizer.request("DELETE", f"{club}/members/{name}")


def test_a_hosted_player_substituted_mid_hand_picks_up_the_seat_and_plays_on(
    live_server_process,
):
    """Issue #22: a human stalls a league match in mid-hand; the organizer substitutes a
    hosted computer player; the host's runner finds the seat and the hand goes on."""
    url = live_server_process.url
    organizer = DekabesClient(url)
    organizer.register(f"org{uuid.uuid4().hex[:10]}", PASSWORD)
    slug = f"subst-{uuid.uuid4().hex[:8]}"
    organizer.request("POST", "/api/clubs", json={"slug": slug, "name": "Subst"})
    club = f"/api/clubs/{slug}"
    names = [
        organizer.request("POST", club + "/hosted-players", json={"level": "random"})["username"]
        for _ in range(3)
    ]
    human = DekabesClient(url)
    human_name = f"hum{uuid.uuid4().hex[:10]}"
    human.register(human_name, PASSWORD)
    code = organizer.request("POST", club + "/invites", json={})["code"]
    human.join_club(slug, code)
    options = HostOptions(
        delay=0, refresh_every=0.3, own_level=None, poll_wait=5, discover_every=0.3
    )
    host = Host(DekabesClient(url, house_token(live_server_process)), options).start()
    added: list[str] = []
    try:
        season = organizer.request(
            "POST", club + "/seasons", json={"name": "S", "format": "individual"}
        )["id"]
        rounds = f"{club}/seasons/{season}/rounds"
        organizer.request("POST", rounds)
        organizer.request("POST", rounds + "/1/checkin", json={"players": [*names, human_name]})
        match = organizer.request("POST", rounds + "/1/start")["tables"][0]
        table = match["table"]
        seat = next(s["seat"] for s in match["seats"] if s["player"] == human_name)

        # The human accepts the deal, then never moves again: the hand stalls on them. The
        # hosted players accept meanwhile: a stale version means look again and accept.
        def accepted():
            state = human.seat_view(table, seat)
            if "accept" not in state.allowed:
                return True
            with contextlib.suppress(StaleVersion):
                human.act(table, seat, "accept", expected_version=state.version)
                return True
            return None

        wait_for(accepted, 60, "the human's accept")

        def stalled_on_the_human():
            accepted()  # a deal again, when a hosted player claimed a redeal (five doubles)
            s = human.seat_view(table, seat)
            waiting = seat in s.seats_to_act and s.view["phase"] in ("play", "choose_opener")
            return s if waiting else None

        stalled = wait_for(stalled_on_the_human, 120, "the hand waiting for the human")
        assert not stalled.view.get("results")
        answer = organizer.substitute(match["id"], seat, level="random", reason="gone")
        assert answer["status"] == "playing"
        sub = organizer.request("GET", f"/api/tables/{table}")["handovers"][-1]["to"]
        added.append(sub)
        assert sub not in names
        wait_for(lambda: sub in host.runners, 60, "a runner for the substitute")
        with_sub = host.runners[sub].client.clone()
        wait_for(
            lambda: with_sub.seat_view(table, seat).view.get("results"),
            120,
            "the substitute playing the hand on to its end",
        )
        with contextlib.suppress(ApiError):
            organizer.request(
                "POST", f"/api/matches/{match['id']}/annul", json={"reason": "enough"}
            )
    finally:
        host.stop()
        for name in names + added:
            with contextlib.suppress(ApiError):
                organizer.request("DELETE", f"{club}/members/{name}")


def test_the_casual_tables_computer_at_a_level_is_played_by_the_host(live_server_process):
    """Issue #32: "a new table against the computer" seats the casual computer of a level
    (a hosted player of no club, made on first use); the host plays its seats with no
    one starting anything."""
    url = live_server_process.url
    made = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "shell",
            "-c",
            "from server.league.actions.hosted import casual_computer;"
            "print(casual_computer(level='random').username)",
        ],
        cwd=ROOT,
        env=live_server_process.env,
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    computer = made.stdout.strip().splitlines()[-1]
    player = DekabesClient(url)
    player.register(f"cas{uuid.uuid4().hex[:10]}", PASSWORD)
    table = player.create_table(
        {1: "human", 2: "bot", 3: "bot", 4: "bot"},
        join=[1],
        bots={2: computer, 3: computer, 4: computer},
    )
    options = HostOptions(
        delay=0, refresh_every=0.3, own_level=None, poll_wait=5, discover_every=0.3
    )
    host = Host(DekabesClient(url, house_token(live_server_process)), options).start()
    try:
        wait_for(lambda: computer in host.runners, 60, "a runner for the casual computer")
        assert host.runners[computer].options.level == "random"
        wait_for(
            lambda: all(player.seat_view(table.code, 1).view["accepted"][s] for s in "234"),
            120,
            "the computer's three seats accepting the deal",
        )
    finally:
        host.stop()
