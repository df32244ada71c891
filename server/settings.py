"""Settings for the Dékabès server, read from the environment.

Nothing set gives the embedded default: SQLite (WAL, IMMEDIATE transactions) in
``var/`` and the in-memory channel layer. ``DATABASE_URL=postgres://…`` moves the
store to PostgreSQL, ``REDIS_URL=redis://…`` the channel layer to Redis.
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("DEKABES_VAR_DIR", BASE_DIR / "var"))

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or "dev-only-secret-change-me-for-a-public-server"
DEBUG = os.environ.get("DJANGO_DEBUG", "") == "1"
ALLOWED_HOSTS = [h for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "*").split(",") if h]

INSTALLED_APPS = [
    "daphne",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "server.accounts",
    "server.tables",
    "server.realtime",
    "server.league",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.common.CommonMiddleware",
]

ROOT_URLCONF = "server.urls"
ASGI_APPLICATION = "server.asgi.application"
AUTH_USER_MODEL = "accounts.User"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    "DIRS": [],
    "APP_DIRS": True,
    "OPTIONS": {"context_processors": ["django.template.context_processors.request"]},
}]


def _database() -> dict:
    url = os.environ.get("DATABASE_URL")
    if url:
        # Persistent connections: a new PostgreSQL connection costs more than a request.
        # Each request thread keeps one (see server/http_bridge.py for the pools).
        config = dj_database_url.parse(url, conn_max_age=300, conn_health_checks=True)
        config.setdefault("TEST", {})
        if os.environ.get("DEKABES_TEST_DB_NAME"):
            config["TEST"]["NAME"] = os.environ["DEKABES_TEST_DB_NAME"]
        return config
    path = Path(os.environ.get("DEKABES_SQLITE_PATH", VAR_DIR / "dekabes.sqlite3"))
    path.parent.mkdir(parents=True, exist_ok=True)
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(path),
        "OPTIONS": {
            # WAL lets readers (long-polls, pushes) run while one writer appends;
            # IMMEDIATE takes the write lock at BEGIN, so two actions on one version
            # queue up instead of failing half-way with "database is locked".
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            "timeout": 20,
        },
        # A file, not memory: concurrency tests need real IMMEDIATE locking across threads.
        "TEST": {"NAME": str(path.with_name("test-" + path.name))},
        "CONN_MAX_AGE": None, "CONN_HEALTH_CHECKS": True,
    }


DATABASES = {"default": _database()}


def _channel_layers() -> dict:
    url = os.environ.get("REDIS_URL")
    if url:
        return {"default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [url], "prefix": os.environ.get("DEKABES_CHANNEL_PREFIX", "dekabes")},
        }}
    return {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


CHANNEL_LAYERS = _channel_layers()

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["server.accounts.auth.TokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "EXCEPTION_HANDLER": "server.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Dékabès table server",
    "DESCRIPTION": "Per-seat REST API of the Dékabès club server. Every error body is "
                   "{code, message}; see docs/server.md and docs/bots.md.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
}

STATIC_URL = "/static/"
USE_TZ = True
TIME_ZONE = "UTC"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 8}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

# Seconds: the longest a long-poll may wait, and how often pushes ping.
LONG_POLL_MAX = 30
WS_PING_SECONDS = float(os.environ.get("DEKABES_WS_PING_SECONDS", "20"))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("DEKABES_LOG_LEVEL", "INFO")},
    "loggers": {"django.channels.server": {"level": "WARNING"}},
}
