"""``python -m server.league.bench``, the old name of ``make bench-league``: kept so that
the documented command keeps working. The benchmark is ``bench/league_reads.py``
(``python -m bench.league_reads``)."""

import sys

from bench.league_reads import main

if __name__ == "__main__":
    sys.exit(main())
