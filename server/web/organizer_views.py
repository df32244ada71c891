"""The organizer's pages (issue #21): create and edit a club, members, invites and the
shareable invite link, computer players (a member's own bots, server-hosted players),
seasons (edit, pairs, close), availability and check-in, announcements, the action log
and the exports. Thin: every decision is a league or accounts service's, whose refusals
become the site's 403 / 404 page on a read and a form error on a write.
"""

from __future__ import annotations

import csv
import json

from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from engine import load_record
from server.accounts import selectors as account_selectors
from server.accounts import services as account_services
from server.errors import ApiError, NotFound
from server.league import selectors as league
from server.league.actions import clubs, hosted, matches, roles, rounds, seasons
from server.league.actions import members as member_actions
from server.league.models import Club, Season
from server.league.serializers import InviteSerializer, MatchSerializer, MemberSerializer
from server.web import throttling
from server.web.forms import RegisterForm, SignInForm
from server.web.league_forms import AnnulForm, InviteForm, refusal_text
from server.web.league_selectors import season_choice
from server.web.organizer_forms import (
    AnnouncementForm,
    AvailabilityForm,
    BotNameForm,
    ClubForm,
    EditClubForm,
    EditSeasonForm,
    EnterBotForm,
    HostedPlayerForm,
    PairForm,
    RemoveMemberForm,
    RoleForm,
)
from server.web.organizer_log import log_lines
from server.web.organizer_pages import (
    league_pages,
    organize_page,
    organized_club,
    too_many_attempts,
    viewer,
)

LOG_PER_PAGE = 50


def _person(request):
    """A signed-in person (bot accounts manage nothing: ``PermissionDenied``)."""
    roles.check_person(request.user)
    return request.user


# -- clubs ---------------------------------------------------------------------------------
@login_required
@league_pages
@require_http_methods(["GET", "POST"])
def new_club(request):
    _person(request)
    form = ClubForm(request.POST or None, initial={"visibility": "public"})
    if request.method == "POST" and form.is_valid():
        try:
            club = clubs.do_create_club(user=request.user, **form.cleaned_data)
            return redirect("web:organize", slug=club.slug)
        except ApiError as err:
            form.add_error("slug" if err.code == "slug_taken" else None, _slug_or(err))
    status = 400 if request.method == "POST" else 200
    return render(request, "web/club_form.html", {"form": form, "club": None}, status=status)


def _slug_or(err: ApiError) -> str:
    if err.code == "slug_taken":
        return _("This address is taken: choose another.")
    return refusal_text(err)


@login_required
@league_pages
@require_http_methods(["GET", "POST"])
def edit_club(request, slug: str):
    club = organized_club(request, slug)
    initial = {"name": club.name, "description": club.description, "visibility": club.visibility}
    form = EditClubForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            clubs.do_update_club(user=request.user, club=club, changes=form.cleaned_data)
            return redirect("web:organize", slug=club.slug)
        except ApiError as err:
            form.add_error(None, refusal_text(err))
    status = 400 if request.method == "POST" else 200
    return render(request, "web/club_form.html", {"form": form, "club": club}, status=status)


# -- members and invites -----------------------------------------------------------------------
def _members_page(request, club: Club, error: str | None = None, status: int = 200):
    members = list(league.members_of(club))
    rows = MemberSerializer(members, many=True).data
    return render(
        request,
        "web/members.html",
        {
            "club": club,
            "members": rows,
            "me": request.user.username,
            "remove_form": RemoveMemberForm(),
            "error": error,
        },
        status=status,
    )


@login_required
@league_pages
def members(request, slug: str):
    return _members_page(request, organized_club(request, slug))


@login_required
@league_pages
@require_POST
def set_role(request, slug: str, username: str):
    club = organized_club(request, slug)
    form = RoleForm(request.POST)
    if not form.is_valid():
        return _members_page(request, club, _("Check the values you entered."), 400)
    try:
        member_actions.do_set_role(
            user=request.user, club=club, username=username, role=form.cleaned_data["role"]
        )
    except ApiError as err:
        return _members_page(request, club, refusal_text(err), 400)
    return redirect("web:members", slug=club.slug)


@login_required
@league_pages
@require_POST
def remove_member(request, slug: str, username: str):
    club = organized_club(request, slug)
    form = RemoveMemberForm(request.POST)
    form.is_valid()
    try:
        member_actions.do_remove_member(user=request.user, club=club, username=username)
    except ApiError as err:
        return _members_page(request, club, refusal_text(err), 400)
    code = league.invite_used_by(club, username)
    if form.cleaned_data.get("revoke_invite") and code:
        try:
            member_actions.do_revoke_invite(user=request.user, club=club, code=code)
        except ApiError:
            pass  # revoked already: nothing more to do
    return redirect("web:members", slug=club.slug)


def _invites_page(request, club: Club, form=None, status: int = 200):
    invites = InviteSerializer(league.invites_of(club)[:100], many=True).data
    for invite in invites:
        invite["link"] = request.build_absolute_uri(f"/join/{club.slug}/{invite['code']}")
    return render(
        request,
        "web/invites.html",
        {"club": club, "invites": invites, "invite_form": form or InviteForm()},
        status=status,
    )


@login_required
@league_pages
def invites(request, slug: str):
    return _invites_page(request, organized_club(request, slug))


@login_required
@league_pages
@require_POST
def create_invite(request, slug: str):
    club = organized_club(request, slug)
    form = InviteForm(request.POST)
    if form.is_valid():
        try:
            member_actions.do_create_invite(user=request.user, club=club, **form.cleaned_data)
            return redirect("web:invites", slug=club.slug)
        except ApiError as err:
            form.add_error(None, refusal_text(err))
    return _invites_page(request, club, form, 400)


@login_required
@league_pages
@require_POST
def revoke_invite(request, slug: str, code: str):
    club = organized_club(request, slug)
    member_actions.do_revoke_invite(user=request.user, club=club, code=code)
    return redirect("web:invites", slug=club.slug)


@require_http_methods(["GET", "POST"])
def join_link(request, slug: str, code: str):
    """The shareable invite link: sign in or register, and join, in one step. An unknown
    club and a wrong, used, expired or revoked code are the same 404 page."""
    club = league.club_by_slug(slug)
    try:
        if club is None:
            raise NotFound()
        member_actions.check_invite(club, code)
    except ApiError:
        raise Http404("no such invite") from None
    user = request.user if request.user.is_authenticated else None
    signin = SignInForm(request, data=None)
    register = RegisterForm()
    error = None
    if request.method == "POST":
        action = request.POST.get("action")
        if action == "signin" and user is None:
            wait = throttling.wait_seconds(
                request, throttling.SIGN_IN, {"username": request.POST.get("username", "")}
            )
            if wait is not None:
                return too_many_attempts(request, wait)
            signin = SignInForm(request, data=request.POST)
            if signin.is_valid():
                user = signin.get_user()
                login(request, user)
        elif action == "register" and user is None:
            wait = throttling.wait_seconds(request, throttling.REGISTER, {})
            if wait is not None:
                return too_many_attempts(request, wait)
            register = RegisterForm(request.POST)
            if register.is_valid():
                user = register.register()
                if user is not None:
                    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        if user is not None:
            try:
                member_actions.do_join_club(user=user, club=club, code=code)
                return redirect("web:club", slug=club.slug)
            except ApiError as err:
                if err.code == "already_member":
                    return redirect("web:club", slug=club.slug)
                error = refusal_text(err)
    return render(
        request,
        "web/join_link.html",
        {"club": club, "code": code, "signin": signin, "register": register, "error": error},
        status=400 if request.method == "POST" else 200,
    )


# -- computer players -----------------------------------------------------------------------
def _bots_page(request, form=None, token=None, status=200, error=None):
    user = request.user
    bots = list(account_selectors.bots_of(user))
    clubs = [
        (c.slug, c.name)
        for c in league.visible_clubs(user)
        .filter(memberships__user=user, memberships__active=True)
        .order_by("name")
    ]
    entered: dict[str, list[str]] = {}
    for bot in bots:
        entered[bot.username] = [
            m.club.slug for m in bot.memberships.filter(active=True).select_related("club")
        ]
    return render(
        request,
        "web/bots.html",
        {
            "bots": [{"name": b.username, "clubs": entered[b.username]} for b in bots],
            "form": form or BotNameForm(),
            "enter_form": EnterBotForm(clubs=clubs),
            "has_clubs": bool(clubs),
            "token": token,
            "error": error,
        },
        status=status,
    )


@login_required
@league_pages
@require_http_methods(["GET", "POST"])
def bots(request):
    _person(request)
    if request.method == "GET":
        return _bots_page(request)
    form = BotNameForm(request.POST)
    if form.is_valid():
        try:
            grant = account_services.do_register_bot(
                owner=request.user, name=form.cleaned_data["name"]
            )
            return _bots_page(request, token={"name": grant.user.username, "key": grant.key})
        except ApiError as err:
            form.add_error("name", _bot_refusal(err))
    return _bots_page(request, form=form, status=400)


def _bot_refusal(err: ApiError) -> str:
    if err.code == "username_taken":
        return _("This name is taken.")
    if err.code == "quota_exceeded":
        return _("You own as many bots as a member may.")
    if err.code == "validation_error":
        return _("3 to 40 letters, digits or . _ -")
    return refusal_text(err)


@login_required
@league_pages
@require_POST
def bot_token(request, name: str):
    _person(request)
    try:
        if request.POST.get("action") == "revoke":
            account_services.do_revoke_bot_tokens(owner=request.user, bot_name=name)
            return redirect("web:bots")
        grant = account_services.do_rotate_bot_token(owner=request.user, bot_name=name)
    except NotFound:
        raise Http404("no such bot of yours") from None
    return _bots_page(request, token={"name": grant.user.username, "key": grant.key})


@login_required
@league_pages
@require_POST
def enter_bot(request, name: str):
    _person(request)
    slug = request.POST.get("club", "")
    club = league.club_for_reader(slug, request.user)
    try:
        member_actions.do_enter_bot(user=request.user, club=club, bot_name=name)
    except ApiError as err:
        if err.status == 403:
            raise
        return _bots_page(request, status=400, error=refusal_text(err))
    return redirect("web:bots")


@login_required
@league_pages
@require_POST
def add_hosted_player(request, slug: str):
    club = organized_club(request, slug)
    form = HostedPlayerForm(request.POST)
    if not form.is_valid():
        return _organize(request, club, hosted_form=form, status=400)
    try:
        hosted.do_add_hosted_player(user=request.user, club=club, level=form.cleaned_data["level"])
    except ApiError as err:
        form.add_error(None, refusal_text(err))
        return _organize(request, club, hosted_form=form, status=400)
    return redirect("web:organize", slug=club.slug)


def _organize(request, club, **forms_):
    return organize_page(request, club, **forms_)


# -- announcements --------------------------------------------------------------------------
@login_required
@league_pages
@require_POST
def post_announcement(request, slug: str):
    club = organized_club(request, slug)
    form = AnnouncementForm(request.POST)
    if form.is_valid():
        try:
            clubs.do_post_announcement(user=request.user, club=club, text=form.cleaned_data["text"])
            return redirect("web:organize", slug=club.slug)
        except ApiError as err:
            form.add_error(None, refusal_text(err))
    return _organize(request, club, announcement_form=form, status=400)


@login_required
@league_pages
@require_POST
def remove_announcement(request, slug: str, announcement_id: int):
    club = organized_club(request, slug)
    clubs.do_remove_announcement(user=request.user, club=club, announcement_id=announcement_id)
    return redirect("web:organize", slug=club.slug)


# -- seasons ------------------------------------------------------------------------------------
def _season_page(request, club, season, form=None, pair_form=None, error=None, status=200):
    pairs = list(season.pairs.select_related("player_1", "player_2"))
    return render(
        request,
        "web/season_edit.html",
        {
            "club": club,
            "season": season,
            "form": form
            or EditSeasonForm(
                initial={
                    "name": season.name,
                    "starts_on": season.starts_on,
                    "ends_on": season.ends_on,
                }
            ),
            "pair_form": pair_form or _pair_form(club),
            "pairs": pairs,
            "rounds": list(league.rounds_of(season)),
            "error": error,
        },
        status=status,
    )


def _pair_form(club, data=None) -> PairForm:
    members = [(m.user.username, m.user.username) for m in league.members_of(club)]
    return PairForm(data, members=members)


def _season(request, slug, season_id) -> tuple[Club, Season]:
    club = organized_club(request, slug)
    return club, league.season_for_reader(club, season_id)


@login_required
@league_pages
@require_http_methods(["GET", "POST"])
def edit_season(request, slug: str, season_id: int):
    club, season = _season(request, slug, season_id)
    if request.method == "GET":
        return _season_page(request, club, season)
    form = EditSeasonForm(request.POST)
    if form.is_valid():
        try:
            seasons.do_update_season(user=request.user, season=season, changes=form.cleaned_data)
            return redirect("web:edit_season", slug=club.slug, season_id=season.pk)
        except ApiError as err:
            form.add_error(None, refusal_text(err))
    return _season_page(request, club, season, form=form, status=400)


@login_required
@league_pages
@require_POST
def register_pair(request, slug: str, season_id: int):
    club, season = _season(request, slug, season_id)
    form = _pair_form(club, request.POST)
    if form.is_valid():
        try:
            seasons.do_register_pair(user=request.user, season=season, **form.cleaned_data)
            return redirect("web:edit_season", slug=club.slug, season_id=season.pk)
        except ApiError as err:
            form.add_error(None, _pair_refusal(err))
    return _season_page(request, club, season, pair_form=form, status=400)


def _pair_refusal(err: ApiError) -> str:
    if err.code == "already_in_pair":
        return _("One of them is in a pair of this season already.")
    return refusal_text(err)


@login_required
@league_pages
@require_POST
def close_season(request, slug: str, season_id: int):
    club, season = _season(request, slug, season_id)
    try:
        seasons.do_close_season(user=request.user, season=season)
    except ApiError as err:
        if err.status == 403:
            raise
        return _season_page(request, club, season, error=refusal_text(err), status=400)
    return redirect(f"/clubs/{club.slug}/standings?season={season.pk}")


# -- availability and check-in --------------------------------------------------------------------
@login_required
@league_pages
@require_POST
def set_availability(request, slug: str, season_id: int):
    """A member marks themselves (or an organizer marks a member) for the next round."""
    club = league.club_for_reader(slug, request.user)
    season = league.season_for_reader(club, season_id)
    form = AvailabilityForm(request.POST)
    if not form.is_valid():
        raise Http404("bad form")
    player = form.cleaned_data["player"] or None
    seasons.do_set_availability(
        user=request.user, season=season, available=form.cleaned_data["available"], username=player
    )
    back = request.POST.get("next", "")
    if back.startswith(f"/clubs/{club.slug}/") and "//" not in back:
        return redirect(back)
    return redirect("web:club", slug=club.slug)


@login_required
@league_pages
@require_POST
def check_in_available(request, slug: str, season_id: int, number: int):
    club, season = _season(request, slug, season_id)
    round_ = league.round_of(season, number)
    chosen = league.available_entrants(season)
    try:
        if season.format == "pairs":
            rounds.do_check_in(user=request.user, round_=round_, pairs=chosen)
        else:
            rounds.do_check_in(user=request.user, round_=round_, players=chosen)
    except ApiError as err:
        if err.status == 403:
            raise
        raise PermissionDenied(refusal_text(err)) from None
    return redirect("web:round", slug=club.slug, season_id=season.pk, number=number)


# -- annul: a confirmation first ----------------------------------------------------------------
@login_required
@league_pages
@require_http_methods(["GET", "POST"])
def annul_page(request, match_id: int):
    m = league.match_for_reader(match_id, request.user)
    if request.method == "POST":
        return _annul(request, m)
    if m.club is None:
        raise Http404("not a league match")
    roles.check_organizer(m.club, request.user)
    return render(
        request,
        "web/annul_confirm.html",
        {"match": m, "data": MatchSerializer(m).data, "annul_form": AnnulForm()},
    )


def _annul(request, m):
    form = AnnulForm(request.POST)
    error = None
    if form.is_valid():
        try:
            matches.do_annul(user=request.user, match=m, reason=form.cleaned_data["reason"])
            return redirect("web:match", match_id=m.pk)
        except ApiError as err:
            if err.status == 403:
                raise
            error = refusal_text(err)
    return render(
        request,
        "web/match_unfinished.html",
        {
            "match": m,
            "data": MatchSerializer(m).data,
            "is_organizer": True,
            "annul_form": form,
            "error": error,
        },
        status=400,
    )


# -- the action log ------------------------------------------------------------------------------
@login_required
@league_pages
def action_log(request, slug: str):
    club = organized_club(request, slug)
    page = Paginator(league.club_log(club), LOG_PER_PAGE).get_page(request.GET.get("page"))
    return render(
        request,
        "web/action_log.html",
        {"club": club, "page": page, "lines": log_lines(page.object_list)},
    )


# -- exports --------------------------------------------------------------------------------------
class _Echo:
    def write(self, value):
        return value


# The standings page's columns, in its order (the bot flag last).
STANDINGS_COLUMNS = (
    "position",
    "name",
    "played",
    "wins",
    "byes",
    "hands_won",
    "hands_lost",
    "points",
    "dekabes",
    "ties",
    "bot",
)


def standings_rows(season: Season) -> list[list]:
    """The standings page's rows as CSV cells, in its order."""
    rows = []
    for r in league.standing_rows(season):
        if r.pair is not None:
            name, bot = r.pair.name, False
        else:
            assert r.player is not None  # a row has a pair or a player
            name, bot = r.player.username, r.player.is_bot
        rows.append(
            [
                r.position,
                name,
                r.played,
                r.wins,
                r.byes,
                r.hands_won,
                r.hands_lost,
                r.points,
                r.dekabes,
                r.ties,
                "yes" if bot else "no",
            ]
        )
    return rows


def _csv(filename: str, header, rows) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    writer = csv.writer(response)
    writer.writerow(header)
    writer.writerows(rows)
    return response


@league_pages
def standings_csv(request, slug: str):
    club = league.club_for_reader(slug, viewer(request))
    season = season_choice(club, request.GET.get("season"))
    if season is None:
        raise Http404("no season")
    return _csv(
        f"{club.slug}-season-{season.pk}-standings.csv", STANDINGS_COLUMNS, standings_rows(season)
    )


@league_pages
def ratings_csv(request, slug: str):
    club = league.club_for_reader(slug, viewer(request))
    rows = [
        [
            n,
            r.player.username,
            "yes" if r.player.is_bot else "no",
            f"{r.ordinal:.2f}",
            f"{r.mu:.2f}",
            f"{r.sigma:.2f}",
            r.matches,
        ]
        for n, r in enumerate(league.club_ratings(club), start=1)
    ]
    header = ("rank", "name", "bot", "ordinal", "mu", "sigma", "matches")
    return _csv(f"{club.slug}-ratings.csv", header, rows)


@league_pages
def season_records(request, slug: str, season_id: int):
    """One NDJSON line per finished match of the season: its record's events (the
    record the API serves at /api/matches/{id}/record). Matches in progress and annulled
    ones are left out: no tile of a live hand, no voided deal."""
    club = league.club_for_reader(slug, viewer(request))
    season = league.season_of(club, season_id)
    finished = list(
        league.match_list(viewer(request), club=club.slug, status="finished")
        .filter(season=season)
        .exclude(league.duplicate_hidden(viewer(request), overseers=False))
        .order_by("round__number", "table_number", "id")
    )

    def lines():
        for m in finished:
            yield (
                json.dumps(
                    {
                        "match": m.pk,
                        "table": m.table.code,
                        "round": m.round.number if m.round is not None else None,
                        "table_number": m.table_number,
                        "events": load_record(league.record_text(m)),
                    },
                    separators=(",", ":"),
                )
                + "\n"
            )

    response = StreamingHttpResponse(lines(), content_type="application/x-ndjson")
    response["Content-Disposition"] = (
        f'attachment; filename="{club.slug}-season-{season.pk}-records.ndjson"'
    )
    return response
