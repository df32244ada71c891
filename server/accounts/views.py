"""Thin views: parse, call a service, answer. Errors are raised as ``ApiError``."""

from django.db import transaction
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from server.accounts import services, throttles
from server.api_schema import ERRORS, AccountSerializer, strict

DEVICE_HELP = (
    'names the device or program that will hold the token (default "default"); '
    "a new token for a device replaces its previous one"
)


class CredentialsSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=40)
    password = serializers.CharField(max_length=200, trim_whitespace=False)
    device = serializers.CharField(max_length=40, required=False, help_text=DEVICE_HELP)


class RegisterSerializer(CredentialsSerializer):
    invite = serializers.CharField(
        max_length=80, required=False, help_text="needed when the server registers by invite only"
    )


class PasswordChangeSerializer(serializers.Serializer):
    password = serializers.CharField(
        max_length=200, trim_whitespace=False, help_text="the current one"
    )
    new_password = serializers.CharField(max_length=200, trim_whitespace=False)


class BotNameSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=40)


class TokenInfoSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    device = serializers.CharField()
    created_at = serializers.DateTimeField()
    current = serializers.BooleanField(help_text="the token this request was sent with")


class RegisterView(APIView):
    permission_classes = [AllowAny]
    authentication_classes = []
    throttle_classes = [throttles.RegisterByAddress]

    @extend_schema(
        request=RegisterSerializer,
        responses={201: AccountSerializer, **ERRORS},
        summary="Register a club member; the answer carries a token for the device",
    )
    def post(self, request):
        data = strict(RegisterSerializer, request)
        device = data.get("device", services.DEFAULT_DEVICE)
        services.check_device(device)
        user = services.do_register(data["username"], data["password"], data.get("invite"))
        token = services.issue_token(user, device)
        return Response(services.account_json(user, token, device), status=201)


class TokenView(APIView):
    permission_classes = [AllowAny]
    authentication_classes = []
    throttle_classes = [throttles.LoginByAddress, throttles.LoginByName]

    @extend_schema(
        request=CredentialsSerializer,
        responses={200: AccountSerializer, **ERRORS},
        summary="Log in: a new token for the device (its previous token is revoked)",
    )
    def post(self, request):
        data = strict(CredentialsSerializer, request)
        device = data.get("device", services.DEFAULT_DEVICE)
        services.check_device(device)
        user = services.do_login(data["username"], data["password"])
        token = services.issue_token(user, device)
        return Response(services.account_json(user, token, device))


class LogoutView(APIView):
    @extend_schema(
        request=None,
        responses={204: None, **ERRORS},
        summary="Log out: revoke the token this request is sent with",
    )
    def post(self, request):
        services.do_logout(request.auth)
        return Response(status=204)


class RotateView(APIView):
    @extend_schema(
        request=None,
        responses={200: AccountSerializer, **ERRORS},
        summary="A new token for this device; the one sent stops working at once",
    )
    def post(self, request):
        token = services.do_rotate(request.auth)
        return Response(services.account_json(request.user, token, request.auth.name))


class TokensView(APIView):
    @extend_schema(
        responses={
            200: inline_serializer("TokenList", {"tokens": TokenInfoSerializer(many=True)}),
            **ERRORS,
        },
        summary="My tokens (one per device), without their keys",
    )
    def get(self, request):
        return Response({"tokens": services.tokens_of(request.user, request.auth)})


class TokenDetailView(APIView):
    @extend_schema(responses={204: None, **ERRORS}, summary="Revoke one of my tokens")
    def delete(self, request, token_id: int):
        services.do_revoke(request.user, token_id)
        return Response(status=204)


class PasswordView(APIView):
    throttle_classes = [throttles.PasswordChangeByAccount]

    @extend_schema(
        request=PasswordChangeSerializer,
        responses={
            200: inline_serializer(
                "PasswordChanged",
                {"revoked": serializers.IntegerField(help_text="other tokens revoked")},
            ),
            **ERRORS,
        },
        summary="Change my password; every other token of mine is revoked",
    )
    def post(self, request):
        data = strict(PasswordChangeSerializer, request)
        revoked = services.do_change_password(
            request.user, request.auth, data["password"], data["new_password"]
        )
        return Response({"revoked": revoked})


class MeView(APIView):
    @extend_schema(responses={200: AccountSerializer, **ERRORS}, summary="Who the token belongs to")
    def get(self, request):
        return Response(services.account_json(request.user))


class BotsView(APIView):
    @extend_schema(
        responses={
            200: inline_serializer("BotList", {"bots": AccountSerializer(many=True)}),
            **ERRORS,
        },
        summary="The caller's bot accounts (without tokens)",
    )
    def get(self, request):
        bots = request.user.bots.order_by("username")
        return Response({"bots": [services.account_json(b) for b in bots]})

    @extend_schema(
        request=BotNameSerializer,
        responses={201: AccountSerializer, **ERRORS},
        summary="Register a bot account owned by the caller; the answer carries its token",
    )
    def post(self, request):
        data = strict(BotNameSerializer, request)
        with transaction.atomic():
            bot = services.do_create_bot(data["name"], owner=request.user)
            token = services.issue_token(bot, "bot")
        return Response(services.account_json(bot, token, "bot"), status=201)


class BotTokenView(APIView):
    @extend_schema(
        request=None,
        responses={200: AccountSerializer, **ERRORS},
        summary="A new token for my bot; all its earlier tokens stop working",
    )
    def post(self, request, name: str):
        bot, token = services.do_rotate_bot_token(request.user, name)
        return Response(services.account_json(bot, token, "bot"))
