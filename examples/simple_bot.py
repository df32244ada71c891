"""A complete third-party Dékabès bot in plain `requests` (walked through in docs/bots.md).

    python examples/simple_bot.py --server http://127.0.0.1:8000 --token TOKEN --table K7Q2MX

Plays every seat its account holds at that table until the match is over: claims a
redeal when entitled, else plays its heaviest legal tile, else the only legal event.
"""

import argparse
import sys
import time
import uuid

import requests


def choose(view):
    legal = view["legal"]
    claims = [e for e in legal if e["type"] == "claim_redeal"]
    plays = [e for e in legal if e["type"] == "play"]
    if claims or not plays:  # a redeal claim; else accept, choose_opener, pass
        return (claims or legal)[0]
    return max(plays, key=lambda e: sum(int(n) for n in e["tile"].split("-")))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", default="http://127.0.0.1:8000")
    ap.add_argument("--token", required=True)
    ap.add_argument("--table", required=True)
    args = ap.parse_args()
    http = requests.Session()
    http.headers["Authorization"] = "Token " + args.token

    def call(method, path, **kw):  # retry while the server is unreachable or restarting
        for _ in range(60):
            try:
                r = http.request(method, args.server + path, timeout=40, **kw)
                if r.status_code not in (502, 503, 504):
                    return r
            except requests.ConnectionError:
                pass
            time.sleep(1)
        sys.exit("server unreachable")

    me = call("GET", "/api/me").json()["username"]
    base = "/api/tables/" + args.table
    table = call("GET", base).json()
    seats = [int(n) for n, s in table["seats"].items() if s["player"] == me]
    if not seats:
        sys.exit(f"{me} holds no seat at {args.table}")
    newest = 0
    while True:
        moved = False
        for seat in seats:
            body = call("GET", f"{base}/seats/{seat}").json()
            view, newest = body["view"], max(newest, body["version"])
            if view["phase"] == "match_over":
                print("match over, scores", view["scores"], "winner", view["winner"])
                return
            if body["paused"] or not view["legal"]:
                continue
            action = {k: v for k, v in choose(view).items() if k != "seat"}
            action["expected_version"] = body["version"]
            key = {"Idempotency-Key": str(uuid.uuid4())}  # one per decision: retries reuse it
            r = call("POST", f"{base}/seats/{seat}/actions", json=action, headers=key)
            code = "" if r.status_code == 200 else r.json().get("code", "")
            if code in ("", "stale_version"):
                moved = True  # the table moved: look at every seat again
                break
            if code != "paused":  # paused: wait below; anything else is a bug
                sys.exit(f"refused: {r.status_code} {r.text}")
        if not moved:  # nothing to do: long-poll until the table moves
            call("GET", f"{base}/seats/{seats[0]}", params={"wait": 25, "after": newest})


if __name__ == "__main__":
    main()
