"""``python -m server.bench``, the old name of ``make bench-server``: kept so that the
documented command keeps working, with every option. The benchmark is
``bench/server_actions.py`` (``python -m bench.server_actions``); with ``--spectators``
it is ``bench/spectators.py`` (``python -m bench.spectators``)."""

import sys

if __name__ == "__main__":
    if any(arg == "--spectators" or arg.startswith("--spectators=") for arg in sys.argv[1:]):
        from bench.spectators import main
    else:
        from bench.server_actions import main
    sys.exit(main())
