from django.apps import AppConfig


class TablesConfig(AppConfig):
    name = "server.tables"
    label = "tables"
    verbose_name = "Tables and their event logs"
