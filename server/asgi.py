"""ASGI entry point for Daphne: HTTP through Django (``http_bridge``; oversized bodies and
Daphne's own refusals: ``http_refusals``), WebSockets through Channels."""

import gc
import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "server.settings")

import django  # noqa: E402

django.setup(set_prefix=False)

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

# Import every view and load the catalogues now, before Daphne listens: otherwise the
# first request pays for it (~1 s on a busy machine) and a client's first call can time out.
from django.conf import settings  # noqa: E402
from django.contrib.staticfiles.handlers import StaticFilesHandler  # noqa: E402
from django.core.handlers.wsgi import WSGIHandler  # noqa: E402
from django.middleware.gzip import GZipMiddleware  # noqa: E402
from django.urls import get_resolver  # noqa: E402
from django.utils import translation  # noqa: E402

from server.http_bridge import WsgiBridge  # noqa: E402
from server.http_refusals import limit_daphne_bodies  # noqa: E402
from server.league.tick import Ticker  # noqa: E402
from server.sockets.auth import BrowserOriginValidator, TokenAuthMiddleware  # noqa: E402
from server.sockets.routing import websocket_urlpatterns  # noqa: E402
from server.sockets.wire import tune_websocket_wire  # noqa: E402

get_resolver().url_patterns  # noqa: B018 -- builds the URL resolver now, not on a first request
for _code, _name in settings.LANGUAGES:
    translation.activate(_code)
translation.deactivate()


class CompressedStaticFiles(StaticFilesHandler):
    """Static files gzipped for a client that accepts it (Django's ``GZipMiddleware``
    around the static view alone). Only static files: the pages carry CSRF tokens, and
    compressing a secret beside text an attacker can put on the page is what BREACH
    reads; a stylesheet or a script holds no secret."""

    def serve(self, request):
        return GZipMiddleware(super().serve)(request)


# Static files (the Swagger UI's bundle, the site's CSS and scripts) are served by
# Django itself: a club server needs no separate web server in front.
http_app = WsgiBridge(CompressedStaticFiles(WSGIHandler()))
limit_daphne_bodies()  # Daphne refuses oversized bodies before queueing them
tune_websocket_wire()  # fewer per-frame costs in Autobahn and Twisted (server/sockets/wire.py)

# Everything loaded so far lives as long as the process: out of the collector's sight.
# A full collection otherwise walks these ~120,000 objects (35-40 ms on this machine),
# a pause that lands on whichever request triggers it: the open loop's p99.
gc.collect()
gc.freeze()

application = ProtocolTypeRouter(
    {
        "http": http_app,
        "websocket": BrowserOriginValidator(TokenAuthMiddleware(URLRouter(websocket_urlpatterns))),
    }
)

# The one ticking driver (server/league/tick.py), in the process that sees presence: set for one
# server process by server.run; tests' and benchmarks' servers leave it off.
ticker = Ticker(settings.DEKABES_TICK_SECONDS).start() if settings.DEKABES_TICK_SECONDS else None
