"""Receipts keep the version their answer is at, no longer the whole answer.

A retried key is answered by the seat's answer at that version, built again from the
log (``services._replayed``); the whole answers stored so far (~4.6 KB each, most of a
club's database) are cut down to their version here, in one statement. The space they
held is reused by the rows written next (``VACUUM`` gives it back to the disk:
docs/server.md, "Receipts"). Backwards it changes nothing: the whole answers are gone,
and an older release cannot answer a retry from a version alone. An upgrade's rollback
restores the backup taken before it (``manage.py upgrade``), which holds them."""

from django.db import migrations

SQLITE = (
    "UPDATE tables_event SET receipt = '{\"version\":' || json_extract(receipt, '$.version')"
    " || '}' WHERE receipt IS NOT NULL AND json_type(receipt, '$.view') IS NOT NULL"
)
POSTGRESQL = (
    "UPDATE tables_event SET receipt = '{\"version\":' || (receipt::jsonb ->> 'version')"
    " || '}' WHERE receipt IS NOT NULL AND (receipt::jsonb -> 'view') IS NOT NULL"
)


def receipts_as_versions(apps, schema_editor):
    sql = SQLITE if schema_editor.connection.vendor == "sqlite" else POSTGRESQL
    schema_editor.execute(sql)


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0005_event_table_index"),
    ]

    operations = [
        migrations.RunPython(receipts_as_versions, migrations.RunPython.noop),
    ]
