"""The one-file app's entry (PyInstaller runs this script): the installed ``dekabes``."""

import sys

from clients.table.gui import main

if __name__ == "__main__":
    sys.exit(main())
