"""``manage.py seed_demo_league``: a populated league on a fresh machine.

Creates the public club ``demo`` (organizer ``demo``), eight house-bot players and an
individual season, then plays its first two rounds to the end at full speed through the
real bot runner (``clients.bots``: each bot an API client with its own token, started by
the process launcher, ``server.run.bot_runner_threads``). Without ``--server`` it starts
Daphne as a child process on a free port against the same database; everything it
starts is stopped in a ``finally``.
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import time
from pathlib import Path

import requests
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import close_old_connections

from server.accounts.models import User
from server.accounts.services import issue_token
from server.league.actions import clubs, members, rounds, seasons
from server.league.models import Club, LeagueMatch, Membership, Round, Season
from server.run import bot_runner_threads, daphne_command

ROOT = Path(__file__).resolve().parents[4]
BOTS = [f"demo-bot-{n}" for n in range(1, 9)]
ROUNDS = 2


class Command(BaseCommand):
    help = __doc__.splitlines()[0]

    def add_arguments(self, parser):
        parser.add_argument(
            "--server", help="a running server on this database (default: start one)"
        )
        parser.add_argument("--level", default="strong")
        parser.add_argument("--timeout", type=float, default=900, help="seconds for both rounds")

    def handle(self, *args, server=None, level="strong", timeout=900.0, **options):
        organizer, bots, season = _demo_club()
        to_play = [
            n
            for n in range(1, ROUNDS + 1)
            if not Round.objects.filter(season=season, number=n, status="finished").exists()
        ]
        if not to_play:
            self.stdout.write("demo league already seeded: /api/clubs/demo")
            return
        daphne = None
        try:
            if server is None:
                daphne, server = _start_daphne()
            # Runners log every move at INFO; the command reports per round instead.
            logging.getLogger("dekabes.bots").setLevel(logging.ERROR)
            tokens = [issue_token(b, "seed-demo") for b in bots]
            _check_same_database(server, tokens[0])
            with bot_runner_threads(
                server,
                tokens,
                level=level,
                delay=0.0,
                discover_every=0.5,
                linger=1.0,
                poll_wait=5.0,
            ):
                deadline = time.monotonic() + timeout
                for number in to_play:
                    self._play_round(organizer, season, number, deadline)
        finally:
            if daphne is not None:
                daphne.terminate()
                try:
                    daphne.wait(10)
                except subprocess.TimeoutExpired:
                    daphne.kill()
                    daphne.wait(10)
        self.stdout.write(
            f"demo league seeded: club demo, season {season.pk}, "
            f"{LeagueMatch.objects.filter(season=season, status='finished').count()} matches"
        )

    def _play_round(self, organizer, season, number, deadline):
        round_ = Round.objects.filter(season=season, number=number).first()
        if round_ is None:
            round_ = rounds.do_create_round(user=organizer, season=season)
        if round_.status == "open":
            rounds.do_check_in(user=organizer, round_=round_, players=BOTS)
            rounds.do_start_round(user=organizer, round_=round_)
        self.stdout.write(f"round {number}: playing")
        while True:
            close_old_connections()
            if not LeagueMatch.objects.filter(round=round_, status="playing").exists():
                break
            if time.monotonic() > deadline:
                raise CommandError(f"round {number} did not finish in time")
            time.sleep(0.5)
        self.stdout.write(f"round {number}: finished")


def _demo_club():
    organizer = User.objects.filter(username="demo").first()
    if organizer is None:
        organizer = User(username="demo")
        organizer.set_unusable_password()
        organizer.save()
    club = Club.objects.filter(slug="demo").first() or clubs.do_create_club(
        user=organizer,
        slug="demo",
        name="Demo club",
        description="A league played by eight house bots.",
        visibility="public",
    )
    bots = []
    for name in BOTS:
        bot = User.objects.filter(username=name).first()
        if bot is None:
            bot = User(username=name, is_bot=True)
            bot.set_unusable_password()
            bot.save()
        if not Membership.objects.filter(club=club, user=bot, active=True).exists():
            members.do_enter_bot(user=organizer, club=club, bot_name=name)
        bots.append(bot)
    season = Season.objects.filter(club=club).order_by("id").first() or seasons.do_create_season(
        user=organizer, club=club, name="Demo season", format="individual", seed=1
    )
    return organizer, bots, season


def _check_same_database(server: str, token: str) -> None:
    """The bots' tokens were just written to this command's database: a server that
    does not know them reads another one, and its runners would fail in their threads
    while the rounds wait until the timeout."""
    try:
        answer = requests.get(
            server.rstrip("/") + "/api/me", headers={"Authorization": f"Token {token}"}, timeout=10
        )
    except requests.RequestException as err:
        raise CommandError(f"no server answers at {server}: {err}") from err
    if answer.status_code == 401:
        raise CommandError(
            f"the server at {server} does not use this command's database: run it with "
            "the server's own settings (DEKABES_VAR_DIR, DEKABES_SQLITE_PATH or DATABASE_URL)"
        )
    if answer.status_code != 200:
        raise CommandError(f"the server at {server} answered {answer.status_code} to /api/me")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start_daphne():
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = dict(os.environ)
    if settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
        env["DEKABES_SQLITE_PATH"] = str(settings.DATABASES["default"]["NAME"])
    process = subprocess.Popen(
        daphne_command(port=port),
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise CommandError("daphne exited at start")
        try:
            requests.get(url + "/api/clubs", timeout=2)
            return process, url
        except requests.ConnectionError:
            time.sleep(0.2)
    process.terminate()
    process.wait(10)
    raise CommandError("daphne did not start in 60 s")
