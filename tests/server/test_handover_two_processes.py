"""Seat handovers across two live server processes on one database (issue #22).

Each process keeps a full table's seats (``selectors.table_and_seats``). A handover
written by process A changes them: process B must serve the new holder at once and
refuse the former one, though its kept seats predate the handover."""

from __future__ import annotations

import uuid

from clients.sdk import ApiError, DekabesClient
from tests.server.test_two_processes import PASSWORD, two_servers  # noqa: F401


def code_of(call) -> str | int:
    try:
        call()
    except ApiError as refused:
        return refused.code
    return 200


def test_a_handover_written_by_one_process_is_seen_by_the_other(two_servers):  # noqa: F811
    a, b = two_servers
    tag = uuid.uuid4().hex[:8]
    owner_a = DekabesClient(a.url)
    owner_a.register(f"own{tag}", PASSWORD)
    ann_a = DekabesClient(a.url)
    ann_a.register(f"ann{tag}", PASSWORD)
    cid_a = DekabesClient(a.url)
    cid_a.register(f"cid{tag}", PASSWORD)
    bot = owner_a.register_bot(f"b1{tag}")
    spare = owner_a.register_bot(f"b2{tag}")
    table = owner_a.create_table(
        {1: "human", 2: "human", 3: "bot", 4: "bot"},
        join=[1],
        bots={3: bot.username, 4: bot.username},
    )
    ann_a.join(table.code, 2)
    ann_b = DekabesClient(b.url, ann_a.token)
    bot_b = DekabesClient(b.url, bot.token)
    spare_b = DekabesClient(b.url, spare.token)
    cid_b = DekabesClient(b.url, cid_a.token)
    # B keeps the full table's seats
    assert ann_b.seat_view(table.code, 2).seat == 2
    assert bot_b.seat_view(table.code, 3).seat == 3

    # A: the owner hands the bot's seat 3 to another of their bots
    owner_a.replace_seat(table.code, 3, bot=spare.username)
    assert spare_b.seat_view(table.code, 3).seat == 3
    assert code_of(lambda: bot_b.seat_view(table.code, 3)) == "not_your_seat"

    # A: ann leaves seat 2; B refuses her and serves cid once cid joins through A
    ann_a.leave(table.code, 2)
    assert code_of(lambda: ann_b.seat_view(table.code, 2)) == "not_your_seat"
    cid_a.join(table.code, 2)
    assert cid_b.seat_view(table.code, 2).seat == 2
    handovers = DekabesClient(b.url, owner_a.token).table(table.code).handovers
    assert [(h["seat"], h["reason"]) for h in handovers] == [(3, "computer"), (2, "leave")]
