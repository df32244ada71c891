"""Thin views: a member's mail choices through the API (``/api/me/mail``), the same
service as the web page ``/me/mail``."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from server.api_schema import ERRORS, strict
from server.errors import PermissionDenied
from server.mail import selectors, services
from server.mail.kinds import MEMBER_KINDS
from server.mail.serializers import MailChoicesChangeSerializer, MailChoicesSerializer


def _person(request):
    if request.user.is_bot:
        raise PermissionDenied("bot accounts get no mail")
    return request.user


class MyMailView(APIView):
    @extend_schema(
        responses={200: MailChoicesSerializer, **ERRORS},
        summary="My address and which mail I get, in which language",
    )
    def get(self, request):
        return Response(MailChoicesSerializer(selectors.mail_choices(_person(request))).data)

    @extend_schema(
        request=MailChoicesChangeSerializer,
        responses={200: MailChoicesSerializer, **ERRORS},
        summary="Change my address, the language of my mail or the kinds I get",
    )
    def patch(self, request):
        user = _person(request)
        data = strict(MailChoicesChangeSerializer, request)
        now = selectors.mail_choices(user)
        services.do_set_preferences(
            user=user,
            email=data.get("email", now.email),
            language=data.get("language", now.language),
            kinds={kind: data[kind] for kind in MEMBER_KINDS if kind in data},
        )
        return Response(MailChoicesSerializer(selectors.mail_choices(user)).data)
