"""HTTP endpoints of the club league. Thin: parse (a strict serializer, the query), call a
service or a selector, answer with an output serializer (``serializers``).

Reads of public clubs need no token; every write does. Roles are checked in the actions;
who may read what in selectors (a ``members`` club is not found by outsiders).
"""

from __future__ import annotations

import datetime as dt

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.response import Response
from rest_framework.views import APIView

from server.accounts.serializers import AccountSerializer
from server.api_schema import ERRORS, strict
from server.errors import ValidationError
from server.ids_and_names import parse_id, parse_name
from server.league import selectors
from server.league import serializers as s
from server.league.action_log import FAMILIES, VERBS
from server.league.actions import (
    clubs,
    hosted,
    matches,
    members,
    roles,
    rounds,
    seasons,
)
from server.notices import longpoll
from server.notices.groups import account_group

PAGES = s.PAGE_PARAMETERS


def _user(request):
    user = request.user
    return user if user is not None and user.is_authenticated else None


def _int(raw, what: str) -> int | None:
    # ASCII digits only (str.isdigit takes "²"), and few enough to fit a database integer.
    return parse_id(raw, what)


def _date(raw, what: str) -> dt.date | None:
    if raw in (None, ""):
        return None
    try:
        return dt.date.fromisoformat(raw)
    except ValueError:
        raise ValidationError(f"{what} is a date, YYYY-MM-DD") from None


class LeagueView(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    def club(self, request, slug):
        return selectors.club_for_reader(slug, _user(request))

    def club_alone(self, request, slug):
        """The club for a read under it: no counts (see ``selectors.club_for_reader``)."""
        return selectors.club_for_reader(slug, _user(request), answer=False)

    def season(self, request, slug, season_id):
        return selectors.season_of(self.club_alone(request, slug), int(season_id))

    def round(self, request, slug, season_id, number):
        return selectors.round_of(self.season(request, slug, season_id), int(number))


def _club_answer(request, club, status=200) -> Response:
    """The club as the caller reads it (its counts and the caller's role read again)."""
    readable = selectors.club_for_reader(club.slug, _user(request))
    return Response(s.ClubSerializer(readable).data, status=status)


def _round_answer(request, round_, status=200) -> Response:
    details = selectors.round_details(round_, _user(request))
    return Response(s.RoundSerializer(details).data, status=status)


# -- clubs ------------------------------------------------------------------------------------
class ClubsView(LeagueView):
    @extend_schema(
        parameters=PAGES,
        responses={200: s.paged("ClubPage", s.ClubSerializer), **ERRORS},
        summary="Clubs you may read (public ones, and members clubs you belong to)",
        operation_id="clubs_list",
    )
    def get(self, request):
        return s.paginate(request, selectors.clubs_for_reader(_user(request)), s.ClubSerializer)

    @extend_schema(
        request=s.CreateClubSerializer,
        responses={201: s.ClubSerializer, **ERRORS},
        summary="Create a club; you become its organizer",
    )
    def post(self, request):
        data = strict(s.CreateClubSerializer, request)
        club = clubs.do_create_club(user=request.user, **data)
        return _club_answer(request, club, status=201)


class ClubView(LeagueView):
    @extend_schema(responses={200: s.ClubSerializer, **ERRORS}, summary="A club")
    def get(self, request, slug):
        return Response(s.ClubSerializer(self.club(request, slug)).data)

    @extend_schema(
        request=s.UpdateClubSerializer,
        responses={200: s.ClubSerializer, **ERRORS},
        summary="Change a club's name, description or visibility (organizers)",
    )
    def patch(self, request, slug):
        data = strict(s.UpdateClubSerializer, request)
        club = clubs.do_update_club(
            user=request.user, club=self.club(request, slug), changes=dict(data)
        )
        return _club_answer(request, club)


class MembersView(LeagueView):
    @extend_schema(
        parameters=[
            OpenApiParameter(
                "removed", OpenApiTypes.BOOL, description="organizers: include removed members"
            ),
            *PAGES,
        ],
        responses={200: s.paged("MemberPage", s.MemberSerializer), **ERRORS},
        summary="The club's members (bots flagged)",
    )
    def get(self, request, slug):
        club = self.club(request, slug)
        removed = request.query_params.get("removed") in ("1", "true")
        if removed:
            roles.check_organizer(club, _user(request))
        return s.paginate(request, selectors.members_of(club, removed), s.MemberSerializer)

    @extend_schema(
        request=s.EnterBotSerializer,
        responses={201: s.MemberSerializer, **ERRORS},
        summary="Enter a bot: one you own (members), or a house bot (organizers)",
    )
    def post(self, request, slug):
        data = strict(s.EnterBotSerializer, request)
        membership = members.do_enter_bot(
            user=request.user, club=self.club(request, slug), bot_name=data["bot"]
        )
        return Response(s.MemberSerializer(membership).data, status=201)


class MemberView(LeagueView):
    @extend_schema(
        request=s.RoleSerializer,
        responses={200: s.MemberSerializer, **ERRORS},
        summary="Make a member an organizer, or an organizer a member (organizers)",
    )
    def patch(self, request, slug, username):
        data = strict(s.RoleSerializer, request)
        membership = members.do_set_role(
            user=request.user, club=self.club(request, slug), username=username, role=data["role"]
        )
        return Response(s.MemberSerializer(membership).data)

    @extend_schema(
        request=None,
        responses={200: s.MemberSerializer, **ERRORS},
        summary="Remove a member (organizers); their matches stay",
    )
    def delete(self, request, slug, username):
        membership = members.do_remove_member(
            user=request.user, club=self.club(request, slug), username=username
        )
        return Response(s.MemberSerializer(membership).data)


class InvitesView(LeagueView):
    @extend_schema(
        parameters=PAGES,
        responses={200: s.paged("InvitePage", s.InviteSerializer), **ERRORS},
        summary="The club's invite codes (organizers)",
    )
    def get(self, request, slug):
        club = self.club(request, slug)
        roles.check_organizer(club, _user(request))
        return s.paginate(request, selectors.invites_of(club), s.InviteSerializer)

    @extend_schema(
        request=s.InviteRequestSerializer,
        responses={201: s.InviteSerializer, **ERRORS},
        summary="Make an invite code, optionally single-use or expiring (organizers)",
    )
    def post(self, request, slug):
        data = strict(s.InviteRequestSerializer, request)
        invite = members.do_create_invite(user=request.user, club=self.club(request, slug), **data)
        return Response(s.InviteSerializer(invite).data, status=201)


class InviteView(LeagueView):
    @extend_schema(
        request=None,
        responses={200: s.InviteSerializer, **ERRORS},
        summary="Revoke an invite code (organizers); it then joins as an unknown code",
    )
    def delete(self, request, slug, code):
        invite = members.do_revoke_invite(
            user=request.user, club=self.club(request, slug), code=code
        )
        return Response(s.InviteSerializer(invite).data)


class HostedPlayersView(LeagueView):
    @extend_schema(
        parameters=PAGES,
        responses={200: s.paged("HostedPlayerPage", s.MemberSerializer), **ERRORS},
        summary="The club's server-hosted computer players (members with a level)",
    )
    def get(self, request, slug):
        club = self.club(request, slug)
        return s.paginate(request, selectors.hosted_members(club), s.MemberSerializer)

    @extend_schema(
        request=s.AddHostedPlayerSerializer,
        responses={201: s.MemberSerializer, **ERRORS},
        summary="Add a server-hosted computer player at a level (organizers)",
    )
    def post(self, request, slug):
        data = strict(s.AddHostedPlayerSerializer, request)
        membership = hosted.do_add_hosted_player(
            user=request.user, club=self.club(request, slug), **data
        )
        return Response(s.MemberSerializer(membership).data, status=201)


class ClubLogView(LeagueView):
    @extend_schema(
        parameters=[
            OpenApiParameter(
                "verb",
                OpenApiTypes.STR,
                description="a verb (member.remove) or its family (member): only those",
            ),
            *PAGES,
        ],
        responses={200: s.paged("ClubActionPage", s.ClubActionSerializer), **ERRORS},
        summary="The club's organizer action log, newest first (organizers)",
    )
    def get(self, request, slug):
        club = self.club(request, slug)
        roles.check_organizer(club, _user(request))
        verb = parse_name(request.query_params.get("verb"), "verb")
        if verb is not None and verb not in VERBS and verb not in FAMILIES:
            raise ValidationError("verb is one of the log's verbs or families (docs/league.md)")
        return s.paginate(request, selectors.club_log(club, verb=verb), s.ClubActionSerializer)


class JoinClubView(LeagueView):
    @extend_schema(
        request=s.JoinClubSerializer,
        responses={201: s.MemberSerializer, **ERRORS},
        summary="Join a club with an invite code (an unknown club answers as a wrong code)",
    )
    def post(self, request, slug):
        data = strict(s.JoinClubSerializer, request)
        membership = members.do_join_club(
            user=request.user, club=selectors.club_by_slug(slug), code=data["code"]
        )
        return Response(s.MemberSerializer(membership).data, status=201)


# -- seasons, pairs, standings ------------------------------------------------------------------
class SeasonsView(LeagueView):
    @extend_schema(
        parameters=PAGES,
        responses={200: s.paged("SeasonPage", s.SeasonSerializer), **ERRORS},
        summary="The club's seasons, newest first",
        operation_id="seasons_list",
    )
    def get(self, request, slug):
        found = selectors.seasons_of(self.club(request, slug))
        return s.paginate(request, found, s.SeasonSerializer)

    @extend_schema(
        request=s.CreateSeasonSerializer,
        responses={201: s.SeasonSerializer, **ERRORS},
        summary="Create a season (organizers)",
    )
    def post(self, request, slug):
        data = strict(s.CreateSeasonSerializer, request)
        club = self.club(request, slug)
        season = seasons.do_create_season(user=request.user, club=club, **data)
        answer = selectors.season_for_reader(club, season.pk)
        return Response(s.SeasonSerializer(answer).data, status=201)


class SeasonView(LeagueView):
    @extend_schema(responses={200: s.SeasonSerializer, **ERRORS}, summary="A season")
    def get(self, request, slug, season_id):
        club = self.club(request, slug)
        return Response(s.SeasonSerializer(selectors.season_for_reader(club, int(season_id))).data)

    @extend_schema(
        request=s.UpdateSeasonSerializer,
        responses={200: s.SeasonSerializer, **ERRORS},
        summary="Change a season's name or dates (organizers; an open season)",
    )
    def patch(self, request, slug, season_id):
        data = strict(s.UpdateSeasonSerializer, request)
        club = self.club(request, slug)
        season = selectors.season_of(club, int(season_id))
        seasons.do_update_season(user=request.user, season=season, changes=dict(data))
        return Response(s.SeasonSerializer(selectors.season_for_reader(club, season.pk)).data)


class SeasonCloseView(LeagueView):
    @extend_schema(
        request=None,
        responses={200: s.SeasonSerializer, **ERRORS},
        summary="Close (archive) a season (organizers): it stays readable, takes no new round",
    )
    def post(self, request, slug, season_id):
        club = self.club(request, slug)
        season = selectors.season_of(club, int(season_id))
        seasons.do_close_season(user=request.user, season=season)
        return Response(s.SeasonSerializer(selectors.season_for_reader(club, season.pk)).data)


class PairsView(LeagueView):
    @extend_schema(
        request=s.PairSerializer,
        responses={201: s.PairOutSerializer, **ERRORS},
        summary="Register a fixed pair for a pairs season (organizers)",
    )
    def post(self, request, slug, season_id):
        data = strict(s.PairSerializer, request)
        first, second = data["players"]
        pair = seasons.do_register_pair(
            user=request.user,
            season=self.season(request, slug, season_id),
            name=data["name"],
            player_1=first,
            player_2=second,
        )
        return Response(s.PairOutSerializer(pair).data, status=201)


class StandingsView(LeagueView):
    @extend_schema(
        parameters=PAGES,
        responses={200: s.paged("StandingPage", s.StandingSerializer), **ERRORS},
        summary="The season's standings (stored; ordered as docs/league.md says)",
    )
    def get(self, request, slug, season_id):
        rows = selectors.standing_rows(self.season(request, slug, season_id))
        return s.paginate(request, rows, s.StandingSerializer)


# -- rounds ---------------------------------------------------------------------------------------
class RoundsView(LeagueView):
    @extend_schema(
        parameters=PAGES,
        responses={200: s.paged("RoundPage", s.RoundSerializer), **ERRORS},
        summary="The season's rounds",
        operation_id="rounds_list",
    )
    def get(self, request, slug, season_id):
        found = selectors.rounds_of(self.season(request, slug, season_id))
        viewer = _user(request)
        return s.paginate(
            request,
            found,
            s.RoundSerializer,
            prepare=lambda round_: selectors.round_details(round_, viewer),
        )

    @extend_schema(
        request=None,
        responses={201: s.RoundSerializer, **ERRORS},
        summary="Open the next round (organizers)",
    )
    def post(self, request, slug, season_id):
        round_ = rounds.do_create_round(
            user=request.user, season=self.season(request, slug, season_id)
        )
        return _round_answer(request, round_, status=201)


class RoundView(LeagueView):
    @extend_schema(
        responses={200: s.RoundSerializer, **ERRORS},
        summary="A round: who is present, byes, tables",
    )
    def get(self, request, slug, season_id, number):
        # A read changes nothing: the automatic substitutes are the tick's (server/league/tick.py).
        return _round_answer(request, self.round(request, slug, season_id, number))

    @extend_schema(
        request=s.DeadlineSerializer,
        responses={200: s.RoundSerializer, **ERRORS},
        summary="Set or remove the round's deadline (organizers)",
    )
    def patch(self, request, slug, season_id, number):
        data = strict(s.DeadlineSerializer, request)
        round_ = self.round(request, slug, season_id, number)
        rounds.do_set_deadline(user=request.user, round_=round_, deadline=data["deadline"])
        return _round_answer(request, round_)


class CheckInView(LeagueView):
    @extend_schema(
        request=s.CheckInSerializer,
        responses={200: s.RoundSerializer, **ERRORS},
        summary="Check in who is present (the whole list; organizers, open rounds)",
    )
    def post(self, request, slug, season_id, number):
        data = strict(s.CheckInSerializer, request)
        round_ = self.round(request, slug, season_id, number)
        rounds.do_check_in(
            user=request.user, round_=round_, players=data.get("players"), pairs=data.get("pairs")
        )
        return _round_answer(request, round_)


class StartRoundView(LeagueView):
    @extend_schema(
        request=None,
        responses={200: s.RoundSerializer, **ERRORS},
        summary="Draw the round and create its rated tables, every seat assigned (organizers)",
    )
    def post(self, request, slug, season_id, number):
        round_ = self.round(request, slug, season_id, number)
        rounds.do_start_round(user=request.user, round_=round_)
        return _round_answer(request, self.round(request, slug, season_id, number))


class RoundTablesView(LeagueView):
    @extend_schema(
        parameters=PAGES,
        responses={200: s.paged("RoundTablePage", s.MatchSerializer), **ERRORS},
        summary="The round's tables (matches), by table number",
    )
    def get(self, request, slug, season_id, number):
        round_ = self.round(request, slug, season_id, number)
        tables = selectors.round_matches_for(round_, _user(request))
        return s.paginate(request, tables, s.MatchSerializer)


class RatingsView(LeagueView):
    @extend_schema(
        parameters=PAGES,
        responses={200: s.paged("RatingPage", s.RatingSerializer), **ERRORS},
        summary="The club's ratings (openskill ordinal, best first)",
    )
    def get(self, request, slug):
        ratings = selectors.club_ratings(self.club_alone(request, slug))
        return s.paginate(request, ratings, s.RatingSerializer)


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
            *PAGES,
        ],
        responses={200: s.paged("MatchPage", s.MatchSerializer), **ERRORS},
        summary="Saved matches you may read (league; casual ones you played), newest first",
        operation_id="matches_list",
    )
    def get(self, request):
        q = request.query_params
        status = q.get("status") or None
        if status not in (None, "playing", "finished", "annulled"):
            raise ValidationError("status is playing, finished or annulled")
        found = selectors.match_list(
            _user(request),
            club=parse_name(q.get("club"), "club"),
            season=_int(q.get("season"), "season"),
            player=parse_name(q.get("player"), "player"),
            status=status,
            since=_date(q.get("since"), "since"),
            until=_date(q.get("until"), "until"),
        )
        return s.paginate(
            request,
            selectors.match_page(found),
            s.MatchSerializer,
            prepare_page=selectors.with_seat_rows,
        )


class MatchView(LeagueView):
    @extend_schema(
        responses={200: s.MatchDetailSerializer, **ERRORS},
        summary="A match (in progress: its seats, who holds them and its score only)",
    )
    def get(self, request, match_id):
        match = selectors.match_for_reader(int(match_id), _user(request))
        return Response(s.MatchDetailSerializer(match).data)


class MatchHandsView(LeagueView):
    @extend_schema(
        responses={200: s.MatchHandsSerializer, **ERRORS},
        summary="Hand-by-hand summary of a finished or annulled match (the engine's fold)",
    )
    def get(self, request, match_id):
        match = selectors.match_contents_for_reader(int(match_id), _user(request))
        return Response(s.MatchHandsSerializer(selectors.match_hands(match)).data)


class MatchAnalysisView(LeagueView):
    @extend_schema(
        responses={200: s.MatchAnalysisSerializer, **ERRORS},
        summary="The expert's verdict on every decision of a finished match (computed in "
        "the background: analysis_not_ready until then)",
    )
    def get(self, request, match_id):
        match = selectors.match_contents_for_reader(int(match_id), _user(request))
        return Response(s.MatchAnalysisSerializer(selectors.match_analysis(match)).data)


class MatchRecordView(LeagueView):
    def perform_content_negotiation(self, request, force=False):
        return super().perform_content_negotiation(request, force=True)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "analysis",
                OpenApiTypes.BOOL,
                description="1: each analysed decision's line carries an optional "
                "`analysis` field (docs/records.md); old readers ignore it",
            )
        ],
        responses={
            (200, "text/plain"): OpenApiResponse(
                OpenApiTypes.STR, description="JSON Lines engine record (python -m engine replay)"
            ),
            **ERRORS,
        },
        summary="The record of a finished or annulled match",
    )
    def get(self, request, match_id):
        match = selectors.match_contents_for_reader(int(match_id), _user(request))
        text = selectors.record_text(match)
        if request.query_params.get("analysis") in ("1", "true"):
            text = selectors.record_with_analysis(text, selectors.analysis_report(match))
        response = HttpResponse(text, content_type="text/plain; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="dekabes-match-{match.pk}.jsonl"'
        return response


class AnnulView(LeagueView):
    @extend_schema(
        request=s.AnnulSerializer,
        responses={200: s.MatchDetailSerializer, **ERRORS},
        summary="Annul a stuck league match, with a reason (organizers)",
    )
    def post(self, request, match_id):
        data = strict(s.AnnulSerializer, request)
        match = selectors.match_for_reader(int(match_id), _user(request))
        match = matches.do_annul(user=request.user, match=match, reason=data["reason"])
        return Response(s.MatchDetailSerializer(match).data)


class SubstituteView(LeagueView):
    @extend_schema(
        request=s.SubstituteSerializer,
        responses={200: s.MatchDetailSerializer, **ERRORS},
        summary="Hand a seat of a league match in progress to a substitute (organizers)",
    )
    def post(self, request, match_id):
        data = strict(s.SubstituteSerializer, request)
        match = selectors.match_for_reader(int(match_id), _user(request))
        by = data["by"]
        matches.do_substitute(
            user=request.user,
            match=match,
            seat=data["seat"],
            username=by.get("username"),
            level=by.get("level"),
            reason=data["reason"],
        )
        return Response(
            s.MatchDetailSerializer(selectors.match_for_reader(match.pk, request.user)).data
        )


class ForfeitView(LeagueView):
    @extend_schema(
        request=s.ForfeitSerializer,
        responses={200: s.MatchDetailSerializer, **ERRORS},
        summary="End a league match by forfeit against an absent seat's team, after the "
        "round's deadline (organizers)",
    )
    def post(self, request, match_id):
        data = strict(s.ForfeitSerializer, request)
        match = selectors.match_for_reader(int(match_id), _user(request))
        match = matches.do_forfeit(
            user=request.user, match=match, seat=data["seat"], reason=data["reason"]
        )
        return Response(s.MatchDetailSerializer(match).data)


class HostPlayersView(APIView):
    @extend_schema(
        responses={200: s.HostedPlayersSerializer, **ERRORS},
        summary="Every hosted player the host process plays, with its level (host account)",
    )
    def get(self, request):
        hosted.check_host(request.user)
        players = {"players": selectors.hosted_players_in_service()}
        return Response(s.HostedPlayersSerializer(players).data)


class HostPlayerTokenView(APIView):
    @extend_schema(
        request=None,
        responses={200: AccountSerializer, **ERRORS},
        summary="A token for a hosted player, device host (host account)",
    )
    def post(self, request, name):
        grant = hosted.grant_hosted_token(user=request.user, name=name)
        return Response(AccountSerializer(grant).data)


class PlayerView(LeagueView):
    @extend_schema(
        responses={200: s.PlayerSerializer, **ERRORS},
        summary="A player: clubs, ratings with history, recent matches (what you may read)",
    )
    def get(self, request, username):
        return Response(s.PlayerSerializer(selectors.player_profile(username, _user(request))).data)


class PlayerStatsView(LeagueView):
    @extend_schema(
        responses={200: s.PlayerStatsSerializer, **ERRORS},
        summary="A player's statistics: matches, wins, hands won, Dékabès, by club and overall "
        "(over the finished matches you may read)",
    )
    def get(self, request, username):
        stats = selectors.player_stats(username, _user(request))
        return Response(s.PlayerStatsSerializer(stats).data)


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
        responses={200: s.MyLeagueTablesSerializer, **ERRORS},
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
        return Response(s.league_tables_body(request.user))
