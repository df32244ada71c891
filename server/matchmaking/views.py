"""HTTP endpoints of matchmaking. Thin: parse, call a service or a selector, answer."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from server.accounts.models import User
from server.api_schema import ERRORS, strict
from server.errors import NotFound, ValidationError
from server.matchmaking import challenges, seeks, selectors
from server.matchmaking import serializers as s
from server.matchmaking.models import BotTerms
from server.notices import longpoll
from server.notices.groups import challenges_group, seeks_group

LONG_POLL = [
    OpenApiParameter("wait", OpenApiTypes.FLOAT, description="long-poll: seconds to wait (max 30)"),
    OpenApiParameter(
        "after", OpenApiTypes.INT, description="long-poll: answer once version > after"
    ),
]


def _seat_keys(raw: dict) -> dict[int, str]:
    out: dict[int, str] = {}
    for key, value in raw.items():
        if str(key) not in ("1", "2", "3", "4"):
            raise ValidationError('bots: seats are "1" to "4"')
        out[int(key)] = value
    return out


class OpenSeatsView(APIView):
    @extend_schema(
        parameters=[
            *LONG_POLL,
            OpenApiParameter(
                "fits", OpenApiTypes.BOOL, description="only the seeks you may take a seat of"
            ),
        ],
        responses={200: s.OpenSeatsSerializer, **ERRORS},
        summary="Open seats: casual tables seeking players; long-poll with wait/after",
        operation_id="open_seats_list",
    )
    def get(self, request):
        wait, after = longpoll.long_poll_args(request)
        fits = request.query_params.get("fits", "") in ("1", "true", "yes")
        if wait and after is not None:
            changed = longpoll.Wait(seeks_group(), after, selectors.seeks_version)
            if longpoll.hold(request, request.user, changed, wait):
                return longpoll.parked()  # the bridge answers once a seek opens or closes
        found = selectors.open_seeks(request.user, fits=fits)
        return Response(s.OpenSeatsSerializer(found).data)

    @extend_schema(
        request=s.SeekRequestSerializer,
        responses={201: s.SeekSerializer, **ERRORS},
        summary="Seek players: a casual table with you seated and the other seats open",
    )
    def post(self, request):
        data = strict(s.SeekRequestSerializer, request)
        plan = seeks.SeekPlan(
            wanted=data["wanted"],
            join=sorted(set(data["join"])),
            bots=_seat_keys(data["bots"]),
            min_level=data["min_level"],
            max_level=data["max_level"],
            minutes=data["minutes"],
        )
        seek = seeks.do_seek(user=request.user, plan=plan)
        return Response(s.SeekSerializer(selectors.seek_by_id(seek.pk)).data, status=201)


class SeekView(APIView):
    @extend_schema(responses={200: s.SeekSerializer, **ERRORS}, summary="One seek")
    def get(self, request, seek_id):
        seek = selectors.seek_by_id(seek_id)
        if seek is None:
            raise NotFound(f"no seek {seek_id}")
        return Response(s.SeekSerializer(seek).data)


class CancelSeekView(APIView):
    @extend_schema(
        request=None,
        responses={200: s.SeekSerializer, **ERRORS},
        summary="Withdraw your seek (its table stays yours)",
    )
    def post(self, request, seek_id):
        seek = seeks.do_cancel_seek(user=request.user, seek_id=seek_id)
        return Response(s.SeekSerializer(selectors.seek_by_id(seek.pk)).data)


def _bot(name: str) -> User:
    bot = User.objects.filter(username__iexact=name, is_bot=True).first()
    if bot is None:
        raise NotFound(f"no bot {name!r}")
    return bot


class PublishedTermsView(APIView):
    @extend_schema(
        responses={200: s.PublishedTermsSerializer, **ERRORS},
        summary="Every bot that takes challenges, with its terms (discovery)",
        operation_id="bots_terms_list",
    )
    def get(self, request):
        return Response(s.PublishedTermsSerializer({"bots": selectors.published_terms()}).data)


class TermsView(APIView):
    @extend_schema(
        responses={200: s.TermsAnswerSerializer, **ERRORS},
        summary="A bot's published terms (what challenges it takes)",
    )
    def get(self, request, name):
        terms = BotTerms.objects.filter(bot=_bot(name)).select_related("bot").first()
        if terms is None:
            raise NotFound(f"{name} publishes no terms: it takes no challenges")
        return Response(s.TermsAnswerSerializer(terms).data)

    @extend_schema(
        request=s.TermsSerializer,
        responses={200: s.TermsAnswerSerializer, **ERRORS},
        summary="Publish your bot's terms (its owner, or the bot itself)",
    )
    def put(self, request, name):
        data = strict(s.TermsSerializer, request)
        terms = challenges.do_publish_terms(user=request.user, bot=_bot(name), terms=data)
        return Response(s.TermsAnswerSerializer(terms).data)

    @extend_schema(
        request=None,
        responses={204: None, **ERRORS},
        summary="Withdraw your bot's terms: it takes no challenges",
    )
    def delete(self, request, name):
        challenges.do_withdraw_terms(user=request.user, bot=_bot(name))
        return Response(status=204)


class ChallengesView(APIView):
    @extend_schema(
        parameters=LONG_POLL,
        responses={200: s.ChallengeListSerializer, **ERRORS},
        summary="Challenges to you and by you; long-poll with wait/after",
        operation_id="challenges_list",
    )
    def get(self, request):
        wait, after = longpoll.long_poll_args(request)
        user = request.user
        if wait and after is not None:
            changed = longpoll.Wait(
                challenges_group(user.pk), after, lambda: selectors.challenges_version(user)
            )
            if longpoll.hold(request, user, changed, wait):
                return longpoll.parked()
        body = {
            "version": selectors.challenges_version(user),
            "challenges": selectors.challenges_of(user),
        }
        return Response(s.ChallengeListSerializer(body).data)

    @extend_schema(
        request=s.ChallengeRequestSerializer,
        responses={201: s.ChallengeSerializer, **ERRORS},
        summary="Challenge three players: you and your partner against two opponents",
    )
    def post(self, request):
        data = strict(s.ChallengeRequestSerializer, request)
        plan = challenges.ChallengePlan(
            partner=data["partner"],
            opponents=(data["opponents"][0], data["opponents"][1]),
            rated=data["rated"],
            seconds_per_move=data["seconds_per_move"],
            minutes=data["minutes"],
        )
        challenge = challenges.do_challenge(user=request.user, plan=plan)
        return Response(s.ChallengeSerializer(challenge).data, status=201)


class ChallengeView(APIView):
    @extend_schema(
        responses={200: s.ChallengeSerializer, **ERRORS},
        summary="A challenge you are one of the four players of",
    )
    def get(self, request, challenge_id):
        challenge = selectors.challenge_for(request.user, challenge_id)
        if challenge is None:
            raise NotFound(f"no challenge {challenge_id}")
        return Response(s.ChallengeSerializer(challenge).data)


class AcceptView(APIView):
    @extend_schema(
        request=None,
        responses={200: s.ChallengeSerializer, **ERRORS},
        summary="Accept a challenge; the last acceptance starts the table",
    )
    def post(self, request, challenge_id):
        challenge = challenges.do_accept(user=request.user, challenge_id=challenge_id)
        return Response(s.ChallengeSerializer(challenge).data)


class DeclineView(APIView):
    @extend_schema(
        request=s.DeclineSerializer,
        responses={200: s.ChallengeSerializer, **ERRORS},
        summary="Decline a challenge, with a reason from the fixed list",
    )
    def post(self, request, challenge_id):
        data = strict(s.DeclineSerializer, request)
        challenge = challenges.do_decline(
            user=request.user, challenge_id=challenge_id, reason=data["reason"]
        )
        return Response(s.ChallengeSerializer(challenge).data)


class CancelChallengeView(APIView):
    @extend_schema(
        request=None,
        responses={200: s.ChallengeSerializer, **ERRORS},
        summary="Withdraw your challenge",
    )
    def post(self, request, challenge_id):
        challenge = challenges.do_cancel(user=request.user, challenge_id=challenge_id)
        return Response(s.ChallengeSerializer(challenge).data)
