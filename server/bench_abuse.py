"""``python -m server.bench_abuse``, the old name of ``make bench-abuse``: kept so that
the documented command keeps working. The benchmark is ``bench/abuse.py``
(``python -m bench.abuse``)."""

import sys

from bench.abuse import main

if __name__ == "__main__":
    sys.exit(main())
