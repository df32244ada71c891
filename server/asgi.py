"""ASGI entry point for Daphne: HTTP through Django, WebSockets through Channels."""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "server.settings")

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402
from django.core.asgi import get_asgi_application  # noqa: E402

django_app = get_asgi_application()

from server.realtime.auth import TokenAuthMiddleware  # noqa: E402
from server.realtime.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter({
    # Static files (the Swagger UI's bundle) are served by Django itself: a club server
    # needs no separate web server in front.
    "http": ASGIStaticFilesHandler(django_app),
    "websocket": TokenAuthMiddleware(URLRouter(websocket_urlpatterns)),
})
