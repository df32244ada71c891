from django.apps import AppConfig


class LadderConfig(AppConfig):
    name = "server.ladder"
    label = "ladder"
    verbose_name = "The bot ladder: scheduled duplicate matches, ratings per bot version"

    def ready(self):
        # Imported here: they import models, which exist only once the registry is loaded.
        from server.ladder.pairs import record_leg_end
        from server.ladder.tick import ladder_step
        from server.league.tick import register_step
        from server.tables.signals import match_ended

        # Connected after the league's receiver (this app comes after the league in
        # INSTALLED_APPS): the leg's LeagueMatch has its result when this one runs.
        match_ended.connect(record_leg_end, dispatch_uid="ladder-record-leg-end")
        register_step("ladder", ladder_step)
