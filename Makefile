# Two entry points, each self-sufficient on a fresh clone:
#   make run   - create .venv if missing, install ginbox, run experiments/quick.toml and print
#                its report (written to results/quick/)
#   make test  - the same set-up with the dev extras (dask and rl too), then ruff and pytest
# The install steps leave a stamp in .venv and run again only when pyproject.toml changes.
VENV   ?= .venv
PYTHON ?= python3
BIN    := $(VENV)/bin

.PHONY: run test install install-dev clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[dev,dask,rl,learn]"
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed

install-dev: $(VENV)/.installed-dev

run: install
	$(BIN)/ginbox run experiments/quick.toml --force

test: install-dev
	$(BIN)/ruff check sim strategies tests experiments benchmarks studies
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) build *.egg-info
