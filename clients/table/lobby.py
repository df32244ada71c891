"""The lobby: sign in to a club server, then pick a table — mine, a new casual one, one by
its code, or my table of the current league round — and see recent matches.

``Lobby`` is the controller (what a tap or a key does, what the service said);
``render.lobby.draw`` draws it (as a ``context.LobbyView``) and returns the tap targets. The service
(``lobby_service.LobbyService``) talks to the server in a worker thread. When a table is
to be opened the lobby calls ``on_open(server, token, code, seats)`` (the ``Shell``
swaps the window over to the table); a live table of my clubs to watch,
``on_watch(server, token, code)``.

The token of each server is kept in the settings file (owner-only, see ``config``); the
password never is.
"""

from __future__ import annotations

import re
import subprocess
import time
import webbrowser
from collections.abc import Callable
from urllib.parse import urlsplit

import pygame

from clients.table import config
from clients.table import input as table_input
from clients.table.i18n import Translator, detect_language, next_language
from clients.table.lobby_service import (
    BotMade,
    ClubJoined,
    Created,
    Failed,
    League,
    LeagueDetails,
    LeagueInfo,
    LobbyService,
    Opened,
    OpenSeats,
    SignedIn,
    SignedOut,
    TableEntry,
    Tables,
)
from clients.table.render import lobby as lobby_render
from clients.table.ui import (
    ChooseSetting,
    CloseSettings,
    CreateTable,
    FocusField,
    Hit,
    JoinByCode,
    JoinClub,
    LobbyTap,
    NextLanguage,
    NextLevel,
    OpenReplay,
    OpenSettings,
    OpenTable,
    Refresh,
    Register,
    Screen,
    ShowClub,
    ShowPage,
    SignIn,
    SignOut,
    TakeOpenSeat,
    TextField,
    Toast,
    ToggleSeat,
    WatchTable,
)
from clients.table.worker import Status

LEVELS = ("house", "random", "greedy", "medium", "strong", "expert")


def levels() -> tuple[str, ...]:
    """The computer levels a new table may have: the club's ("house") always; one's own
    at any level only where this machine can run them (a checkout: ``clients.bots`` and
    the engine; the installed app ships neither)."""
    from importlib.util import find_spec

    if find_spec("clients.bots") is None or find_spec("engine") is None:
        return LEVELS[:1]
    return LEVELS


FIELD_MAX = 120
REFRESH_EVERY = 20.0  # s: my tables (whose turn) are looked at again while the lobby shows
INVITE_LINK = re.compile(r"(?:^|/)join/([A-Za-z0-9_-]+)/([A-Za-z0-9]+)/?(?:[?#].*)?$")
SLUG_AND_CODE = re.compile(r"([A-Za-z0-9_-]+)/([A-Za-z0-9]+)")
BARE_CODE = re.compile(r"[A-Za-z0-9]{4,40}")


def parse_invite(text: str) -> tuple[str | None, str] | None:
    """(club slug or None, code) from a pasted invite: a link
    ``http://host/join/<slug>/<code>`` (or its path), ``slug/code``, or a bare code;
    None when it is none of those."""
    text = text.strip()
    found = INVITE_LINK.search(text)
    if found:
        return found.group(1), found.group(2).upper()
    found = SLUG_AND_CODE.fullmatch(text)
    if found:
        return found.group(1), found.group(2).upper()
    if BARE_CODE.fullmatch(text):
        return None, text.upper()
    return None


def normalise_server(text: str) -> str | None:
    """``192.168.1.20:8000`` → ``http://192.168.1.20:8000``; None if it is no address."""
    text = text.strip().rstrip("/")
    if not text:
        return None
    if "://" not in text:
        text = "http://" + text
    try:
        parts = urlsplit(text)
        _ = parts.port  # raises on a bad port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname or " " in text:
        return None
    return text


class Lobby:
    def __init__(
        self,
        settings: config.Settings,
        service: LobbyService | None = None,
        lang: str | None = None,
        size=(1280, 800),
        save_settings: bool = True,
        server: str | None = None,
        on_open=None,
        start_runner=None,
    ):
        self.settings = settings
        self.save_settings = save_settings
        if lang:
            self.settings.lang = lang
        self.tr = Translator(self.settings.lang or detect_language())
        self.size = tuple(size)
        self.service = service or LobbyService()
        self.on_open = on_open
        # (server, token, code, the match's seat -> team)
        self.on_watch: Callable[[str, str | None, str, dict[int, str]], None] | None = None
        self._start_runner = start_runner
        self.runners: dict[str, subprocess.Popen] = {}  # bot username -> its runner process
        self.screen_surface: pygame.Surface | None = None
        self.running = True
        self.hits: list[Hit[LobbyTap]] = []
        self.pointer = table_input.PointerTracker(lambda: self.size)
        self.toasts: list[Toast] = []
        self.message: tuple[str, bool] | None = None  # (text, is_error) under the form
        self.status = "connecting"
        self.busy = False
        self.username: str | None = None
        self.server = normalise_server(server or self.settings.server or "") or ""
        self.fields = {
            "server": TextField("server", self.server or "http://127.0.0.1:8000"),
            "username": TextField("username"),
            "password": TextField("password", secret=True),
            "code": TextField("code"),
            "invite": TextField("invite"),
            # the server's invite code, for registering on a server that registers by
            # invite: shown once the server said so (``invite_needed``)
            "server_invite": TextField("server_invite"),
        }
        self.invite_needed = False
        self.focus = "username" if self.server else "server"  # the text field typed into
        # The control the keyboard is on (Tab / Shift+Tab move it over every control of
        # the screen in drawing order; Enter or Space uses it); a field's is its FocusField.
        self.focused: LobbyTap | None = None
        self.unfinished: list[TableEntry] = []
        self.open_seats: tuple[dict, ...] = ()  # tables seeking players I may join
        self.finished: list[TableEntry] = []
        self.league = LeagueInfo(False, known=False)
        self.details: LeagueDetails | None = None  # the league page's data, once loaded
        self.club: str | None = None  # the club the league page shows
        self.page = "home"  # "home" | "league"
        self.settings_open = False
        self.on_notice: Callable[[str], None] | None = None  # a table open: tell it there
        self._refreshed = time.monotonic()
        self._league_seen: set[str] = set()
        self.create_seats = {2: "bot", 3: "bot", 4: "bot"}
        self.level = "house"
        self._waiting_bot: str | None = None  # a create waiting for its computer account
        self.dirty = True
        self.frames = 0
        self.pending_table: str | None = None  # a table to open once signed in (a link)
        self.service.start()
        remembered = self.settings.accounts.get(self.server) or {}
        self.fields["username"].value = str(remembered.get("username") or "")
        account = self.settings.account(self.server)
        if account:
            self.busy = True
            self.service.resume(self.server, account["username"], account["token"])

    # ------------------------------------------------------------------ what is shown
    def decide(self) -> Screen:
        if self.username is None:
            return Screen("signin")
        return Screen("league" if self.page == "league" else "lobby")

    @property
    def token(self) -> str | None:
        account = self.settings.account(self.server)
        return account["token"] if account else None

    # ------------------------------------------------------------------ the loop
    def tick(self, events: list | None = None, force: bool = True) -> Screen:
        self.pump()
        for event in pygame.event.get() if events is None else events:
            self.handle_event(event)
            self.dirty = True
        now = time.monotonic()
        alive = [t for t in self.toasts if t.until > now]
        if len(alive) != len(self.toasts):
            self.toasts, self.dirty = alive, True
        if self.username and not self.busy and now - self._refreshed > REFRESH_EVERY:
            self._refreshed = now  # whose turn it is at my tables changes by itself
            self.service.refresh()
        screen = self.decide()
        if self.screen_surface is not None and (force or self.dirty):
            self.dirty = False
            self.hits = lobby_render.draw(self, screen)
            pygame.display.flip()
            self.frames += 1
        return screen

    def animating(self) -> bool:
        return False

    def toast(self, text: str, error: bool = False, seconds: float = 4.0) -> None:
        self.toasts = [t for t in self.toasts if t.text != text][-2:]
        self.toasts.append(Toast(text, time.monotonic() + seconds, error))
        self.dirty = True

    def say(self, text: str | None, error: bool = False) -> None:
        self.message = (text, error) if text else None
        self.dirty = True

    # ------------------------------------------------------------------ the service's news
    def pump(self) -> None:
        for update in self.service.poll():
            self.dirty = True
            match update:
                case Status(name):
                    self.status = name
                case SignedIn(server, username, token):
                    self._signed_in(server, username, token)
                case SignedOut(revoked):
                    self._signed_out(revoked)
                case Tables(unfinished, finished):
                    # the tables waiting for me first
                    self.unfinished = sorted(unfinished, key=lambda e: not e.my_turn)
                    self.finished = list(finished)
                    self._refreshed = time.monotonic()
                    self._ensure_runners()
                case League(info):
                    self._take_league(info)
                case LeagueDetails() as details:
                    self.details = details
                    if self.club not in {c.slug for c in details.clubs}:
                        self.club = details.clubs[0].slug if details.clubs else None
                case OpenSeats(seeks):
                    self.open_seats = seeks
                case ClubJoined(slug, name):
                    self.busy = False
                    self.fields["invite"].value = ""
                    self.club = slug
                    self.notify(self.tr("lobby.club_joined", club=name))
                    self.service.load_league()
                case BotMade(level, username, token):
                    self._take_bot(level, username, token)
                case Created(code):
                    self.toast(self.tr("lobby.created", code=code))
                case Opened(code, seats):
                    self.busy = False
                    self.fields["code"].value = ""  # done with: the next code starts afresh
                    if self.on_open is not None:
                        self.on_open(self.server, self.token, code, list(seats))
                case Failed(code, context):
                    self._error(code, context)

    def _signed_in(self, server: str, username: str, token: str) -> None:
        self.busy = False
        self.server, self.username = server, username
        self.settings.server = server
        self.settings.accounts[server] = {"username": username, "token": token}
        self.fields["password"].value = ""  # never kept
        self.fields["server_invite"].value = ""  # used once
        self.invite_needed = False
        self.say(None)
        self._save()
        if self.pending_table:  # opened from a link: that table now
            code, self.pending_table = self.pending_table, None
            self.open_table(code)

    def open_when_signed_in(self, code: str) -> None:
        """A ``dekabes://`` link's table: opened as soon as the lobby is signed in to its
        server (at once with the account remembered; else after the sign-in)."""
        self.pending_table = code.upper()
        if self.username is not None:
            code, self.pending_table = self.pending_table, None
            self.open_table(code)
        elif not self.busy:
            self.say(self.tr("lobby.sign_in_to_open", code=self.pending_table))

    def _signed_out(self, revoked: bool) -> None:
        self.busy = False
        self.stop_runners()
        self.settings.accounts.pop(self.server, None)
        self.username = None
        self.unfinished, self.finished, self.league = [], [], LeagueInfo(False, known=False)
        self.open_seats = ()
        self.details, self.page = None, "home"
        self.focus = "password"
        self.say(self.tr("lobby.signed_out" if revoked else "lobby.signed_out_kept"))
        self._save()

    def _take_league(self, info: LeagueInfo) -> None:
        new = [t for t in info.tables if t.get("code") and t["code"] not in self._league_seen]
        if new and self.league.supported:
            self.notify(self.tr("lobby.league_ready", code=new[0]["code"]))
        self._league_seen |= {t["code"] for t in info.tables if t.get("code")}
        if self.details is not None and info.version != self.league.version:
            self.service.load_league()  # a round seated me or a match of mine ended
        self.league = info

    def notify(self, text: str) -> None:
        """News for the player: a toast here, and on the table when one is open."""
        self.toast(text, seconds=8.0)
        if self.on_notice is not None:
            self.on_notice(text)

    def _take_bot(self, level: str, username: str, token: str) -> None:
        self.settings.bots.setdefault(self.server, {})[level] = {
            "username": username,
            "token": token,
        }
        self._save()
        self._ensure_runner(username, token, level)
        if self._waiting_bot == level:
            self._waiting_bot = None
            self.create()

    def error_text(self, code: str, context: str) -> str:
        """The server's code as a sentence for what the player just tried."""
        if code == "not_authenticated":
            return self.tr(
                "lobby.err.wrong_password" if context == "sign_in" else "lobby.err.session_over"
            )
        if code == "validation_error" and context == "sign_in":
            return self.tr("lobby.err.register_invalid")
        if code == "connection_lost" and context in ("sign_in", "resume"):
            return self.tr("lobby.err.unreachable")
        if code == "not_found" and context == "sign_in":
            return self.tr("lobby.err.bad_server")
        if code == "validation_error" and context == "create" and self.level == "house":
            return self.tr("lobby.err.no_house")  # no "house" bot account there
        if code in ("invite_invalid", "not_found") and context == "join_club":
            return self.tr("lobby.err.invite_invalid")
        if code in ("registration_closed", "bad_invite") and context == "sign_in":
            return self.tr(f"lobby.err.{code}")
        if code == "quota_exceeded" and context == "make_bot":
            return self.tr("lobby.err.bot_quota")  # its own computer player for a level
        return self.tr.error(code)

    def _error(self, code: str, context: str) -> None:
        self.busy = False
        self._waiting_bot = None
        text = self.error_text(code, context)
        if code in ("registration_closed", "bad_invite") and context == "sign_in":
            # registering here needs the server's invite code: its field comes into sight
            self.invite_needed = True
            self.focus = "server_invite"
        if code == "not_authenticated" and context in ("resume", "refresh"):
            self.settings.accounts.pop(self.server, None)  # the token is dead
            self.username = None
            self._save()
        if self.username is None:
            self.say(text, error=True)
        else:
            self.toast(text, error=True)

    # ------------------------------------------------------------------ actions
    def submit_sign_in(self, register: bool = False) -> None:
        server = normalise_server(self.fields["server"].value)
        username = self.fields["username"].value.strip()
        password = self.fields["password"].value
        if server is None:
            self.say(self.tr("lobby.err.bad_server"), error=True)
            return
        if not username or not password:
            self.say(self.tr("lobby.fill_in"), error=True)
            return
        self.server = server
        self.fields["server"].value = server
        self.busy = True
        self.say(self.tr("lobby.connecting"))
        invite = self.fields["server_invite"].value.strip() if register else ""
        self.service.sign_in(server, username, password, register=register, invite=invite)

    def sign_out(self) -> None:
        self.busy = True
        self.service.sign_out()

    def create(self) -> None:
        seats = {
            1: "human",
            **{n: ("human" if k == "human" else "bot") for n, k in self.create_seats.items()},
        }
        bot_seats = [n for n, k in seats.items() if k == "bot"]
        bots = {}
        if bot_seats:
            if self.level == "house":
                name = "house"
            else:
                account = self.settings.bots.get(self.server, {}).get(self.level)
                if account is None:
                    self._waiting_bot = self.level  # make it first, then create
                    self.service.make_bot(self.level)
                    return
                name = account["username"]
                self._ensure_runner(name, account["token"], self.level)
            bots = {n: name for n in bot_seats}
        self.busy = True
        self.service.create(seats, bots)

    def join(self) -> None:
        code = self.fields["code"].value.strip().upper()
        if code:
            self.busy = True
            self.service.join(code)

    def join_club(self) -> None:
        """Join a club with the pasted invite (a link, ``slug/code`` or a bare code)."""
        parsed = parse_invite(self.fields["invite"].value)
        if parsed is None:
            self.toast(self.tr("lobby.err.invite_format"), error=True)
            return
        self.busy = True
        self.service.join_club(*parsed)

    def show_page(self, page: str) -> None:
        self.page = page
        self.focus = "invite" if page == "league" else "code"
        if page == "league":
            self.service.load_league()

    def choose(self, name: str, value: object) -> None:
        """A choice on the settings screen: taken into use at once and remembered (the
        table opened next takes the same settings object)."""
        if not self.settings.choose(name, value):
            return
        if name == "lang":
            self.tr = Translator(str(value))
            self.toasts = []  # nothing stays in the old language
        self._save()

    def live_teams(self, code: str) -> dict[int, str]:
        """The teams of a live table's seats, as its match answer gave them."""
        for club in self.details.clubs if self.details else ():
            for match in club.live:
                if match.get("table") == code:
                    return {
                        int(s["seat"]): str(s["team"])
                        for s in match.get("seats") or []
                        if s.get("seat") and s.get("team")
                    }
        return {}

    def open_table(self, code: str) -> None:
        self.busy = True
        self.service.join(code)  # finds my seats there (or a free one)

    def open_url(self, url: str) -> None:
        webbrowser.open(url)

    def back(self) -> None:
        """Back from a table (the Lobby button, Leave): look again, typing goes to the
        page's field."""
        self.busy = False
        self.dirty = True
        self.focus = "invite" if self.page == "league" else "code"
        self.service.refresh()

    def quit(self) -> None:
        self.running = False
        self._save()

    def close(self) -> None:
        self.stop_runners()
        self.service.close()

    def _save(self) -> None:
        if self.save_settings:
            config.save(self.settings)

    # ------------------------------------------------------------------ own computer players
    def _ensure_runners(self) -> None:
        """Each of my computer accounts seated at an unfinished table plays while the
        lobby is open (the club's house computers are the server's business)."""
        mine = self.settings.bots.get(self.server, {})
        seated = {
            info.player
            for entry in self.unfinished
            for info in entry.table.seats.values()
            if info.is_bot
        }
        for level, account in mine.items():
            if account["username"] in seated:
                self._ensure_runner(account["username"], account["token"], level)

    def _ensure_runner(self, username: str, token: str, level: str) -> None:
        if self._start_runner is None:
            return
        process = self.runners.get(username)
        if process is not None and process.poll() is None:
            return
        self.runners[username] = self._start_runner(self.server, token, level)

    def stop_runners(self) -> None:
        if not self.runners:
            return  # (the installed app has no bots package: nothing was started)
        from clients.bots.launch import stop_runner

        for username, process in list(self.runners.items()):
            stop_runner(process)
            self.runners.pop(username, None)

    # ------------------------------------------------------------------ input
    def handle_event(self, event) -> None:
        if event.type == pygame.QUIT:
            self.quit()
            return
        if event.type in (pygame.VIDEORESIZE, pygame.WINDOWRESIZED, pygame.WINDOWSIZECHANGED):
            surface = pygame.display.get_surface()
            if surface is not None:
                self.size = surface.get_size()
            return
        if event.type == pygame.TEXTINPUT:
            field = self.fields.get(self.focus)
            if field is not None and self._field_visible(self.focus):
                field.value = (field.value + event.text)[:FIELD_MAX]
            return
        if event.type == pygame.KEYDOWN:
            self.key(event)
            return
        for pointer in self.pointer.feed(event):
            if pointer.kind == "up" and not pointer.dragging:
                action = self.hit_at(pointer.pos)
                if action is not None:
                    self.tap(action)

    def _field_visible(self, name: str) -> bool:
        if self.username is None:
            return name in ("server", "username", "password") or (
                name == "server_invite" and self.invite_needed
            )
        return name == ("invite" if self.page == "league" else "code")

    def hit_at(self, pos) -> LobbyTap | None:
        for hit in reversed(self.hits):
            if hit.rect.collidepoint(pos):
                return hit.action
        return None

    def controls(self) -> list[LobbyTap]:
        """Every control of the screen on display, in drawing order (once each)."""
        found: list[LobbyTap] = []
        for hit in self.hits:
            if hit.action not in found:
                found.append(hit.action)
        return found

    def keyboard_focus(self, controls: list[LobbyTap] | None = None) -> LobbyTap | None:
        """The control the keyboard is on: the one Tab reached if it is still on screen
        (``controls``: those of the frame being drawn; else the last frame's), else the
        text field typed into (when it is on this screen)."""
        controls = self.controls() if controls is None else controls
        if self.focused in controls:
            return self.focused
        field = FocusField(self.focus)
        return field if field in controls else None

    def move_focus(self, step: int) -> None:
        controls = self.controls()
        if not controls:
            return
        current = self.keyboard_focus()
        index = controls.index(current) if current in controls else (-1 if step > 0 else 0)
        self.focused = controls[(index + step) % len(controls)]
        if isinstance(self.focused, FocusField):
            self.focus = self.focused.name

    def key(self, event) -> None:
        mods = getattr(event, "mod", 0)
        if event.key == pygame.K_q and mods & pygame.KMOD_CTRL:
            self.quit()
            return
        field = self.fields.get(self.focus)
        current = self.keyboard_focus()
        on_field = current is None or isinstance(current, FocusField)
        if event.key == pygame.K_BACKSPACE and field is not None and on_field:
            field.value = field.value[:-1]
        elif event.key == pygame.K_TAB:
            self.move_focus(-1 if mods & pygame.KMOD_SHIFT else 1)
        elif event.key in (pygame.K_RETURN, pygame.K_KP_ENTER, pygame.K_SPACE) and not on_field:
            assert current is not None
            self.tap(current)  # a button, a seat, a setting: as if tapped
        elif event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
            if self.username is None:
                # an invite code is for registering: Enter there registers
                self.submit_sign_in(register=self.focus == "server_invite")
            elif self.focus == "code":
                self.join()
            elif self.focus == "invite":
                self.join_club()
        elif event.key == pygame.K_ESCAPE and self.settings_open:
            self.settings_open = False
        elif event.key == pygame.K_ESCAPE and self.page != "home":
            self.page = "home"
        elif event.key == pygame.K_v and mods & pygame.KMOD_CTRL and field is not None:
            pasted = _clipboard()
            if pasted:
                field.value = (field.value + pasted.strip())[:FIELD_MAX]

    def tap(self, action: LobbyTap) -> None:
        self.focused = action  # the keyboard goes on from what was tapped
        match action:
            case FocusField(name):
                self.focus = name
            case SignIn():
                self.submit_sign_in(register=False)
            case Register():
                self.submit_sign_in(register=True)
            case SignOut():
                self.sign_out()
            case Refresh():
                self.service.refresh()
                if self.page == "league":
                    self.service.load_league()
            case OpenTable(code):
                self.open_table(code)
            case TakeOpenSeat(code):
                self.busy = True
                self.service.join(code)
            case OpenReplay(url):
                self.open_url(url)
            case ToggleSeat(n):
                self.create_seats[n] = "human" if self.create_seats[n] == "bot" else "bot"
            case NextLevel():
                offered = levels()
                index = offered.index(self.level) if self.level in offered else -1
                self.level = offered[(index + 1) % len(offered)]
            case CreateTable():
                self.create()
            case JoinByCode():
                self.join()
            case NextLanguage():
                self.choose("lang", next_language(self.tr.lang))
            case OpenSettings():
                self.settings_open = True
            case CloseSettings():
                self.settings_open = False
            case ChooseSetting(name, value):
                self.choose(name, value)
            case ShowPage(page):
                self.show_page(page)
            case ShowClub(slug):
                self.club = slug
            case JoinClub():
                self.join_club()
            case WatchTable(code):
                if self.on_watch is not None and self.server:
                    self.on_watch(self.server, self.token, code, self.live_teams(code))


def _clipboard() -> str:
    try:
        return pygame.scrap.get_text() if pygame.scrap.get_init() else ""
    except (pygame.error, AttributeError):
        return ""
