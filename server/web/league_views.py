"""The league's pages: thin views over the league's selectors and services.

A refusal of the league (``server.errors``) becomes the site's 404 or 403 page on a read,
and a form error on a write: the services stay the one place that says who may do what.
The pages show the API's answers (``server.league.serializers``), in the site's style.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.paginator import Paginator
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.gzip import gzip_page
from django.views.decorators.http import require_POST

from server.errors import ApiError
from server.league import selectors as league
from server.league.actions import members, roles, rounds, seasons
from server.league.models import Club
from server.league.serializers import (
    MatchSerializer,
)
from server.notices.groups import club_group
from server.web import league_selectors as pages
from server.web import live
from server.web import selectors as web_selectors
from server.web.analysis import replay_analysis
from server.web.league_forms import (
    AnnulForm,
    CheckInForm,
    InviteForm,
    JoinClubForm,
    SeasonForm,
    refusal_text,
)
from server.web.organizer_pages import (
    league_pages,
    organize_page,
    organized_club,
    round_organizer_context,
)
from server.web.organizer_pages import (
    viewer as _viewer,
)
from server.web.replay import NotReplayable, build_replay
from server.web.selectors import board_seats, replay_log

MATCHES_PER_PAGE = 25


# -- reading -------------------------------------------------------------------------------
def _live(club: Club) -> dict:
    """What makes a club's page live (base.html's ``<main data-live>``, site.js)."""
    return {"live_url": f"/clubs/{club.slug}/live", "live_version": pages.club_version(club)}


@league_pages
def club(request, slug: str):
    page = pages.club_page(slug, _viewer(request))
    return render(request, "web/club.html", {"page": page, **_live(page.club)})


@league_pages
def standings(request, slug: str):
    club = league.club_for_reader(slug, _viewer(request), answer=False)
    season = pages.season_choice(club, request.GET.get("season"))
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
            "rows": pages.leaderboard(club),
            "trend_matches": pages.TREND_MATCHES,
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
            "table": pages.cross_table(season, _viewer(request)),
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
    return live.long_poll(request, viewer, club_group(club.pk), lambda: pages.club_version(club))


@league_pages
def player(request, username: str):
    return render(
        request, "web/player.html", {"page": pages.player_page(username, _viewer(request))}
    )


@league_pages
def matches(request):
    viewer = _viewer(request)
    filters = pages.match_filters(request.GET)
    page = Paginator(pages.filtered_matches(viewer, filters), MATCHES_PER_PAGE).get_page(
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
            "clubs": web_selectors.club_choices(viewer, filters.club),
            "query": query.urlencode(),
        },
    )


@league_pages
@gzip_page
def match(request, match_id: int):
    viewer = _viewer(request)
    m = league.match_for_reader(match_id, viewer)
    data = MatchSerializer(m).data
    membership = roles.membership_of(m.club, viewer) if m.club is not None else None
    role = membership.role if membership is not None else None
    context = {
        "match": m,
        "data": data,
        "is_organizer": role == "organizer",
        "annul_form": AnnulForm(),
    }
    if m.status != "finished" or league.contents_hidden(m, viewer):
        return render(request, "web/match_unfinished.html", context)
    try:
        replay = build_replay(league.record_text(m))
    except NotReplayable:
        return render(request, "web/match_unfinished.html", context)
    names = pages.seat_names(data)
    return render(
        request,
        "web/match.html",
        {
            **context,
            "replay": replay,
            "seats": board_seats(replay, names),
            "log": replay_log(replay),
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


# -- members -------------------------------------------------------------------------------
@login_required
@require_POST
def join_club(request):
    form = JoinClubForm(request.POST)
    if form.is_valid():
        try:
            membership = members.do_join_club(
                user=request.user,
                club=league.club_by_slug(form.cleaned_data["club"]),
                code=form.cleaned_data["code"],
            )
            return redirect("web:club", slug=membership.club.slug)
        except ApiError as err:
            form.add_error(None, refusal_text(err))
    return render(request, "web/join.html", {"form": form}, status=400)


# -- organizers ----------------------------------------------------------------------------
@login_required
@league_pages
def organize(request, slug: str):
    return organize_page(request, organized_club(request, slug))


@login_required
@league_pages
@require_POST
def create_season(request, slug: str):
    club = organized_club(request, slug)
    form = SeasonForm(request.POST)
    if form.is_valid():
        try:
            season = seasons.do_create_season(user=request.user, club=club, **form.cleaned_data)
            return redirect(f"/clubs/{club.slug}/standings?season={season.pk}")
        except ApiError as err:
            form.add_error(None, refusal_text(err))
    return organize_page(request, club, season_form=form, status=400)


@login_required
@league_pages
@require_POST
def create_invite(request, slug: str):
    club = organized_club(request, slug)
    form = InviteForm(request.POST)
    if form.is_valid():
        try:
            members.do_create_invite(user=request.user, club=club, **form.cleaned_data)
            return redirect("web:organize", slug=club.slug)
        except ApiError as err:
            form.add_error(None, refusal_text(err))
    return organize_page(request, club, invite_form=form, status=400)


@login_required
@league_pages
@require_POST
def create_round(request, slug: str, season_id: int):
    club = organized_club(request, slug)
    season = league.season_for_reader(club, season_id)
    try:
        round_ = rounds.do_create_round(user=request.user, season=season)
    except ApiError as err:
        if err.status == 403:
            raise
        return organize_page(request, club, status=400, error=refusal_text(err))
    return redirect("web:round", slug=club.slug, season_id=season.pk, number=round_.number)


def _checkin_form(season, data=None, initial=None) -> CheckInForm:
    if season.format == "pairs":
        choices = [(str(p.pk), p.name) for p in season.pairs.all()]
        return CheckInForm(data, choices=choices, field_name="pairs", initial=initial)
    choices = [
        (
            m.user.username,
            _("%(name)s (bot)") % {"name": m.user.username} if m.user.is_bot else m.user.username,
        )
        for m in league.members_of(season.club)
    ]
    return CheckInForm(data, choices=choices, field_name="players", initial=initial)


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
    membership = roles.membership_of(club, viewer)
    is_organizer = membership is not None and membership.role == "organizer"
    season = league.season_for_reader(club, season_id)
    round_ = league.round_of(season, number)
    form = None
    error = None
    if request.method == "POST":
        try:
            if request.POST.get("action") == "start":
                rounds.do_start_round(user=request.user, round_=round_)
                return redirect(
                    "web:round", slug=club.slug, season_id=season.pk, number=round_.number
                )
            form = _checkin_form(season, request.POST)
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
        except ApiError as err:
            error = refusal_text(err)
    data = pages.round_tables(round_, viewer)
    if is_organizer and form is None and round_.status == "open":
        present = [
            e["player"]["username"] if "player" in e else str(e["pair"]["id"])
            for e in data["present"]
        ]
        form = _checkin_form(
            season, initial={("pairs" if season.format == "pairs" else "players"): present}
        )
    return render(
        request,
        "web/round.html",
        {
            "club": club,
            "season": season,
            "round": data,
            "form": form,
            "error": error,
            "is_organizer": is_organizer,
            **(round_organizer_context(season) if is_organizer else {}),
            **_live(club),
        },
        status=400 if error else 200,
    )
