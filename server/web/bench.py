"""``python -m server.web.bench``, the old name of the web pages' benchmark: kept so that
the documented command keeps working. The benchmark is ``bench/web_pages.py``
(``python -m bench.web_pages``)."""

import sys

from bench.web_pages import main

if __name__ == "__main__":
    sys.exit(main())
