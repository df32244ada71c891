from django.urls import path

from server.sockets.consumers import LobbyConsumer, SpectatorConsumer, TableConsumer

websocket_urlpatterns = [
    path("ws/tables/<str:code>", TableConsumer.as_asgi()),
    path("ws/tables/<str:code>/spectate", SpectatorConsumer.as_asgi()),
    path("ws/me", LobbyConsumer.as_asgi()),
]
