"""The second step of a click that cannot be undone (issue #33): the same form posted
again with ``confirm=yes`` after a page that names what will happen. No JavaScript: the
first POST (without ``confirm``) answers the confirmation page, whose form repeats the
fields and adds ``confirm=yes``; only that POST acts. The caller checks who may act
before either step, so the confirmation page itself is an organizer's only."""

from __future__ import annotations

from collections.abc import Iterable

from django.shortcuts import render
from django_stubs_ext import StrOrPromise

CONFIRM_FIELD = "confirm"


def confirmed(request) -> bool:
    """Whether this POST is the second step (the confirmation page's button)."""
    return request.POST.get(CONFIRM_FIELD) == "yes"


def confirmation_page(
    request,
    *,
    title: StrOrPromise,
    what_happens: Iterable[StrOrPromise],
    button: StrOrPromise,
    cancel: str,
    fields: dict[str, str] | None = None,
    choices: Iterable[tuple[str, StrOrPromise]] = (),
    club=None,
):
    """The confirmation page: ``title`` (a question), the sentences of ``what_happens``,
    the form repeating ``fields`` (default: the first POST's own) with ``button``, and a
    way back (``cancel``). ``choices``: optional check boxes (name, label), unticked."""
    if fields is None:
        fields = {
            k: v for k, v in request.POST.items() if k not in ("csrfmiddlewaretoken", CONFIRM_FIELD)
        }
    return render(
        request,
        "web/confirm.html",
        {
            "title": title,
            "what_happens": list(what_happens),
            "button": button,
            "cancel": cancel,
            "fields": fields,
            "choices": list(choices),
            "action": request.path,
            "club": club,
        },
    )
