def table_group(table_id: int) -> str:
    """Connections of the table's players; each one forwards only its own seats' views."""
    return f"table-{table_id}"
