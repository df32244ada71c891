"""The ladder's ratings are a projection: ``rebuild_ladder`` gives back, row for row, what
the ladder wrote as its pairs were rated — a bot that changed version mid-way
included — and ``verify-backup``'s league check names a
ladder row that differs from it."""

from __future__ import annotations

import importlib
import random

import pytest
from django.apps import apps as django_apps
from django.core.management import call_command
from django.db import models

from server.ladder import rebuild as ladder_rebuild
from server.ladder.entries import do_enter
from server.ladder.models import Pair, PairSeat, Version
from server.ops import verify
from tests.ladder.test_ladder_rounds import enter_bots, run_rounds

pytestmark = pytest.mark.django_db(transaction=False)


def test_rebuild_gives_back_the_ratings_the_ladder_wrote(fast_ladder, seeded_deals, capsys):
    rng = random.Random(11)
    levels = enter_bots([["random"], ["medium"], ["random"], ["medium"]])
    run_rounds(levels, 2, rng)
    # one bot declares a new version: it starts from its rating then, wider
    changed = Version.objects.filter(entry__bot_id=next(iter(levels))).get()
    do_enter(user=changed.entry.bot.bot_owner, name=changed.entry.bot.username, version="2.0")
    new = Version.objects.get(entry=changed.entry, name="2.0")
    assert (new.start_mu, new.mu) == (changed.mu, changed.mu) and new.start_sigma > changed.sigma
    run_rounds(levels, 2, rng)
    rated = Pair.objects.filter(rated=True).count()
    assert rated >= 3 and PairSeat.objects.filter(version=new, pair__rated=True).exists()

    # -- the migration: each version's start, from its first rated pair ----------------------
    starts = {
        pk: rest for pk, *rest in Version.objects.values_list("pk", "start_mu", "start_sigma")
    }
    assert Version.objects.filter(pairs__gt=0).exclude(mu=models.F("start_mu")).exists()
    Version.objects.update(start_mu=0.0, start_sigma=0.0)
    migration = importlib.import_module("server.ladder.migrations.0002_version_start")
    migration.backfill(django_apps, None)
    assert {
        pk: rest for pk, *rest in Version.objects.values_list("pk", "start_mu", "start_sigma")
    } == starts

    # -- the rebuild ---------------------------------------------------------------------
    stored = ladder_rebuild.stored_rows()
    # every version thrown off its rating and counts: the rebuild alone must restore them
    Version.objects.update(mu=1.0, sigma=1.0, ordinal=0.0, pairs=0, wins=0, losses=0, ties=0)
    PairSeat.objects.update(mu_before=None, mu_after=None)
    Pair.objects.filter(rated=True).update(result="", margin=0)
    call_command("rebuild_ladder")
    assert f"{rated} pairs" in capsys.readouterr().out
    assert ladder_rebuild.stored_rows() == stored
    moved = Version.objects.filter(pairs__gt=0, entry__house_level="")
    assert moved.exists() and all(v.mu != v.start_mu for v in moved)

    # -- verify-backup's league check proves the ladder too --------------------------------
    assert verify._check_league().ok
    version = moved.first()
    Version.objects.filter(pk=version.pk).update(mu=version.mu + 0.5)
    check = verify._check_league()
    assert not check.ok
    assert any(f"ladder version of version {version.pk}" in p for p in check.problems)
