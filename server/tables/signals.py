"""Signals other apps use to follow tables without the tables app knowing them.

``match_ended`` is sent inside the transaction of the event that ended the match (the
last hand's consequences are already appended) or annulled it, so a receiver's writes
commit or roll back together with that event.
"""

from django.dispatch import Signal

match_ended = Signal()  # kwargs: table, state (TableState), annulled (bool)

# Who may read a table's answer (``GET /api/tables/{code}``) beyond its owner and players:
# every rule registered here must agree (the league registers the rule of its clubs: a
# members club's table is read by its members only). A rule is ``(user, table) -> bool``.
table_read_rules: list = []

# Tables that, to a reader holding none of their seats, do not exist: every read of such a
# table by anyone else (its owner included) answers as an unknown code does. The league
# registers a duplicate round's tables while the round is played (docs/league.md,
# "Duplicate rounds"). A rule is ``(user, table) -> bool``: True hides the table.
table_hidden_rules: list = []

# Seats another app offers beyond the table's own join rules (``services.do_join``): the
# matchmaking app offers the open seats of a seek to whoever it admits. A rule is
# ``(user, table, seat) -> bool``, run under the seat's lock once the seat is known to be
# free: True admits ``user`` whatever the seat's kind and the bot-owner rule (the seat
# takes the joiner's kind); a rule may refuse with a refusal of ``server.errors``.
seat_offer_rules: list = []

# A seat was taken with ``/join`` (kwargs: table, seat (number), user): sent inside the
# join's transaction, so a receiver's writes commit with the seat.
seat_joined = Signal()
