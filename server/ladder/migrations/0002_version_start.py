"""Each bot version's starting rating, so that ``rebuild_ladder`` can replay the rated
pairs. A version that played a rated pair started where its first one found it
(``mu_before``, the pairs in the order they were rated); one that played none is still
at its start."""

from django.db import migrations, models


def backfill(apps, schema_editor):
    Version = apps.get_model("ladder", "Version")
    PairSeat = apps.get_model("ladder", "PairSeat")
    for version in Version.objects.all():
        first = (
            PairSeat.objects.filter(
                version=version, pair__rated=True, mu_before__isnull=False
            )
            .order_by("pair__finished_at", "pair_id")
            .first()
        )
        if first is not None:
            version.start_mu, version.start_sigma = first.mu_before, first.sigma_before
        else:
            version.start_mu, version.start_sigma = version.mu, version.sigma
        version.save(update_fields=["start_mu", "start_sigma"])


class Migration(migrations.Migration):
    dependencies = [("ladder", "0001_initial")]

    operations = [
        migrations.AddField("version", "start_mu", models.FloatField(null=True)),
        migrations.AddField("version", "start_sigma", models.FloatField(null=True)),
        migrations.RunPython(backfill, migrations.RunPython.noop),
        migrations.AlterField("version", "start_mu", models.FloatField()),
        migrations.AlterField("version", "start_sigma", models.FloatField()),
    ]
