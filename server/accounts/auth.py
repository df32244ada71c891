from rest_framework import authentication


class TokenAuthentication(authentication.TokenAuthentication):
    """``Authorization: Token <key>``; a bad token answers 401 ``not_authenticated``."""

    keyword = "Token"
