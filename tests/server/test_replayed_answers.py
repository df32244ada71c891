"""A retried key is answered by the seat's answer at the version its action made, built
again from the log (``services._replayed``): the receipt keeps only that version.

Over a whole random match (undos, redos and hand restarts among the moves, snapshots
taken on the way), every action's retry, sent after the table has moved on, must give
the answer its first attempt got, presence aside (the table's presence now); over REST
and over the seat's socket."""

from __future__ import annotations

import json
import random

import pytest

from server.tables import projection
from server.tables.models import Event
from tests.server.conftest import Players

pytestmark = pytest.mark.django_db(transaction=True)

COMMANDS = ("undo", "redo", "restart_hand")


def _one_keyed_action(p: Players, rng: random.Random, number: int):
    """(key, body sent, seat, first answer) of one random legal action or command."""
    for seat in (1, 2, 3, 4):
        view = p.seat(seat)
        if view["view"]["phase"] == "match_over":
            return None
        commands = [c for c in view["allowed"] if c in COMMANDS]
        if commands and rng.random() < 0.08:
            body = {"type": rng.choice(commands), "expected_version": view["version"]}
        elif view["view"]["legal"]:
            event = rng.choice(view["view"]["legal"])
            body = {k: v for k, v in event.items() if k != "seat"}
            body["expected_version"] = view["version"]
        else:
            continue
        key = f"key-{number}"
        first = p.act(seat, body, key=key)
        assert first.status_code == 200, first.content
        return key, body, seat, first.json()
    raise AssertionError("nobody can act")


def test_every_retry_of_a_match_answers_its_first_answer(action_path, monkeypatch):
    monkeypatch.setattr(projection, "SNAPSHOT_EVERY", 25)  # retries fold from snapshots too
    p = Players(kinds=("human", "human", "human", "human"))  # one person: commands allowed
    rng = random.Random(11)
    sent = []
    for number in range(160):
        done = _one_keyed_action(p, rng, number)
        if done is None:
            break
        sent.append(done)
    kinds = {body["type"] for _, body, _, _ in sent}
    assert {"accept", "play"} <= kinds and kinds & set(COMMANDS), kinds
    log_before = p.log()
    for key, body, seat, first in sent:
        again = p.act(seat, body, key=key)
        assert again.status_code == 200, (key, again.content)
        answer = again.json()
        # presence is the table's now (seats come and go without a version), the rest
        # is the first answer's
        assert {**answer, "presence": None} == {**first, "presence": None}, key
        assert answer["presence"] == p.seat(seat)["presence"], key
    assert p.log() == log_before  # nothing applied again
    stored = Event.objects.filter(table=p.table, command_id__isnull=False).values_list(
        "command_id", "receipt"
    )
    firsts = {key: first for key, _, _, first in sent}
    assert {key: json.loads(text) for key, text in stored} == {
        key: {"version": first["version"]} for key, first in firsts.items()
    }


def test_the_migration_cuts_whole_answers_down_to_their_version(players):
    """Receipts written before they became versions hold the whole first answer: the
    migration keeps their version only, and a retry still gets that answer."""
    import importlib

    from django.db import connection

    migration = importlib.import_module("server.tables.migrations.0006_receipts_as_versions")
    p = players
    body = {"type": "accept", "expected_version": p.seat(1)["version"]}
    first = p.act(1, body, key="k-old")
    assert first.status_code == 200, first.content
    plain = p.act(2, {"type": "accept", "expected_version": first.json()["version"]})
    assert plain.status_code == 200, plain.content  # no key: no receipt
    rows = Event.objects.filter(table=p.table)
    rows.filter(command_id="k-old").update(receipt=json.dumps(first.json()))  # as then
    assert rows.filter(receipt__isnull=False).count() == 1

    class Editor:  # what RunPython hands the function, as far as it reads it
        def __init__(self):
            self.connection = connection

        def execute(self, sql):
            with connection.cursor() as cursor:
                cursor.execute(sql)

    migration.receipts_as_versions(None, Editor())
    stored = list(rows.filter(receipt__isnull=False).values_list("command_id", "receipt"))
    assert [(key, json.loads(text)) for key, text in stored] == [
        ("k-old", {"version": first.json()["version"]})
    ]
    again = p.act(1, body, key="k-old")
    assert again.status_code == 200
    assert {**again.json(), "presence": None} == {**first.json(), "presence": None}
