"""Accounts: registration, tokens, bot accounts (check_* validates, do_* writes).

Tokens: a key is shown once, when issued, and only its SHA-256 is stored
(``models.AccessToken``). A *named* device (or a bot) holds one token: a new key for it
revokes its previous one. The unnamed device ``"default"`` (a login or registration
that names none) never revokes anything: each such login is one more token, so a
client holding an earlier key keeps it. An account holds at most ``MAX_DEVICES`` tokens,
the oldest going first. Nothing ever hands out a key issued earlier.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import unicodedata
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import authenticate, password_validation
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, connection, transaction

from engine.bots import LEVELS
from server.accounts.models import AccessToken, Invite, User
from server.errors import (
    BadInvite,
    NotAuthenticated,
    NotFound,
    PermissionDenied,
    QuotaExceeded,
    RegistrationClosed,
    UsernameTaken,
    ValidationError,
    WrongPassword,
)

NAME_MAX = 40  # characters in an account name
USERNAME_RE = re.compile(r"\A[A-Za-z0-9_.-]{3,40}\Z")
DEVICE_RE = re.compile(r"\A[A-Za-z0-9_. -]{1,40}\Z")
DEFAULT_DEVICE = "default"  # the unnamed device: its tokens accumulate
BOT_DEVICE = "bot"  # the device of a bot's token issued through the API
HOST_DEVICE = "host"  # the device of a hosted player's token, held by the host process
MAX_DEVICES = 20  # tokens per account: the oldest goes when a 21st is issued


@dataclass(frozen=True)
class TokenGrant:
    """A key just issued (shown to its holder this once), for ``device`` of ``user``."""

    user: User
    key: str
    device: str


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


# -- names and passwords -------------------------------------------------------------------
def check_username(username: str) -> None:
    if not USERNAME_RE.match(username):
        raise ValidationError("a name is 3-40 letters, digits or . _ -")
    if User.objects.filter(username__iexact=username).exists():
        raise UsernameTaken(name=username)


def check_password(password: str, username: str) -> None:
    try:
        password_validation.validate_password(password, User(username=username))
    except DjangoValidationError as err:
        raise ValidationError(" ".join(err.messages)) from None


def check_device(name: str) -> None:
    if not DEVICE_RE.match(name):
        raise ValidationError("a device name is 1-40 letters, digits, spaces or . _ -")


# -- tokens -------------------------------------------------------------------------------
def issue_token(user: User, device: str = DEFAULT_DEVICE) -> str:
    """A new key for ``user`` on ``device``. A named device's previous key stops working;
    the unnamed ``"default"`` device keeps its earlier keys (the oldest of the account's
    keys goes past ``MAX_DEVICES``)."""
    check_device(device)
    key = secrets.token_hex(20)
    with transaction.atomic():
        if device != DEFAULT_DEVICE:
            AccessToken.objects.filter(user=user, name=device).delete()
        stale = AccessToken.objects.filter(user=user).order_by("-created_at", "-id")[
            MAX_DEVICES - 1 :
        ]
        AccessToken.objects.filter(pk__in=[t.pk for t in stale]).delete()
        AccessToken.objects.create(user=user, name=device, key_hash=key_hash(key))
    return key


def grant_token(*, user: User, device: str | None = None) -> TokenGrant:
    """``issue_token`` as an answer: the account, the new key and its device."""
    device = DEFAULT_DEVICE if device is None else device
    return TokenGrant(user, issue_token(user, device), device)


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


def token_owner_ids(keys) -> dict[str, int]:
    """Of these keys, those still valid (the token not revoked, its account active), each
    with its account's id: one query per 500 keys (a process's seat sockets at a ping
    round: ``server.sockets.pings``)."""
    digests = {key_hash(key): key for key in keys}
    found: dict[str, int] = {}
    listed = list(digests)
    for start in range(0, len(listed), 500):
        rows = AccessToken.objects.filter(
            key_hash__in=listed[start : start + 500], user__is_active=True
        ).values_list("key_hash", "user_id")
        found.update((digests[digest], user_id) for digest, user_id in rows)
    return found


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


def do_logout(*, token: AccessToken) -> None:
    AccessToken.objects.filter(pk=token.pk).delete()


def do_rotate(*, token: AccessToken) -> TokenGrant:
    """A new key for the same account and device; the key sent stops working at once
    (only that one: the unnamed device's other keys stay)."""
    with transaction.atomic():
        AccessToken.objects.filter(pk=token.pk).delete()
        return grant_token(user=token.user, device=token.name)


def do_revoke(*, user: User, token_id: int) -> None:
    deleted, _ = AccessToken.objects.filter(user=user, pk=token_id).delete()
    if not deleted:
        raise NotFound("you have no token with that id")


def do_change_password(
    *, user: User, current: AccessToken, password: str, new_password: str
) -> int:
    """Set a new password; every other token of the account is revoked (returns how many)."""
    old, new = password, new_password
    if not user.has_usable_password() or not user.check_password(old):
        raise WrongPassword()
    check_password(new, user.username)
    user.set_password(new)  # hash before the transaction: it holds the write lock
    with transaction.atomic():
        user.save(update_fields=["password"])
        revoked, _ = AccessToken.objects.filter(user=user).exclude(pk=current.pk).delete()
    return revoked


def do_rotate_bot_token(*, owner: User, bot_name: str) -> TokenGrant:
    """The owner's bot gets one new key; all its earlier keys stop working."""
    bot = User.objects.filter(username=bot_name, is_bot=True, bot_owner=owner).first()
    if bot is None:
        raise NotFound(f"you own no bot named {bot_name!r}")
    with transaction.atomic():
        AccessToken.objects.filter(user=bot).delete()
        return grant_token(user=bot, device=BOT_DEVICE)


def do_revoke_bot_tokens(*, owner: User, bot_name: str) -> int:
    """Every key of the owner's bot stops working (how many); a new one: rotate."""
    bot = User.objects.filter(username=bot_name, is_bot=True, bot_owner=owner).first()
    if bot is None:
        raise NotFound(f"you own no bot named {bot_name!r}")
    deleted, _ = AccessToken.objects.filter(user=bot).delete()
    return deleted


# -- registration and login ---------------------------------------------------------------
def check_registration_open(invite: str | None) -> Invite | None:
    mode = settings.DEKABES_REGISTRATION
    if mode == "open":
        return None
    if mode == "invite" and invite:
        found = Invite.objects.filter(code_hash=key_hash(invite), used_by__isnull=True).first()
        if found is not None:
            return found
        raise BadInvite()
    raise RegistrationClosed(
        "registration is by invite: ask the club's operator for a code"
        if mode == "invite"
        else None
    )


DISPLAY_NAME_MAX = 40


def clean_display_name(name: str) -> str:
    """The name others see: letters of any alphabet, marks, digits, spaces and . _ - '
    (1 to 40 characters, spaces collapsed); empty: the username is shown."""
    name = " ".join(unicodedata.normalize("NFC", name or "").split())
    if len(name) > DISPLAY_NAME_MAX:
        raise ValidationError(f"a display name has at most {DISPLAY_NAME_MAX} characters")
    for char in name:
        if not (char.isalnum() or char in " ._-'" or unicodedata.category(char).startswith("M")):
            raise ValidationError(
                f"a display name has no {char!r}: letters, digits, spaces, . _ - '"
            )
    return name


def do_set_display_name(*, user: User, display_name: str) -> User:
    user.display_name = clean_display_name(display_name)
    user.save(update_fields=["display_name"])
    return user


def do_register(
    *, username: str, password: str, invite: str | None = None, display_name: str = ""
) -> User:
    check_username(username)
    check_password(password, username)
    display_name = clean_display_name(display_name)
    found = check_registration_open(invite)
    user = User(username=username, display_name=display_name)
    user.set_password(password)  # hash before the transaction: it holds the write lock
    try:
        with transaction.atomic():
            user.save()
            if found is not None and not Invite.objects.filter(
                pk=found.pk, used_by__isnull=True
            ).update(used_by=user):
                raise BadInvite()
            return user
    except IntegrityError:
        raise UsernameTaken(name=username) from None


def new_invite() -> str:
    code = secrets.token_urlsafe(12)
    Invite.objects.create(code_hash=key_hash(code))
    return code


def do_login(*, username: str, password: str) -> User:
    user = authenticate(username=username, password=password)
    if user is None or not user.is_active:
        raise NotAuthenticated("wrong name or password")
    return user


# -- bots ---------------------------------------------------------------------------------
def check_bot_quota(owner: User) -> None:
    limit = settings.DEKABES_MAX_BOTS
    if owner.bots.count() >= limit:
        raise QuotaExceeded(f"a member owns at most {limit} bots")


def do_create_bot(*, name: str, owner: User | None) -> User:
    if owner is not None and owner.is_bot:
        raise PermissionDenied("a bot cannot register bots")
    check_username(name)
    if owner is not None:
        check_bot_quota(owner)
    bot = User(username=name, is_bot=True, bot_owner=owner)
    bot.set_unusable_password()
    try:
        with transaction.atomic():
            bot.save()
    except IntegrityError:
        raise UsernameTaken(name=name) from None
    return bot


def do_create_hosted_bot(*, name: str, level: str) -> User:
    """A server-hosted computer player: a house bot (no owner, so it is a person of its
    own at a rated table) that the server's host process plays at ``level``."""
    if level not in LEVELS:
        raise ValidationError(f"a level is one of {', '.join(LEVELS)}")
    check_username(name)
    bot = User(username=name, is_bot=True, bot_owner=None, hosted_level=level)
    bot.set_unusable_password()
    try:
        with transaction.atomic():
            bot.save()
    except IntegrityError:
        raise UsernameTaken(name=name) from None
    return bot


def do_register_bot(*, owner: User, name: str) -> TokenGrant:
    """A bot account owned by ``owner``, with its first key (device ``"bot"``)."""
    with transaction.atomic():
        bot = do_create_bot(name=name, owner=owner)
        return grant_token(user=bot, device=BOT_DEVICE)
