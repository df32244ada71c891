"""HTTP endpoints for tables and seats. Thin: parse, call a service or selector, answer."""

from __future__ import annotations

import io

import orjson
from django.conf import settings
from django.http import HttpResponse
from drf_orjson_renderer.renderers import ORJSONRenderer
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ParseError
from rest_framework.response import Response
from rest_framework.views import APIView

from server.accounts.auth import TOKEN_OR_PAGE_SESSION
from server.accounts.models import User
from server.accounts.throttles import HintsByAccount
from server.api_schema import (
    ERRORS,
    Instant,
    SeatResponseSerializer,
    StrictIntegerField,
    TableSerializer,
    WatchableSerializer,
    strict,
)
from server.errors import NotAllowedInRated, NotFound, NotYourSeat, ValidationError
from server.ids_and_names import parse_id
from server.json_body import JSONParser
from server.notices import longpoll, presence
from server.notices.groups import table_group
from server.tables import acting, answers, projection, quota, selectors, services
from server.tables.acting import TABLE_CODE, get_table_and_seats, seat_number
from server.tables.models import Table


def get_table(code: str) -> Table:
    # A code is letters and digits: anything else (a NUL byte, which PostgreSQL refuses
    # in text) names no table, without a query.
    table = selectors.table_by_code(code.upper()) if TABLE_CODE.match(code) else None
    if table is None:
        raise NotFound(f"no table {code!r}")
    return table


class TableListSerializer(serializers.Serializer):
    tables = TableSerializer(many=True)


class SeatKindField(serializers.ChoiceField):
    def __init__(self, **kwargs):
        super().__init__(choices=("human", "bot"), **kwargs)


class CreateTableSerializer(serializers.Serializer):
    seats = serializers.DictField(
        child=SeatKindField(), help_text='{"1":"human","2":"bot","3":"bot","4":"bot"}'
    )
    join = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=4),
        required=False,
        default=list,
        help_text="human seats you take",
    )
    bots = serializers.DictField(
        child=serializers.CharField(),
        required=False,
        default=dict,
        help_text="bot seats filled at once: seat -> bot username",
    )
    rated = serializers.BooleanField(required=False, default=False)


class JoinSerializer(serializers.Serializer):
    seat = serializers.IntegerField(min_value=1, max_value=4)


class StrictCharField(serializers.CharField):
    """A JSON string, not a number coerced into one."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class ActionSerializer(serializers.Serializer):
    """The action body as published (OpenAPI); ``action_body.parse_action_body`` checks it
    on the hot path, and a test keeps the two in agreement."""

    type = serializers.ChoiceField(choices=services.ACTION_TYPES)
    expected_version = StrictIntegerField(
        min_value=0, help_text="the version your decision was made on"
    )
    tile = StrictCharField(required=False, max_length=5, help_text='play: e.g. "3-5"')
    end = serializers.ChoiceField(choices=("left", "right"), required=False, allow_null=True)
    opener = serializers.IntegerField(required=False, min_value=1, max_value=4)
    command_id = StrictCharField(
        required=False, max_length=80, help_text="same as the Idempotency-Key header"
    )


class HintSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    hint = serializers.DictField(allow_null=True, help_text="a legal event, or null")


class LoggedEventSerializer(serializers.Serializer):
    """One event of the log as a seat may see it (``selectors.events_for_seat``)."""

    seq = serializers.IntegerField()
    type = serializers.CharField()
    seat = serializers.IntegerField(allow_null=True, help_text="the seat that acted, if any")
    by = serializers.ChoiceField(choices=("human", "bot", "server"))
    at = Instant()
    event = serializers.DictField(
        help_text="the engine event (others' deals redacted until revealed)"
    )


class EventLogSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    events = LoggedEventSerializer(many=True)


def _seat_keys(raw: dict, what: str) -> dict[int, str]:
    out: dict[int, str] = {}
    for key, value in raw.items():
        if str(key) not in ("1", "2", "3", "4"):
            raise ValidationError(f'{what}: seats are "1" to "4"')
        out[int(key)] = str(value)
    return out


class TablesView(APIView):
    @extend_schema(
        responses={200: TableListSerializer, **ERRORS},
        summary="Tables you own or hold a seat at",
        operation_id="tables_list",
    )
    def get(self, request):
        return Response(
            {"tables": [selectors.table_answer(t) for t in selectors.tables_for(request.user)]}
        )

    @extend_schema(
        request=CreateTableSerializer,
        responses={201: TableSerializer, **ERRORS},
        summary="Create a table (you own it); the match starts and the first deal is made",
    )
    def post(self, request):
        data = strict(CreateTableSerializer, request)
        quota.check_table_quota(request.user)
        table = services.do_create_table(
            owner=request.user,
            seats=_seat_keys(data["seats"], "seats"),
            join=sorted(set(data["join"])),
            bots=_seat_keys(data["bots"], "bots"),
            rated=data["rated"],
        )
        return Response(selectors.table_answer(table), status=201)


class TableView(APIView):
    authentication_classes = TOKEN_OR_PAGE_SESSION  # the browser table too (issue #32)

    @extend_schema(
        responses={200: TableSerializer, **ERRORS}, summary="A table: seats, phase, version"
    )
    def get(self, request, code):
        table = get_table(code)
        if not selectors.may_read_table(request.user, table):
            # A members club's table, to a non-member: as an unknown code (the club rule).
            raise NotFound(f"no table {code!r}")
        return Response(selectors.table_answer(table))


class JoinView(APIView):
    @extend_schema(
        request=JoinSerializer,
        responses={200: TableSerializer, **ERRORS},
        summary="Take a free seat (people: human seats; bot accounts: bot seats)",
    )
    def post(self, request, code):
        data = strict(JoinSerializer, request)
        table = services.do_join(user=request.user, table=get_table(code), number=data["seat"])
        return Response(selectors.table_answer(table))


class ReplaceSerializer(serializers.Serializer):
    bot = serializers.CharField(
        max_length=40,
        allow_null=True,
        required=False,
        default=None,
        help_text="the computer player (a bot account you may seat) to take the seat; "
        "null or absent: the seat is opened for someone to join",
    )


class LeaveView(APIView):
    authentication_classes = TOKEN_OR_PAGE_SESSION  # the browser table too (issue #32)

    @extend_schema(
        request=None,
        responses={200: TableSerializer, **ERRORS},
        summary="Leave your seat at a casual table: it is open for someone to join",
    )
    def post(self, request, code, seat):
        table, number = get_table(code), seat_number(seat)
        services.do_leave(user=request.user, table=table, seat=number)
        return Response(selectors.table_answer(table))


class ReplaceView(APIView):
    @extend_schema(
        request=ReplaceSerializer,
        responses={200: TableSerializer, **ERRORS},
        summary="The owner of a casual table hands a seat to a computer player or opens "
        "it (a person's seat once it has been away 5 minutes)",
    )
    def post(self, request, code, seat):
        data = strict(ReplaceSerializer, request)
        table, number = get_table(code), seat_number(seat)
        bot = None
        if data["bot"] is not None:
            bot = User.objects.filter(username__iexact=data["bot"], is_bot=True).first()
            if bot is None:
                raise ValidationError(f"no bot account named {data['bot']!r}")
        services.do_replace(user=request.user, table=table, seat=number, bot=bot)
        return Response(selectors.table_answer(table))


# The seat response is the hot path's biggest body (~4 KB: the seat view with the last
# hand shown): orjson writes it in ~10 µs where the standard library takes ~110 µs.
HOT_PATH_RENDERERS = [ORJSONRenderer]


def hot_answer(request, text: bytes | None, body, status: int = 200) -> HttpResponse:
    """A seat answer: its JSON text as already encoded (``answers``) when the client
    takes plain JSON, which is what the renderer would write; otherwise ``body()``
    rendered by DRF."""
    if text is not None and request.accepted_media_type == ORJSONRenderer.media_type:
        return HttpResponse(text, status=status, content_type=ORJSONRenderer.media_type)
    return Response(body(), status=status)


_JSON_PARSER = JSONParser()


def action_data(request) -> object:
    """The action's body, as ``request.data`` reads it. A plain JSON body (what every
    client sends) is parsed directly, without DRF's parser choice and request wrapping
    (~30 µs); anything else is left to DRF as before."""
    raw = request._request
    meta = raw.META
    if meta.get("CONTENT_TYPE") != "application/json" or raw._read_started:
        return request.data
    try:
        length = int(meta.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return request.data
    if length <= 0:
        return request.data
    encoding = raw.encoding or settings.DEFAULT_CHARSET  # as DRF's parser context
    # ``body`` reads it with Django's size check (413 past DATA_UPLOAD_MAX_MEMORY_SIZE)
    if encoding.lower() not in ("utf-8", "utf8"):
        return _JSON_PARSER.parse(io.BytesIO(raw.body), "application/json", {"encoding": encoding})
    # orjson reads UTF-8 JSON as DRF's strict parser does (NaN, bad UTF-8, a BOM: refused)
    # in a tenth of its time; what it refuses besides (integers past 64 bits, nesting
    # past 1024) the action's check would refuse too, with the same code.
    try:
        return orjson.loads(raw.body)
    except orjson.JSONDecodeError as exc:
        raise ParseError(f"JSON parse error - {exc}") from None


class HotPathView(APIView):
    """The game's hot path (the seat view, the action): answered in JSON only.

    Content negotiation picks that for the usual ``Accept`` (none, ``*/*``,
    ``application/json``) without parsing it; any other goes through DRF's own
    negotiation, which may refuse it (406), as before."""

    renderer_classes = HOT_PATH_RENDERERS
    _usual_accept = frozenset({None, "*/*", "application/json"})

    def perform_content_negotiation(self, request, force=False):
        accept = request.META.get("HTTP_ACCEPT")
        if (
            accept in self._usual_accept
            and not self.format_kwarg
            and "format" not in (request._request.GET)
        ):
            renderer = ORJSONRenderer()
            return renderer, renderer.media_type
        return super().perform_content_negotiation(request, force)


class SeatView(HotPathView):
    authentication_classes = TOKEN_OR_PAGE_SESSION  # the browser table too (issue #32)

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
        responses={200: SeatResponseSerializer, **ERRORS},
        summary="The seat's view (own hand only) with the table's version; long-poll with wait/after",
    )
    def get(self, request, code, seat):
        (table, seats), number = get_table_and_seats(code), seat_number(seat)
        services.check_holder(user=request.user, table=table, number=number, seats=seats)
        wait, after = longpoll.long_poll_args(request)
        presence.touch(table=table, seats=(number,), extra_seconds=wait)
        if wait and after is not None:
            moved = longpoll.Wait(
                table_group(table.pk), after, lambda: selectors.current_version(table)
            )
            if longpoll.hold(request, request.user, moved, wait):
                return longpoll.parked()  # the bridge answers once the table moves
        state = projection.project(table)
        fresh = selectors.fresh_seats(table, seats, state)
        if fresh is not seats:  # a seat changed hands since these were read
            seats = fresh
            services.check_holder(user=request.user, table=table, number=number)
        answer = answers.seat_answer(table, number, state, request.user, seats)
        return hot_answer(request, answer.text, answer.body)


class ActionView(HotPathView):
    authentication_classes = TOKEN_OR_PAGE_SESSION  # the browser table too (issue #32)

    @extend_schema(
        request=ActionSerializer,
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                OpenApiTypes.STR,
                OpenApiParameter.HEADER,
                description="one new key per decision; a retry with the same "
                "key returns the first answer",
            )
        ],
        responses={200: SeatResponseSerializer, **ERRORS},
        summary="Act for the seat: accept, claim_redeal, choose_opener, play, pass, undo, redo, "
        "restart_hand, new_match, pause, resume, accept_takeback, decline_takeback",
    )
    def post(self, request, code, seat):
        # (META: request.headers would build a view of every header first)
        result = acting.act(
            user=request.user,
            code=code,
            seat=seat,
            data=action_data(request),
            key=request.META.get("HTTP_IDEMPOTENCY_KEY"),
        )
        return hot_answer(request, result.text, result.body, result.status)


class HintView(APIView):
    authentication_classes = TOKEN_OR_PAGE_SESSION  # the browser table too (issue #32)
    throttle_classes = [HintsByAccount]

    @extend_schema(
        responses={200: HintSerializer, **ERRORS},
        summary="The strong bot's suggestion from this seat's view only; plays nothing",
    )
    def get(self, request, code, seat):
        table, number = get_table(code), seat_number(seat)
        services.check_holder(user=request.user, table=table, number=number)
        if table.rated:
            raise NotAllowedInRated("no hints in a rated match")
        state = projection.project(table)
        hint = {"version": state.version, "hint": selectors.hint(state, number)}
        return Response(HintSerializer(hint).data)


class EventsView(APIView):
    authentication_classes = TOKEN_OR_PAGE_SESSION  # the browser table too (issue #32)

    @extend_schema(
        parameters=[OpenApiParameter("after", OpenApiTypes.INT, description="seq to start after")],
        responses={200: EventLogSerializer, **ERRORS},
        summary="The table's log as this seat may see it (others' deals redacted until revealed)",
    )
    def get(self, request, code, seat):
        table, number = get_table(code), seat_number(seat)
        services.check_holder(user=request.user, table=table, number=number)
        after = parse_id(request.query_params.get("after"), "after (a seq number)") or 0
        log = {
            "version": projection.project(table).version,
            "events": selectors.events_for_seat(table, number, after),
        }
        return Response(EventLogSerializer(log).data)


class RecordView(APIView):
    def perform_content_negotiation(self, request, force=False):
        # The record is text/plain whatever the client accepts; errors stay JSON.
        return super().perform_content_negotiation(request, force=True)

    @extend_schema(
        responses={
            (200, "text/plain"): OpenApiResponse(
                OpenApiTypes.STR, description="JSON Lines engine record"
            ),
            **ERRORS,
        },
        summary="The match record (complete once the match is over; finished hands before)",
    )
    def get(self, request, code):
        table = get_table(code)
        if selectors.table_hidden(request.user, table):
            raise NotFound(f"no table {code!r}")  # as an unknown code (a live duplicate round)
        if not selectors.may_read_record(request.user, table):
            raise NotYourSeat("only the table's players read its record")
        response = HttpResponse(
            selectors.record_text(table), content_type="text/plain; charset=utf-8"
        )
        response["Content-Disposition"] = f'inline; filename="dekabes-{table.code}.jsonl"'
        return response


class WatchableView(APIView):
    @extend_schema(
        request=WatchableSerializer,
        responses={200: WatchableSerializer, **ERRORS},
        summary="The owner lets anyone holding the table's code watch it (casual tables)",
    )
    def post(self, request, code):
        data = strict(WatchableSerializer, request)
        state = services.do_set_watchable(
            user=request.user, table=get_table(code), on=data["watchable"]
        )
        return Response(WatchableSerializer({"watchable": state.watchable}).data)
