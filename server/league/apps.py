from django.apps import AppConfig


class LeagueConfig(AppConfig):
    name = "server.league"
    label = "league"
    verbose_name = "Clubs, seasons, rounds, results, standings and ratings"

    def ready(self):
        # Imported here: they import models, which exist only once the app registry is
        # loaded, and the receiver is connected once, when it is.
        from server.league.actions.results import record_match_end
        from server.league.selectors import (
            may_read_league_table,
            table_hidden_by_duplicate_round,
        )
        from server.tables.signals import match_ended, table_hidden_rules, table_read_rules

        match_ended.connect(record_match_end, dispatch_uid="league-record-match-end")
        if may_read_league_table not in table_read_rules:
            table_read_rules.append(may_read_league_table)
        if table_hidden_by_duplicate_round not in table_hidden_rules:
            table_hidden_rules.append(table_hidden_by_duplicate_round)
