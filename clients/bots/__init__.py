"""Computer players as API clients: ``python -m clients.bots`` (see docs/bots.md).

``Runner``/``RunnerOptions`` embed the runner in a process; ``launch.start_runner``
starts it as a subprocess (used by ``make play`` / ``make serve``).
"""

from clients.bots.runner import Runner, RunnerOptions, RunnerStats, TableWorker

__all__ = ["Runner", "RunnerOptions", "RunnerStats", "TableWorker"]
