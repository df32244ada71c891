def seat_group(table_id: int, seat: int) -> str:
    """The channel-layer group of one seat: only its holder's connections join it."""
    return f"table-{table_id}-seat-{seat}"
