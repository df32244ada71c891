"""Signals other apps use to follow tables without the tables app knowing them.

``match_ended`` is sent inside the transaction of the event that ended the match (the
last hand's consequences are already appended) or annulled it, so a receiver's writes
commit or roll back together with that event.
"""

from django.dispatch import Signal

match_ended = Signal()  # kwargs: table, state (TableState), annulled (bool)
