"""``/api/ladder``: the bot ladder's standings, its bots and their versions, its matches;
a bot (or its owner) joins, says it is still there, or leaves (docs/api.md)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.response import Response
from rest_framework.views import APIView

from server.api_schema import ERRORS, strict
from server.ids_and_names import parse_name
from server.ladder import entries, selectors
from server.ladder import serializers as s
from server.league.serializers import PAGE_PARAMETERS, paged, paginate


def _user(request):
    user = request.user
    return user if user is not None and user.is_authenticated else None


class LadderView(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(
        parameters=PAGE_PARAMETERS,
        responses={200: paged("LadderPage", s.LadderRowSerializer), **ERRORS},
        summary="The bot ladder: every bot's current version's rating, best first",
        operation_id="ladder_list",
    )
    def get(self, request):
        return paginate(request, selectors.standings(), s.LadderRowSerializer)


class LadderBotView(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(
        responses={200: s.LadderBotSerializer, **ERRORS},
        summary="A bot on the ladder, with its versions",
    )
    def get(self, request, name):
        return Response(s.LadderBotSerializer(selectors.entry_by_name(name)).data)

    @extend_schema(
        request=s.EnterLadderSerializer,
        responses={200: s.LadderBotSerializer, **ERRORS},
        summary="Join the ladder as a version, or say the bot is still there (the bot or its owner)",
    )
    def post(self, request, name):
        data = strict(s.EnterLadderSerializer, request)
        entry = entries.do_enter(user=_user(request), name=name, **data)
        return Response(s.LadderBotSerializer(selectors.entry_by_name(entry.bot.username)).data)

    @extend_schema(
        responses={200: s.LadderBotSerializer, **ERRORS},
        summary="Leave the ladder: no new match (the bot or its owner)",
    )
    def delete(self, request, name):
        entry = entries.do_leave(user=_user(request), name=name)
        return Response(s.LadderBotSerializer(selectors.entry_by_name(entry.bot.username)).data)


class LadderMatchesView(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(
        parameters=[
            OpenApiParameter("bot", OpenApiTypes.STR, description="only this bot's"),
            *PAGE_PARAMETERS,
        ],
        responses={200: paged("LadderMatchPage", s.LadderMatchSerializer), **ERRORS},
        summary="The ladder's matches (pairs of legs dealt in duplicate), newest first",
        operation_id="ladder_matches_list",
    )
    def get(self, request):
        bot = parse_name(request.query_params.get("bot"), "bot")
        return paginate(request, selectors.pairs(bot), s.LadderMatchSerializer)


class LadderMatchView(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(
        responses={200: s.LadderMatchSerializer, **ERRORS},
        summary="A ladder match: its four bots, its two legs (replays, live tables), its rating",
    )
    def get(self, request, pair_id):
        return Response(s.LadderMatchSerializer(selectors.pair_by_id(int(pair_id))).data)
