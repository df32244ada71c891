from django.apps import AppConfig


class RealtimeConfig(AppConfig):
    name = "server.realtime"
    label = "realtime"
    verbose_name = "WebSocket pushes of seat views"
