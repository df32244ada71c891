"""A seat's k-th holder in its own column: rows written before kept seat + 4k in
``seat`` (seat 3's second holder: 7); they are split into ``seat`` and ``holding``."""

from django.conf import settings
from django.db import migrations, models


def split_seat(apps, schema_editor):
    SeatAccuracy = apps.get_model("league", "SeatAccuracy")
    for row in SeatAccuracy.objects.filter(seat__gt=4):
        row.seat, row.holding = (row.seat - 1) % 4 + 1, (row.seat - 1) // 4
        row.save(update_fields=["seat", "holding"])


def join_seat(apps, schema_editor):
    SeatAccuracy = apps.get_model("league", "SeatAccuracy")
    for row in SeatAccuracy.objects.filter(holding__gt=0):
        row.seat, row.holding = row.seat + 4 * row.holding, 0
        row.save(update_fields=["seat", "holding"])


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0009_organizer_removed_time_zone"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="seataccuracy", name="one_accuracy_per_seat"),
        migrations.AddField(
            model_name="seataccuracy",
            name="holding",
            field=models.PositiveSmallIntegerField(default=0, help_text="the seat's k-th holder"),
        ),
        migrations.RunPython(split_seat, join_seat),
        migrations.AddConstraint(
            model_name="seataccuracy",
            constraint=models.UniqueConstraint(
                fields=("analysis", "seat", "holding"), name="one_accuracy_per_holding"
            ),
        ),
    ]
