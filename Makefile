# Dékabès — every command a newcomer needs. `make test` and `make play` bootstrap
# the virtual environment from requirements.txt on first use (and only then).
PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: venv lint format test simulate simulate-expert bench bench-dominoes serve play bench-server bench-table bench-abuse check-security clean browser messages

venv: $(STAMP)

$(STAMP): requirements.txt
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON) on PATH"; exit 1; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check -q -r requirements.txt
	@touch $(STAMP)

# Lint, format check and types: ruff over the whole tree, mypy --strict on the two
# libraries (engine/, clients/sdk/), then mypy at the lighter level (pyproject.toml).
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy --strict engine clients/sdk
	$(VENV)/bin/mypy

# Rewrite the tree in the house format and apply ruff's safe fixes.
format: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# The whole suite on the embedded default (SQLite + in-memory channel layer), in three
# processes (pytest-xdist, one test file per process: JOBS=1 for one); then, when
# DATABASE_URL / REDIS_URL are set (.ci/run sets them when the services answer), the
# store and realtime tests again against PostgreSQL / Redis (in two processes, below:
# each gets its own test database and Redis key prefix, tests/settings.py). Three on two
# cores: a live test waits on its server, browser and bots about half its time (the
# SQLite run's processes kept one of the two cores busy with two of them; three did the
# same CPU-seconds in 22% less time). The longest files are handed out first
# (tests/conftest.py, LONG_FILES; --no-loadscope-reorder keeps that order).
XDIST := -n $(or $(JOBS),3) --dist loadfile --no-loadscope-reorder
# The backend run stays at two: it is CPU-bound (PostgreSQL, Redis and the servers on
# the same two cores). Measured back to back on 1b1a2d8: two processes 207 s, each busy
# 200 s of it; three 200 s, each busy 172-191 s (the same tests a third slower apiece).
# Three once also stalled (Redis reads timing out, a ladder substitute's socket getting
# no pushes); those are mended (tests/server/conftest.py, docs/server.md "Redis stalls",
# server/sockets/pushes.py) and three passed, but bought only those 7 s.
BACKEND_XDIST := -n $(or $(JOBS),2) --dist loadfile --no-loadscope-reorder
test: $(STAMP) lint browser
	env -u DATABASE_URL -u REDIS_URL $(PY) -m pytest $(XDIST)
	@if [ -n "$$DATABASE_URL$$REDIS_URL" ]; then \
	  echo "== backend run: DATABASE_URL=$${DATABASE_URL:-<unset>} REDIS_URL=$${REDIS_URL:-<unset>}"; \
	  $(PY) -m pytest $(BACKEND_XDIST) -m backend tests/server tests/league tests/matchmaking tests/ladder; \
	else echo "== backend run skipped: DATABASE_URL and REDIS_URL unset (PostgreSQL/Redis not tested)"; fi

# The club server on 127.0.0.1:8000 with the embedded default (var/dekabes.sqlite3),
# and the house bots (account "house") for every bot seat named after them.
# WORKERS=N: N Daphne processes on one socket (needs REDIS_URL, and DATABASE_URL for
# PostgreSQL; docs/server.md, "Production layout").
serve: $(STAMP)
	$(PY) -m server.run --host $(or $(HOST),127.0.0.1) --port $(or $(PORT),8000) \
	  --workers $(or $(WORKERS),1)

# Keeping a server (docs/server.md, "Backups" and "Upgrading"): run them with the
# server's environment (DATABASE_URL, ...) and, for an upgrade, the server stopped.
# make backup; make verify-backup FILE=var/backups/dekabes-....tar; make upgrade TO=v1.0.1
.PHONY: backup verify-backup upgrade
backup: $(STAMP)
	$(PY) manage.py backup

verify-backup: $(STAMP)
	$(PY) manage.py verify_backup $(FILE)

upgrade: $(STAMP)
	$(PY) manage.py upgrade $(if $(TO),--to $(TO))

# The desktop table: the window at once, the embedded server + house bots starting behind
# it, you at seat 1. Options: make play HUMANS=1,3 LEVEL=medium LANG_UI=ru
play: $(STAMP)
	$(PY) -m clients.table --local --humans $(or $(HUMANS),1) --level $(or $(LEVEL),strong) \
	  $(if $(LANG_UI),--lang $(LANG_UI))

# The benchmarks live in bench/ (python -m bench.<module>, outside the product).

# The table client: frame time of a full board at 1280x800 and idle CPU (headless), and
# make play's time to its window and to the deal (window_s, deal_s).
bench-table: $(STAMP)
	$(PY) -m bench.table_frames

# What a game action costs the server (CPU vs a trivial GET, open-loop latency, 1/20/200
# tables, cold tables), SQLite, loopback; the CPU figure also with an Idempotency-Key on
# every action, and with keys and the four seats on WebSockets. SCALE_OUT=1: 1 vs 2
# processes on DATABASE_URL + REDIS_URL (PostgreSQL + Redis) instead. PEER=1: the peer
# harness (boardgame.io, ../shared/bench/boardgameio, after its npm ci; PEER_DIR=a copy)
# in the same run. QUICK=1: the CPU figures only.
bench-server: $(STAMP)
	$(PY) -m bench.server_actions $(if $(SCALE_OUT),--scale-out) $(if $(PEER),--peer) \
	  $(if $(PEER_DIR),--peer-dir $(PEER_DIR)) $(if $(QUICK),--quick)

# The demo league (docs/league.md): club "demo", eight house bots, two rounds played.
.PHONY: seed-demo
seed-demo: $(STAMP)
	$(PY) manage.py migrate -v0
	$(PY) manage.py seed_demo_league $(if $(SERVER),--server $(SERVER))

# League reads with 10,000 finished matches in one club (standings, ratings, match list).
.PHONY: bench-league
bench-league: $(STAMP)
	$(PY) -m bench.league_reads

# The bot ladder: one round's draw and rating at 10, 100 and 1,000 bots (docs/ladder.md).
.PHONY: bench-ladder
bench-ladder: $(STAMP)
	$(PY) -m bench.ladder

# What a server process keeps for the tables it served, bounded (docs/server.md, "Memory").
.PHONY: bench-memory
bench-memory: $(STAMP)
	$(PY) -m bench.process_memory

# A login flood and a 400 MB body against a bystander's game actions (issue 11 figures).
bench-abuse: $(STAMP)
	$(PY) -m bench.abuse

# Schema fuzzing against a live server: fails on any 5xx or answer outside the schema.
check-security: $(STAMP)
	DEKABES_FUZZ_EXAMPLES=40 DEKABES_FUZZ_SECONDS=150 $(PY) -m pytest -s -m security tests/server/test_hardening_fuzz.py

simulate: $(STAMP)
	$(PY) -m engine simulate --hands 2000 --bots strong,greedy,strong,greedy --seed 1 --swap --workers 2

# Expert vs strong, reproducible: exactly 200 worlds per expert decision (no clock).
simulate-expert: $(STAMP)
	$(PY) -m engine simulate --hands 2000 --bots expert,strong,expert,strong --seed 1 --swap --workers 2 --expert-iterations 200

bench: $(STAMP)
	$(PY) -m engine bench

# simulate with four random bots against the PyPI dominoes package's random self-play,
# whole processes side by side (installs the yardstick from bench/requirements.txt).
bench-dominoes: $(STAMP)
	$(PY) -m pip install --disable-pip-version-check -q -r bench/requirements.txt
	$(PY) bench/compare_dominoes.py --hands 20000 --repeat 5

clean:
	rm -rf $(VENV) .pytest_cache

# Computer players (docs/bots.md): plays every table that seats the bot account.
#   DEKABES_TOKEN=<bot token> make bots [SERVER=http://127.0.0.1:8000] [LEVEL=strong] [DELAY=0.7]
#   make bots TOKEN_FILE=<file holding the token> [...]
# The token never goes on a command line here (every user of the machine sees those in
# ps): it is read from the environment or the file. TOKEN=<token> still works, with a
# warning, since make's own command line shows it.
.PHONY: bots
bots: $(STAMP)
	@if [ -n "$(TOKEN)" ]; then echo "make bots: TOKEN=... shows the token in ps to every user of this machine; prefer DEKABES_TOKEN=<token> make bots, or TOKEN_FILE=<file>" >&2; fi
	@if [ -z "$(TOKEN)$(TOKEN_FILE)" ] && [ -z "$$DEKABES_TOKEN" ]; then echo "make bots needs a token: DEKABES_TOKEN=<bot token> make bots, or TOKEN_FILE=<file> (manage.py createbot NAME prints one)"; exit 2; fi
	@$(if $(TOKEN),DEKABES_TOKEN='$(TOKEN)') $(PY) -m clients.bots $(if $(TOKEN_FILE),--token-file "$(TOKEN_FILE)") \
	  --server "$(or $(SERVER),http://127.0.0.1:8000)" --level "$(or $(LEVEL),strong)" --delay "$(or $(DELAY),0.7)"

# The browsers (Playwright launches them by path, never downloads one), from Debian,
# each installed only when missing: chromium-headless-shell, which the web page tests
# drive (the same Blink for about half the CPU: tests/web/browser.py), and chromium, the
# whole browser the benches time pages in (bench/web_table.py).
BROWSER_PACKAGES := chromium-headless-shell chromium
browser:
	@missing=""; for p in $(BROWSER_PACKAGES); do [ -x /usr/bin/$$p ] || missing="$$missing $$p"; done; \
	if [ -z "$$missing" ]; then echo "browser: /usr/bin/chromium-headless-shell and /usr/bin/chromium present"; \
	elif command -v apt-get >/dev/null 2>&1; then \
	  echo "browser: installing Debian's$$missing for the web page tests"; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; } \
	  || { echo "browser: installing Debian's$$missing failed (the web page tests need it)"; exit 1; }; \
	elif [ -x /usr/bin/chromium ] || [ -x /usr/bin/chromium-headless-shell ]; then \
	  echo "browser:$$missing missing and no apt-get: the tests use the other one"; \
	else echo "browser:$$missing missing and no apt-get: install them (the web page tests need them)"; exit 1; fi

# The web pages' catalogues (locale/): merge new page strings into the .po files, then
# compile the .mo files Django reads (Babel; no gettext tools needed). See docs/web.md.
messages: $(STAMP)
	$(PY) -m server.web.i18n update
	$(PY) -m server.web.i18n compile
	$(PY) -m server.web.i18n check

# The desktop app a member installs, as one file (PyInstaller; clients/packaging/README.md):
# built in its own environment (var/app-venv: PyInstaller and the app's dependencies,
# nothing of the server) into var/downloads/, the folder the club server offers at
# /download (DEKABES_DOWNLOADS_DIR). `make app-test` builds it, starts it under Xvfb
# against a test server from a dekabes:// link and prints its figures (slow: minutes).
APP_VENV := var/app-venv
APP_DIR  ?= var/downloads
APP_NAME ?= dekabes-linux-$(shell uname -m)
.PHONY: app app-test
app:
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON) on PATH"; exit 1; }
	@test -x $(APP_VENV)/bin/python || $(PYTHON) -m venv $(APP_VENV)
	$(APP_VENV)/bin/python -m pip install --disable-pip-version-check -q -r clients/packaging/requirements.txt
	DEKABES_APP_NAME=$(APP_NAME) $(APP_VENV)/bin/pyinstaller --noconfirm --clean --log-level WARN \
	  --distpath $(APP_DIR) --workpath var/app-build clients/packaging/dekabes.spec
	@ls -l $(APP_DIR)/$(APP_NAME)

app-test: $(STAMP)
	@command -v Xvfb >/dev/null 2>&1 || { echo "app-test needs Xvfb (apt-get install xvfb xdotool xdg-utils)"; exit 1; }
	DEKABES_APP_TEST=1 $(PY) -m pytest -s -p no:xdist tests/clients/test_app_build.py
