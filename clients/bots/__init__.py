"""Computer players as API clients: ``python -m clients.bots`` (see docs/bots.md).

``Runner``/``RunnerOptions`` embed the runner in a process; ``launch.start_runner``
starts it as a subprocess (used by ``make play``). ``python -m clients.bots.host``
(``host.Host``; ``launch.start_host``, used by ``make serve``) runs one runner per
server-hosted computer player, signed in as the house account.
"""

from clients.bots.runner import Runner, RunnerOptions, RunnerStats, TableWorker

__all__ = ["Runner", "RunnerOptions", "RunnerStats", "TableWorker"]
