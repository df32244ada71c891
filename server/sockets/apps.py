from django.apps import AppConfig


class SocketsConfig(AppConfig):
    name = "server.sockets"
    label = "sockets"
    verbose_name = "WebSocket pushes of seat views"
