from django.core.management.base import BaseCommand, CommandError

from server.accounts.models import User
from server.accounts.services import check_username, token_for
from server.errors import ApiError


class Command(BaseCommand):
    help = ("Create a member account without a password (or find it) and print its token: "
            "the local player of `make play` signs in with it, from this machine only.")

    def add_arguments(self, parser):
        parser.add_argument("name")

    def handle(self, *args, name, **options):
        user = User.objects.filter(username=name).first()
        if user is None:
            try:
                check_username(name)
            except ApiError as err:
                raise CommandError(err.message) from None
            user = User(username=name, is_bot=False)
            user.set_unusable_password()      # no password login: the token is the key
            user.save()
        elif user.is_bot:
            raise CommandError(f"{name!r} is a bot account, not a member")
        self.stdout.write(token_for(user))
