"""The lobby against the live test server, driven by injected text, keys and taps:
register and sign in, the token kept owner-only, a casual table created with computer
seats of a chosen level and opened, back to the lobby and in again, joining by code,
sign-out, translated errors, and a lost connection shown and recovered."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import json
import stat
import time
import uuid

import pygame
import pytest

from clients.bots import Runner, RunnerOptions
from clients.sdk import DekabesClient, NotAuthenticated
from clients.table import config
from clients.table import draw as d
from clients.table.lobby import Lobby
from clients.table.shell import Shell
from clients.table.ui import (
    Accept,
    Answer,
    CreateTable,
    FocusField,
    JoinByCode,
    JoinClub,
    LobbyTap,
    NextLevel,
    OpenTable,
    Press,
    Refresh,
    Register,
    ShowPage,
    SignIn,
    SignOut,
    TakeOpenSeat,
    Tap,
    ToggleSeat,
)
from tests.table.driver import ARTIFACTS, PASSWORD, means


class LobbyDriver:
    def __init__(self, url: str, config_dir, lang: str = "en", size=(1280, 800)):
        os.environ["DEKABES_CONFIG_DIR"] = str(config_dir)
        self.url = url
        self.runners: list[Runner] = []
        self.closed = False
        pygame.init()
        self.settings = config.load()
        self.lobby = Lobby(
            self.settings, lang=lang, size=size, server=url, start_runner=self._runner
        )
        self.shell = Shell(self.settings, size=size, lobby=self.lobby)
        self.shell.open_window()
        self.screen = self.shell.tick([])

    def _runner(self, server, token, level):
        runner = Runner(
            DekabesClient(server, token), RunnerOptions(level=level, delay=0, poll_wait=1, seed=3)
        ).start()
        self.runners.append(runner)
        return _Handle(runner)

    def tick(self):
        self.screen = self.shell.tick()
        time.sleep(0.01)
        return self.screen

    def until(self, predicate, timeout=40.0, what="condition"):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.tick()
            if predicate():
                return self.screen
        raise AssertionError(
            f"timed out waiting for {what}; screen {self.screen}, "
            f"message {self.lobby.message}, toasts {self.lobby.toasts}"
        )

    def hits(self):
        return self.shell.active.hits

    def hit(self, want: Tap | LobbyTap | type[LobbyTap]):
        """Where to tap for ``want``: a lobby region (a ``LobbyTap``, or its class) or a
        table one (a ``Tap``)."""
        for hit in reversed(self.hits()):
            if means(hit.action, want):
                return hit.rect.center
        raise AssertionError(f"nothing to tap for {want}: {[h.action for h in self.hits()]}")

    def has_hit(self, want: Tap | LobbyTap | type[LobbyTap]):
        return any(means(h.action, want) for h in self.hits())

    def tap(self, want: Tap | LobbyTap | type[LobbyTap]):
        pos = self.hit(want)
        pygame.event.post(
            pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1, touch=False)
        )
        pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pos, button=1, touch=False))
        self.tick()

    def type(self, field, text):
        self.tap(FocusField(field))
        for _ in range(len(self.lobby.fields[field].value)):
            pygame.event.post(
                pygame.event.Event(
                    pygame.KEYDOWN, key=pygame.K_BACKSPACE, mod=0, unicode="", scancode=0
                )
            )
        pygame.event.post(pygame.event.Event(pygame.TEXTINPUT, text=text))
        self.tick()

    def key(self, key, mod=0):
        for kind in (pygame.KEYDOWN, pygame.KEYUP):
            pygame.event.post(pygame.event.Event(kind, key=key, mod=mod, unicode="", scancode=0))
        self.tick()

    def sign_up(self, name=None, register=True):
        name = name or f"lb{uuid.uuid4().hex[:10]}"
        self.type("username", name)
        self.type("password", PASSWORD)
        self.tap(Register() if register else SignIn())
        self.until(lambda: self.screen.kind == "lobby", what="the lobby")
        return name

    def screenshot(self, name):
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        pygame.image.save(pygame.display.get_surface(), str(path))
        return path

    def close(self):
        if self.closed:
            return
        self.closed = True
        try:
            self.shell.close()
        finally:
            for runner in self.runners:
                runner.stop()
            pygame.quit()


class _Handle:
    """A started in-process runner looks like a runner process to the lobby."""

    def __init__(self, runner):
        self.runner = runner
        self.returncode = None

    def poll(self):
        return None if self.returncode is None else self.returncode

    def terminate(self):
        self.runner.stop()
        self.returncode = 0

    def wait(self, timeout=None):
        return self.returncode

    kill = terminate


@pytest.fixture
def lobby_factory(live_server_url, tmp_path, monkeypatch):
    monkeypatch.setenv("DEKABES_CONFIG_DIR", str(tmp_path))
    made = []

    def make(url=None, config_dir=None, **options):
        driver = LobbyDriver(
            url or live_server_url, config_dir or tmp_path / f"cfg{len(made)}", **options
        )
        made.append(driver)
        return driver

    yield make
    for driver in made:
        driver.close()


def test_register_create_a_table_with_computers_play_go_back_and_reopen(lobby_factory, tmp_path):
    drv = lobby_factory()
    name = drv.sign_up()
    drv.screenshot("lobby-home")
    saved = tmp_path / "cfg0" / "table.json"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600, "the token file is owner-only"
    data = json.loads(saved.read_text())
    assert data["server"] == drv.url and data["accounts"][drv.url]["username"] == name
    assert PASSWORD not in saved.read_text(), "the password is never stored"
    token = config.load(saved).account(drv.url)["token"]
    assert token and token not in saved.read_text(), "the token lives in the token store"
    kept = tmp_path / "cfg0" / "tokens.json"  # no keyring here: the owner-only file
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600 and token in kept.read_text()
    assert DekabesClient(drv.url, token).me().username == name
    # seat 3 stays a computer, level "easy" (greedy): the lobby makes my bot account
    while drv.lobby.level != "greedy":
        drv.tap(NextLevel())
    drv.tap(CreateTable())
    drv.until(lambda: drv.shell.table is not None, what="the table to open")
    code = drv.shell.connection.code
    drv.until(lambda: drv.screen.kind == "accept", what="the deal to accept")
    table = DekabesClient(drv.url, token).table(code)
    bots = {info.player for n, info in table.seats.items() if n != 1}
    assert bots == {f"{name}-greedy"}, bots
    assert drv.runners, "my computer players run while the lobby is open"
    drv.tap(Accept(1))
    drv.until(
        lambda: drv.screen.kind in ("table", "opener") and drv.has_hit(Press("lobby")),
        what="play",
    )
    drv.tap(Press("lobby"))
    assert drv.shell.table is None
    drv.until(lambda: any(e.table.code == code for e in drv.lobby.unfinished), what="my table")
    drv.tap(OpenTable(code))
    drv.until(
        lambda: drv.shell.table is not None and drv.screen.kind in ("table", "opener"),
        what="the table again",
    )
    assert drv.shell.connection.seats == [1]


def test_join_a_table_by_its_code(lobby_factory, live_server_url):
    host = DekabesClient(live_server_url)
    host.register(f"ho{uuid.uuid4().hex[:10]}", PASSWORD)
    bot = host.register_bot(f"hb{uuid.uuid4().hex[:10]}")
    table = host.create_table(
        {1: "human", 2: "bot", 3: "human", 4: "bot"},
        join=[1],
        bots={2: bot.username, 4: bot.username},
    )
    drv = lobby_factory()
    drv.sign_up()
    drv.type("code", table.code.lower())
    pygame.event.post(
        pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0, unicode="", scancode=0)
    )
    drv.until(lambda: drv.shell.table is not None, what="the joined table")
    assert drv.shell.connection.code == table.code
    drv.until(
        lambda: drv.shell.table.seating.seats == [3] and drv.has_hit(Press("lobby")), what="seat 3"
    )
    # a code that does not exist: a sentence, not a traceback
    drv.tap(Press("lobby"))
    drv.type("code", "NOSUCH")
    drv.tap(JoinByCode())
    drv.until(
        lambda: any(t.text == "That table was not found." for t in drv.lobby.toasts),
        what="the not-found sentence",
    )


@pytest.mark.parametrize(
    "lang, sentence",
    [
        ("en", "Wrong name or password."),
        ("es", "Nombre o contraseña incorrectos."),
        ("ru", "Неверное имя или пароль."),
        ("ms", "Nama atau kata laluan salah."),
    ],
)
def test_a_wrong_password_is_a_sentence_in_the_players_language(lobby_factory, lang, sentence):
    drv = lobby_factory(lang=lang)
    drv.type("username", f"nobody{uuid.uuid4().hex[:6]}")
    drv.type("password", "wrong password 123")
    drv.tap(SignIn())
    drv.until(lambda: drv.lobby.message and drv.lobby.message[0] == sentence, what=sentence)
    assert drv.screen.kind == "signin"


def test_a_taken_name_and_a_bad_address_are_explained(lobby_factory, live_server_url):
    taken = f"tk{uuid.uuid4().hex[:10]}"
    DekabesClient(live_server_url).register(taken, PASSWORD)
    drv = lobby_factory()
    drv.type("username", taken)
    drv.type("password", PASSWORD)
    drv.tap(Register())
    drv.until(
        lambda: drv.lobby.message and drv.lobby.message[0] == "That name is taken.",
        what="the taken name",
    )
    drv.type("server", "http://exa mple:99x")
    drv.tap(SignIn())
    assert drv.lobby.message[0].startswith("That is not a server address")


def test_sign_out_revokes_the_token_when_the_server_can(lobby_factory, tmp_path):
    drv = lobby_factory()
    drv.sign_up()
    token = drv.lobby.token
    drv.tap(SignOut())
    drv.until(lambda: drv.screen.kind == "signin", what="signed out")
    saved = json.loads((tmp_path / "cfg0" / "table.json").read_text())
    assert drv.url not in saved["accounts"], "the token is forgotten here"
    text = drv.lobby.message[0]
    try:
        DekabesClient(drv.url, token).me()
        still_valid = True
    except NotAuthenticated:
        still_valid = False
    assert not still_valid, "this server revokes tokens on sign-out"
    assert not text.startswith("Signed out here. This server cannot revoke")


def test_a_remembered_sign_in_opens_the_lobby_directly(lobby_factory, tmp_path):
    first = lobby_factory()
    name = first.sign_up()
    again = lobby_factory(config_dir=tmp_path / "cfg0")  # the same settings file
    again.until(lambda: again.screen.kind == "lobby", what="the lobby without signing in")
    assert again.lobby.username == name


def test_a_server_that_registers_by_invite_asks_for_its_code_and_takes_it(tmp_path, monkeypatch):
    """A club server run as docs/server.md advises (DEKABES_REGISTRATION=invite): Register
    says what to do in words, no code like "registration_closed"; the invite code's field
    comes into sight, a wrong code is explained, the right one registers (Enter there)."""
    import subprocess
    import sys

    from tests.conftest import ROOT, LiveServer

    server = LiveServer(tmp_path / "srv", env={"DEKABES_REGISTRATION": "invite"})
    (tmp_path / "srv").mkdir()
    server.start()
    monkeypatch.setenv("DEKABES_CONFIG_DIR", str(tmp_path))
    drv = LobbyDriver(server.url, tmp_path / "cfg", lang="ru")
    try:
        assert not drv.has_hit(FocusField("server_invite")), "no invite field until needed"
        name = f"iv{uuid.uuid4().hex[:10]}"
        drv.type("username", name)
        drv.type("password", PASSWORD)
        drv.tap(Register())
        closed = drv.lobby.tr("lobby.err.registration_closed")
        drv.until(lambda: drv.lobby.message == (closed, True), what="the invite sentence")
        assert "registration_closed" not in closed and closed.startswith("Этот сервер")
        drv.tick()
        assert drv.has_hit(FocusField("server_invite")) and drv.lobby.focus == "server_invite"
        drv.screenshot("lobby-register-by-invite")
        drv.type("server_invite", "not-a-code")
        drv.tap(Register())
        unknown = drv.lobby.tr("lobby.err.bad_invite")
        drv.until(lambda: drv.lobby.message == (unknown, True), what="the bad code sentence")
        made = subprocess.run(
            [sys.executable, "manage.py", "invite"],
            cwd=ROOT,
            env=server.env,
            capture_output=True,
            text=True,
            check=True,
        )
        drv.type("server_invite", made.stdout.strip().splitlines()[-1])
        drv.key(pygame.K_RETURN)  # Enter in the invite code's field registers
        drv.until(lambda: drv.screen.kind == "lobby", what="registered and in the lobby")
        assert drv.lobby.username == name
        assert drv.lobby.fields["server_invite"].value == "" and not drv.lobby.invite_needed
    finally:
        drv.close()
        server.stop()


def test_losing_the_server_is_shown_and_the_lobby_recovers(
    restartable_server, tmp_path, monkeypatch
):
    monkeypatch.setenv("DEKABES_CONFIG_DIR", str(tmp_path))
    drv = LobbyDriver(restartable_server.url, tmp_path / "cfg")
    try:
        drv.sign_up()
        restartable_server.stop()
        drv.tap(Refresh())
        drv.until(lambda: drv.lobby.status == "offline", timeout=60, what="offline")
        drv.tick()
        drv.screenshot("lobby-offline")
        _start_again(restartable_server)
        drv.until(lambda: drv.lobby.status == "online", timeout=60, what="back online")
        assert drv.screen.kind == "lobby"
    finally:
        drv.close()


def _start_again(server) -> None:
    """``server.start()``, patient with a first answer slower than its 1 s probe."""
    import requests

    try:
        server.start()
        return
    except requests.Timeout:
        pass
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            requests.get(server.url + "/api/me", timeout=10)
            return
        except requests.RequestException:
            time.sleep(0.5)
    raise AssertionError("the server did not come back")


def test_the_league_in_the_lobby_from_an_invite_link_to_my_statistics(
    lobby_factory, live_server_url
):
    """Join a club by pasting its invite link; while I sit at a casual table a round
    seats me, and the table says so within a long-poll; one tap sits me at my rated
    seat ("rated" shown); once the match is played out, the league page shows the
    club's standings and ratings, my match with its result and my statistics."""
    drv = lobby_factory()
    me = drv.sign_up()
    token = drv.lobby.token
    organizer = DekabesClient(live_server_url)
    organizer.register(f"or{uuid.uuid4().hex[:8]}", PASSWORD)
    slug = f"c{uuid.uuid4().hex[:8]}"
    organizer.request("POST", "/api/clubs", json={"slug": slug, "name": f"Club {slug}"})
    invite = organizer.request("POST", f"/api/clubs/{slug}/invites", json={})["code"]
    drv.until(lambda: drv.has_hit(ShowPage("league")), what="the league page's button")
    drv.tap(ShowPage("league"))
    drv.until(lambda: drv.lobby.details is not None, what="the league page")
    drv.type("invite", f"{live_server_url}/join/{slug}/{invite}")
    drv.tap(JoinClub())
    drv.until(
        lambda: drv.lobby.league.supported and f"Club {slug}" in drv.lobby.league.clubs,
        what="my club in the lobby",
    )
    assert any(t.text == f"You joined Club {slug}." for t in drv.lobby.toasts)
    bots = []
    for _ in range(3):  # a member and their own bot may not share a round
        owner = DekabesClient(live_server_url)
        owner.register(f"ow{uuid.uuid4().hex[:8]}", PASSWORD)
        owner.join_club(slug, invite)
        bot = owner.register_bot(f"lb{uuid.uuid4().hex[:8]}")
        owner.request("POST", f"/api/clubs/{slug}/members", json={"bot": bot.username})
        bots.append(bot)
    runners = [
        Runner(
            DekabesClient(live_server_url, b.token),
            RunnerOptions(delay=0, discover_every=0.5, poll_wait=2, seed=n),
        ).start()
        for n, b in enumerate(bots)
    ]
    drv.runners.extend(runners)
    assert not drv.lobby.league.tables
    # A casual table of mine is open when the round starts.
    mine = DekabesClient(live_server_url, token)
    casual = mine.create_table({1: "human", 2: "human", 3: "human", 4: "human"}, join=[1]).code
    drv.tap(ShowPage("home"))
    drv.tap(Refresh())
    drv.until(lambda: drv.has_hit(OpenTable(casual)), what="my casual table")
    drv.tap(OpenTable(casual))
    drv.until(lambda: drv.shell.table is not None and drv.screen.kind == "accept", what="it")
    season = organizer.request(
        "POST",
        f"/api/clubs/{slug}/seasons",
        json={"name": "Autumn", "format": "individual", "seed": 5},
    )
    base = f"/api/clubs/{slug}/seasons/{season['id']}"
    organizer.request("POST", base + "/rounds")
    organizer.request(
        "POST", base + "/rounds/1/checkin", json={"players": [me] + [b.username for b in bots]}
    )
    started = time.monotonic()
    organizer.request("POST", base + "/rounds/1/start")
    drv.until(lambda: drv.lobby.league.tables, timeout=40, what="the league table")
    told_after = time.monotonic() - started
    code = drv.lobby.league.tables[0]["code"]
    told = f"Your league table is ready: {code}"
    assert any(t.text == told for t in drv.shell.table.effects.toasts), "told at the table"
    drv.tick()
    drv.screenshot("league-news-at-a-casual-table")
    drv.tap(Press("lobby"))
    drv.until(lambda: drv.has_hit(OpenTable(code)), what="Play now in the lobby")
    drv.screenshot("lobby-home-league")
    drv.tap(OpenTable(code))
    drv.until(
        lambda: drv.shell.table is not None and drv.shell.table.seating.seats,
        what="the rated seat",
    )
    assert drv.shell.connection.code == code
    drv.until(lambda: drv.shell.table.newest is not None, what="the rated table's view")
    assert drv.shell.table.newest.table.rated
    assert told_after < 15, f"told {told_after:.1f} s after the round started"
    # Back in the lobby, my seat played by a runner with my token: the match ends.
    drv.tap(Press("lobby"))
    drv.until(lambda: drv.has_hit(ShowPage("league")), what="the lobby again")
    me_playing = Runner(
        DekabesClient(live_server_url, token),
        RunnerOptions(level="random", delay=0, tables=(code,), poll_wait=1, seed=9),
    )
    # The runner stands in for the person playing their own seat here; the fair-play rule
    # (no runner on a person's token at a rated table) is tested in test_bot_runner.
    me_playing._may_play = lambda table: True  # type: ignore[method-assign]
    me_playing.start()
    drv.runners.append(me_playing)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        if mine.matches(club=slug, status="finished"):
            break
        drv.tick()
        time.sleep(0.2)
    assert mine.matches(club=slug, status="finished"), "the league match was played out"
    drv.tap(ShowPage("league"))

    def shown() -> bool:
        details = drv.lobby.details
        return bool(
            details
            and details.matches
            and details.clubs
            and details.clubs[0].standings
            and details.clubs[0].ratings
        )

    drv.until(shown, timeout=60, what="standings, ratings and my match")
    details = drv.lobby.details
    club = details.clubs[0]
    assert club.slug == slug and club.season == "Autumn"
    assert me in {row["player"]["username"] for row in club.standings}
    assert me in {row["player"] for row in club.ratings}
    (match,) = details.matches
    assert match["table"] == code and match["winner"] in ("A", "B")
    assert details.stats.source == "api"  # GET /api/players/{me}/stats
    assert details.stats.by_club[slug].matches == 1
    assert details.stats.overall.matches == 1
    drv.tick()
    drv.screenshot("lobby-league")


def test_a_server_without_club_computers_says_so(lobby_factory, restartable_server):
    # A server of its own: another test may have made a "house" account on the shared one.
    drv = lobby_factory(url=restartable_server.url)
    drv.sign_up()
    assert drv.lobby.level == "house"
    drv.tap(CreateTable())
    drv.until(
        lambda: any(
            t.text.startswith("This server has no club computers") for t in drv.lobby.toasts
        ),
        what="the no-house sentence",
    )
    assert drv.shell.table is None


def test_an_unreachable_server_is_explained_and_the_form_stays_usable(lobby_factory):
    from tests.conftest import free_port

    drv = lobby_factory(url=f"http://127.0.0.1:{free_port()}")  # nothing listens there
    drv.type("username", "someone")
    drv.type("password", PASSWORD)
    drv.tap(SignIn())
    drv.until(
        lambda: drv.lobby.message and drv.lobby.message[0].startswith("No answer from that server"),
        timeout=60,
        what="the unreachable sentence",
    )
    assert not drv.lobby.busy and drv.has_hit(SignIn()), "the player can fix the address"


def test_after_leave_the_lobby_fields_take_typing_again(
    lobby_factory, live_server_url, monkeypatch
):
    """Issue 34, point 4: join a table by its code, Leave it, and the lobby's fields take
    typing at once — the code field is focused and empty (not holding the old code), and
    text input was never turned off on the way (stopping and starting it again lost the
    typing under X input methods until a restart)."""
    stopped: list[bool] = []
    monkeypatch.setattr(pygame.key, "stop_text_input", lambda: stopped.append(True))
    host = DekabesClient(live_server_url)
    host.register(f"ho{uuid.uuid4().hex[:10]}", PASSWORD)
    table = host.create_table({n: "human" for n in (1, 2, 3, 4)}, join=[1])
    drv = lobby_factory()
    drv.sign_up()
    drv.type("code", table.code)
    drv.tap(JoinByCode())
    drv.until(lambda: drv.shell.table is not None and drv.has_hit(Press("leave")), what="the table")
    drv.tap(Press("leave"))
    drv.tap(Answer(True))
    drv.until(lambda: drv.shell.table is None, what="back in the lobby")
    assert drv.lobby.focus == "code" and drv.lobby.fields["code"].value == ""
    pygame.event.post(pygame.event.Event(pygame.TEXTINPUT, text="ab12"))
    drv.tick()
    assert drv.lobby.fields["code"].value == "ab12"
    drv.tap(ShowPage("league"))
    pygame.event.post(pygame.event.Event(pygame.TEXTINPUT, text="demo/XY"))
    drv.tick()
    assert drv.lobby.fields["invite"].value == "demo/XY"
    assert stopped == [], "text input was turned off on the way"


@pytest.mark.parametrize("how", ["button", "enter"])
def test_a_wrong_invite_is_explained_and_stays_in_its_field_to_correct(
    lobby_factory, live_server_url, how
):
    """Issue 34, point 6: an invite link whose code the club does not know is said in a
    sentence, and what was typed stays in the field, to be corrected rather than typed
    again (by the Join button or by Enter)."""
    organizer = DekabesClient(live_server_url)
    organizer.register(f"or{uuid.uuid4().hex[:8]}", PASSWORD)
    slug = f"c{uuid.uuid4().hex[:8]}"
    organizer.request("POST", "/api/clubs", json={"slug": slug, "name": f"Club {slug}"})
    drv = lobby_factory()
    drv.sign_up()
    drv.until(lambda: drv.has_hit(ShowPage("league")), what="the league page's button")
    drv.tap(ShowPage("league"))
    drv.until(lambda: drv.lobby.details is not None, what="the league page")
    typed = f"{live_server_url}/join/{slug}/WRONG42"
    drv.type("invite", typed)
    if how == "button":
        drv.tap(JoinClub())
    else:
        drv.key(pygame.K_RETURN)
    drv.until(lambda: any(t.error for t in drv.lobby.toasts), what="the refusal")
    for _ in range(20):
        drv.tick()
    assert drv.lobby.fields["invite"].value == typed
    assert drv.lobby.focus == "invite"


def test_the_signed_in_lobby_is_usable_from_the_keyboard(lobby_factory, live_server_url):
    """Issue 34, point 7: Tab and Shift+Tab reach every control of the signed-in lobby
    (and of its league page and settings), the one reached is ringed, Enter or Space
    uses it, Enter in a field submits it: a table joined without the mouse."""
    host = DekabesClient(live_server_url)
    host.register(f"ho{uuid.uuid4().hex[:10]}", PASSWORD)
    table = host.create_table({n: "human" for n in (1, 2, 3, 4)}, join=[1])
    drv = lobby_factory()
    drv.sign_up()
    drv.until(lambda: drv.lobby.league.known, what="the lobby's league state")
    controls = drv.lobby.controls()
    assert len(controls) >= 8
    reached = []
    for _ in range(len(controls)):
        drv.key(pygame.K_TAB)
        reached.append(drv.lobby.keyboard_focus())
    assert set(reached) == set(controls), set(controls) - set(reached)
    drv.key(pygame.K_TAB, pygame.KMOD_SHIFT)
    assert drv.lobby.keyboard_focus() == reached[-2], "Shift+Tab goes back"
    # The control reached is ringed (gold around it), not only its colour changed.
    while not isinstance(drv.lobby.keyboard_focus(), ToggleSeat):
        drv.key(pygame.K_TAB)
    seat = drv.lobby.keyboard_focus().seat
    rect = next(h.rect for h in drv.hits() if h.action == ToggleSeat(seat))
    surface = pygame.display.get_surface()
    assert surface.get_at((rect.centerx, rect.top - 3))[:3] == d.GOLD
    before = drv.lobby.create_seats[seat]
    drv.key(pygame.K_SPACE)
    assert drv.lobby.create_seats[seat] != before, "Space used the seat's button"
    # To the code field, type, Enter: the table opens.
    while drv.lobby.keyboard_focus() != FocusField("code"):
        drv.key(pygame.K_TAB)
    pygame.event.post(pygame.event.Event(pygame.TEXTINPUT, text=table.code))
    drv.key(pygame.K_RETURN)
    drv.until(lambda: drv.shell.table is not None, what="the table, joined by keyboard")
    assert drv.shell.connection.code == table.code


def test_an_open_seat_is_listed_in_the_lobby_and_taken_with_a_tap(lobby_factory, live_server_url):
    host = DekabesClient(live_server_url)
    host.register(f"ho{uuid.uuid4().hex[:10]}", PASSWORD)
    bot = host.register_bot(f"hb{uuid.uuid4().hex[:10]}")
    seek = host.seek(wanted="people", join=[1], bots={3: bot.username, 4: bot.username})
    code = seek["table"]
    drv = lobby_factory()
    drv.sign_up()
    drv.until(lambda: drv.has_hit(TakeOpenSeat(code)), what="the open seat in the lobby")
    drv.tap(TakeOpenSeat(code))
    drv.until(lambda: drv.shell.table is not None, what="the table of the open seat")
    assert drv.shell.connection.code == code
    drv.until(lambda: drv.shell.table.seating.seats == [2], what="seat 2")
    assert host.seek_info(seek["id"])["status"] == "filled"
