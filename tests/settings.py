"""The suite's settings: the product's (server/settings.py), with a fast password hash
and, under pytest-xdist, a Redis key prefix of each test process's own.

PBKDF2's million rounds cost 0.3-0.6 s of CPU for every registration, login and
password change, and the suite makes hundreds of accounts (in its own process and in
the live servers it starts, which get this module too); the tests check what the
server does with passwords, not what the hash costs. Nothing else differs.
"""

import os

if os.environ.get("PYTEST_XDIST_WORKER"):  # several processes on one Redis (backend run)
    os.environ.setdefault("DEKABES_CHANNEL_PREFIX", f"dekabes-{os.environ['PYTEST_XDIST_WORKER']}")

from server.settings import *  # noqa: E402, F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
