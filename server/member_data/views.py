"""Thin views of a member's data: the download and closing the account."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from server.accounts import throttles
from server.api_schema import ERRORS, strict
from server.member_data import selectors, services
from server.member_data.serializers import (
    CloseAccountSerializer,
    ClosedAccountSerializer,
    MemberDataSerializer,
    member_data_file,
)


def data_file(user) -> HttpResponse:
    """The download: one JSON file."""
    body = member_data_file(selectors.member_data(user))
    response = HttpResponse(body, content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="dekabes-{user.username}-data.json"'
    return response


class MyDataView(APIView):
    @extend_schema(
        responses={200: MemberDataSerializer, **ERRORS},
        summary="Everything about me, as one file (account, clubs, matches, records, "
        "ratings, the action-log entries about me)",
    )
    def get(self, request):
        return data_file(request.user)


class CloseAccountView(APIView):
    throttle_classes = [throttles.PasswordChangeByAccount]

    @extend_schema(
        request=CloseAccountSerializer,
        responses={200: ClosedAccountSerializer, **ERRORS},
        summary="Close my account: my name becomes a pseudonym everywhere; my tokens, "
        "sessions, password and email address are gone; my results stay (cannot be undone)",
    )
    def post(self, request):
        data = strict(CloseAccountSerializer, request)
        closed = services.do_close_account(
            user=request.user, password=data["password"], confirmation=data["confirm"]
        )
        return Response(ClosedAccountSerializer(closed).data)
