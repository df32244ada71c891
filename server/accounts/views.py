"""Thin views: parse (a strict serializer), call a service or a selector, answer with
an output serializer. Refusals are raised by the services (``server.errors``)."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from server.accounts import selectors, services, throttles
from server.accounts.serializers import (
    AccountSerializer,
    BotListSerializer,
    PasswordChangedSerializer,
    TokenListSerializer,
)
from server.api_schema import ERRORS, strict

DEVICE_HELP = (
    "names the device or program that will hold the token; a new token for a named "
    'device replaces its previous one. Without it (or with "default") the token is '
    "one more of the unnamed device: earlier tokens keep working"
)


class CredentialsSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=40)
    password = serializers.CharField(max_length=200, trim_whitespace=False)
    device = serializers.CharField(max_length=40, required=False, help_text=DEVICE_HELP)


class RegisterSerializer(CredentialsSerializer):
    invite = serializers.CharField(
        max_length=80, required=False, help_text="needed when the server registers by invite only"
    )
    display_name = serializers.CharField(
        max_length=80,
        required=False,
        default="",
        allow_blank=True,
        help_text="the name others see, in any alphabet (the username stays the login name)",
    )


class DisplayNameSerializer(serializers.Serializer):
    display_name = serializers.CharField(
        max_length=80, allow_blank=True, help_text="empty: the username is shown"
    )


class PasswordChangeSerializer(serializers.Serializer):
    password = serializers.CharField(
        max_length=200, trim_whitespace=False, help_text="the current one"
    )
    new_password = serializers.CharField(max_length=200, trim_whitespace=False)


class BotNameSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=40)


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
        user = services.do_register(
            username=data["username"],
            password=data["password"],
            invite=data.get("invite"),
            display_name=data["display_name"],
        )
        grant = services.grant_token(user=user, device=device)
        return Response(AccountSerializer(grant).data, status=201)


class TokenView(APIView):
    permission_classes = [AllowAny]
    authentication_classes = []
    throttle_classes = [throttles.LoginByAddress, throttles.LoginByName]

    @extend_schema(
        request=CredentialsSerializer,
        responses={200: AccountSerializer, **ERRORS},
        summary="Log in: a new token (a named device's previous token is revoked)",
    )
    def post(self, request):
        data = strict(CredentialsSerializer, request)
        device = data.get("device", services.DEFAULT_DEVICE)
        services.check_device(device)
        user = services.do_login(username=data["username"], password=data["password"])
        grant = services.grant_token(user=user, device=device)
        return Response(AccountSerializer(grant).data)


class LogoutView(APIView):
    @extend_schema(
        request=None,
        responses={204: None, **ERRORS},
        summary="Log out: revoke the token this request is sent with",
    )
    def post(self, request):
        services.do_logout(token=request.auth)
        return Response(status=204)


class RotateView(APIView):
    @extend_schema(
        request=None,
        responses={200: AccountSerializer, **ERRORS},
        summary="A new token for this device; the one sent stops working at once",
    )
    def post(self, request):
        return Response(AccountSerializer(services.do_rotate(token=request.auth)).data)


class TokensView(APIView):
    @extend_schema(
        responses={200: TokenListSerializer, **ERRORS},
        summary="My tokens, without their keys",
    )
    def get(self, request):
        tokens = {"tokens": selectors.tokens_of(request.user)}
        return Response(TokenListSerializer(tokens, context={"current": request.auth}).data)


class TokenDetailView(APIView):
    @extend_schema(responses={204: None, **ERRORS}, summary="Revoke one of my tokens")
    def delete(self, request, token_id: int):
        services.do_revoke(user=request.user, token_id=token_id)
        return Response(status=204)


class PasswordView(APIView):
    throttle_classes = [throttles.PasswordChangeByAccount]

    @extend_schema(
        request=PasswordChangeSerializer,
        responses={200: PasswordChangedSerializer, **ERRORS},
        summary="Change my password; every other token of mine is revoked",
    )
    def post(self, request):
        data = strict(PasswordChangeSerializer, request)
        revoked = services.do_change_password(
            user=request.user,
            current=request.auth,
            password=data["password"],
            new_password=data["new_password"],
        )
        return Response(PasswordChangedSerializer({"revoked": revoked}).data)


class MeView(APIView):
    @extend_schema(responses={200: AccountSerializer, **ERRORS}, summary="Who the token belongs to")
    def get(self, request):
        return Response(AccountSerializer(request.user).data)

    @extend_schema(
        request=DisplayNameSerializer,
        responses={200: AccountSerializer, **ERRORS},
        summary="Change the name others see (any alphabet)",
    )
    def patch(self, request):
        data = strict(DisplayNameSerializer, request)
        user = services.do_set_display_name(user=request.user, display_name=data["display_name"])
        return Response(AccountSerializer(user).data)


class BotsView(APIView):
    @extend_schema(
        responses={200: BotListSerializer, **ERRORS},
        summary="The caller's bot accounts (without tokens)",
    )
    def get(self, request):
        return Response(BotListSerializer({"bots": selectors.bots_of(request.user)}).data)

    @extend_schema(
        request=BotNameSerializer,
        responses={201: AccountSerializer, **ERRORS},
        summary="Register a bot account owned by the caller; the answer carries its token",
    )
    def post(self, request):
        data = strict(BotNameSerializer, request)
        grant = services.do_register_bot(owner=request.user, name=data["name"])
        return Response(AccountSerializer(grant).data, status=201)


class BotTokenView(APIView):
    @extend_schema(
        request=None,
        responses={200: AccountSerializer, **ERRORS},
        summary="A new token for my bot; all its earlier tokens stop working",
    )
    def post(self, request, name: str):
        grant = services.do_rotate_bot_token(owner=request.user, bot_name=name)
        return Response(AccountSerializer(grant).data)

    @extend_schema(
        request=None,
        responses={204: None, **ERRORS},
        summary="Revoke every token of my bot (a new one: POST)",
    )
    def delete(self, request, name: str):
        services.do_revoke_bot_tokens(owner=request.user, bot_name=name)
        return Response(status=204)
