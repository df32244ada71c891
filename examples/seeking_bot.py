"""A bot that finds its own games: it long-polls the open seats that want bots, takes
one and plays it to the end of the match (docs/bots.md, "Finding games").

    python examples/seeking_bot.py --server http://127.0.0.1:8000 --token BOT_TOKEN
"""

import argparse
import random

from clients.bots.policy import choose_event
from clients.sdk import DekabesClient, Paused, StaleVersion

parser = argparse.ArgumentParser()
parser.add_argument("--server", default="http://127.0.0.1:8000")
parser.add_argument("--token", required=True)
parser.add_argument("--level", default="greedy")
args = parser.parse_args()
client, rng, after = DekabesClient(args.server, token=args.token), random.Random(), None

while True:
    taken = client.take_open_seat(wait=25, after=after)  # a long-poll: no busy loop
    if isinstance(taken, int):  # nothing to take: wait past this version of the list
        after = taken
        continue
    code, seat = taken
    print(f"seated at {code}, seat {seat}", flush=True)
    state = client.seat_view(code, seat)
    while not state.match_over:
        event = None if state.paused else choose_event(state.view, args.level, rng)
        if event is None:  # not our turn (or paused): wait for the table to move
            state = client.seat_view(code, seat, wait=25, after=state.version)
            continue
        try:
            state = client.send_event(code, event, expected_version=state.version)
        except (StaleVersion, Paused):
            state = client.seat_view(code, seat)
