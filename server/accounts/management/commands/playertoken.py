from django.core.management.base import BaseCommand, CommandError

from server.accounts.models import User
from server.accounts.services import check_username, issue_token
from server.errors import ApiError


class Command(BaseCommand):
    help = (
        "Create a member account without a password (or find it) and print a new token "
        "for it: the local player of `make play` signs in with it, from this machine only. "
        "Each run replaces the token of --device (default 'playertoken')."
    )

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--device", default="playertoken", help="the token's name")

    def handle(self, *args, name, device="playertoken", **options):
        user = User.objects.filter(username=name).first()
        try:
            if user is None:
                check_username(name)
                user = User(username=name, is_bot=False)
                user.set_unusable_password()  # no password login: the token is the key
                user.save()
            elif user.is_bot:
                raise CommandError(f"{name!r} is a bot account, not a member")
            self.stdout.write(issue_token(user, device))
        except ApiError as err:
            raise CommandError(err.message) from None
