"""How the table's processes stop on a signal: SIGTERM (a closed terminal, a service
manager) and SIGINT (Ctrl-C) both end the window's loop as closing the window does, so
the settings are kept and what ``--local`` started (the server, the bots) is stopped too.

SIGINT is taken back even when the process was started with it ignored, as a background
job of a script is (``cmd &`` in a non-interactive shell, ``nohup ... &``): Python keeps
an inherited SIG_IGN, and so would the server and bots started from here (exec keeps
ignored signals), so Ctrl-C would stop nothing. ``server.run`` does the same for its own.
"""

from __future__ import annotations

import signal


def stop_on_signals() -> None:
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _interrupt(signum, frame):
    raise KeyboardInterrupt
