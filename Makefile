# Dékabès — every command a newcomer needs. `make test` and `make play` bootstrap
# the virtual environment from requirements.txt on first use (and only then).
PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: venv test simulate bench serve play bench-server clean

venv: $(STAMP)

$(STAMP): requirements.txt
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON) on PATH"; exit 1; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check -q -r requirements.txt
	@touch $(STAMP)

test: $(STAMP)
	$(PY) -m pytest

simulate: $(STAMP)
	$(PY) -m engine simulate --hands 2000 --bots strong,greedy,strong,greedy --seed 1 --swap --workers 2

bench: $(STAMP)
	$(PY) -m engine bench

clean:
	rm -rf $(VENV) .pytest_cache
