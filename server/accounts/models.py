"""Club members and bot accounts. A bot is a user flagged as a bot (like a Lichess BOT
account); a member may own bots, the house bots have no owner.

Credentials are ``AccessToken`` rows: one per device (or per bot), named, revocable,
stored as a SHA-256 of the key only. A key is 160 random bits, so a fast hash is
enough against a stolen database (a password-style slow hash would put ~0.3 s on
every request); the key itself is shown once, when it is issued.
"""

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models.functions import Lower


class User(AbstractUser):
    is_bot = models.BooleanField(default=False, help_text="plays bot seats through the API")
    bot_owner = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="bots",
        help_text="the member who registered this bot",
    )
    # A server-hosted computer player (docs/league.md, "Server-hosted computer players"):
    # an ownerless bot that the server's host process plays at this level
    # (``engine.bots.LEVELS``). Empty for every other account.
    hosted_level = models.CharField(
        max_length=8, blank=True, default="", help_text="a server-hosted player's level"
    )
    # The name others see on the pages, in any alphabet ("Фарид", "Añá"); the username
    # stays the login name and the name in addresses, the API and the records.
    display_name = models.CharField(
        max_length=40, blank=True, default="", help_text="the name others see (any alphabet)"
    )

    class Meta:
        constraints = [
            # "ABC" and "abc" are one name, also when registered at the same instant.
            models.UniqueConstraint(Lower("username"), name="username_unique_ignoring_case"),
        ]

    def __str__(self) -> str:
        return f"{self.username} (bot)" if self.is_bot else self.username

    @property
    def shown_name(self) -> str:
        """The name the pages show: the display name, else the username."""
        return self.display_name or self.username

    @property
    def is_house_bot(self) -> bool:
        """A bot of the club server itself (no owner): organizers enter these."""
        return self.is_bot and self.bot_owner_id is None

    @property
    def is_hosted(self) -> bool:
        """A house bot the server's host process plays (at ``hosted_level``)."""
        return self.is_house_bot and bool(self.hosted_level)


class AccessToken(models.Model):
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="access_tokens")
    name = models.CharField(max_length=40, help_text="the device or program holding it")
    key_hash = models.CharField(max_length=64, unique=True, help_text="sha256 hex of the key")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            # A named device holds one token; the unnamed one ("default") may hold several.
            models.UniqueConstraint(
                fields=["user", "name"],
                condition=~models.Q(name="default"),
                name="one_token_per_named_device",
            )
        ]
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.user.username}/{self.name}"


class Invite(models.Model):
    """A one-time registration code (``manage.py invite``), stored hashed like a token."""

    code_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    used_by = models.OneToOneField(
        User, null=True, blank=True, on_delete=models.SET_NULL, related_name="invite"
    )

    def __str__(self) -> str:
        return f"invite {self.pk}"  # never the code
