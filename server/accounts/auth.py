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
