"""HTTP endpoints of the club league. Thin: parse, call a service or a selector, answer.

Reads of public clubs need no token; every write does. Roles are checked in services.
"""

from __future__ import annotations

import datetime as dt
import re

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.response import Response
from rest_framework.views import APIView

from server.api_schema import ERRORS, strict
from server.errors import ApiError, validation_error
from server.league import selectors, services
from server.league import serializers as s
from server.league.models import Club, Invite
from server.realtime import longpoll
from server.realtime.groups import account_group

LEAGUE_ERRORS = {
    **ERRORS,
    403: OpenApiResponse(
        description="not_a_member, organizer_only, club_members_only, "
        "not_your_bot, one_seat_per_player, permission_denied"
    ),
    404: OpenApiResponse(description="not_found, invite_invalid, bad_page (a page past the end)"),
    409: OpenApiResponse(
        description="slug_taken, already_member, invite_used, last_organizer, "
        "wrong_format, already_in_pair, round_started, "
        "round_in_progress, not_enough_players, "
        "not_enough_house_bots, match_in_progress, match_over, "
        "match_annulled, not_a_league_match, one_seat_per_player"
    ),
    410: OpenApiResponse(description="invite_expired"),
}


def _user(request):
    user = request.user
    return user if user is not None and user.is_authenticated else None


def _int(raw, what: str) -> int | None:
    if raw in (None, ""):
        return None
    # ASCII digits only (str.isdigit takes "²"), and few enough to fit a database integer.
    if not re.fullmatch(r"[0-9]{1,18}", str(raw)):
        raise validation_error(f"{what} is a whole number (an id)")
    return int(raw)


class LeagueView(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    def club(self, request, slug):
        return selectors.club_for_reader(slug, _user(request))

    def season(self, request, slug, season_id):
        return selectors.season_for_reader(self.club(request, slug), int(season_id))

    def round(self, request, slug, season_id, number):
        return selectors.round_of(self.season(request, slug, season_id), int(number))


# -- clubs ------------------------------------------------------------------------------------
class ClubsView(LeagueView):
    @extend_schema(
        responses={200: s.paged("ClubPage", s.ClubSerializer), **LEAGUE_ERRORS},
        summary="Clubs you may read (public ones, and members clubs you belong to)",
        operation_id="clubs_list",
    )
    def get(self, request):
        user = _user(request)
        clubs = selectors.visible_clubs(user).select_related("created_by").order_by("slug")
        return s.paginate(request, clubs, lambda c: selectors.club_json(c, user))

    @extend_schema(
        request=s.CreateClubSerializer,
        responses={201: s.ClubSerializer, **LEAGUE_ERRORS},
        summary="Create a club; you become its organizer",
    )
    def post(self, request):
        data = strict(s.CreateClubSerializer, request)
        club = services.do_create_club(request.user, **data)
        return Response(selectors.club_json(club, request.user), status=201)


class ClubView(LeagueView):
    @extend_schema(responses={200: s.ClubSerializer, **LEAGUE_ERRORS}, summary="A club")
    def get(self, request, slug):
        return Response(selectors.club_json(self.club(request, slug), _user(request)))

    @extend_schema(
        request=s.UpdateClubSerializer,
        responses={200: s.ClubSerializer, **LEAGUE_ERRORS},
        summary="Change a club's name, description or visibility (organizers)",
    )
    def patch(self, request, slug):
        data = strict(s.UpdateClubSerializer, request)
        club = services.do_update_club(request.user, self.club(request, slug), dict(data))
        return Response(selectors.club_json(club, request.user))


class MembersView(LeagueView):
    @extend_schema(
        parameters=[
            OpenApiParameter(
                "removed", OpenApiTypes.BOOL, description="organizers: include removed members"
            )
        ],
        responses={200: s.paged("MemberPage", s.MemberSerializer), **LEAGUE_ERRORS},
        summary="The club's members (bots flagged)",
    )
    def get(self, request, slug):
        club = self.club(request, slug)
        removed = request.query_params.get("removed") in ("1", "true")
        if removed:
            services.check_organizer(club, _user(request))
        return s.paginate(request, selectors.members_of(club, removed), selectors.member_json)

    @extend_schema(
        request=s.EnterBotSerializer,
        responses={201: s.MemberSerializer, **LEAGUE_ERRORS},
        summary="Enter a bot: one you own (members), or a house bot (organizers)",
    )
    def post(self, request, slug):
        data = strict(s.EnterBotSerializer, request)
        membership = services.do_enter_bot(request.user, self.club(request, slug), data["bot"])
        return Response(selectors.member_json(membership), status=201)


class MemberView(LeagueView):
    @extend_schema(
        request=s.RoleSerializer,
        responses={200: s.MemberSerializer, **LEAGUE_ERRORS},
        summary="Make a member an organizer, or an organizer a member (organizers)",
    )
    def patch(self, request, slug, username):
        data = strict(s.RoleSerializer, request)
        membership = services.do_set_role(
            request.user, self.club(request, slug), username, data["role"]
        )
        return Response(selectors.member_json(membership))

    @extend_schema(
        request=None,
        responses={200: s.MemberSerializer, **LEAGUE_ERRORS},
        summary="Remove a member (organizers); their matches stay",
    )
    def delete(self, request, slug, username):
        membership = services.do_remove_member(request.user, self.club(request, slug), username)
        return Response(selectors.member_json(membership))


class InvitesView(LeagueView):
    @extend_schema(
        responses={200: s.paged("InvitePage", s.InviteSerializer), **LEAGUE_ERRORS},
        summary="The club's invite codes (organizers)",
    )
    def get(self, request, slug):
        club = self.club(request, slug)
        services.check_organizer(club, _user(request))
        invites = Invite.objects.filter(club=club).select_related("created_by").order_by("-id")
        return s.paginate(request, invites, selectors.invite_json)

    @extend_schema(
        request=s.InviteRequestSerializer,
        responses={201: s.InviteSerializer, **LEAGUE_ERRORS},
        summary="Make an invite code, optionally single-use or expiring (organizers)",
    )
    def post(self, request, slug):
        data = strict(s.InviteRequestSerializer, request)
        invite = services.do_create_invite(request.user, self.club(request, slug), **data)
        return Response(selectors.invite_json(invite), status=201)


class JoinClubView(LeagueView):
    @extend_schema(
        request=s.JoinClubSerializer,
        responses={201: s.MemberSerializer, **LEAGUE_ERRORS},
        summary="Join a club with an invite code",
    )
    def post(self, request, slug):
        data = strict(s.JoinClubSerializer, request)
        club = Club.objects.filter(slug=slug).first()  # members clubs are joined unseen
        if club is None:
            raise ApiError("not_found", f"no club {slug!r}", 404)
        membership = services.do_join_club(request.user, club, data["code"])
        return Response(selectors.member_json(membership), status=201)


# -- seasons, pairs, standings ------------------------------------------------------------------
class SeasonsView(LeagueView):
    @extend_schema(
        responses={200: s.paged("SeasonPage", s.SeasonSerializer), **LEAGUE_ERRORS},
        summary="The club's seasons, newest first",
        operation_id="seasons_list",
    )
    def get(self, request, slug):
        club = self.club(request, slug)
        return s.paginate(request, club.seasons.select_related("club"), selectors.season_json)

    @extend_schema(
        request=s.CreateSeasonSerializer,
        responses={201: s.SeasonSerializer, **LEAGUE_ERRORS},
        summary="Create a season (organizers)",
    )
    def post(self, request, slug):
        data = strict(s.CreateSeasonSerializer, request)
        season = services.do_create_season(request.user, self.club(request, slug), **data)
        return Response(selectors.season_json(season), status=201)


class SeasonView(LeagueView):
    @extend_schema(responses={200: s.SeasonSerializer, **LEAGUE_ERRORS}, summary="A season")
    def get(self, request, slug, season_id):
        return Response(selectors.season_json(self.season(request, slug, season_id)))


class PairsView(LeagueView):
    @extend_schema(
        request=s.PairSerializer,
        responses={201: s.PairOutSerializer, **LEAGUE_ERRORS},
        summary="Register a fixed pair for a pairs season (organizers)",
    )
    def post(self, request, slug, season_id):
        data = strict(s.PairSerializer, request)
        pair = services.do_register_pair(
            request.user, self.season(request, slug, season_id), data["name"], *data["players"]
        )
        return Response(selectors.pair_json(pair), status=201)


class StandingsView(LeagueView):
    @extend_schema(
        responses={200: s.paged("StandingPage", s.StandingSerializer), **LEAGUE_ERRORS},
        summary="The season's standings (stored; ordered as docs/league.md says)",
    )
    def get(self, request, slug, season_id):
        season = self.season(request, slug, season_id)
        rows = selectors.standing_rows(season)
        return s.paginate(request, rows, selectors.standing_json)


# -- rounds ---------------------------------------------------------------------------------------
class RoundsView(LeagueView):
    @extend_schema(
        responses={200: s.paged("RoundPage", s.RoundSerializer), **LEAGUE_ERRORS},
        summary="The season's rounds",
        operation_id="rounds_list",
    )
    def get(self, request, slug, season_id):
        season = self.season(request, slug, season_id)
        return s.paginate(request, season.rounds.order_by("number"), selectors.round_json)

    @extend_schema(
        request=None,
        responses={201: s.RoundSerializer, **LEAGUE_ERRORS},
        summary="Open the next round (organizers)",
    )
    def post(self, request, slug, season_id):
        round_ = services.do_create_round(request.user, self.season(request, slug, season_id))
        return Response(selectors.round_json(round_), status=201)


class RoundView(LeagueView):
    @extend_schema(
        responses={200: s.RoundSerializer, **LEAGUE_ERRORS},
        summary="A round: who is present, byes, tables",
    )
    def get(self, request, slug, season_id, number):
        return Response(selectors.round_json(self.round(request, slug, season_id, number)))


class CheckInView(LeagueView):
    @extend_schema(
        request=s.CheckInSerializer,
        responses={200: s.RoundSerializer, **LEAGUE_ERRORS},
        summary="Check in who is present (the whole list; organizers, open rounds)",
    )
    def post(self, request, slug, season_id, number):
        data = strict(s.CheckInSerializer, request)
        round_ = self.round(request, slug, season_id, number)
        services.do_check_in(request.user, round_, data.get("players"), data.get("pairs"))
        return Response(selectors.round_json(round_))


class StartRoundView(LeagueView):
    @extend_schema(
        request=None,
        responses={200: s.RoundSerializer, **LEAGUE_ERRORS},
        summary="Draw the round and create its rated tables, every seat assigned (organizers)",
    )
    def post(self, request, slug, season_id, number):
        round_ = self.round(request, slug, season_id, number)
        services.do_start_round(request.user, round_)
        round_.refresh_from_db()
        return Response(selectors.round_json(round_))


class RoundTablesView(LeagueView):
    @extend_schema(
        responses={200: s.paged("RoundTablePage", s.MatchSerializer), **LEAGUE_ERRORS},
        summary="The round's tables (matches), by table number",
    )
    def get(self, request, slug, season_id, number):
        round_ = self.round(request, slug, season_id, number)
        return s.paginate(request, selectors.round_matches(round_), selectors.match_json)


class RatingsView(LeagueView):
    @extend_schema(
        responses={200: s.paged("RatingPage", s.RatingSerializer), **LEAGUE_ERRORS},
        summary="The club's ratings (openskill ordinal, best first)",
    )
    def get(self, request, slug):
        club = self.club(request, slug)
        return s.paginate(request, selectors.club_ratings(club), selectors.rating_json)


# -- matches and players ---------------------------------------------------------------------------
class MatchesView(LeagueView):
    @extend_schema(
        parameters=[
            OpenApiParameter("club", OpenApiTypes.STR),
            OpenApiParameter("season", OpenApiTypes.INT),
            OpenApiParameter("player", OpenApiTypes.STR),
            OpenApiParameter("status", OpenApiTypes.STR, enum=["playing", "finished", "annulled"]),
            OpenApiParameter("since", OpenApiTypes.DATE),
            OpenApiParameter("until", OpenApiTypes.DATE),
        ],
        responses={200: s.paged("MatchPage", s.MatchSerializer), **LEAGUE_ERRORS},
        summary="Saved matches you may read (league; casual ones you played), newest first",
        operation_id="matches_list",
    )
    def get(self, request):
        q = request.query_params
        status = q.get("status") or None
        if status not in (None, "playing", "finished", "annulled"):
            raise validation_error("status is playing, finished or annulled")
        matches = selectors.match_list(
            _user(request),
            club=q.get("club") or None,
            season=_int(q.get("season"), "season"),
            player=q.get("player") or None,
            status=status,
            since=_date(q.get("since"), "since"),
            until=_date(q.get("until"), "until"),
        )
        return s.paginate(request, matches, selectors.match_json)


def _date(raw, what: str):
    if raw in (None, ""):
        return None
    try:
        return dt.date.fromisoformat(raw)
    except ValueError:
        raise validation_error(f"{what} is a date, YYYY-MM-DD") from None


class MatchView(LeagueView):
    @extend_schema(
        responses={200: s.MatchSerializer, **LEAGUE_ERRORS},
        summary="A match (in progress: its score only)",
    )
    def get(self, request, match_id):
        match = selectors.match_for_reader(int(match_id), _user(request))
        return Response(selectors.match_json(match))


class MatchHandsView(LeagueView):
    @extend_schema(
        responses={200: s.HandSerializer(many=True), **LEAGUE_ERRORS},
        summary="Hand-by-hand summary of a finished or annulled match (the engine's fold)",
    )
    def get(self, request, match_id):
        match = selectors.match_for_reader(int(match_id), _user(request))
        return Response({"match": match.pk, "hands": selectors.hands_summary(match)})


class MatchRecordView(LeagueView):
    def perform_content_negotiation(self, request, force=False):
        return super().perform_content_negotiation(request, force=True)

    @extend_schema(
        responses={
            (200, "text/plain"): OpenApiResponse(
                OpenApiTypes.STR, description="JSON Lines engine record (python -m engine replay)"
            ),
            **LEAGUE_ERRORS,
        },
        summary="The record of a finished or annulled match",
    )
    def get(self, request, match_id):
        match = selectors.match_for_reader(int(match_id), _user(request))
        response = HttpResponse(
            selectors.record_text(match), content_type="text/plain; charset=utf-8"
        )
        response["Content-Disposition"] = f'attachment; filename="dekabes-match-{match.pk}.jsonl"'
        return response


class AnnulView(LeagueView):
    @extend_schema(
        request=s.AnnulSerializer,
        responses={200: s.MatchSerializer, **LEAGUE_ERRORS},
        summary="Annul a stuck league match, with a reason (organizers)",
    )
    def post(self, request, match_id):
        data = strict(s.AnnulSerializer, request)
        match = selectors.match_for_reader(int(match_id), _user(request))
        match = services.do_annul(request.user, match, data["reason"])
        return Response(selectors.match_json(match))


class PlayerView(LeagueView):
    @extend_schema(
        responses={200: s.PlayerSerializer, **LEAGUE_ERRORS},
        summary="A player: clubs, ratings with history, recent matches (what you may read)",
    )
    def get(self, request, username):
        return Response(selectors.player_profile(username, _user(request)))


class MyLeagueTablesView(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter(
                "wait", OpenApiTypes.FLOAT, description="long-poll: seconds to wait (max 30)"
            ),
            OpenApiParameter(
                "after", OpenApiTypes.INT, description="long-poll: answer once version > after"
            ),
        ],
        responses={200: s.MyLeagueTablesSerializer, **LEAGUE_ERRORS},
        summary="Your current league tables (my table for this round); long-poll with wait/after",
    )
    def get(self, request):
        wait, after = longpoll.long_poll_args(request)
        if wait and after is not None:
            user = request.user
            changed = longpoll.Wait(
                account_group(user.pk), after, lambda: selectors.league_tables_version(user)
            )
            if longpoll.hold(request, user, changed, wait):
                return longpoll.parked()  # the bridge answers once the account's tables change
        return Response(selectors.my_league_tables(request.user))
