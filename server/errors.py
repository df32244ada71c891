"""Every refusal the server sends, as a class: its ``code``, HTTP ``status`` and default
``message`` (Zulip's ``JsonableError``, python-chess's ``IllegalMoveError``).

A service raises one (``raise LastOrganizer()``, ``raise NotFound(f"no club {slug!r}")``,
``raise SlugTaken(slug=slug)`` for a message with parameters); the exception handler
answers ``{"code": ..., "message": ...}`` with the class's status. The catalogue is the
one source of the codes: the registry (``ERROR_CLASSES``), the OpenAPI error
descriptions (``server.api_schema.ERRORS``), the table in docs/api.md (``python -m
server.error_table``) and the web's translated messages are all made from it.

To add a refusal: a subclass in the right section below with ``code``, ``status``,
``message`` and a one-line ``note`` for the docs, then ``python -m server.error_table
--write`` (CONTRIBUTING.md). A code has one class, hence one status; never rename one.

The classes live in this one module, which imports nothing of the server, so every layer
(tables, league, accounts, web) raises them without importing another layer.
"""

from __future__ import annotations

import json
import math
from typing import Any, ClassVar

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.http import Http404
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rest_framework import exceptions
from rest_framework.response import Response

from engine.errors import IllegalEventError

# Every concrete refusal by code (filled by ``ApiError.__init_subclass__``).
ERROR_CLASSES: dict[str, type[ApiError]] = {}


class ApiError(Exception):
    """A refusal. Subclasses set ``code``, ``status``, ``message`` (a ``str.format``
    template over the keyword arguments of the raise) and ``note`` (docs/api.md)."""

    code: ClassVar[str] = ""
    status: ClassVar[int] = 400
    message: str = ""  # the class's default; an instance holds its own
    note: ClassVar[str] = ""
    area: ClassVar[str] = ""  # the docs' group: "" (any endpoint), "tables", "league", ...
    headers: ClassVar[dict[str, str]] = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "code" not in cls.__dict__:  # a base of a group (e.g. ``LeagueError``)
            return
        taken = ERROR_CLASSES.get(cls.code)
        if taken is not None:
            raise TypeError(f"code {cls.code!r} is {taken.__name__}'s already")
        ERROR_CLASSES[cls.code] = cls

    def __init__(self, message: str | None = None, /, **params: Any):
        text = message if message is not None else type(self).message.format(**params)
        super().__init__(text)
        self.message = text

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r})"

    def body(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message}

    def response(self) -> Response:
        return Response(self.body(), status=self.status, headers=dict(self.headers))


# -- any endpoint ------------------------------------------------------------------------------
class ValidationError(ApiError):
    code, status = "validation_error", 400
    message = "the request is not valid"
    note = (
        "bad JSON, JSON nested too deeply, unknown field, wrong type — "
        '`"expected_version": "2"` is a string, not a version — missing `expected_version`; '
        "a bad query parameter such as `page`, `page_size` (1 to 200), `since`"
    )


class BadRequest(ApiError):
    code, status = "bad_request", 400
    message = "the request was refused"
    note = (
        "refused by Django itself, e.g. a `Host` not in `ALLOWED_HOSTS`, or by the HTTP "
        "server: a request line or header that cannot be parsed, a path that is not ASCII"
    )


class NotAuthenticated(ApiError):
    code, status = "not_authenticated", 401
    message = "log in: send 'Authorization: Token <your token>'"
    note = (
        "missing, wrong or revoked token; wrong name or password; also a league write, or "
        "an organizer read, without a token"
    )
    headers = {"WWW-Authenticate": "Token"}


class PermissionDenied(ApiError):
    code, status = "permission_denied", 403
    message = "you may not do this"
    note = "e.g. a table command by someone not the table's owner, a person at a bot seat"


class CsrfFailed(ApiError):
    code, status = "csrf_failed", 403
    message = "a request signed in by the site's session needs the page's CSRF token"
    note = (
        "a table request authenticated by the web session (the browser table) without the "
        "page's `X-CSRFToken`, or from another site's origin: nothing changes"
    )


class QuotaExceeded(ApiError):
    code, status = "quota_exceeded", 403
    message = "over your quota"
    note = "more than 20 tables in play, or 10 bots, per member"


class NotFound(ApiError):
    code, status = "not_found", 404
    message = "not found"
    note = (
        "no such resource; also a `members` club, its seasons, rounds and matches to anyone "
        "not one of its members, exactly as an unknown one"
    )


class MethodNotAllowed(ApiError):
    code, status = "method_not_allowed", 405
    message = "this method is not allowed here"
    note = "a method the path does not take"


class NotAcceptable(ApiError):
    code, status = "not_acceptable", 406
    message = "cannot answer in the format asked for (Accept)"
    note = "an `Accept` header the API cannot answer"


class BodyTooLarge(ApiError):
    code, status = "body_too_large", 413
    message = "the request body is too large"
    note = "a request body is at most 64 KB; refused before it is read whole"


class UnsupportedMediaType(ApiError):
    code, status = "unsupported_media_type", 415
    message = "send application/json"
    note = "a request body sent with a `Content-Type` other than `application/json`"


class Throttled(ApiError):
    code, status = "throttled", 429
    message = "too many requests: try again later"
    note = "login/registration/password change, hints: too many; `Retry-After`"

    def __init__(self, message: str | None = None, /, *, wait: float | None = None, **params):
        super().__init__(message, **params)
        self.wait = wait

    def response(self) -> Response:
        response = super().response()
        response["Retry-After"] = str(max(1, math.ceil(self.wait or 1)))
        return response


class TooManyLongPolls(ApiError):
    code, status = "too_many_long_polls", 429
    message = (
        "an account holds at most {limit} long-polls at once; "
        "wait for one to answer (or use the WebSocket)"
    )
    note = "`Retry-After: 1`"
    headers = {"Retry-After": "1"}


class ServerError(ApiError):
    code, status = "server_error", 500
    message = "the server failed; try again"
    note = "a fault of the server's: try again"


class ServerBusy(ApiError):
    code, status = "server_busy", 503
    message = "the server is busy; try again in a moment"
    note = (
        "too many logins waiting at once, or the server's shared store (Redis) did not "
        "answer within `DEKABES_REDIS_STALL_SECONDS`: nothing was done; `Retry-After`"
    )
    headers = {"Retry-After": "1"}


# -- accounts ------------------------------------------------------------------------------------
class AccountError(ApiError):
    area = "accounts"


class UsernameTaken(AccountError):
    code, status = "username_taken", 409
    message = "the name {name!r} is taken"
    note = "names are unique ignoring case"


class WrongPassword(AccountError):
    code, status = "wrong_password", 403
    message = "the current password is wrong"


class RegistrationClosed(AccountError):
    code, status = "registration_closed", 403
    message = "registration is closed on this server"
    note = "see docs/server.md"


class BadInvite(AccountError):
    code, status = "bad_invite", 403
    message = "that invite code is unknown or used"
    note = "registration by invite: an unknown or used code"


class AccountInPlay(AccountError):
    code, status = "account_in_play", 409
    message = "finish or leave your {tables} table(s) in play first"
    note = "closing an account (or one of its bots) that holds a seat in a match going on"


class ConfirmationRequired(AccountError):
    code, status = "confirmation_required", 400
    message = 'type "{phrase}" to confirm'
    note = "closing an account without the confirmation phrase"


# -- tables ------------------------------------------------------------------------------------
class TableError(ApiError):
    area = "tables"


class StaleVersion(TableError):
    """The action was decided on an older version than the table's: nothing was written.

    ``view`` is the seat's current response (what the caller would get by looking
    again), so a client can decide again without another request.
    """

    code, status = "stale_version", 409
    message = "the table is at version {version}: look again before acting"
    note = "with the current seat response in `view`"

    def __init__(self, version: int, view: dict):
        super().__init__(version=version)
        self.version = version
        self.view = view

    def body(self) -> dict[str, Any]:
        return {**super().body(), "view": self.view}


class Paused(TableError):
    code, status = "paused", 409
    message = "the table is paused: a player is reading the rules or the log"
    note = "a bot seat while a player reads rules/log"


class NotYourSeat(TableError):
    code, status = "not_your_seat", 403
    message = "you do not hold seat {number} at {table}"


class SeatTaken(TableError):
    code, status = "seat_taken", 409
    message = "seat {number} is taken"


class SeatNotAway(TableError):
    code, status = "seat_not_away", 409
    message = "seat {number} has not been away {minutes} minutes: its player may come back"
    note = "an owner replacing a casual table's seat whose player is connected or away briefly"


class AlreadyPaused(TableError):
    code, status = "already_paused", 409
    message = "you have already paused the table"


class NotPaused(TableError):
    code, status = "not_paused", 409
    message = "you have not paused the table"


class TakebackPending(TableError):
    code, status = "takeback_pending", 409
    message = "a takeback request is waiting for the other players' answers"
    note = "undo, redo, restart or new match while another request waits (several people)"


class NoTakebackRequest(TableError):
    code, status = "no_takeback_request", 409
    message = "there is no takeback request to answer"


class NotAVoter(TableError):
    code, status = "not_a_voter", 403
    message = "only the other people at the table answer a takeback request"
    note = "the requester, a bot seat, or a player who has already answered"


class NotWatchable(TableError):
    code, status = "not_watchable", 403
    message = "this table is not open to spectators"
    note = "a casual table its owner has not marked watchable (or no account signed in)"


class IdempotencyKeyReused(TableError):
    code, status = "idempotency_key_reused", 422
    message = "this Idempotency-Key was used for a different action"


class OneSeatPerPlayer(TableError):
    code, status = "one_seat_per_player", 409
    message = "at a rated table one person holds one seat (their own bots count as them)"
    note = (
        "rated tables and the league: a second seat for the same person, their own bots "
        "counting as them; also a member and their bot in one round or one pairs season"
    )


class MatchAnnulled(TableError):
    code, status = "match_annulled", 409
    message = "this match was annulled by the club's organizer"
    note = "any action at an annulled table; annulling it again"


class MatchForfeited(TableError):
    code, status = "match_forfeited", 409
    message = "this match ended by forfeit"
    note = "any action at a table whose match an organizer ended by forfeit"


class MatchOver(TableError):
    code, status = "match_over", 409
    message = "the match is over: a finished match is never annulled"
    note = "annulling a finished match"


# -- the engine's rejections (engine.errors.REJECTION_CODES) ----------------------------------
class RuleRejection(TableError):
    """The engine refused the event: a move the rules refuse in this position (400)."""

    area = "rules"
    status = 400


class StateConflict(RuleRejection):
    """The engine refused the event because the table is not where the sender thinks."""

    status = 409


class BadEvent(RuleRejection):
    code, message = "bad_event", "the event is malformed"


class BadDeal(RuleRejection):
    code, message = "bad_deal", "the deal is malformed"
    note = "cannot come from a client: the server deals"


class TileNotInHand(RuleRejection):
    code, message = "tile_not_in_hand", "that tile is not in your hand"


class TileDoesNotFit(RuleRejection):
    code, message = "tile_does_not_fit", "that tile fits no open end"


class EndRequired(RuleRejection):
    code, message = "end_required", "the tile fits both ends: say which"


class MustPlay(RuleRejection):
    code, message = "must_play", "you can play, so you must"


class MustOpenDoubleSix(RuleRejection):
    code, message = "must_open_double_six", "the first hand opens with 6-6"


class NotEntitled(RuleRejection):
    code, message = "not_entitled", "a redeal needs five doubles or more"


class OpenerNotOnTeam(RuleRejection):
    code, message = "opener_not_on_team", "the opener is you or your partner"


class WrongPhase(StateConflict):
    code, message = "wrong_phase", "not now: the match is in another phase"


class NotYourTurn(StateConflict):
    code, message = "not_your_turn", "it is not your turn"


class AlreadyAccepted(StateConflict):
    code, message = "already_accepted", "you have accepted this deal already"


class NotRepresentative(StateConflict):
    code, message = "not_representative", "your team's representative chooses the opener"


class NothingToUndo(StateConflict):
    code, message = "nothing_to_undo", "there is nothing to undo"


class NothingToRedo(StateConflict):
    code, message = "nothing_to_redo", "there is nothing to redo"


class NotAllowedInRated(StateConflict):
    code, message = "not_allowed_in_rated", "not at a rated table"
    note = "undo, redo, restart, new match and hints at a rated table, whoever asks"


def rule_rejection(err: IllegalEventError) -> RuleRejection:
    """The engine's refusal as the server answers it (the engine's own message)."""
    cls = ERROR_CLASSES[err.code]
    assert issubclass(cls, RuleRejection), err.code
    return cls(err.message)


# -- the club league -----------------------------------------------------------------------------
class LeagueError(ApiError):
    area = "league"


class NotAMember(LeagueError):
    code, status = "not_a_member", 403
    message = "you are not a member of the club {club!r}"
    note = "a member action by a non-member of a public club; checking in a non-member"


class OrganizerOnly(LeagueError):
    code, status = "organizer_only", 403
    message = "only the club's organizers may do this"
    note = "an organizer action by a member"


class NotYourBot(LeagueError):
    code, status = "not_your_bot", 403
    message = "{bot} is another member's bot"
    note = "entering another member's bot"


class InviteInvalid(LeagueError):
    code, status = "invite_invalid", 404
    message = "no such invite code for this club"
    note = "no such invite code — or no such club: the same answer"


class BadPage(LeagueError):
    code, status = "bad_page", 404
    message = "no such page"
    note = "a page past the end of a list"


class InviteExpired(LeagueError):
    code, status = "invite_expired", 410
    message = "this invite code has expired"


class SlugTaken(LeagueError):
    code, status = "slug_taken", 409
    message = "a club named {slug!r} exists"


class AlreadyMember(LeagueError):
    code, status = "already_member", 409
    message = "you are a member of this club already"


class InviteUsed(LeagueError):
    code, status = "invite_used", 409
    message = "this single-use invite code was used already"


class RemovedFromClub(LeagueError):
    code, status = "removed_from_club", 403
    message = "an organizer removed you from this club: ask an organizer to allow you back"
    note = (
        "joining with any code after an organizer's removal, until an organizer allows the "
        "member back (DELETE .../removed/{username})"
    )


class NotRemoved(LeagueError):
    code, status = "not_removed", 404
    message = "{username!r} is not on this club's removed list"
    note = "allowing back someone an organizer did not remove (or allowed back already)"


class RoundOpen(LeagueError):
    code, status = "round_open", 409
    message = "round {number} is open: start it or delete it before opening another"
    note = "opening a round while one is open (not started) — a second click of New round"


class RoundHasMatches(LeagueError):
    code, status = "round_has_matches", 409
    message = "round {number} has started: it has tables and stays"
    note = "deleting a round once it is drawn (only an open round without a match goes)"


class DeadlineInPast(LeagueError):
    code, status = "deadline_in_past", 400
    message = "the deadline is in the past: pick a time to come"
    note = "a round deadline set to a time already gone"


class LastOrganizer(LeagueError):
    code, status = "last_organizer", 409
    message = "a club keeps at least one organizer"


class WrongFormat(LeagueError):
    code, status = "wrong_format", 409
    message = "this is a {format} season"


class AlreadyInPair(LeagueError):
    code, status = "already_in_pair", 409
    message = "a player (or their bot) is in a pair of this season already"


class RoundStarted(LeagueError):
    code, status = "round_started", 409
    message = "round {number} has started already"


class SeasonClosed(LeagueError):
    code, status = "season_closed", 409
    message = "the season is closed"
    note = "a new round, a check-in, a start or an edit in a closed (archived) season"


class RoundInProgress(LeagueError):
    code, status = "round_in_progress", 409
    message = "the previous round is not finished"


class NotEnoughPlayers(LeagueError):
    code, status = "not_enough_players", 409
    message = "too few present to make one table"


class NotEnoughHouseBots(LeagueError):
    code, status = "not_enough_house_bots", 409
    message = (
        "{needed} seats to fill but the club has {free} free house bots: an "
        "organizer enters house bots into the club"
    )


class TooManyHostedPlayers(LeagueError):
    code, status = "too_many_hosted_players", 409
    message = "a club has at most {limit} server-hosted computer players"
    note = "adding a hosted player past the club's quota (DEKABES_MAX_HOSTED_PLAYERS)"


class TooManyClubs(LeagueError):
    code, status = "too_many_clubs", 409
    message = "an account creates at most {limit} clubs"
    note = "creating a club past the account's quota (DEKABES_MAX_CLUBS)"


class TooManySeasons(LeagueError):
    code, status = "too_many_seasons", 409
    message = "a club has at most {limit} seasons"
    note = "creating a season past the club's quota (DEKABES_MAX_SEASONS)"


class TooManyInvites(LeagueError):
    code, status = "too_many_invites", 409
    message = "a club has at most {limit} open invite codes"
    note = (
        "an invite code past the club's quota of open codes (DEKABES_MAX_INVITES; a code is "
        "open until it expires or, single-use, is used)"
    )


class TooManyRounds(LeagueError):
    code, status = "too_many_rounds", 409
    message = "a season has at most {limit} rounds"
    note = "opening a round past the season's quota (DEKABES_MAX_ROUNDS)"


class MatchInProgress(LeagueError):
    code, status = "match_in_progress", 409
    message = "the match is in progress: its score only"
    note = "hands or record of a live match"


class AnalysisNotReady(LeagueError):
    code, status = "analysis_not_ready", 409
    message = "the analysis of this match is not ready yet: it is computed in the background"
    note = "the analysis of a finished match the background analyser has not reached yet"


class NotAnalysed(LeagueError):
    code, status = "not_analysed", 409
    message = "this match has no analysis: {reason}"
    note = "the analysis of an annulled match, or of one the engine could not analyse"


class NotALeagueMatch(LeagueError):
    code, status = "not_a_league_match", 409
    message = "only league matches are annulled"


class DeadlineNotPassed(LeagueError):
    code, status = "deadline_not_passed", 409
    message = "the round's deadline has not passed (or the round has none)"
    note = "a forfeit before the round's deadline, or in a round without one"


class NotSubstitutable(LeagueError):
    code, status = "not_substitutable", 409
    message = "{username} cannot take this seat: {why}"
    note = (
        "a substitute who is not an active member of the club, or is seated in that "
        "round already; a seat held by that player already"
    )


# -- matchmaking: seeks, challenges, daily quotas -------------------------------------------
class MatchmakingError(ApiError):
    area = "matchmaking"


class NotWanted(MatchmakingError):
    code, status = "not_wanted", 403
    message = "this seek wants {wanted}"
    note = "taking an open seat of a seek that wants the other kind of player (people or bots)"


class OutsideLevelRange(MatchmakingError):
    code, status = "outside_level_range", 403
    message = "this seek wants levels {low} to {high}; yours is {level}"
    note = "taking an open seat of a seek whose level range leaves yours out"


class OutsideTerms(MatchmakingError):
    code, status = "outside_terms", 409
    message = "{player} does not take this challenge: {why}"
    note = (
        "a challenge outside an invited bot's published terms (casual or rated, people or "
        "bots, partners, time per move, games per day, hours), or to a bot that publishes none"
    )

    def __init__(self, *, player: str, why: str, term: str | None):
        super().__init__(player=player, why=why)
        self.player = player
        # which of the terms refused it (None: the bot publishes none), for pages that
        # say it in the reader's language: "kinds", "players", "seconds", "games_per_day",
        # "hours"
        self.term = term


class NoLongerOpen(MatchmakingError):
    code, status = "no_longer_open", 409
    message = "this {what} is {status}"
    note = "answering or cancelling a challenge, or cancelling a seek, no longer open"


class DailyLimit(MatchmakingError):
    code, status = "daily_limit", 429
    message = "{who} has used its {limit} matchmaking games of the last 24 hours"
    note = (
        "past a per-bot or per-owner daily quota of seeks, seats taken and challenges "
        "(DEKABES_BOT_GAMES_PER_DAY, DEKABES_OWNER_GAMES_PER_DAY); `Retry-After`: seconds "
        "until one use is a day old"
    )

    def __init__(self, message: str | None = None, /, *, wait: float = 1, **params):
        super().__init__(message, **params)
        self.wait = wait

    def response(self) -> Response:
        response = super().response()
        response["Retry-After"] = str(max(1, math.ceil(self.wait)))
        return response


# -- answering ---------------------------------------------------------------------------------
def flatten(detail) -> str:
    """A DRF error detail (nested dicts and lists) as one line."""
    if isinstance(detail, dict):
        return "; ".join(f"{k}: {flatten(v)}" for k, v in detail.items())
    if isinstance(detail, list):
        return "; ".join(flatten(v) for v in detail)
    return str(detail)


# Redis stalled past DEKABES_REDIS_STALL_SECONDS, or down (server.redis_clients)
REDIS_UNAVAILABLE = (RedisConnectionError, RedisTimeoutError)


def from_framework(exc: Exception) -> ApiError | None:
    """The refusal a DRF or Django exception means (None: not one of ours to answer)."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, REDIS_UNAVAILABLE):
        return ServerBusy("the server's shared store did not answer; try again in a moment")
    if isinstance(exc, RequestDataTooBig):
        # Past the limit under a server that did not refuse it first (server.http_bridge).
        return BodyTooLarge()
    if isinstance(exc, (exceptions.NotAuthenticated, exceptions.AuthenticationFailed)):
        return NotAuthenticated()
    if isinstance(exc, exceptions.ParseError):
        return ValidationError("the body is not valid JSON")
    if isinstance(exc, exceptions.ValidationError):
        return ValidationError(flatten(exc.detail))
    if isinstance(exc, exceptions.PermissionDenied):
        return PermissionDenied(str(exc.detail))
    if isinstance(exc, (exceptions.NotFound, Http404)):
        return NotFound()
    if isinstance(exc, DjangoPermissionDenied):
        return PermissionDenied(str(exc) or PermissionDenied.message)
    if isinstance(exc, exceptions.MethodNotAllowed):
        return MethodNotAllowed(str(exc.detail))
    if isinstance(exc, exceptions.UnsupportedMediaType):
        return UnsupportedMediaType()
    if isinstance(exc, exceptions.NotAcceptable):
        return NotAcceptable(str(exc.detail))
    if isinstance(exc, exceptions.Throttled):
        return Throttled(str(exc.detail), wait=getattr(exc, "wait", None))
    if isinstance(exc, exceptions.APIException):
        return ServerError()
    return None


def exception_handler(exc, context):
    """DRF's exception handler: every refusal as ``{"code", "message"}``."""
    refusal = from_framework(exc)
    return refusal.response() if refusal is not None else None


def json_body(code: str, message: str, **extra) -> bytes:
    """An error body as bytes, for answers made outside Django (``server.http_bridge``)."""
    if code not in ERROR_CLASSES:  # every code sent is in the catalogue (and the docs)
        code = ServerError.code
    return json.dumps({"code": code, "message": message, **extra}).encode()


def body_of(cls: type[ApiError], message: str | None = None) -> dict[str, Any]:
    """The JSON body of a refusal, for answers made outside DRF (Django's error pages)."""
    return (
        cls(message).body() if message is not None else {"code": cls.code, "message": cls.message}
    )


def codes_by_status() -> dict[int, list[type[ApiError]]]:
    """The catalogue by HTTP status, each status's classes in catalogue order."""
    out: dict[int, list[type[ApiError]]] = {}
    for cls in ERROR_CLASSES.values():
        out.setdefault(cls.status, []).append(cls)
    return dict(sorted(out.items()))
