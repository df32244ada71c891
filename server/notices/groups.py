def table_group(table_id: int) -> str:
    """Connections of the table's players; each one forwards only its own seats' views."""
    return f"table-{table_id}"


def account_group(user_id: int) -> str:
    """Every lobby connection of one account (told when its league tables change)."""
    return f"account-{user_id}"


def spectate_group(table_id: int) -> str:
    """Spectator connections of a table: all get the same public frame."""
    return f"spectate-{table_id}"


def club_group(club_id: int) -> str:
    """The web pages of one club waiting for its next change (a round started, a match
    over): ``/clubs/<slug>/live`` long-polls (docs/web.md "Live pages")."""
    return f"club-{club_id}"


def seeks_group() -> str:
    """Everyone long-polling the open seats (``GET /api/tables/open``): told when a seek
    opens or closes (docs/api.md, "Open seats")."""
    return "seeks"


def challenges_group(user_id: int) -> str:
    """One account's long-polls of its challenges (``GET /api/challenges``): told when a
    challenge to or by it is made, answered or closed."""
    return f"challenges-{user_id}"


def rejoin_seconds(layer) -> float:
    """How often a listener that stays in a group joins it again (the sockets' hubs, the
    long-polls'): four times per the layer's ``group_expiry`` (a day by default; at most
    every hour). Both layers drop a member that joined longer ago than that."""
    return min(3600.0, getattr(layer, "group_expiry", 86400) / 4)
