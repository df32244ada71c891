"""``python -m server.bench``, the old name of ``make bench-server``: kept so that the
documented command keeps working, with every option. The benchmark is
``bench/server_actions.py`` (``python -m bench.server_actions``)."""

import sys

from bench.server_actions import main

if __name__ == "__main__":
    sys.exit(main())
