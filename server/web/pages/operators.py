"""The operators' status page: ``/healthz``'s facts with their details, the release, the
errors of the last day, the children's restarts (server/ops/health.py). Only accounts
flagged staff (``manage.py staff NAME``); anyone else gets the site's 404."""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from server.ops.health import operator_status


@never_cache
@require_GET
def status(request):
    if not (request.user.is_authenticated and request.user.is_staff and request.user.is_active):
        raise Http404
    return render(request, "web/status.html", {"status": operator_status()})
