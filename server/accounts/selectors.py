"""Reads of accounts. Nothing here writes."""

from __future__ import annotations

from django.db.models import QuerySet

from server.accounts.models import AccessToken, User


def tokens_of(user: User) -> QuerySet[AccessToken]:
    """The account's tokens, oldest first (their keys are never stored)."""
    return AccessToken.objects.filter(user=user).order_by("created_at", "id")


def bots_of(owner: User) -> QuerySet[User]:
    return owner.bots.select_related("bot_owner").order_by("username")
