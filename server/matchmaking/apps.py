from django.apps import AppConfig


class MatchmakingConfig(AppConfig):
    name = "server.matchmaking"
    label = "matchmaking"
    verbose_name = "Open seats (seeks), challenges with published terms, daily quotas"

    def ready(self):
        # Imported here: they import models, which exist once the app registry is loaded.
        from server.matchmaking.seeks import offer_seek_seat, seek_seat_taken
        from server.tables.signals import seat_joined, seat_offer_rules

        if offer_seek_seat not in seat_offer_rules:
            seat_offer_rules.append(offer_seek_seat)
        seat_joined.connect(seek_seat_taken, dispatch_uid="matchmaking-seek-seat-taken")
