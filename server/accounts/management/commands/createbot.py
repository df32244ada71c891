from django.core.management.base import BaseCommand, CommandError

from server.accounts.models import User
from server.accounts.services import do_create_bot, issue_token
from server.errors import ApiError


class Command(BaseCommand):
    help = (
        "Create a house bot account (or find the existing one) and print a new token for "
        "it. Tokens are stored hashed, so each run issues a new one for --device (default "
        "'createbot'); that device's previous token stops working, others keep working."
    )

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--owner", help="username of the member who owns the bot")
        parser.add_argument("--device", default="createbot", help="the token's name")

    def handle(self, *args, name, owner=None, device="createbot", **options):
        existing = User.objects.filter(username=name).first()
        if existing is not None:
            if not existing.is_bot:
                raise CommandError(f"{name!r} is a member account, not a bot")
            bot = existing
        else:
            owner_user = User.objects.filter(username=owner).first() if owner else None
            if owner and owner_user is None:
                raise CommandError(f"no member named {owner!r}")
            try:
                bot = do_create_bot(name=name, owner=owner_user)
            except ApiError as err:
                raise CommandError(err.message) from None
        try:
            self.stdout.write(issue_token(bot, device))
        except ApiError as err:
            raise CommandError(err.message) from None
