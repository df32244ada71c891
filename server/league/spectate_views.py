"""``GET /api/tables/{code}/spectate``: a table as a spectator sees it (long-poll with
``wait``/``after`` as the seat endpoint). Who may watch: ``server.league.spectate``."""

from __future__ import annotations

import re

from drf_orjson_renderer.renderers import ORJSONRenderer
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from server.api_schema import ERRORS, SpectatorResponseSerializer
from server.errors import NotFound
from server.league import spectate
from server.notices import longpoll
from server.notices.groups import table_group
from server.tables import projection, selectors

TABLE_CODE = re.compile(r"\A[A-Za-z0-9]{1,12}\Z")


class SpectateView(APIView):
    permission_classes = [AllowAny]  # a public club's tables: anyone (``may_watch``)
    renderer_classes = [ORJSONRenderer]

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "wait", OpenApiTypes.FLOAT, description="long-poll: seconds to wait (max 30)"
            ),
            OpenApiParameter(
                "after",
                OpenApiTypes.INT,
                description="long-poll: answer once the version is past this",
            ),
        ],
        responses={200: SpectatorResponseSerializer, **ERRORS},
        summary="The table as a spectator sees it: public facts only (hands once a hand "
        "has ended); long-poll with wait/after",
    )
    def get(self, request, code):
        table = selectors.table_by_code(code.upper()) if TABLE_CODE.match(code) else None
        if table is None:
            raise NotFound(f"no table {code!r}")
        user = request.user if request.user and request.user.is_authenticated else None
        spectate.check_may_watch(user, table, projection.project(table), asked=code)
        wait, after = longpoll.long_poll_args(request)
        if wait and after is not None and user is not None:
            moved = longpoll.Wait(
                table_group(table.pk), after, lambda: selectors.current_version(table)
            )
            if longpoll.hold(request, user, moved, wait):
                return longpoll.parked()
        return Response(spectate.spectator_answer(table, projection.project(table)))
