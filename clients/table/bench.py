"""``python -m clients.table.bench``, the old name of ``make bench-table``: kept so that
the documented command keeps working. The benchmark is ``bench/table_frames.py``
(``python -m bench.table_frames``); like the client, it never imports the engine or
the server (tests/table/test_thin_client.py)."""

import sys

from bench.table_frames import main

if __name__ == "__main__":
    sys.exit(main())
