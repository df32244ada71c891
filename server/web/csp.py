"""The Content-Security-Policy of the site: every page's scripts and styles are the
server's own static files, so nothing inline runs or applies (``json_script`` data blocks
are not scripts). The API's interactive docs (drf-spectacular's Swagger UI, with its own
inline script) are the one exception: ``/api/docs/`` gets no policy from here."""

from __future__ import annotations

POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
EXEMPT = ("/api/docs/",)


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if not request.path.startswith(EXEMPT):
            response.headers.setdefault("Content-Security-Policy", POLICY)
        return response
