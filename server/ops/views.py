"""``GET /healthz``: the server's health for monitors (server/ops/health.py)."""

from __future__ import annotations

from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from server.ops.health import health


@never_cache
@require_safe
def healthz(request):
    """JSON, 200 while every check is ok, warn or not configured; 503 when one fails.
    No sign-in: a monitor calls it; it holds nothing about any account or table."""
    answer = health()
    return JsonResponse(answer.as_json(), status=answer.http_status)
