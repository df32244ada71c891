"""The seat view: what one seat may know at this moment, and nothing else.

Like boardgame.io's ``playerView``, it is built from the authoritative state by
keeping only public facts (the line, the turns, tile counts, passes, scores) and the
seat's own hand. Other hands appear only in ``last_hand``, which exists only once a
hand has ended and all four hands are revealed (RULES §5). The result is plain JSON.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core import EMPTY, team_of
from engine.tiles import mask_texts

if TYPE_CHECKING:
    from engine.match import Match

TEAM_NAMES = ("A", "B")


def seat_view(match: "Match", seat: int) -> dict:
    """The view of ``seat`` (1..4). Works at any point of a started match."""
    from engine.match import _line_view, _turns_view  # the fold owns the line encoding

    s = match._s
    if s is None:
        raise ValueError("the match has not started")
    if type(seat) is not int or not 1 <= seat <= 4:
        raise ValueError("seat must be 1-4")
    me = seat - 1
    core = s.core
    # A claimed redeal voids the deal: nobody holds those tiles any more.
    void_deal = s.phase == "deal" and s.redeal_pending
    hands = (0, 0, 0, 0) if void_deal else core.hands
    ends = None if core.left == EMPTY or void_deal else [core.left, core.right]
    choosing = s.phase in ("deal", "accept", "choose_opener") and not s.first_hand
    return {
        "seat": seat,
        "team": TEAM_NAMES[team_of(me)],
        "partner": (me + 2) % 4 + 1,
        "seats": {str(i + 1): kind for i, kind in enumerate(s.seats)},
        "rated": s.rated,
        "phase": s.phase,
        "hand_no": s.hand_no,
        "first_hand": s.first_hand,
        "to_act": match.to_act,
        "representative": (s.representative + 1) if choosing and s.representative is not None
        else None,
        "opener": None if s.opener is None or s.phase in ("accept", "choose_opener")
        else s.opener + 1,
        "scores": {"A": s.scores[0], "B": s.scores[1]},
        "base": s.base,
        "winner": None if s.winner is None else TEAM_NAMES[s.winner],
        "hand": mask_texts(hands[me]),
        "tile_counts": {str(i + 1): hands[i].bit_count() for i in range(4)},
        "accepted": {str(i + 1): bool(s.accepted >> i & 1) for i in range(4)},
        "can_claim_redeal": any(e["type"] == "claim_redeal" for e in match.legal_events(seat)),
        "line": [] if void_deal else _line_view(s.line),
        "ends": ends,
        "turns": [] if void_deal else _turns_view(s.turns),
        "lacks": {str(i + 1): [n for n in range(7) if s.lacks[i] >> n & 1] for i in range(4)},
        "passes_in_row": 0 if void_deal else core.passes,
        "legal": match.legal_events(seat),
        "can_undo": match.can_undo(),
        "can_redo": match.can_redo(),
        "results": match.results,
        "last_hand": _copy_last_hand(s.last_hand),
    }


def _copy_last_hand(last: dict | None) -> dict | None:
    if last is None:
        return None
    out = dict(last)
    for key in ("pips", "hands", "dealt"):
        out[key] = {k: (list(v) if isinstance(v, list) else v) for k, v in last[key].items()}
    out["line"] = [dict(item) for item in last["line"]]
    out["turns"] = [dict(t, **({"ends": list(t["ends"])} if "ends" in t else {}))
                    for t in last["turns"]]
    return out
