"""Settings for the Dékabès server, read from the environment.

Nothing set gives the embedded default: SQLite (WAL, IMMEDIATE transactions) in
``var/`` and the in-memory channel layer. ``DATABASE_URL=postgres://…`` moves the
store to PostgreSQL, ``REDIS_URL=redis://…`` the channel layer to Redis.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import dj_database_url
import orjson

from server import redis_clients

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("DEKABES_VAR_DIR", BASE_DIR / "var"))


def _owner_only_dir(path: Path) -> Path:
    """var/ holds the database and the secret key: readable by the server's user only."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        os.chmod(path, 0o700)
    except PermissionError:
        pass  # not ours (a shared mount): the files inside are still owner-only
    return path


def _owner_only_file(path: Path) -> None:
    """Create the database file 0600 (SQLite gives its -wal and -shm files the same mode)."""
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    os.chmod(path, 0o600)


def _secret_key() -> str:
    """DJANGO_SECRET_KEY, else the key generated on first start in var/secret_key (0600)."""
    if os.environ.get("DJANGO_SECRET_KEY"):
        return os.environ["DJANGO_SECRET_KEY"]
    path = _owner_only_dir(VAR_DIR) / "secret_key"
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    with os.fdopen(descriptor, "w") as stream:
        stream.write(secrets.token_urlsafe(50))
    return path.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = os.environ.get("DJANGO_DEBUG", "") == "1"
# Loopback names by default; `make serve HOST=0.0.0.0` sets the machine's names and
# addresses (server/run.py), or the operator lists them.
ALLOWED_HOSTS = [
    h for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]").split(",") if h
]

INSTALLED_APPS = [
    "daphne",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "server.accounts",
    "server.tables",
    "server.sockets",
    "server.league",
    "server.matchmaking",
    "server.web",
    "server.ops",
    "server.mail",
    "server.ladder",  # after the league: its receiver of a match's end runs after the league's
]

# The API authenticates by token and DRF's views are CSRF-exempt; the web pages
# (server/web) sign in with a session and every form carries a CSRF token.
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "server.web.csp.ContentSecurityPolicyMiddleware",
]

ROOT_URLCONF = "server.urls"
ASGI_APPLICATION = "server.asgi.application"
AUTH_USER_MODEL = "accounts.User"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "server.web.context.site",
            ]
        },
    }
]

# The web pages: four languages chosen from Accept-Language (or the switcher, which
# stores the choice in a cookie); catalogues in locale/ (docs/web.md).
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("es", "Español"), ("ru", "Русский"), ("ms", "Bahasa Melayu")]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
LOGIN_URL = "web:signin"
LOGIN_REDIRECT_URL = "web:home"
LOGOUT_REDIRECT_URL = "web:home"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_FAILURE_VIEW = "server.web.errors.csrf_failure"
SESSION_COOKIE_SECURE = os.environ.get("DEKABES_SECURE_COOKIES", "") == "1"
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE


SQLITE_SYNCHRONOUS = os.environ.get("DEKABES_SQLITE_SYNCHRONOUS", "FULL").upper()
if SQLITE_SYNCHRONOUS not in ("FULL", "NORMAL", "EXTRA"):
    raise ValueError("DEKABES_SQLITE_SYNCHRONOUS is FULL, EXTRA or NORMAL")


def _database() -> dict:
    url = os.environ.get("DATABASE_URL")
    if url:
        # Persistent connections: a new PostgreSQL connection costs more than a request.
        # Each request thread keeps one (see server/http_bridge.py for the pools).
        # No health check: it is a `SELECT 1` round trip before every request. A
        # connection that broke (PostgreSQL restarted) fails one request, and Django
        # closes it at that request's end because of the error; the next one reconnects.
        config: dict = dict(dj_database_url.parse(url, conn_max_age=300, conn_health_checks=False))
        config.setdefault("TEST", {})
        if os.environ.get("DEKABES_TEST_DB_NAME"):
            config["TEST"]["NAME"] = os.environ["DEKABES_TEST_DB_NAME"]
        return config
    path = Path(os.environ.get("DEKABES_SQLITE_PATH", VAR_DIR / "dekabes.sqlite3"))
    _owner_only_dir(path.parent)
    _owner_only_file(path)
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(path),
        "OPTIONS": {
            # WAL lets readers (long-polls, pushes) run while one writer appends;
            # IMMEDIATE takes the write lock at BEGIN, so two actions on one version
            # queue up instead of failing half-way with "database is locked".
            "transaction_mode": "IMMEDIATE",
            # FULL: an acknowledged action survives a power loss too (NORMAL may drop
            # the last commits); measured cost in docs/server.md, small at our rate.
            "init_command": f"PRAGMA journal_mode=WAL; PRAGMA synchronous={SQLITE_SYNCHRONOUS};",
            "timeout": 20,
        },
        # A file, not memory: concurrency tests need real IMMEDIATE locking across threads.
        "TEST": {"NAME": str(path.with_name("test-" + path.name))},
        "CONN_MAX_AGE": None,
        "CONN_HEALTH_CHECKS": False,  # a file: nothing to check
    }


DATABASES = {"default": _database()}


# How long a Redis stall may last before the channel layer's commands fail (and are
# tried again: ``_channel_layers``), in seconds; docs/server.md "Production layout".
REDIS_STALL_SECONDS = redis_clients.stall_seconds()


def _channel_layers() -> dict:
    url = os.environ.get("REDIS_URL")
    if url:
        from channels_redis.core import RedisChannelLayer
        from redis.asyncio.retry import Retry
        from redis.backoff import ExponentialWithJitterBackoff

        host = {
            "address": url,
            # A receive blocks in Redis (BZPOPMIN) for up to brpop_timeout (5 s) with
            # nothing to read: with redis-py's default read timeout, also 5 s, every
            # receive that heard nothing failed ("Timeout reading from ...") and closed
            # the socket whose consumer was reading. Reads wait past that block.
            "socket_timeout": RedisChannelLayer.brpop_timeout + REDIS_STALL_SECONDS,
            # A command whose connection timed out or dropped is sent again on a new
            # one (redis-py's own retry, with the defaults redis.Redis() would have;
            # channels_redis's pools get none): ten tries, backing off 10 ms to 1 s.
            "retry": Retry(ExponentialWithJitterBackoff(base=0.01, cap=1), retries=10),
        }
        return {
            "default": {
                "BACKEND": "channels_redis.core.RedisChannelLayer",
                "CONFIG": {
                    "hosts": [host],
                    "prefix": os.environ.get("DEKABES_CHANNEL_PREFIX", "dekabes"),
                },
            }
        }
    return {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


CHANNEL_LAYERS = _channel_layers()


def _caches() -> dict:
    """Rate-limit counts: in Redis when REDIS_URL is set (shared by every server process),
    else in this process's memory (right for the one-process default)."""
    url = os.environ.get("REDIS_URL")
    if url:
        return {
            "default": {
                "BACKEND": "django.core.cache.backends.redis.RedisCache",
                "LOCATION": url,
                "KEY_PREFIX": os.environ.get("DEKABES_CHANNEL_PREFIX", "dekabes"),
                "OPTIONS": redis_clients.client_options(),  # waits out a stall, bounded
            }
        }
    return {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "dekabes",
        }
    }


CACHES = _caches()


def _env_int(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


# Abuse limits (docs/server.md "Limits"). Rates are DRF's "N/second|minute|hour|day".
THROTTLE_RATES = {
    "login_address": os.environ.get("DEKABES_RATE_LOGIN_ADDRESS", "30/minute"),
    "login_name": os.environ.get("DEKABES_RATE_LOGIN_NAME", "10/minute"),
    "register_address": os.environ.get("DEKABES_RATE_REGISTER_ADDRESS", "30/hour"),
    "hint": os.environ.get("DEKABES_RATE_HINT", "30/minute"),
}
# Request bodies past this many bytes are refused (413) before they are read whole.
DEKABES_MAX_BODY = _env_int("DEKABES_MAX_BODY", 64 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = DEKABES_MAX_BODY
# Concurrent long-polls and WebSockets one account may hold (per server process).
DEKABES_MAX_LONG_POLLS = _env_int("DEKABES_MAX_LONG_POLLS", 8)
DEKABES_MAX_LONG_POLLS_BOT = _env_int("DEKABES_MAX_LONG_POLLS_BOT", 64)
# Visitors signed in to no account waiting on a public club's live pages (docs/web.md
# "Live pages"): shared by all of them, per server process.
DEKABES_MAX_ANONYMOUS_LONG_POLLS = _env_int("DEKABES_MAX_ANONYMOUS_LONG_POLLS", 200)
DEKABES_MAX_SOCKETS = _env_int("DEKABES_MAX_SOCKETS", 16)
# Tables a member owns whose match is not over; bot accounts a member owns.
DEKABES_MAX_TABLES = _env_int("DEKABES_MAX_TABLES", 20)
DEKABES_MAX_BOTS = _env_int("DEKABES_MAX_BOTS", 10)
# Matchmaking's daily quotas (docs/api.md, "Open seats and challenges"): the seeks made,
# open seats taken, challenges made and accepted by one bot, and by all of one member's
# bots (and the member) together, in any 24 hours; past them 429 daily_limit.
DEKABES_BOT_GAMES_PER_DAY = _env_int("DEKABES_BOT_GAMES_PER_DAY", 100)
DEKABES_OWNER_GAMES_PER_DAY = _env_int("DEKABES_OWNER_GAMES_PER_DAY", 300)
# Server-hosted computer players (docs/league.md): at most this many active in a club,
# played by the host process signed in as this house bot account (make serve: "house").
DEKABES_MAX_HOSTED_PLAYERS = _env_int("DEKABES_MAX_HOSTED_PLAYERS", 12)
DEKABES_HOST_ACCOUNT = os.environ.get("DEKABES_HOST_ACCOUNT", "house")
# The bot ladder (docs/ladder.md): the house levels standing on it as anchors, a bot's
# matches per rolling day (its own limit may be lower), how long a bot may keep a leg
# waiting before a house player takes its seat, how recently it must have said it is
# there to be drawn, how many pairs play at once, and the house account owning its tables.
DEKABES_LADDER_LEVELS = tuple(
    level
    for level in os.environ.get(
        "DEKABES_LADDER_LEVELS", "random,greedy,medium,strong,expert"
    ).split(",")
    if level
)
DEKABES_LADDER_MATCHES_PER_DAY = _env_int("DEKABES_LADDER_MATCHES_PER_DAY", 48)
DEKABES_LADDER_MOVE_SECONDS = _env_int("DEKABES_LADDER_MOVE_SECONDS", 120)
DEKABES_LADDER_SEEN_SECONDS = _env_int("DEKABES_LADDER_SEEN_SECONDS", 900)
DEKABES_LADDER_MAX_PAIRS = _env_int("DEKABES_LADDER_MAX_PAIRS", 200)
DEKABES_LADDER_ACCOUNT = os.environ.get("DEKABES_LADDER_ACCOUNT", "ladder")
# League quotas (docs/server.md "Limits"): clubs one account creates, seasons of a club,
# open invite codes of a club, rounds of a season.
DEKABES_MAX_CLUBS = _env_int("DEKABES_MAX_CLUBS", 10)
DEKABES_MAX_SEASONS = _env_int("DEKABES_MAX_SEASONS", 100)
DEKABES_MAX_INVITES = _env_int("DEKABES_MAX_INVITES", 50)
DEKABES_MAX_ROUNDS = _env_int("DEKABES_MAX_ROUNDS", 200)
# Backups (docs/server.md, "Backups"): where `manage.py backup` writes; every
# DEKABES_BACKUP_HOURS hours `make serve` (server.run) makes one (unset: none scheduled),
# keeping the newest of the last DEKABES_BACKUP_KEEP_DAILY days and KEEP_WEEKLY weeks.
DEKABES_BACKUP_DIR = Path(os.environ.get("DEKABES_BACKUP_DIR") or VAR_DIR / "backups")
DEKABES_BACKUP_HOURS = float(os.environ.get("DEKABES_BACKUP_HOURS") or 0)
DEKABES_BACKUP_KEEP_DAILY = _env_int("DEKABES_BACKUP_KEEP_DAILY", 7)
DEKABES_BACKUP_KEEP_WEEKLY = _env_int("DEKABES_BACKUP_KEEP_WEEKLY", 8)
# /healthz: the disk holding var/ fails below this many free bytes (default 1 GB).
DEKABES_HEALTH_MIN_FREE = _env_int("DEKABES_HEALTH_MIN_FREE", 1024**3)
# open | invite (codes from `manage.py invite`) | closed
DEKABES_REGISTRATION = os.environ.get("DEKABES_REGISTRATION", "open")
if DEKABES_REGISTRATION not in ("open", "invite", "closed"):
    raise ValueError("DEKABES_REGISTRATION is open, invite or closed")

# Members' mail (docs/server.md, "Mail"): the console backend (the mail printed to the
# queue's log, var/mail.log) unless DEKABES_SMTP_HOST names a mail server. Mail goes out
# from the outbox, never inside a request: `manage.py send_mail_queue` (server.run runs it).
DEKABES_SITE_URL = os.environ.get("DEKABES_SITE_URL", "http://127.0.0.1:8000").rstrip("/")
DEFAULT_FROM_EMAIL = os.environ.get("DEKABES_MAIL_FROM", "Dékabès <noreply@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
EMAIL_HOST = os.environ.get("DEKABES_SMTP_HOST", "")
EMAIL_BACKEND = (
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend"
)
EMAIL_PORT = _env_int("DEKABES_SMTP_PORT", 25)
EMAIL_HOST_USER = os.environ.get("DEKABES_SMTP_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("DEKABES_SMTP_PASSWORD", "")
_SMTP_SECURITY = os.environ.get("DEKABES_SMTP_SECURITY", "none").lower()
if _SMTP_SECURITY not in ("none", "starttls", "tls"):
    raise ValueError("DEKABES_SMTP_SECURITY is none, starttls or tls")
EMAIL_USE_TLS = _SMTP_SECURITY == "starttls"
EMAIL_USE_SSL = _SMTP_SECURITY == "tls"
EMAIL_TIMEOUT = _env_int("DEKABES_SMTP_TIMEOUT", 20)
# The reminder before a round's deadline, this many hours before it (0: none).
DEKABES_MAIL_DEADLINE_HOURS = float(os.environ.get("DEKABES_MAIL_DEADLINE_HOURS") or 24)
# Seconds between two looks at the outbox by `send_mail_queue --watch`.
DEKABES_MAIL_POLL_SECONDS = float(os.environ.get("DEKABES_MAIL_POLL_SECONDS") or 5)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["server.accounts.auth.TokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["server.json_body.JSONParser"],
    "EXCEPTION_HANDLER": "server.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_THROTTLE_RATES": THROTTLE_RATES,
    # The client address is the connection's, not a client-sent X-Forwarded-For; behind
    # a reverse proxy set DEKABES_PROXIES to the number of proxies in front.
    "NUM_PROXIES": _env_int("DEKABES_PROXIES", 0),
    # The hot path's orjson renderer (server/tables/views.py) writes what the standard
    # JSON renderer would: integer keys as strings.
    "ORJSON_RENDERER_OPTIONS": (orjson.OPT_NON_STR_KEYS,),
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Dékabès table server",
    "DESCRIPTION": "Per-seat REST API of the Dékabès club server. Every error body is "
    "{code, message}; see docs/server.md and docs/bots.md.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # server/ids_and_names.py's path converters: an id is an integer (at most 18 digits), a
    # name a string without control characters.
    "PATH_CONVERTER_OVERRIDES": {
        "id": {"type": "integer", "minimum": 0, "maximum": 10**18 - 1},
        "name": str,
    },
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # Choice values are their own names: no "* `a` - a" lists in the descriptions.
    "ENUM_GENERATE_CHOICE_DESCRIPTION": False,
    # One name for a choice set several fields share.
    "ENUM_NAME_OVERRIDES": {
        "TeamEnum": ["A", "B"],
        "RoleEnum": ["organizer", "member"],
        "PlayerKindEnum": ["people", "bots", "any"],  # matchmaking: wanted, partners...
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "server.api_schema.describe_what_the_views_enforce",
    ],
}

STATIC_URL = "/static/"
USE_TZ = True
TIME_ZONE = "UTC"

AUTH_PASSWORD_VALIDATORS = [
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 8},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

# Seconds: the longest a long-poll may wait (a longer ``?wait=`` is cut to it), and how
# often pushes ping.
LONG_POLL_MAX = float(os.environ.get("DEKABES_LONG_POLL_MAX", "30"))
WS_PING_SECONDS = float(os.environ.get("DEKABES_WS_PING_SECONDS", "20"))
# Seconds: the longest a seat socket acts on the token it opened with before looking it
# up again (an action past this, and every ping, check it): a revoked token's socket
# acts no more after this, and is closed (server/sockets/actions.py).
WS_TOKEN_CHECK_SECONDS = float(os.environ.get("DEKABES_WS_TOKEN_CHECK_SECONDS", "5"))
# Seconds a request for a seat (its view, a long-poll, an action) keeps the seat "here"
# (server/notices/presence.py); a seat socket keeps it while it is open.
PRESENCE_ACTIVITY_SECONDS = float(os.environ.get("DEKABES_PRESENCE_ACTIVITY_SECONDS", "60"))
# The folds a process keeps (server/tables/projection.py): at most this many events and
# undo points in all (~1 KB each), the least recently read tables leaving first.
PROJECTION_EVENTS = _env_int("DEKABES_PROJECTION_EVENTS", 100_000)
# How often a process looks for accounts closed by another one, whose old names it may
# keep (server/tables/projection.py; docs/server.md, "Members' data").
CLOSED_ACCOUNTS_CHECK_SECONDS = float(os.environ.get("DEKABES_CLOSED_ACCOUNTS_CHECK_SECONDS", "60"))

# Seconds between two ticks of the one ticking driver (server/league/tick.py: the automatic
# substitutes after a round's deadline) in this server process; 0: none (manage.py tick).
DEKABES_TICK_SECONDS = float(os.environ.get("DEKABES_TICK_SECONDS", "0"))


def client_error_in_one_line(record) -> bool:
    """An ordinary refusal (a 4xx: a 403 page, a 404) is one log line: Django logs the
    exception that made it with its traceback, which says nothing about a server fault."""
    if getattr(record, "status_code", 500) < 500:
        record.exc_info = None
        record.exc_text = None
    return True


ERRORS_LOG = VAR_DIR / "errors.log"
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "filters": {"client_error_in_one_line": {"()": lambda: client_error_in_one_line}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain"},
        # Every error of every server process, one line each (plus its traceback): the
        # operators' status page counts the last day's (server/ops/health.py).
        "errors_file": {
            "class": "logging.handlers.WatchedFileHandler",
            "formatter": "plain",
            "level": "ERROR",
            "filename": str(ERRORS_LOG),
            "delay": True,
        },
    },
    "root": {
        "handlers": ["console", "errors_file"],
        "level": os.environ.get("DEKABES_LOG_LEVEL", "INFO"),
    },
    "loggers": {
        "django.channels.server": {"level": "WARNING"},
        "django.request": {"filters": ["client_error_in_one_line"]},
    },
}
