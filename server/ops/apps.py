from django.apps import AppConfig


class OpsConfig(AppConfig):
    name = "server.ops"
    label = "ops"
    verbose_name = "Keeping the server: backups, restores, upgrades, health"
