# Entry points, each self-sufficient on a fresh clone:
#   make run        - create .venv if missing, install ginbox with the web table, run
#                     experiments/quick.toml and print its report (written to results/quick/)
#   make test       - the same set-up with the dev extras (dask and rl too), the system's
#                     Chromium and its driver when missing (apt-get), then `make lint`,
#                     `make typecheck` and pytest on two workers
#   make lint       - ruff check on the code, tests, benchmarks, studies and experiments (the
#                     code keeps its own line breaks: `ruff format` is not part of the check)
#   make typecheck  - mypy on sim and strategies (about 20 s from an empty .mypy_cache, under a
#                     second after; the configuration is in pyproject.toml)
#   make format     - ruff check --fix: sorts imports and applies ruff's safe fixes
#   make notebooks  - install Jupyter (the notebooks extra) and open notebooks/ in JupyterLab
# The install steps leave a stamp in .venv and run again only when pyproject.toml changes.
VENV   ?= .venv
PYTHON ?= python3
BIN    := $(VENV)/bin
# pytest's workers (pytest-xdist): the machine this is sized for has 2 cores
WORKERS ?= 2
# what ruff checks: everything of Python in the repository but the notebooks
LINTED := sim strategies tests experiments benchmarks studies

.PHONY: run test lint typecheck format notebooks install install-dev install-notebooks browser \
        clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[web]"
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[dev,dask,rl,web,learn]"
	touch $@ $(VENV)/.installed

$(VENV)/.installed-notebooks: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[notebooks,web]"
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed

install-dev: $(VENV)/.installed-dev

install-notebooks: $(VENV)/.installed-notebooks

# The browser test (tests/test_web.py) drives the system's Chromium through its driver, which
# pip cannot install: take them from the system's packages when either is missing, as root or
# through sudo. When that fails the suite still runs, and the browser test fails saying so.
browser:
	@if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then :; \
	elif ! command -v apt-get >/dev/null; then \
	    echo "make: no chromium or chromedriver, and no apt-get to install them: the browser" \
	         "test will fail; install Chromium and its driver with your system's packages"; \
	else \
	    echo "make: installing chromium and chromium-driver for the browser test (apt-get)"; \
	    sudo=$$([ "$$(id -u)" -eq 0 ] || echo sudo); log=$$(mktemp); \
	    { $$sudo apt-get -qq -o DPkg::Lock::Timeout=300 update \
	      && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get -qq -o DPkg::Lock::Timeout=300 \
	             install -y --no-install-recommends chromium chromium-driver; } >$$log 2>&1 \
	    || { cat $$log; echo "make: could not install chromium and chromium-driver: the" \
	                         "browser test will fail; run: sudo apt-get install chromium" \
	                         "chromium-driver"; }; \
	    rm -f $$log; \
	fi

run: install
	$(BIN)/ginbox run experiments/quick.toml --force

test: install-dev browser lint typecheck
	$(BIN)/python -m pytest -n $(WORKERS)

lint: install-dev
	$(BIN)/ruff check $(LINTED)

typecheck: install-dev
	$(BIN)/mypy

format: install-dev
	$(BIN)/ruff check --fix $(LINTED)

notebooks: install-notebooks
	$(BIN)/jupyter lab --notebook-dir=notebooks

clean:
	rm -rf $(VENV) build *.egg-info
