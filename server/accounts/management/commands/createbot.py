from django.core.management.base import BaseCommand, CommandError

from server.accounts.models import User
from server.accounts.services import do_create_bot, token_for
from server.errors import ApiError


class Command(BaseCommand):
    help = "Create a house bot account (or find the existing one) and print its token."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--owner", help="username of the member who owns the bot")

    def handle(self, *args, name, owner=None, **options):
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
                bot = do_create_bot(name, owner_user)
            except ApiError as err:
                raise CommandError(err.message) from None
        self.stdout.write(token_for(bot))
