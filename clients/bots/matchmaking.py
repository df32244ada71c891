"""The runner's matchmaking: take open seats that want bots, answer challenges.

Two threads beside the runner (``python -m clients.bots --seek --accept-challenges``),
each an ordinary API client that long-polls, so an idle bot costs one request per
``poll_wait`` seconds, never a loop of polls:

- ``Seeker`` long-polls the open seats it may take (``open_seats(fits=True)``) and joins
  one whenever it plays fewer than ``max_games`` matches; the runner's discovery then
  finds the table and plays the seat. With ``make_seeks``, once ``patience`` seconds
  have passed with nothing to take, it makes a seek of its own (its table counts as one
  of its games while others join it).
- ``ChallengeAnswerer`` long-polls the account's challenges and accepts each one waiting
  for its answer (the server has already checked the bot's published terms), or
  declines it as ``later`` while it plays ``max_games`` matches already.

Past a daily quota (``429 daily_limit``) a thread waits the ``Retry-After`` it was given.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

from clients.sdk import ApiError, ConnectionLost, DekabesClient
from engine.phases import MATCH_OVER

log = logging.getLogger("dekabes.bots.matchmaking")

OUTAGE_PAUSE = 2.0


@dataclass
class MatchmakingOptions:
    seek: bool = False  # take open seats that want bots
    accept_challenges: bool = False
    max_games: int = 1  # matches in play at once before it stops seeking / says "later"
    poll_wait: float = 25.0
    make_seeks: bool = False  # nothing to take for ``patience`` seconds: seek players itself
    patience: float = 60.0
    seek_minutes: int = 30


def games_in_play(client: DekabesClient, username: str) -> int:
    """Tables seating ``username`` whose match is not over."""
    return sum(
        1
        for table in client.tables(mine=True)
        if table.phase != MATCH_OVER and table.seats_held_by(username)
    )


class _Loop:
    name = "matchmaking"

    def __init__(self, client: DekabesClient, options: MatchmakingOptions, stop: threading.Event):
        self.client = client
        self.options = options
        self.stop = stop
        self.username = ""
        self.thread = threading.Thread(target=self.run, name=f"bots-{self.name}", daemon=True)

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                if not self.username:
                    self.username = self.client.me().username
                self.step()
            except ConnectionLost:
                self.stop.wait(OUTAGE_PAUSE)
            except ApiError as refusal:
                wait = refusal.retry_after or OUTAGE_PAUSE
                log.warning("%s: %s (waiting %.0fs)", self.name, refusal, wait)
                self.stop.wait(wait)

    def step(self) -> None:
        raise NotImplementedError


class Seeker(_Loop):
    name = "seeker"
    version: int | None = None
    idle_since: float | None = None  # since when it found nothing to take

    def step(self) -> None:
        if games_in_play(self.client, self.username) >= self.options.max_games:
            self.idle_since = None
            self.stop.wait(self.options.poll_wait / 5)  # busy: look again later
            return
        if self.idle_since is None:
            self.idle_since = time.monotonic()
        taken = self.client.take_open_seat(wait=self.options.poll_wait, after=self.version)
        if isinstance(taken, int):
            self.version = taken
            if (
                self.options.make_seeks
                and time.monotonic() - self.idle_since >= self.options.patience
            ):
                made = self.client.seek(wanted="any", minutes=self.options.seek_minutes)
                log.info("%s: seeking players (seek %s)", made["table"], made["id"])
                self.idle_since = None
            return
        code, seat = taken
        self.idle_since = None
        log.info("%s: took open seat %d", code, seat)


class ChallengeAnswerer(_Loop):
    name = "challenges"
    version: int | None = None

    def step(self) -> None:
        found = self.client.challenges(wait=self.options.poll_wait, after=self.version)
        self.version = found["version"]
        for challenge in found["challenges"]:
            if challenge["status"] != "pending":
                continue
            mine = [s for s in challenge["seats"] if s["player"] == self.username]
            if not mine or mine[0]["answer"] != "pending":
                continue
            if games_in_play(self.client, self.username) >= self.options.max_games:
                self.client.decline(challenge["id"], "later")
                log.info("challenge %s: declined (later)", challenge["id"])
            else:
                answer = self.client.accept(challenge["id"])
                log.info("challenge %s: accepted (%s)", challenge["id"], answer["status"])


def start_matchmaking(
    client: DekabesClient, options: MatchmakingOptions, stop: threading.Event
) -> list[threading.Thread]:
    """Start the threads ``options`` asks for (each with a client of its own)."""
    loops: list[_Loop] = []
    if options.seek:
        loops.append(Seeker(client.clone(), options, stop))
    if options.accept_challenges:
        loops.append(ChallengeAnswerer(client.clone(), options, stop))
    for loop in loops:
        loop.thread.start()
    return [loop.thread for loop in loops]
