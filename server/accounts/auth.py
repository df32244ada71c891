from rest_framework import authentication, exceptions


class TokenAuthentication(authentication.TokenAuthentication):
    """``Authorization: Token <key>``; a bad or revoked key answers 401 ``not_authenticated``.

    ``request.auth`` is the ``AccessToken`` row, so logout and rotate know which key was used.
    """

    keyword = "Token"

    def authenticate_credentials(self, key):
        # Imported here: DRF loads this class while rest_framework.views is half-imported.
        from server.accounts.services import token_owner

        found = token_owner(key)
        if found is None:
            raise exceptions.AuthenticationFailed("invalid token")
        return found


class PageSessionAuthentication(authentication.SessionAuthentication):
    """The signed-in site session, for the browser table's calls to the seat endpoints
    (issue #32): the page holds no API token. Every unsafe request so authenticated must
    carry the page's CSRF token (``X-CSRFToken``) and, when it sends ``Origin``, come from
    this site (Django's CSRF check): another site's page can make the browser send the
    session cookie, never the token, so it cannot act. A refusal is ``403 csrf_failed``
    and changes nothing. Reads need no token: a foreign page cannot read the answer
    (same-origin policy; the API sends no CORS headers)."""

    def enforce_csrf(self, request):
        from server.errors import CsrfFailed

        try:
            super().enforce_csrf(request)
        except exceptions.PermissionDenied as refused:
            raise CsrfFailed(str(refused.detail)) from None


# The seat endpoints the browser table calls: a token (programs) or the site's session.
TOKEN_OR_PAGE_SESSION = [TokenAuthentication, PageSessionAuthentication]
