"""A small club on a live server, made over HTTP like any client would: members, a
finished match and one still in progress (the server's own shuffles and forced passes)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from clients.sdk import DekabesClient

PASSWORD = "a long enough password 42"


@dataclass
class SeededTable:
    code: str
    owner: DekabesClient
    bot: DekabesClient

    def client(self, seat: int) -> DekabesClient:
        return self.owner if seat == 1 else self.bot

    def view(self, seat: int) -> dict:
        return self.client(seat).request("GET", f"/api/tables/{self.code}/seats/{seat}")

    def step(self, rng: random.Random) -> bool:
        """One random legal action of whoever may act; False once the match is over."""
        first = self.view(1)
        if first["view"]["phase"] == "match_over":
            return False
        to_act = first["view"]["to_act"]
        for seat in [to_act] if to_act else [1, 2, 3, 4]:
            body = first if seat == 1 else self.view(seat)
            legal = body["view"]["legal"]
            if legal:
                self.client(seat).send_event(self.code, rng.choice(legal), body["version"])
                return True
        raise AssertionError("nobody can act")


def member(url: str, name: str) -> DekabesClient:
    client = DekabesClient(url)
    client.register(name, PASSWORD)
    return client


def own_bot(url: str, owner: DekabesClient, name: str) -> DekabesClient:
    return DekabesClient(url, token=owner.register_bot(name).token)


def new_table(owner: DekabesClient, bot: DekabesClient) -> SeededTable:
    name = bot.me().username
    table = owner.create_table(
        {1: "human", 2: "bot", 3: "bot", 4: "bot"}, join=[1], bots={2: name, 3: name, 4: name}
    )
    return SeededTable(table.code, owner, bot)


def play_to_end(table: SeededTable, seed: int) -> SeededTable:
    rng = random.Random(seed)
    for _ in range(5000):
        if not table.step(rng):
            return table
    raise AssertionError("the match did not end")


def play_into_hand(table: SeededTable, hand_no: int, seed: int) -> SeededTable:
    rng = random.Random(seed)
    for _ in range(5000):
        view = table.view(1)["view"]
        if view["hand_no"] == hand_no and view["phase"] == "play" and view["line"]:
            return table
        if not table.step(rng):
            raise AssertionError("the match ended first")
    raise AssertionError("never reached the hand")
