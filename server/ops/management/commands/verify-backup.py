# `manage.py verify-backup FILE`: the same command as verify_backup, under the name the
# issue and the docs of other projects use (Django finds a command by its file's name).
from server.ops.management.commands.verify_backup import Command

__all__ = ["Command"]
