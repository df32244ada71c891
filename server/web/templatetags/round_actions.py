"""``{% round_match_actions round %}``: what the round page's organizer tools need (the
deadline, each match in progress with its seats' holders, who may substitute), read for
the partial ``web/round_match_actions.html`` so that the round page's own view need not
know them."""

from __future__ import annotations

from django import template

from engine.bots import LEVELS
from server.league import selectors as league
from server.league.actions.rounds import deadline_passed
from server.league.models import LeagueMatch, Round
from server.notices import presence
from server.tables.models import Seat

register = template.Library()


def _holder(seat: Seat | None) -> str:
    return seat.player.username if seat is not None and seat.player is not None else ""


@register.simple_tag
def round_match_actions(season_id: int, number: int) -> dict:
    round_ = (
        Round.objects.select_related("season__club")
        .filter(season_id=season_id, number=number)
        .first()
    )
    if round_ is None:
        return {"round": None}
    matches = list(
        LeagueMatch.objects.filter(round=round_, status="playing")
        .select_related("table")
        .prefetch_related("seats__player")
        .order_by("table_number")
    )
    holders: dict[int, dict[int, Seat]] = {}
    for seat in Seat.objects.filter(table__in=[m.table for m in matches]).select_related("player"):
        holders.setdefault(seat.table_id, {})[seat.number] = seat
    rows = []
    for m in matches:
        drawn = {s.number: s for s in m.seats.all()}
        here = presence.seat_presence(table=m.table)
        away = [n for n in (1, 2, 3, 4) if not here[n].connected]
        rows.append(
            {
                "id": m.pk,
                "table_number": m.table_number,
                "code": m.table.code,
                # The seat the substitute and forfeit forms open on: the first away one.
                "absent_seat": away[0] if away else None,
                "seats": [
                    {
                        "seat": n,
                        "team": drawn[n].team if n in drawn else "",
                        "drawn": drawn[n].player.username if n in drawn else "",
                        "holder": _holder(holders.get(m.table_id, {}).get(n)),
                        "here": here[n].connected,
                        "away_since": here[n].away_since,
                    }
                    for n in (1, 2, 3, 4)
                ],
            }
        )
    return {
        "round": round_,
        "deadline": round_.deadline,
        "deadline_passed": deadline_passed(round_),
        "matches": rows,
        "candidates": league.substitute_candidates(round_),
        "levels": LEVELS,
    }
