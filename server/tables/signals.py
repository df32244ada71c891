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
