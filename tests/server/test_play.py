"""Whole matches through REST: four scripted clients, the export, table commands, pause."""

from __future__ import annotations

import random

import pytest

from engine import Match, load_record
from server.tables import projection
from tests.server.conftest import Players

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("action_path")]  # REST and socket


def play_to_the_end(p: Players, rng: random.Random, limit: int = 3000) -> dict:
    for _ in range(limit):
        if p.step(rng) is None:
            return p.seat(1)
    raise AssertionError("the match did not end")


@pytest.mark.parametrize("seed", [1, 2])
def test_four_scripted_clients_play_a_match_and_the_export_replays_to_the_same_state(seed):
    p = Players(kinds=("human", "bot", "human", "bot"))
    final = play_to_the_end(p, random.Random(seed))
    view = final["view"]
    assert view["phase"] == "match_over" and view["winner"] in ("A", "B")
    assert view["scores"][view["winner"]] >= 4
    record = p.owner_api.get(f"/api/tables/{p.code}/record")
    assert record.status_code == 200 and record["Content-Type"].startswith("text/plain")
    replayed = Match.from_events(load_record(record.content.decode()))
    server_state = projection.project(p.table).match
    assert replayed.summary() == server_state.summary()
    assert replayed.summary()["results"] == view["results"]
    # The log is gap-free and begins with the match start and the first deal.
    log = p.log()
    assert [row[0] for row in log] == list(range(1, len(log) + 1))
    assert log[0][1] == "match_started" and log[1][1] == "deal" and log[1][4] == "server"


def test_the_server_deals_and_writes_forced_passes_itself():
    p = Players()
    rng = random.Random(5)
    for _ in range(400):
        if p.step(rng) is None:
            break
    log = p.log()
    server_types = {row[1] for row in log if row[4] == "server"}
    assert "deal" in server_types and "pass" in server_types
    assert all(row[1] in ("match_started", "deal", "pass") for row in log if row[4] == "server")
    # No client ever has to send a pass: the server wrote every one.
    assert not [row for row in log if row[1] == "pass" and row[4] != "server"]


def test_record_before_the_end_holds_finished_hands_only():
    p = Players()
    rng = random.Random(8)

    def no_redeal(legal: list[dict]) -> dict:
        # a deal shuffled away by a redeal claim stays hidden, and the record stops
        # before it (RECORDS.md): a claim in the first hand left the record at
        # match_started: this test failed in 1 of 60 runs, the one with a claim
        return rng.choice([e for e in legal if e["type"] != "claim_redeal"] or legal)

    assert (
        Match.from_events(
            load_record(p.owner_api.get(f"/api/tables/{p.code}/record").content.decode())
        ).summary()["hand_no"]
        == 0
    )
    while not p.seat(1)["view"]["results"]:
        p.step(rng, choose=no_redeal)
    text = p.owner_api.get(f"/api/tables/{p.code}/record").content.decode()
    partial = Match.from_events(load_record(text))
    assert partial.phase == "deal" and len(partial.results) == 1
    assert '"type":"deal"' in text and text.count('"type":"deal"') >= 1


def human_play(p: Players, rng) -> dict:
    """Drive bots until seat 1 (human) must play, then play its first legal tile."""
    for _ in range(200):
        body = p.seat(1)
        if body["view"]["phase"] == "play" and body["view"]["to_act"] == 1:
            response = p.send(body["view"]["legal"][0], body["version"])
            assert response.status_code == 200
            return response.json()
        p.step(rng)
    raise AssertionError("seat 1 never had to play")


def answer_with_bots(p: Players, rng) -> dict:
    """Bots act until seat 1 must act again."""
    while True:
        body = p.seat(1)
        if body["view"]["legal"] or body["view"]["phase"] == "match_over":
            return body
        p.step(rng)


def test_undo_redo_and_restart_through_the_api():
    p = Players()
    rng = random.Random(3)
    human_play(p, rng)
    answered = answer_with_bots(p, rng)
    undone = p.act(1, {"type": "undo", "expected_version": answered["version"]})
    assert undone.status_code == 200
    undone = undone.json()
    assert undone["view"]["to_act"] == 1 and "redo" in undone["allowed"]
    assert undone["version"] == answered["version"] + 1  # the undo is an event too
    redone = p.act(1, {"type": "redo", "expected_version": undone["version"]}).json()
    for key in ("hand", "line", "turns", "tile_counts", "scores"):
        assert redone["view"][key] == answered["view"][key]
    restarted = p.act(1, {"type": "restart_hand", "expected_version": redone["version"]}).json()
    assert (
        restarted["view"]["line"] == []
        and restarted["view"]["hand_no"] == redone["view"]["hand_no"]
    )
    mine = [t["tile"] for t in redone["view"]["turns"] if t["type"] == "play" and t["seat"] == 1]
    assert len(restarted["view"]["hand"]) == 7 and set(mine) <= set(restarted["view"]["hand"])
    fresh = p.act(1, {"type": "new_match", "expected_version": restarted["version"]}).json()
    # new_match: the server deals the first hand of the new match at once.
    assert fresh["view"]["phase"] == "accept" and fresh["view"]["results"] == []
    assert fresh["view"]["scores"] == {"A": 0, "B": 0} and fresh["view"]["hand_no"] == 1


def test_restart_goes_back_to_the_same_deal_with_the_same_hand():
    p = Players()
    rng = random.Random(4)
    human_play(p, rng)
    body = answer_with_bots(p, rng)
    played = [t["tile"] for t in body["view"]["turns"] if t["type"] == "play" and t["seat"] == 1]
    restarted = p.act(1, {"type": "restart_hand", "expected_version": body["version"]}).json()
    view = restarted["view"]
    assert view["line"] == [] and len(view["hand"]) == 7
    assert set(played) <= set(view["hand"]) and set(body["view"]["hand"]) <= set(view["hand"])
    assert view["scores"] == body["view"]["scores"] and view["base"] == body["view"]["base"]
    assert "undo" not in restarted["allowed"]


def test_only_the_owner_uses_table_commands_and_never_in_rated_tables():
    p = Players(kinds=("human", "bot", "bot", "bot"))
    bot_try = p.act(2, {"type": "new_match", "expected_version": p.seat(2)["version"]})
    assert bot_try.status_code == 403 and bot_try.json()["code"] == "permission_denied"
    rated = Players(rated=True)
    body = rated.seat(1)
    assert "undo" not in body["allowed"] and "new_match" not in body["allowed"]
    refused = rated.act(1, {"type": "new_match", "expected_version": body["version"]})
    assert refused.status_code == 409 and refused.json()["code"] == "not_allowed_in_rated"
    hint = rated.owner_api.get(f"/api/tables/{rated.code}/seats/1/hint")
    assert hint.json()["code"] == "not_allowed_in_rated"


def test_pause_blocks_bot_actions_until_every_pauser_resumes():
    p = Players(kinds=("human", "bot", "human", "bot"))
    v = p.seat(1)["version"]
    paused = p.act(1, {"type": "pause", "expected_version": v}).json()
    assert paused["paused"] and paused["table"]["paused_by"] == [1] and paused["version"] == v + 1
    log = p.log()
    refused = p.act(2, {"type": "accept", "expected_version": paused["version"]})
    assert refused.status_code == 409 and refused.json()["code"] == "paused"
    assert p.log() == log
    assert p.seat(2)["allowed"] == []
    # A human seat may still act while the computer waits.
    mine = p.act(3, {"type": "accept", "expected_version": paused["version"]}).json()
    both = p.act(3, {"type": "pause", "expected_version": mine["version"]}).json()
    one_left = p.act(1, {"type": "resume", "expected_version": both["version"]}).json()
    assert one_left["paused"] and one_left["table"]["paused_by"] == [3]
    resumed = p.act(3, {"type": "resume", "expected_version": one_left["version"]}).json()
    assert not resumed["paused"]
    assert p.act(2, {"type": "accept", "expected_version": resumed["version"]}).status_code == 200
    # Pauses are in the event log but not in the engine record.
    assert "pause" not in p.owner_api.get(f"/api/tables/{p.code}/record").content.decode()


def test_a_bot_cannot_pause():
    p = Players()
    refused = p.act(2, {"type": "pause", "expected_version": p.seat(2)["version"]})
    assert refused.status_code == 403 and refused.json()["code"] == "permission_denied"


def test_hint_suggests_a_legal_event_and_appends_nothing():
    p = Players()
    rng = random.Random(6)
    for _ in range(30):
        body = p.seat(1)
        log = p.log()
        hint = p.owner_api.get(f"/api/tables/{p.code}/seats/1/hint").json()
        assert p.log() == log and hint["version"] == body["version"]
        if body["view"]["legal"]:
            assert hint["hint"] in body["view"]["legal"]
        else:
            assert hint["hint"] is None
        p.step(rng)


def test_dropping_the_projection_cache_gives_the_same_state():
    p = Players(kinds=("human", "bot", "human", "bot"))
    rng = random.Random(9)
    for _ in range(60):
        p.step(rng)
    cached = [p.seat(n) for n in (1, 2, 3, 4)]
    projection.forget()
    assert [p.seat(n) for n in (1, 2, 3, 4)] == cached


def test_every_seat_response_names_the_seats_the_match_waits_for():
    """``seats_to_act`` (the engine's reading, so thin clients restate no rule): the
    seats with a legal event now, the same in every seat's response."""
    p = Players(kinds=("human", "human", "human", "human"))
    rng = random.Random(11)
    phases = set()
    for _ in range(80):
        bodies = {n: p.seat(n) for n in (1, 2, 3, 4)}
        with_a_move = [n for n in (1, 2, 3, 4) if bodies[n]["view"]["legal"]]
        assert all(body["seats_to_act"] == with_a_move for body in bodies.values())
        phases.add(bodies[1]["view"]["phase"])
        if not with_a_move:
            break
        body = bodies[rng.choice(with_a_move)]
        response = p.send(rng.choice(body["view"]["legal"]), body["version"])
        assert response.status_code == 200, response.content
        answer = response.json()
        assert answer["seats_to_act"] == [n for n in (1, 2, 3, 4) if p.seat(n)["view"]["legal"]], (
            "the action's own answer names them too"
        )
    assert {"accept", "play"} <= phases
