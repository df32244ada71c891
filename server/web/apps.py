from django.apps import AppConfig


class WebConfig(AppConfig):
    name = "server.web"
    label = "web"
    verbose_name = "Web pages"
