from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "server.accounts"
    label = "accounts"
    verbose_name = "Club members and bot accounts"
