"""Accounts: registration, tokens, bot accounts (check_* validates, do_* writes).

Tokens: one per device (or per bot), named; a key is shown once, when issued, and
only its SHA-256 is stored (``models.AccessToken``). Logging in issues a new key for
the named device and revokes that device's previous one; it never hands out a key
issued earlier.
"""

from __future__ import annotations

import hashlib
import re
import secrets

from django.conf import settings
from django.contrib.auth import authenticate, password_validation
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction

from server.accounts.models import AccessToken, Invite, User
from server.errors import ApiError, not_found, validation_error

USERNAME_RE = re.compile(r"\A[A-Za-z0-9_.-]{3,40}\Z")
DEVICE_RE = re.compile(r"\A[A-Za-z0-9_. -]{1,40}\Z")
DEFAULT_DEVICE = "default"
MAX_DEVICES = 20  # per account: the oldest token goes when a 21st is issued


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


# -- names and passwords -------------------------------------------------------------------
def check_username(username: str) -> None:
    if not USERNAME_RE.match(username):
        raise validation_error("a name is 3-40 letters, digits or . _ -")
    if User.objects.filter(username__iexact=username).exists():
        raise ApiError("username_taken", f"the name {username!r} is taken", 409)


def check_password(password: str, username: str) -> None:
    try:
        password_validation.validate_password(password, User(username=username))
    except ValidationError as err:
        raise validation_error(" ".join(err.messages)) from None


def check_device(name: str) -> None:
    if not DEVICE_RE.match(name):
        raise validation_error("a device name is 1-40 letters, digits, spaces or . _ -")


# -- tokens -------------------------------------------------------------------------------
def issue_token(user: User, device: str = DEFAULT_DEVICE) -> str:
    """A new key for ``user`` on ``device``; that device's previous key stops working."""
    check_device(device)
    key = secrets.token_hex(20)
    with transaction.atomic():
        AccessToken.objects.filter(user=user, name=device).delete()
        stale = AccessToken.objects.filter(user=user).order_by("-created_at", "-id")[
            MAX_DEVICES - 1 :
        ]
        AccessToken.objects.filter(pk__in=[t.pk for t in stale]).delete()
        AccessToken.objects.create(user=user, name=device, key_hash=key_hash(key))
    return key


# Every authenticated request runs this: one statement on the unique key_hash index,
# as plain SQL, and the account built from its row the way Django's own fast path does
# (``Model.from_db``), without an ORM or raw() query compiled per request. Nothing is
# cached across requests: a revoked or rotated key fails on the very next request, in
# every server process.
_USER_FIELDS = User._meta.concrete_fields
_TOKEN_OWNER = (
    "SELECT "
    + ", ".join(f"u.{f.column}" for f in _USER_FIELDS)
    + f", t.id, t.name, t.created_at FROM {User._meta.db_table} u"
    f" JOIN {AccessToken._meta.db_table} t ON t.user_id = u.id WHERE t.key_hash = %s"
)


def _column_converters() -> list:
    """Per account column, what turns the driver's value into the model's (SQLite gives
    datetimes as text and booleans as 0/1; PostgreSQL's driver already answers both)."""
    if connection.vendor != "sqlite":
        return [None] * len(_USER_FIELDS)

    def to_datetime(value):
        return connection.ops.convert_datetimefield_value(value, None, connection)  # type: ignore[attr-defined]  # SQLite's ops only

    kinds = {"DateTimeField": to_datetime, "BooleanField": bool}
    return [kinds.get(f.get_internal_type()) for f in _USER_FIELDS]


def token_owner(key: str) -> tuple[User, AccessToken] | None:
    """The active account a key belongs to, and its token row; None for a bad key."""
    digest = key_hash(key)
    with connection.cursor() as cursor:
        cursor.execute(_TOKEN_OWNER, [digest])
        row = cursor.fetchone()
    if row is None:
        return None
    converters = _column_converters()
    values = [
        value if convert is None or value is None else convert(value)
        for convert, value in zip(converters, row[: len(_USER_FIELDS)], strict=True)
    ]
    user = User.from_db(connection.alias, None, values)  # type: ignore[arg-type]  # None: all fields, in order (Django's documented use)
    if not user.is_active:
        return None
    token_id, token_name, created_at = row[len(_USER_FIELDS) :]
    if connection.vendor == "sqlite":  # a naive datetime: made aware as the ORM does
        created_at = connection.ops.convert_datetimefield_value(created_at, None, connection)  # type: ignore[attr-defined]  # SQLite's ops only
    token = AccessToken.from_db(
        connection.alias,
        ["id", "user_id", "name", "key_hash", "created_at"],
        [token_id, user.pk, token_name, digest, created_at],
    )
    token.user = user
    return user, token


def do_logout(token: AccessToken) -> None:
    AccessToken.objects.filter(pk=token.pk).delete()


def do_rotate(token: AccessToken) -> str:
    """A new key for the same account and device; the old key stops working at once."""
    return issue_token(token.user, token.name)


def tokens_of(user: User, current: AccessToken | None) -> list[dict]:
    return [
        {
            "id": t.pk,
            "device": t.name,
            "created_at": t.created_at.isoformat(),
            "current": current is not None and t.pk == current.pk,
        }
        for t in AccessToken.objects.filter(user=user)
    ]


def do_revoke(user: User, token_id: int) -> None:
    deleted, _ = AccessToken.objects.filter(user=user, pk=token_id).delete()
    if not deleted:
        raise not_found("you have no token with that id")


def do_change_password(user: User, current: AccessToken, old: str, new: str) -> int:
    """Set a new password; every other token of the account is revoked (returns how many)."""
    if not user.has_usable_password() or not user.check_password(old):
        raise ApiError("wrong_password", "the current password is wrong", 403)
    check_password(new, user.username)
    user.set_password(new)  # hash before the transaction: it holds the write lock
    with transaction.atomic():
        user.save(update_fields=["password"])
        revoked, _ = AccessToken.objects.filter(user=user).exclude(pk=current.pk).delete()
    return revoked


def do_rotate_bot_token(owner: User, bot_name: str) -> tuple[User, str]:
    """The owner's bot gets one new key; all its earlier keys stop working."""
    bot = User.objects.filter(username=bot_name, is_bot=True, bot_owner=owner).first()
    if bot is None:
        raise not_found(f"you own no bot named {bot_name!r}")
    with transaction.atomic():
        AccessToken.objects.filter(user=bot).delete()
        key = issue_token(bot, "bot")
    return bot, key


# -- registration and login ---------------------------------------------------------------
def check_registration_open(invite: str | None) -> Invite | None:
    mode = settings.DEKABES_REGISTRATION
    if mode == "open":
        return None
    if mode == "invite" and invite:
        found = Invite.objects.filter(code_hash=key_hash(invite), used_by__isnull=True).first()
        if found is not None:
            return found
        raise ApiError("bad_invite", "that invite code is unknown or used", 403)
    raise ApiError(
        "registration_closed",
        "registration is by invite: ask the club's operator for a code"
        if mode == "invite"
        else "registration is closed on this server",
        403,
    )


def do_register(username: str, password: str, invite: str | None = None) -> User:
    check_username(username)
    check_password(password, username)
    found = check_registration_open(invite)
    user = User(username=username)
    user.set_password(password)  # hash before the transaction: it holds the write lock
    try:
        with transaction.atomic():
            user.save()
            if found is not None and not Invite.objects.filter(
                pk=found.pk, used_by__isnull=True
            ).update(used_by=user):
                raise ApiError("bad_invite", "that invite code is unknown or used", 403)
            return user
    except IntegrityError:
        raise ApiError("username_taken", f"the name {username!r} is taken", 409) from None


def new_invite() -> str:
    code = secrets.token_urlsafe(12)
    Invite.objects.create(code_hash=key_hash(code))
    return code


def do_login(username: str, password: str) -> User:
    user = authenticate(username=username, password=password)
    if user is None or not user.is_active:
        raise ApiError("not_authenticated", "wrong name or password", 401)
    return user


# -- bots ---------------------------------------------------------------------------------
def check_bot_quota(owner: User) -> None:
    limit = settings.DEKABES_MAX_BOTS
    if owner.bots.count() >= limit:
        raise ApiError("quota_exceeded", f"a member owns at most {limit} bots", 403)


def do_create_bot(name: str, owner: User | None) -> User:
    if owner is not None and owner.is_bot:
        raise ApiError("permission_denied", "a bot cannot register bots", 403)
    check_username(name)
    if owner is not None:
        check_bot_quota(owner)
    bot = User(username=name, is_bot=True, bot_owner=owner)
    bot.set_unusable_password()
    try:
        with transaction.atomic():
            bot.save()
    except IntegrityError:
        raise ApiError("username_taken", f"the name {name!r} is taken", 409) from None
    return bot


def account_json(user: User, token: str | None = None, device: str | None = None) -> dict:
    data = {
        "id": user.id,
        "username": user.username,
        "is_bot": user.is_bot,
        "owner": user.bot_owner.username if user.bot_owner is not None else None,
    }
    if token is not None:
        data["token"] = token
        data["device"] = device
    return data
