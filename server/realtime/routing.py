from django.urls import path

from server.realtime.consumers import TableConsumer

websocket_urlpatterns = [path("ws/tables/<str:code>", TableConsumer.as_asgi())]
