"""Accounts: registration, tokens, bot accounts (check_* validates, do_* writes)."""

from __future__ import annotations

import re

from django.contrib.auth import authenticate, password_validation
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from rest_framework.authtoken.models import Token

from server.accounts.models import User
from server.errors import ApiError, validation_error

USERNAME_RE = re.compile(r"\A[A-Za-z0-9_.-]{3,40}\Z")


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


def token_for(user: User) -> str:
    return Token.objects.get_or_create(user=user)[0].key


def do_register(username: str, password: str) -> User:
    check_username(username)
    check_password(password, username)
    try:
        with transaction.atomic():
            return User.objects.create_user(username=username, password=password)
    except IntegrityError:
        raise ApiError("username_taken", f"the name {username!r} is taken", 409) from None


def do_login(username: str, password: str) -> User:
    user = authenticate(username=username, password=password)
    if user is None or not user.is_active:
        raise ApiError("not_authenticated", "wrong name or password", 401)
    return user


def do_create_bot(name: str, owner: User | None) -> User:
    if owner is not None and owner.is_bot:
        raise ApiError("permission_denied", "a bot cannot register bots", 403)
    check_username(name)
    bot = User(username=name, is_bot=True, bot_owner=owner)
    bot.set_unusable_password()
    try:
        with transaction.atomic():
            bot.save()
    except IntegrityError:
        raise ApiError("username_taken", f"the name {name!r} is taken", 409) from None
    return bot


def account_json(user: User, with_token: bool = False) -> dict:
    data = {"id": user.id, "username": user.username, "is_bot": user.is_bot,
            "owner": user.bot_owner.username if user.bot_owner_id else None}
    if with_token:
        data["token"] = token_for(user)
    return data
