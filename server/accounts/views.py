"""Thin views: parse, call a service, answer. Errors are raised as ``ApiError``."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from server.accounts import services
from server.api_schema import ERRORS, AccountSerializer, strict


class CredentialsSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=40)
    password = serializers.CharField(max_length=200, trim_whitespace=False)


class BotNameSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=40)


class RegisterView(APIView):
    permission_classes = [AllowAny]
    authentication_classes = []

    @extend_schema(request=CredentialsSerializer, responses={201: AccountSerializer, **ERRORS},
                   summary="Register a club member; the answer carries the member's token")
    def post(self, request):
        data = strict(CredentialsSerializer, request)
        user = services.do_register(data["username"], data["password"])
        return Response(services.account_json(user, with_token=True), status=201)


class TokenView(APIView):
    permission_classes = [AllowAny]
    authentication_classes = []

    @extend_schema(request=CredentialsSerializer, responses={200: AccountSerializer, **ERRORS},
                   summary="Log in: the member's token")
    def post(self, request):
        data = strict(CredentialsSerializer, request)
        user = services.do_login(data["username"], data["password"])
        return Response(services.account_json(user, with_token=True))


class MeView(APIView):
    @extend_schema(responses={200: AccountSerializer, **ERRORS}, summary="Who the token belongs to")
    def get(self, request):
        return Response(services.account_json(request.user))


class BotsView(APIView):
    @extend_schema(responses={200: AccountSerializer(many=True), **ERRORS},
                   summary="The caller's bot accounts (without tokens)")
    def get(self, request):
        bots = request.user.bots.order_by("username")
        return Response({"bots": [services.account_json(b) for b in bots]})

    @extend_schema(request=BotNameSerializer, responses={201: AccountSerializer, **ERRORS},
                   summary="Register a bot account owned by the caller; the answer carries its token")
    def post(self, request):
        data = strict(BotNameSerializer, request)
        bot = services.do_create_bot(data["name"], owner=request.user)
        return Response(services.account_json(bot, with_token=True), status=201)
