"""Club members and bot accounts. A bot is a user flagged as a bot (like a Lichess BOT
account); a member may own bots, the house bots have no owner."""

from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    is_bot = models.BooleanField(default=False, help_text="plays bot seats through the API")
    bot_owner = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL,
                                  related_name="bots", help_text="the member who registered this bot")

    def __str__(self) -> str:
        return f"{self.username} (bot)" if self.is_bot else self.username
