from django.core.management.base import BaseCommand, CommandError

from server.accounts.models import User


class Command(BaseCommand):
    help = (
        "Make an account one of the server's operators (staff: the status page /status), "
        "or no longer (--remove); without a name, list them."
    )

    def add_arguments(self, parser):
        parser.add_argument("username", nargs="?")
        parser.add_argument("--remove", action="store_true")

    def handle(self, *args, **options):
        name = options["username"]
        if name is None:
            for operator in User.objects.filter(is_staff=True).order_by("username"):
                self.stdout.write(operator.username)
            return
        user = User.objects.filter(username__iexact=name, is_bot=False, is_active=True).first()
        if user is None:
            raise CommandError(f"no member {name!r}")
        user.is_staff = not options["remove"]
        user.save(update_fields=["is_staff"])
        self.stdout.write(
            f"{user.username}: {'an operator' if user.is_staff else 'not an operator'}"
        )
