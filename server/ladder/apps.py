from django.apps import AppConfig


class LadderConfig(AppConfig):
    name = "server.ladder"
    label = "ladder"
    verbose_name = "The bot ladder: scheduled duplicate matches, ratings per bot version"

    def ready(self):
        # Imported here: they import models, which exist only once the registry is loaded.
        from server.ladder.pairs import record_leg_end
        from server.league.tick import ticked
        from server.tables.signals import match_ended

        # Connected after the league's receiver (this app comes after the league in
        # INSTALLED_APPS): the leg's LeagueMatch has its result when this one runs.
        match_ended.connect(record_leg_end, dispatch_uid="ladder-record-leg-end")
        ticked.connect(on_tick, dispatch_uid="ladder-step")


def on_tick(sender, now, **kwargs) -> list[str]:
    """The ticking driver's ``ticked``: the ladder's scheduling and its timeouts."""
    from server.ladder.tick import ladder_step

    return ladder_step(now)
