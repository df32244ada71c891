"""How a refusal of the league or the accounts (``server.errors``) reaches a visitor.

- On a write, ``shown_refusal``: the one way a page runs a service from a form. The
  service's refusal becomes the form's error (or the sentence the page shows), in the
  visitor's language (``REFUSALS``), and nothing was changed.
- On a read, ``league_pages``: the site's 404 or 403 page, which leads back to the club
  when the visitor may read it.
- A throttled sign-in or registration: ``too_many_attempts``, a 429 page.

The services stay the one place that says who may do what; the pages only show it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import wraps
from types import TracebackType

from django import forms
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django_stubs_ext import StrOrPromise

from server import errors
from server.league import selectors as league
from server.web.visitor import viewer

# The refusals a league page's form can receive, as a member reads them; keyed by class,
# so the codes come from server.errors. tests/web/test_league_pages.py fails when a
# league refusal has no text here (or is not listed there as one no form can receive).
REFUSALS: dict[type[errors.ApiError], StrOrPromise] = {
    errors.ValidationError: gettext_lazy("Check the values you entered."),
    errors.PermissionDenied: gettext_lazy("Your account may not do this."),
    errors.NotAMember: gettext_lazy("Only the club's members may do this."),
    errors.OrganizerOnly: gettext_lazy("Only the club's organizers may do this."),
    errors.InviteInvalid: gettext_lazy("No such invite code for this club."),
    errors.InviteExpired: gettext_lazy("This invite code has expired."),
    errors.InviteUsed: gettext_lazy("This single-use invite code was used already."),
    errors.AlreadyMember: gettext_lazy("You are a member of this club already."),
    errors.RoundStarted: gettext_lazy("This round has started already."),
    errors.RoundInProgress: gettext_lazy("The previous round is not finished."),
    errors.SeasonClosed: gettext_lazy("This season is closed."),
    errors.LastOrganizer: gettext_lazy("A club keeps at least one organizer."),
    errors.TooManyHostedPlayers: gettext_lazy("The club has as many computer players as it may."),
    errors.NotYourBot: gettext_lazy("That bot is not yours."),
    errors.AlreadyInPair: gettext_lazy("One of them is in a pair of this season already."),
    errors.SlugTaken: gettext_lazy("This address is taken: choose another."),
    errors.NotEnoughPlayers: gettext_lazy("Too few players are checked in to make one table."),
    errors.NotEnoughHouseBots: gettext_lazy(
        "The club has too few free house bots to fill the seats."
    ),
    errors.OneSeatPerPlayer: gettext_lazy("A member and their own bot cannot both play a round."),
    errors.MatchInProgress: gettext_lazy("The match is in progress."),
    errors.MatchOver: gettext_lazy("The match is over."),
    errors.MatchAnnulled: gettext_lazy("The match was annulled."),
    errors.NotALeagueMatch: gettext_lazy("Only league matches are annulled."),
    errors.WrongFormat: gettext_lazy("This does not fit the season's format."),
    errors.DeadlineNotPassed: gettext_lazy("The round's deadline has not passed yet."),
    errors.NotSubstitutable: gettext_lazy(
        "This member cannot take the seat: not in the club, or seated in this round."
    ),
    errors.MatchForfeited: gettext_lazy("The match ended by forfeit."),
    errors.TooManyClubs: gettext_lazy("You have created as many clubs as one account may."),
    errors.TooManySeasons: gettext_lazy("The club has as many seasons as a club may have."),
    errors.TooManyInvites: gettext_lazy(
        "The club has as many open invite codes as it may have: wait until one expires."
    ),
    errors.TooManyRounds: gettext_lazy("The season has as many rounds as a season may have."),
    # the ways in to a table (server/web/pages/casual.py)
    errors.SeatTaken: gettext_lazy("This seat was taken meanwhile: choose another."),
    errors.QuotaExceeded: gettext_lazy(
        "You have as many tables in play as one member may: finish or leave one first."
    ),
    # a table seeking players (its open seats: server/matchmaking)
    errors.NotWanted: gettext_lazy("This table is looking for another kind of player."),
    errors.OutsideLevelRange: gettext_lazy("This table is looking for players of another level."),
    errors.DailyLimit: gettext_lazy(
        "You have taken as many open seats today as one member may: try again later."
    ),
}


def refusal_text(err: errors.ApiError) -> str:
    return str(REFUSALS.get(type(err), err.message))


# -- a write: the service's refusal on its form or its page ------------------------------------
Field = str | None | Mapping[type[errors.ApiError], str]


class Refusal:
    """What ``shown_refusal`` caught: the refusal (``error``, None while there is none)
    and the sentence shown for it (``text``)."""

    def __init__(
        self,
        form: forms.Form | None,
        field: Field,
        text: Callable[[errors.ApiError], StrOrPromise],
        forbidden_page: bool,
    ):
        self.form, self.field, self.to_text = form, field, text
        self.forbidden_page = forbidden_page
        self.error: errors.ApiError | None = None
        self.text: str | None = None

    @property
    def code(self) -> str | None:
        return None if self.error is None else self.error.code

    @property
    def status(self) -> int:
        return 400 if self.error is None else self.error.status

    def __enter__(self) -> Refusal:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> bool:
        if not isinstance(error, errors.ApiError):
            return False  # none, or not a refusal: it goes on
        if self.forbidden_page and error.status == 403:
            return False  # the site's 403 page (league_pages) says it
        self.error, self.text = error, str(self.to_text(error))
        if self.form is not None:
            field = self.field
            if isinstance(field, Mapping):
                field = field.get(type(error))
            self.form.add_error(field, self.text)
        return True  # shown: the block stops, the page answers with it


def shown_refusal(
    form: forms.Form | None = None,
    *,
    field: Field = None,
    text: Callable[[errors.ApiError], StrOrPromise] = refusal_text,
    forbidden_page: bool = False,
) -> Refusal:
    """Run a service inside ``with shown_refusal(form) as refusal:``. A refusal it raises
    stops the block, and the code after the block answers with it: on ``form`` (on
    ``field``: a field's name, or a map from refusal class to field; otherwise the
    whole form) and as ``refusal.text`` for a page without a form. ``text`` says it
    (the sentence of ``REFUSALS`` unless given); with ``forbidden_page`` a 403 is not
    caught but becomes the site's 403 page. Anything else raised goes on."""
    return Refusal(form, field, text, forbidden_page)


# -- a read: the site's 404 / 403 page ---------------------------------------------------------
def _readable_club(request, slug: str | None) -> str | None:
    """The club a refused page sits under, if the visitor may read it: the error page's
    way back (else the home page's)."""
    if slug is None:
        return None
    try:
        return league.club_for_reader(slug, viewer(request), answer=False).slug
    except errors.ApiError:
        return None


def league_pages(view):
    """Reads refused by the league answer with the site's 404 / 403 pages (the league's
    pages and the organizer's alike), which lead back to the club when it is readable."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except errors.ApiError as err:
            request.club_back = _readable_club(request, kwargs.get("slug"))
            if err.status == 404:
                raise Http404(err.message) from None
            if err.status == 403:
                raise PermissionDenied(refusal_text(err)) from None
            raise

    return wrapper


# -- a throttle ----------------------------------------------------------------------------------
def too_many_attempts(request, wait: int):
    response = render(
        request,
        "web/error.html",
        {
            "status": 429,
            "title": _("Too many attempts"),
            "message": _("Wait %(seconds)s seconds, then try again.") % {"seconds": wait},
        },
        status=429,
    )
    response["Retry-After"] = str(wait)
    return response
