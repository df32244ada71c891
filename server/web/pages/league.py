"""What a club's readers see: the club page and its live part, standings, ratings, the
cross-table, a player, the matches and a match's replay and record, a round and a
duplicate round's deals. Thin views over the league's selectors and the page-shaped
reads (``server.web.selectors``); the round page also takes its organizers' check-in
and start (a POST: organizers only).

A refusal of the league (``server.errors``) becomes the site's 404 or 403 page on a read
(``refusals.league_pages``), and the page's error on a write.
"""

from __future__ import annotations

from django.contrib.auth.views import redirect_to_login
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.gzip import gzip_page

from server.errors import ApiError, NotFound
from server.league import duplicate_scoring
from server.league import selectors as league
from server.league.actions import roles, rounds
from server.league.holders import match_holdings
from server.league.serializers import MatchDetailSerializer, MatchSerializer
from server.notices.groups import club_group
from server.web import live
from server.web.confirm import confirmation_page, confirmed
from server.web.forms.organizer import AnnulForm, CheckInForm
from server.web.refusals import league_pages, shown_refusal
from server.web.round_page import club_live as _live
from server.web.round_page import render_round
from server.web.selectors import doors
from server.web.selectors import league as league_reads
from server.web.selectors.replay import NotReplayable, build_replay
from server.web.selectors.replay_analysis import replay_analysis
from server.web.selectors.tables import board_seats, replay_log
from server.web.visitor import organized_club
from server.web.visitor import viewer as _viewer

MATCHES_PER_PAGE = 25


# -- reading -------------------------------------------------------------------------------
@league_pages
def club(request, slug: str):
    page = league_reads.club_page(slug, _viewer(request))
    ready = doors.ready_tables(_viewer(request), page.club)
    return render(request, "web/club.html", {"page": page, "ready": ready, **_live(page.club)})


@league_pages
def standings(request, slug: str):
    club = league.club_for_reader(slug, _viewer(request), answer=False)
    season = league_reads.season_choice(club, request.GET.get("season"))
    rows = list(league.standing_rows(season)) if season else []
    menu = list(league.season_menu(club))
    return render(
        request,
        "web/standings.html",
        {"club": club, "season": season, "rows": rows, "seasons": menu, **_live(club)},
    )


@league_pages
def ratings(request, slug: str):
    club = league.club_for_reader(slug, _viewer(request), answer=False)
    return render(
        request,
        "web/ratings.html",
        {
            "club": club,
            "rows": league_reads.leaderboard(club),
            "trend_matches": league_reads.TREND_MATCHES,
            **_live(club),
        },
    )


@league_pages
def cross_table(request, slug: str, season_id: int):
    club = league.club_for_reader(slug, _viewer(request), answer=False)
    season = league.season_of(club, season_id)
    return render(
        request,
        "web/crosstable.html",
        {
            "club": club,
            "season": season,
            "table": league_reads.cross_table(season, _viewer(request)),
            **_live(club),
        },
    )


def club_live(request, slug: str):
    """``GET /clubs/<slug>/live?after=N&wait=S``: the club's version, long-polled."""
    viewer = _viewer(request)
    try:
        club = league.club_for_reader(slug, viewer, answer=False)
    except ApiError as err:
        return JsonResponse(err.body(), status=err.status)
    return live.long_poll(
        request, viewer, club_group(club.pk), lambda: league_reads.club_version(club)
    )


@league_pages
def player(request, username: str):
    return render(
        request, "web/player.html", {"page": league_reads.player_page(username, _viewer(request))}
    )


@league_pages
def matches(request):
    viewer = _viewer(request)
    filters = league_reads.match_filters(request.GET)
    page = Paginator(league_reads.filtered_matches(viewer, filters), MATCHES_PER_PAGE).get_page(
        request.GET.get("page")
    )
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "web/matches.html",
        {
            "page": page,
            "rows": MatchSerializer(page.object_list, many=True).data,
            "filters": filters,
            "clubs": league_reads.club_choices(viewer, filters.club),
            "query": query.urlencode(),
        },
    )


@league_pages
@gzip_page
def match(request, match_id: int):
    viewer = _viewer(request)
    m = league.match_for_reader(match_id, viewer)
    data = MatchDetailSerializer(m).data
    membership = roles.membership_of(m.club, viewer) if m.club is not None else None
    role = membership.role if membership is not None else None
    context = {
        "match": m,
        "data": data,
        "is_organizer": role == "organizer",
        "annul_form": AnnulForm(),
    }
    if m.forfeited_by is not None and not league.contents_hidden(m, viewer):
        # Ended by an organizer, not by its last hand: no replay to the end, but never
        # "still being played" (its record keeps the hands played).
        context["forfeit"] = league.forfeit_of(m)
        return render(request, "web/match_unfinished.html", context)
    if m.status != "finished" or league.contents_hidden(m, viewer):
        return render(request, "web/match_unfinished.html", context)
    try:
        replay = build_replay(league.record_text(m))
    except NotReplayable:
        return render(request, "web/match_unfinished.html", context)
    names = league_reads.seat_names(data)
    held = match_holdings(m)
    return render(
        request,
        "web/match.html",
        {
            **context,
            "replay": replay,
            "seats": board_seats(replay, names, held),
            "log": replay_log(replay, held),
            "record_url": f"/matches/{m.pk}/record",
            "title_code": m.table.code,
            "analysis": replay_analysis(m.table, replay),
        },
    )


@league_pages
def match_record(request, match_id: int):
    m = league.match_contents_for_reader(match_id, _viewer(request))
    if m.status != "finished":
        return render(
            request,
            "web/match_unfinished.html",
            {"match": m, "data": MatchSerializer(m).data},
            status=409,
        )
    response = HttpResponse(league.record_text(m), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="dekabes-match-{m.pk}.jsonl"'
    return response


# -- rounds ----------------------------------------------------------------------------------
@league_pages
def round_page(request, slug: str, season_id: int, number: int):
    """The round for whoever may read the club (public clubs: everyone); its organizers
    also get the check-in and start forms (a POST: organizers only)."""
    viewer = _viewer(request)
    if request.method == "POST":
        if viewer is None:
            return redirect_to_login(request.get_full_path())
        club = organized_club(request, slug)
    else:
        club = league.club_for_reader(slug, viewer, answer=False)
    season = league.season_for_reader(club, season_id)
    round_ = league.round_of(season, number)
    form = None
    error = None
    if request.method == "POST":
        with shown_refusal() as refusal:
            if request.POST.get("action") == "start":
                if not confirmed(request):
                    rounds.check_may_start(round_)  # refused now, not after the question
                    return _confirm_start(request, club, season, round_)
                rounds.do_start_round(user=request.user, round_=round_)
                return redirect(
                    "web:round", slug=club.slug, season_id=season.pk, number=round_.number
                )
            form = CheckInForm.for_season(season, request.POST)
            if form.is_valid():
                chosen = form.cleaned_data[form.field_name]
                if season.format == "pairs":
                    rounds.do_check_in(
                        user=request.user, round_=round_, pairs=[int(p) for p in chosen]
                    )
                else:
                    rounds.do_check_in(user=request.user, round_=round_, players=chosen)
                return redirect(
                    "web:round", slug=club.slug, season_id=season.pk, number=round_.number
                )
        error = refusal.text
    return render_round(
        request, club, season, round_, form=form, error=error, status=400 if error else 200
    )


def _confirm_start(request, club, season, round_):
    present = round_.checkins.count()
    entrants = (
        ngettext("%(n)s pair is checked in.", "%(n)s pairs are checked in.", present)
        if season.format == "pairs"
        else ngettext("%(n)s player is checked in.", "%(n)s players are checked in.", present)
    )
    return confirmation_page(
        request,
        title=_("Start round %(n)s?") % {"n": round_.number},
        what_happens=[
            entrants % {"n": present},
            _(
                "The draw seats them at rated tables (byes for any left over), and the "
                "players are told their table."
            ),
            _("The check-in closes. It cannot be undone."),
        ],
        button=_("Start the round"),
        cancel=request.path,
        club=club,
    )


def round_deals(request, slug: str, season_id: int, number: int):
    """The per-deal comparison of a duplicate round: how every table played each deal,
    shown once the round is over (before, the other tables' results are hidden from the
    round's players: docs/league.md, "Duplicate rounds")."""
    viewer = _viewer(request)
    try:  # the league's reads refuse only with not_found here: the site's 404 page
        club = league.club_for_reader(slug, viewer)
        season = league.season_for_reader(club, season_id)
        round_ = league.round_of(season, number)
    except NotFound as err:
        raise Http404(err.message) from None
    return _deals_page(request, club, season, round_)


def _deals_page(request, club, season, round_):
    over = round_.status == "finished"
    deals = duplicate_scoring.round_deals(round_) if over and season.duplicate else []
    rows = [
        {
            "number": deal.number,
            "par": float(deal.par),
            "plays": [
                {
                    "play": play,
                    "result": {
                        "result": play.result,
                        "team": play.team,
                        "points": play.points,
                        "dekabes": play.dekabes,
                    },
                    "above_a": float(deal.above(play)),
                    "above_b": -float(deal.above(play)),
                }
                for play in deal.plays
            ],
        }
        for deal in deals
    ]
    return render(
        request,
        "web/round_deals.html",
        {"club": club, "season": season, "round": round_, "over": over, "deals": rows},
    )
