"""A bot on the ladder in twenty lines (docs/bots.md, "The bot ladder").

DEKABES_SERVER=http://127.0.0.1:8000 DEKABES_TOKEN=... python examples/ladder_bot.py 1.0
"""

import os
import sys
import time

from clients.sdk import DekabesClient, Paused, StaleVersion

client = DekabesClient(os.environ["DEKABES_SERVER"], os.environ["DEKABES_TOKEN"])
me, version, said = client.me().username, sys.argv[1], 0.0
while True:
    if time.monotonic() - said > 300:  # on the ladder, still here: say so every 5 minutes
        print("ladder rating", client.ladder(version)["rating"], flush=True)
        said = time.monotonic()
    for table in client.unfinished_tables():  # the ladder seats us at its matches
        for seat in [n for n, s in table.seats.items() if s.player == me]:
            state = client.seat_view(table.code, seat)
            plays = [e for e in state.legal if e["type"] == "play"]
            heaviest = sorted(plays, key=lambda e: sum(map(int, e["tile"].split("-"))))
            event = (heaviest or state.legal or [None])[-1]  # heaviest tile, else the one event
            try:
                if event and not state.paused:
                    client.send_event(table.code, event, expected_version=state.version)
            except (StaleVersion, Paused):
                pass  # someone moved first: look again
    time.sleep(0.5)
