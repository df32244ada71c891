"""The ladder page's read: its standings and its recent matches, shaped for the page."""

from __future__ import annotations

from dataclasses import dataclass

from server.ladder import selectors as ladder
from server.ladder.rating import ORDINAL_Z

RECENT = 20  # matches on the page (all of them through /api/ladder/matches)


@dataclass(frozen=True)
class LadderRow:
    rank: int
    bot: str
    owner: str | None
    house_level: str | None
    version: str
    versions: int
    rating: float
    low: float
    high: float
    pairs: int
    wins: int
    losses: int
    ties: int


@dataclass(frozen=True)
class LegLink:
    number: int
    match: int
    table: str
    playing: bool
    score_a: int
    score_b: int


@dataclass(frozen=True)
class MatchRow:
    id: int
    status: str
    result: str | None
    team_a: list[str]
    team_b: list[str]
    substituted: list[str]
    legs: list[LegLink]
    created_at: object


def standings() -> list[LadderRow]:
    rows = []
    for rank, e in enumerate(ladder.standings().filter(active=True), 1):
        v = e.version
        assert v is not None  # standings() reads versioned entries only
        rows.append(
            LadderRow(
                rank=rank,
                bot=e.bot.username,
                owner=e.bot.bot_owner.username if e.bot.bot_owner else None,
                house_level=e.house_level or None,
                version=v.name,
                versions=e.version_count,  # type: ignore[attr-defined]  # annotated
                rating=v.ordinal,
                low=v.mu - ORDINAL_Z * v.sigma,
                high=v.mu + ORDINAL_Z * v.sigma,
                pairs=v.pairs,
                wins=v.wins,
                losses=v.losses,
                ties=v.ties,
            )
        )
    return rows


def recent_matches() -> list[MatchRow]:
    out = []
    for pair in ladder.pairs()[:RECENT]:
        seats = list(pair.seats.all())
        out.append(
            MatchRow(
                id=pair.pk,
                status=pair.status,
                result=pair.result or None,
                team_a=[s.entry.bot.username for s in seats if s.team == "A"],
                team_b=[s.entry.bot.username for s in seats if s.team == "B"],
                substituted=[s.entry.bot.username for s in seats if s.substituted],
                legs=[
                    LegLink(
                        number=leg.number,
                        match=leg.match_id,
                        table=leg.match.table.code,
                        playing=leg.match.status == "playing",
                        score_a=leg.match.score_a,
                        score_b=leg.match.score_b,
                    )
                    for leg in pair.legs.all()
                ],
                created_at=pair.created_at,
            )
        )
    return out
