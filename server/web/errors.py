"""Error pages: the API keeps its JSON bodies (``{code, message}``); every other path
gets a page in the site's style. Never a traceback, whatever DEBUG says."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from server import errors


def _is_api(request) -> bool:
    return request.path.startswith("/api/")


def _page(request, status: int, title: str, message: str, *, back: bool = True):
    return render(
        request,
        "web/error.html",
        {
            "status": status,
            "title": title,
            "message": message,
            # set by refusals.league_pages: the readable club a refused page sits under
            "club_back": getattr(request, "club_back", None) if back else None,
        },
        status=status,
    )


def not_found(request, exception=None):
    if _is_api(request):
        return JsonResponse(
            errors.body_of(errors.NotFound, "no such resource"), status=errors.NotFound.status
        )
    return _page(
        request, 404, _("Page not found"), _("There is nothing here, or it is not visible to you.")
    )


def forbidden(request, exception=None):
    if _is_api(request):
        return JsonResponse(
            errors.body_of(errors.PermissionDenied, "forbidden"),
            status=errors.PermissionDenied.status,
        )
    # A league refusal carries its own (translated) explanation; see refusals.league_pages.
    message = (
        str(exception)
        if isinstance(exception, PermissionDenied) and str(exception)
        else _("Your account may not open this page.")
    )
    return _page(request, 403, _("Not allowed"), message)


def csrf_failure(request, reason=""):
    if _is_api(request):
        return JsonResponse(
            errors.body_of(errors.PermissionDenied, "CSRF check failed"),
            status=errors.PermissionDenied.status,
        )
    return _page(
        request,
        403,
        _("Form expired"),
        _(
            "The form was too old or came from another site. Go back, reload the page and try again."
        ),
    )


def server_error(request):
    if _is_api(request):
        return JsonResponse(errors.body_of(errors.ServerError), status=errors.ServerError.status)
    # No template context processors that could fail again: a plain render.
    return _page(
        request, 500, _("Server error"), _("The server failed. Try again in a moment."), back=False
    )


def bad_request(request, exception=None):
    if _is_api(request):
        # Django's own refusals (an unknown Host header, a body past the size limit).
        return JsonResponse(errors.body_of(errors.BadRequest), status=errors.BadRequest.status)
    return _page(request, 400, _("Bad request"), _("The server could not read this request."))
