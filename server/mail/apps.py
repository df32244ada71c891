from django.apps import AppConfig


class MailConfig(AppConfig):
    name = "server.mail"
    label = "mail"
    verbose_name = "Members' mail: preferences, the outbox and its queue"

    def ready(self):
        # Imported here: the receivers import models, which exist once the registry is
        # loaded; each is connected once (dispatch_uid).
        from server.mail import receivers

        receivers.connect()
