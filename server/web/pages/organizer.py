"""The organizer's pages: the organize page (seasons, invites, hosted players,
announcements), create and edit a club, its members and invites, a season's edit, pairs
and close, a round's opening, check-in of everyone available, deadline, substitutes and
forfeits, a match's annulment (a confirmation first), and the club's action log.

Thin: every decision is a league action's; a refusal on a read is the site's 403 / 404
page (``refusals.league_pages``), on a write the form's or the page's error
(``refusals.shown_refusal``). The round page's own check-in and start are in
``pages/league.py``, beside the round it shows.
"""

from __future__ import annotations

from contextlib import suppress

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.text import Truncator
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST

from server.errors import ApiError, RoundOpen, SlugTaken
from server.league import selectors as league
from server.league.actions import clubs, hosted, matches, members, roles, rounds, seasons
from server.league.models import Club, Season
from server.league.serializers import InviteSerializer, MatchSerializer, MemberSerializer
from server.web.confirm import confirmation_page, confirmed
from server.web.forms.organizer import (
    AnnouncementForm,
    AnnulForm,
    ClubForm,
    DeadlineForm,
    EditClubForm,
    EditSeasonForm,
    ForfeitForm,
    HostedPlayerForm,
    InviteForm,
    PairForm,
    RemoveMemberForm,
    RoleForm,
    SeasonForm,
    SubstituteForm,
)
from server.web.once import once_per_form
from server.web.refusals import league_pages, shown_refusal
from server.web.round_page import render_round
from server.web.selectors.action_log import log_lines
from server.web.visitor import organized_club, person

LOG_PER_PAGE = 50


# -- the organize page ------------------------------------------------------------------------
def organize_page(
    request,
    club: Club,
    season_form=None,
    invite_form=None,
    hosted_form=None,
    announcement_form=None,
    status=200,
    error=None,
):
    """The organize page: seasons, invites, hosted players, announcements."""
    invites = league.invites_of(club)[:20]
    seasons_ = list(league.seasons_of(club).prefetch_related("rounds"))
    return render(
        request,
        "web/organize.html",
        {
            "club": club,
            "seasons": seasons_,
            "seasons_with_open_round": {
                s.pk for s in seasons_ if any(r.status == "open" for r in s.rounds.all())
            },
            "season_form": season_form or SeasonForm(),
            "invite_form": invite_form or InviteForm(club=club),
            "invites": InviteSerializer(invites, many=True).data,
            "error": error,
            "hosted_form": hosted_form or HostedPlayerForm(),
            "hosted": MemberSerializer(league.hosted_members(club), many=True).data,
            "announcement_form": announcement_form or AnnouncementForm(),
            "announcements": list(league.announcements_of(club)[:10]),
        },
        status=status,
    )


@login_required
@league_pages
def organize(request, slug: str):
    return organize_page(request, organized_club(request, slug))


@login_required
@league_pages
@require_POST
@once_per_form
def create_season(request, slug: str):
    club = organized_club(request, slug)
    form = SeasonForm(request.POST)
    if form.is_valid():
        with shown_refusal(form):
            season = seasons.do_create_season(user=request.user, club=club, **form.cleaned_data)
            # Its page: where pairs are registered, rounds opened, the season closed.
            return redirect("web:edit_season", slug=club.slug, season_id=season.pk)
    return organize_page(request, club, season_form=form, status=400)


@login_required
@league_pages
@require_POST
@once_per_form
def create_invite(request, slug: str):
    club = organized_club(request, slug)
    form = InviteForm(request.POST, club=club)
    if form.is_valid():
        with shown_refusal(form):
            members.do_create_invite(user=request.user, club=club, **form.cleaned_data)
            return redirect("web:organize", slug=club.slug)
    return organize_page(request, club, invite_form=form, status=400)


@login_required
@league_pages
@require_POST
@once_per_form
def add_hosted_player(request, slug: str):
    club = organized_club(request, slug)
    form = HostedPlayerForm(request.POST)
    if form.is_valid():
        with shown_refusal(form):
            hosted.do_add_hosted_player(
                user=request.user, club=club, level=form.cleaned_data["level"]
            )
            return redirect("web:organize", slug=club.slug)
    return organize_page(request, club, hosted_form=form, status=400)


@login_required
@league_pages
@require_POST
@once_per_form
def post_announcement(request, slug: str):
    club = organized_club(request, slug)
    form = AnnouncementForm(request.POST)
    if form.is_valid():
        with shown_refusal(form):
            clubs.do_post_announcement(user=request.user, club=club, text=form.cleaned_data["text"])
            return redirect("web:organize", slug=club.slug)
    return organize_page(request, club, announcement_form=form, status=400)


@login_required
@league_pages
@require_POST
def remove_announcement(request, slug: str, announcement_id: int):
    club = organized_club(request, slug)
    if not confirmed(request):
        note = league.announcements_of(club).filter(pk=announcement_id).first()
        if note is None:
            raise Http404("no such announcement")
        return confirmation_page(
            request,
            title=_("Remove this announcement?"),
            what_happens=[
                Truncator(note.text).chars(200),
                _("It leaves the club page for everyone; the action log keeps its text."),
                _("It cannot be undone: to say it again, post it again."),
            ],
            button=_("Remove the announcement"),
            cancel=reverse("web:organize", kwargs={"slug": club.slug}),
            club=club,
        )
    clubs.do_remove_announcement(user=request.user, club=club, announcement_id=announcement_id)
    return redirect("web:organize", slug=club.slug)


@login_required
@league_pages
@require_POST
@once_per_form
def create_round(request, slug: str, season_id: int):
    club = organized_club(request, slug)
    season = league.season_for_reader(club, season_id)
    with shown_refusal(forbidden_page=True) as refusal:
        round_ = rounds.do_create_round(user=request.user, season=season)
        return redirect("web:round", slug=club.slug, season_id=season.pk, number=round_.number)
    still_open = league.rounds_of(season).filter(status="open").first()
    if isinstance(refusal.error, RoundOpen) and still_open is not None:
        # A second click (or a round forgotten): the round that is open.
        return redirect("web:round", slug=club.slug, season_id=season.pk, number=still_open.number)
    return organize_page(request, club, status=400, error=refusal.text)


@login_required
@league_pages
@require_POST
def delete_round(request, slug: str, season_id: int, number: int):
    club, season = _season(request, slug, season_id)
    round_ = league.round_of(season, number)
    back = reverse(
        "web:round", kwargs={"slug": club.slug, "season_id": season.pk, "number": number}
    )
    if not confirmed(request):
        checked_in = round_.checkins.count()
        return confirmation_page(
            request,
            title=_("Delete round %(n)s of %(season)s?") % {"n": number, "season": season.name},
            what_happens=[
                ngettext(
                    "The round goes, with its check-in (%(n)s checked in).",
                    "The round goes, with its check-in (%(n)s checked in).",
                    checked_in,
                )
                % {"n": checked_in},
                _("Nothing was played in it; the next round opened takes its number."),
            ],
            button=_("Delete the round"),
            cancel=back,
            club=club,
        )
    with shown_refusal() as refusal:
        rounds.do_delete_round(user=request.user, round_=round_)
        return redirect("web:edit_season", slug=club.slug, season_id=season.pk)
    return _season_page(request, club, season, error=refusal.text, status=refusal.status)


# -- the club ---------------------------------------------------------------------------------
@login_required
@league_pages
@require_http_methods(["GET", "POST"])
@once_per_form
def new_club(request):
    person(request)
    form = ClubForm(request.POST or None, initial={"visibility": "public"})
    if request.method == "POST" and form.is_valid():
        with shown_refusal(form, field={SlugTaken: "slug"}):
            club = clubs.do_create_club(user=request.user, **form.cleaned_data)
            return redirect("web:organize", slug=club.slug)
    status = 400 if request.method == "POST" else 200
    return render(request, "web/club_form.html", {"form": form, "club": None}, status=status)


@login_required
@league_pages
@require_http_methods(["GET", "POST"])
def edit_club(request, slug: str):
    club = organized_club(request, slug)
    initial = {
        "name": club.name,
        "description": club.description,
        "visibility": club.visibility,
        "time_zone": club.time_zone,
    }
    form = EditClubForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        with shown_refusal(form):
            clubs.do_update_club(user=request.user, club=club, changes=form.cleaned_data)
            return redirect("web:organize", slug=club.slug)
    status = 400 if request.method == "POST" else 200
    return render(request, "web/club_form.html", {"form": form, "club": club}, status=status)


# -- members and invites -----------------------------------------------------------------------
def _members_page(request, club: Club, error: str | None = None, status: int = 200):
    rows = MemberSerializer(list(league.members_of(club)), many=True).data
    removed = MemberSerializer(list(league.removed_members(club)), many=True).data
    return render(
        request,
        "web/members.html",
        {
            "club": club,
            "members": rows,
            "removed": removed,
            "me": request.user.username,
            "sole_organizer": league.sole_organizer(club),
            "remove_form": RemoveMemberForm(),
            "error": error,
        },
        status=status,
    )


@login_required
@league_pages
def members_page(request, slug: str):
    return _members_page(request, organized_club(request, slug))


@login_required
@league_pages
@require_POST
def set_role(request, slug: str, username: str):
    club = organized_club(request, slug)
    form = RoleForm(request.POST)
    if not form.is_valid():
        return _members_page(request, club, _("Check the values you entered."), 400)
    role = form.cleaned_data["role"]
    with shown_refusal() as refusal:
        if role == "member" and username == request.user.username and not confirmed(request):
            members.check_may_set_role(club, username, role)  # refused now, not after
            return _confirm_stepping_down(request, club)
        members.do_set_role(user=request.user, club=club, username=username, role=role)
        return redirect("web:members", slug=club.slug)
    return _members_page(request, club, refusal.text, 400)


def _confirm_stepping_down(request, club: Club):
    """An organizer making themself a member: only another organizer can undo it."""
    return confirmation_page(
        request,
        title=_("Stop organizing %(club)s?") % {"club": club.name},
        what_happens=[
            _("You become a member: the club's organizer pages close to you."),
            _("Only another organizer can make you an organizer again."),
        ],
        button=_("Make me a member"),
        cancel=reverse("web:members", kwargs={"slug": club.slug}),
        club=club,
    )


@login_required
@league_pages
@require_POST
def remove_member(request, slug: str, username: str):
    club = organized_club(request, slug)
    form = RemoveMemberForm(request.POST)
    form.is_valid()
    joined_with = league.invite_of(club, league.invite_used_by(club, username))
    own_code = joined_with if joined_with is not None and joined_with.single_use else None
    if not confirmed(request):
        return _confirm_removal(request, club, members.active_member(club, username), own_code)
    with shown_refusal() as refusal:
        members.do_remove_member(user=request.user, club=club, username=username)
    if refusal.error is not None:
        return _members_page(request, club, refusal.text, 400)
    # Only the member's own single-use code, and only when asked: a code others use
    # stays valid (the removed list keeps the member out, whatever code they hold).
    if form.cleaned_data.get("revoke_invite") and own_code is not None and not own_code.revoked_at:
        with suppress(ApiError):  # revoked meanwhile: nothing more to do
            members.do_revoke_invite(user=request.user, club=club, code=own_code.code)
    return redirect("web:members", slug=club.slug)


def _confirm_removal(request, club: Club, membership, own_code):
    removed = membership.user
    name = removed.shown_name
    lines = [
        _("%(name)s leaves the club's lists; their matches, standings and ratings stay.")
        % {"name": name}
    ]
    bots = [b.shown_name for b in league.bots_in_club(club, removed)]
    if bots:
        lines.append(_("Their bots leave with them: %(bots)s.") % {"bots": ", ".join(bots)})
    if not removed.is_bot:
        lines.append(
            _(
                "No invite code lets them back until an organizer allows it (the removed "
                "list on the members page)."
            )
        )
        lines.append(_("The invite codes others use stay valid."))
    choices = []
    if own_code is not None and not own_code.revoked_at:
        choices.append(
            (
                "revoke_invite",
                _("Also revoke the single-use code they joined with (%(code)s)")
                % {"code": own_code.code},
            )
        )
    return confirmation_page(
        request,
        title=_("Remove %(name)s from %(club)s?") % {"name": name, "club": club.name},
        what_happens=lines,
        button=_("Remove %(name)s") % {"name": name},
        cancel=reverse("web:members", kwargs={"slug": club.slug}),
        fields={},
        choices=choices,
        club=club,
    )


@login_required
@league_pages
@require_POST
def allow_back(request, slug: str, username: str):
    club = organized_club(request, slug)
    with shown_refusal() as refusal:
        members.do_allow_back(user=request.user, club=club, username=username)
        return redirect("web:members", slug=club.slug)
    return _members_page(request, club, refusal.text, 400)


def _invites_page(request, club: Club, form=None, status: int = 200):
    invites = InviteSerializer(league.invites_of(club)[:100], many=True).data
    for invite in invites:
        invite["link"] = request.build_absolute_uri(f"/join/{club.slug}/{invite['code']}")
    return render(
        request,
        "web/invites.html",
        {"club": club, "invites": invites, "invite_form": form or InviteForm(club=club)},
        status=status,
    )


@login_required
@league_pages
def invites_page(request, slug: str):
    return _invites_page(request, organized_club(request, slug))


@login_required
@league_pages
@require_POST
@once_per_form
def create_invite_link(request, slug: str):
    club = organized_club(request, slug)
    form = InviteForm(request.POST, club=club)
    if form.is_valid():
        with shown_refusal(form):
            members.do_create_invite(user=request.user, club=club, **form.cleaned_data)
            return redirect("web:invites", slug=club.slug)
    return _invites_page(request, club, form, 400)


@login_required
@league_pages
@require_POST
def revoke_invite(request, slug: str, code: str):
    club = organized_club(request, slug)
    if not confirmed(request):
        invite = league.invite_of(club, code)
        if invite is None or invite.revoked_at is not None:
            raise Http404("no such open invite")
        lines = [
            _("The link stops working for everyone who has not used it yet."),
            ngettext(
                "%(n)s person joined with it: they stay members.",
                "%(n)s people joined with it: they stay members.",
                invite.uses,
            )
            % {"n": invite.uses},
            _("It cannot be undone: to invite again, make a new code."),
        ]
        return confirmation_page(
            request,
            title=_("Revoke the invite code %(code)s?") % {"code": invite.code},
            what_happens=lines,
            button=_("Revoke the code"),
            cancel=reverse("web:invites", kwargs={"slug": club.slug}),
            club=club,
        )
    members.do_revoke_invite(user=request.user, club=club, code=code)
    return redirect("web:invites", slug=club.slug)


# -- seasons ------------------------------------------------------------------------------------
def _season_page(request, club, season, form=None, pair_form=None, error=None, status=200):
    pairs = list(season.pairs.select_related("player_1", "player_2"))
    rounds_ = list(league.rounds_of(season))
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
            "pair_form": pair_form or PairForm.for_club(club),
            "pairs": pairs,
            "rounds": rounds_,
            "open_round": next((r for r in rounds_ if r.status == "open"), None),
            "error": error,
        },
        status=status,
    )


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
        with shown_refusal(form):
            seasons.do_update_season(user=request.user, season=season, changes=form.cleaned_data)
            return redirect("web:edit_season", slug=club.slug, season_id=season.pk)
    return _season_page(request, club, season, form=form, status=400)


@login_required
@league_pages
@require_POST
@once_per_form
def register_pair(request, slug: str, season_id: int):
    club, season = _season(request, slug, season_id)
    form = PairForm.for_club(club, request.POST)
    if form.is_valid():
        with shown_refusal(form):
            seasons.do_register_pair(user=request.user, season=season, **form.cleaned_data)
            return redirect("web:edit_season", slug=club.slug, season_id=season.pk)
    return _season_page(request, club, season, pair_form=form, status=400)


@login_required
@league_pages
@require_POST
def close_season(request, slug: str, season_id: int):
    club, season = _season(request, slug, season_id)
    if not confirmed(request) and season.closed_at is None:
        return _confirm_close(request, club, season)
    with shown_refusal(forbidden_page=True) as refusal:
        seasons.do_close_season(user=request.user, season=season)
        return redirect(f"/clubs/{club.slug}/standings?season={season.pk}")
    return _season_page(request, club, season, error=refusal.text, status=400)


def _confirm_close(request, club: Club, season: Season):
    lines = [
        _("Its standings, rounds and matches stay readable."),
        _("It takes no new round, check-in or start; its name and dates stay as they are."),
    ]
    unstarted = [r.number for r in league.rounds_of(season) if r.status == "open"]
    if unstarted:
        lines.append(
            _("Round %(numbers)s, open and never started, is deleted.")
            % {"numbers": ", ".join(str(n) for n in unstarted)}
        )
    lines.append(_("It cannot be undone."))
    return confirmation_page(
        request,
        title=_("Close the season %(name)s?") % {"name": season.name},
        what_happens=lines,
        button=_("Close the season"),
        cancel=reverse("web:edit_season", kwargs={"slug": club.slug, "season_id": season.pk}),
        club=club,
    )


# -- rounds and their matches ---------------------------------------------------------------------
@login_required
@league_pages
@require_POST
def check_in_available(request, slug: str, season_id: int, number: int):
    club, season = _season(request, slug, season_id)
    round_ = league.round_of(season, number)
    chosen = league.available_entrants(season)
    with shown_refusal(forbidden_page=True) as refusal:
        if season.format == "pairs":
            rounds.do_check_in(user=request.user, round_=round_, pairs=chosen)
        else:
            rounds.do_check_in(user=request.user, round_=round_, players=chosen)
        return redirect("web:round", slug=club.slug, season_id=season.pk, number=number)
    # Refused (the round started meanwhile, a member and their bot both available...):
    # the round page again with the sentence, as the round page's own check-in does.
    return render_round(request, club, season, round_, error=refusal.text, status=refusal.status)


# The round page's "Deadline, substitutes and forfeits" card (web/round_match_actions.html):
# a required confirmation box stands for the confirmation (no JavaScript needed). A
# refusal is the round page again, its sentence beside the form, the form as typed: the
# organizer is in the middle of an evening, and a way back to the home page would lose
# the round and what was typed. Who may not act gets the site's 403 / 404 page.
def _card_refused(request, round_, card: dict, status: int = 400):
    season = round_.season
    return render_round(
        request, season.club, season, round_, error=card["error"], card=card, status=status
    )


def _typed(request, *names: str) -> dict:
    return {name: request.POST.get(name, "").strip() for name in names}


def _organized_match(request, match_id: int):
    """A league match of a round whose club the visitor organizes (else the refusal)."""
    match = league.match_for_reader(match_id, request.user)
    if match.club is None or match.round is None:
        raise Http404("not a league match")
    roles.check_organizer(match.club, request.user)
    return match


@login_required
@league_pages
@require_POST
def round_deadline(request, slug: str, season_id: int, number: int):
    club = organized_club(request, slug)
    round_ = league.round_of(league.season_for_reader(club, season_id), number)
    form = DeadlineForm(request.POST, club=club)
    typed = _typed(request, "deadline")

    def refused(text, status=400):
        card = {"deadline": True, "error": text, "typed": typed}
        return _card_refused(request, round_, card, status)

    if not form.is_valid():
        return refused(_("Check the values you entered."))
    deadline = None
    action = form.cleaned_data["action"]
    minutes = round_.season.auto_substitute_after
    if action == "now" and minutes and not confirmed(request):
        return _confirm_end_of_wait(request, club, round_, minutes)
    if action == "now":
        deadline = timezone.now()
    elif action == "set":
        deadline = form.cleaned_data["deadline"]  # typed in the club's time zone
        if deadline is None:
            return refused(_("Type the date and time of the deadline."))
    with shown_refusal() as refusal:
        rounds.do_set_deadline(
            user=request.user, round_=round_, deadline=deadline, refuse_past=action == "set"
        )
        return redirect("web:round", slug=slug, season_id=season_id, number=number)
    return refused(refusal.text, refusal.status)


def _confirm_end_of_wait(request, club: Club, round_, minutes: int):
    """Ending the wait in a season with automatic substitutes hands seats over at once:
    that cannot be undone (a deadline merely moved can be moved back)."""
    return confirmation_page(
        request,
        title=_("End the wait for round %(n)s now?") % {"n": round_.number},
        what_happens=[
            _("The deadline becomes now: a match with an absent player may end by forfeit."),
            ngettext(
                "Every seat away %(n)s minute or more goes to a computer player at once.",
                "Every seat away %(n)s minutes or more goes to a computer player at once.",
                minutes,
            )
            % {"n": minutes},
            _("A seat handed over cannot be given back."),
        ],
        button=_("End the wait now"),
        cancel=reverse(
            "web:round",
            kwargs={"slug": club.slug, "season_id": round_.season_id, "number": round_.number},
        ),
        club=club,
    )


@login_required
@league_pages
@require_POST
def match_substitute(request, match_id: int):
    match = _organized_match(request, match_id)
    form = SubstituteForm(request.POST)
    typed = _typed(request, "seat", "by", "reason")

    def refused(text, status=400):
        card = {"substitute": match.pk, "match": match.pk, "error": text, "typed": typed}
        return _card_refused(request, match.round, card, status)

    if not form.is_valid():
        if "confirm" in form.errors and len(form.errors) == 1:
            return refused(_("Tick the confirmation box to hand the seat over."))
        return refused(_("Check the values you entered."))
    kind, _sep, name = form.cleaned_data["by"].partition(":")
    with shown_refusal() as refusal:
        matches.do_substitute(
            user=request.user,
            match=match,
            seat=form.cleaned_data["seat"],
            username=name if kind == "user" else None,
            level=name if kind == "level" else None,
            reason=form.cleaned_data["reason"],
        )
        return _back_to_round(match)
    return refused(refusal.text, refusal.status)


@login_required
@league_pages
@require_POST
def match_forfeit(request, match_id: int):
    match = _organized_match(request, match_id)
    form = ForfeitForm(request.POST)
    typed = _typed(request, "seat", "reason")

    def refused(text, status=400):
        card = {"forfeit": match.pk, "match": match.pk, "error": text, "typed": typed}
        return _card_refused(request, match.round, card, status)

    if not form.is_valid():
        if "reason" in form.errors and not typed["reason"]:
            return refused(_("Say why the match ends by forfeit."))
        return refused(_("Check the values you entered."))
    if not confirmed(request):
        return _confirm_forfeit(request, match, form.cleaned_data["seat"])
    with shown_refusal() as refusal:
        matches.do_forfeit(
            user=request.user,
            match=match,
            seat=form.cleaned_data["seat"],
            reason=form.cleaned_data["reason"],
        )
        return _back_to_round(match)
    return refused(refusal.text, refusal.status)


def _back_to_round(match):
    return redirect(
        "web:round", slug=match.club.slug, season_id=match.season_id, number=match.round.number
    )


def _confirm_forfeit(request, match, seat: int):
    holder = league.seat_holder(match, seat)
    team = "A" if seat in (1, 3) else "B"
    return confirmation_page(
        request,
        title=_("End table %(n)s by forfeit?") % {"n": match.table_number},
        what_happens=[
            _("The match ends now: seat %(seat)s (%(name)s) is absent, so team %(team)s loses it.")
            % {"seat": seat, "name": holder or "—", "team": team},
            _("The result counts in the standings (not in the ratings), and the players are told."),
            _("It cannot be undone."),
        ],
        button=_("End the match by forfeit"),
        cancel=reverse(
            "web:round",
            kwargs={
                "slug": match.club.slug,
                "season_id": match.season_id,
                "number": match.round.number,
            },
        ),
        club=match.club,
    )


@login_required
@league_pages
def round_presence(request, slug: str, season_id: int, number: int):
    """``GET …/rounds/<n>/presence``: whether each seat of the round's tables in play is
    here now (the round page's organizer tools follow it: ``presence.js``)."""
    club, season = _season(request, slug, season_id)
    round_ = league.round_of(season, number)
    seats = {
        f"{m.pk}:{seat}": here
        for m in league.round_matches(round_).filter(status="playing").select_related("table")
        for seat, here in league.seats_here(m.table).items()
    }
    return JsonResponse({"seats": seats})


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
    if form.is_valid() and not confirmed(request):
        if m.club is None:
            raise Http404("not a league match")
        roles.check_organizer(m.club, request.user)
        return confirmation_page(
            request,
            title=_("Annul the match?"),
            what_happens=[
                _(
                    "An annulled match counts for no one: no result, no rating change. "
                    "The players and the action log show the reason."
                ),
                _("Reason") + ": " + form.cleaned_data["reason"],
                _("It cannot be undone."),
            ],
            button=_("Annul the match"),
            cancel=reverse("web:match", kwargs={"match_id": m.pk}),
            club=m.club,
        )
    if form.is_valid():
        with shown_refusal(forbidden_page=True) as refusal:
            matches.do_annul(user=request.user, match=m, reason=form.cleaned_data["reason"])
            return redirect("web:match", match_id=m.pk)
        error = refusal.text
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
