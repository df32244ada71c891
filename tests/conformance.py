"""Every API answer the suite receives is checked against the served OpenAPI schema.

Installed for the whole session by ``tests/conftest.py``: it wraps Django's test client
(``django.test.Client``, which DRF's ``APIClient`` calls) and ``requests.Session.send``
(the SDK, the bots in-process and every test that talks to a live server), and checks
each ``/api/`` answer with schemathesis' own response check against ``/api/schema/``:
a status the operation does not declare, an undeclared field (the schema's answer
objects are closed, ``additionalProperties: false``), a missing required field or a
wrong type is a violation. A test that received one fails at its teardown, naming the
request and what is wrong.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

import requests

SKIPPED_PREFIXES = ("/api/schema/", "/api/docs/")


@dataclass(frozen=True)
class Answer:
    method: str
    path: str
    status: int
    headers: dict[str, list[str]]
    content: bytes


@dataclass(frozen=True)
class Violation:
    answer: Answer
    problem: str

    def __str__(self) -> str:
        body = self.answer.content[:300].decode("utf-8", "replace")
        return (
            f"{self.answer.method} {self.answer.path} -> {self.answer.status}: "
            f"{self.problem}\n    body: {body}"
        )


class Checker:
    """Checks answers against the schema, which it reads once (lazily) from ``load``."""

    def __init__(self, load: Callable[[], dict]):
        self._load = load
        self._schema = None
        self._lock = threading.Lock()
        self.violations: list[Violation] = []
        self.checked = 0
        self._reported = 0
        self.enabled = True  # off while a test talks to a stand-in server of its own

    @property
    def schema(self):
        with self._lock:
            if self._schema is None:
                import schemathesis

                self._schema = schemathesis.openapi.from_dict(self._load())
            return self._schema

    def problems(self, answer: Answer) -> list[str]:
        """What is wrong with ``answer`` (empty: it conforms)."""
        from schemathesis import Response
        from schemathesis.core.failures import FailureGroup

        operation = self.schema.find_operation_by_path(answer.method, answer.path)
        if operation is None:
            # An unknown path or method: only the generic refusals may answer it.
            if answer.status in (404, 405):
                return []
            return [f"no operation {answer.method} {answer.path} in the schema"]
        if operation.responses.find_by_status_code(answer.status) is None:
            return [f"status {answer.status} is not declared for {operation.label}"]
        request = requests.Request(answer.method, "http://testserver" + answer.path).prepare()
        response = Response(
            status_code=answer.status,
            headers=answer.headers,
            content=answer.content,
            request=request,
            elapsed=0.0,
            verify=False,
        )
        try:
            operation.validate_response(response)
        except FailureGroup as group:
            return [_describe(failure) for failure in group.exceptions]
        except AssertionError as failure:  # one failure alone is raised as itself
            return [_describe(failure)]
        return []

    def check(self, answer: Answer) -> None:
        if not self.enabled:
            return
        if not answer.path.startswith("/api/") or answer.path.startswith(SKIPPED_PREFIXES):
            return
        found = self.problems(answer)
        with self._lock:
            self.checked += 1
            self.violations.extend(Violation(answer, problem) for problem in found)

    def take_new(self) -> list[Violation]:
        """The violations found since the last call (so that one made while a shared
        fixture was being set up is charged to the test that needed it)."""
        with self._lock:
            new, self._reported = self.violations[self._reported :], len(self.violations)
            return new


def _describe(failure) -> str:
    """One line: where in the body, and what (not schemathesis' whole schema dump)."""
    raw = getattr(failure, "_raw_message", None)
    if raw is not None:
        where = "/".join(str(part) for part in failure.instance_path) or "(body)"
        return f"at {where}: {raw}"
    title = getattr(failure, "title", type(failure).__name__)
    return f"{title}: {str(getattr(failure, 'message', failure))[:300]}"


def _django_answer(method: str, path: str, response) -> Answer:
    headers = {name.lower(): [value] for name, value in response.items()}
    content = b"" if getattr(response, "streaming", False) else response.content
    return Answer(method.upper(), path, response.status_code, headers, content)


def _requests_answer(response: requests.Response) -> Answer:
    request = response.request
    path = urlsplit(request.url or "").path
    headers = {name.lower(): [value] for name, value in response.headers.items()}
    return Answer(
        (request.method or "GET").upper(), path, response.status_code, headers, response.content
    )


def install(checker: Checker) -> Callable[[], None]:
    """Wrap the two HTTP clients the suite uses; returns the function that unwraps them."""
    from django.test.client import Client

    django_request = Client.request
    session_send = requests.Session.send

    def request(self, **environ):
        response = django_request(self, **environ)
        checker.check(
            _django_answer(
                environ.get("REQUEST_METHOD", "GET"), environ.get("PATH_INFO", ""), response
            )
        )
        return response

    def send(self, prepared, **kwargs):
        response = session_send(self, prepared, **kwargs)
        if not kwargs.get("stream"):
            checker.check(_requests_answer(response))
        return response

    Client.request = request  # type: ignore[method-assign]
    requests.Session.send = send  # type: ignore[method-assign]

    def uninstall() -> None:
        Client.request = django_request  # type: ignore[method-assign]
        requests.Session.send = session_send  # type: ignore[method-assign]

    return uninstall


def served_schema() -> dict:
    """The document ``/api/schema/`` serves, read through Django's test client."""
    from django.test.client import Client

    response = Client(HTTP_HOST="127.0.0.1").get("/api/schema/", {"format": "json"})
    assert response.status_code == 200, response.content[:500]
    return json.loads(response.content)
