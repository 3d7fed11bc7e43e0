# Entry points, each self-sufficient on a fresh clone:
#   make run        - create .venv if missing, install ginbox with the web table, run
#                     experiments/quick.toml and print its report (written to results/quick/)
#   make test       - the same set-up with the dev extras (dask and rl too), the system's
#                     Chromium and its driver, a JDK and Node.js when missing (apt-get), then
#                     `make lint` (ruff, and ESLint on the web table's script from
#                     node_modules/, pinned in package-lock.json), `make typecheck` and pytest
#                     on two workers
#   make lint       - ruff check on the code, tests, benchmarks, studies, experiments and
#                     examples (the code keeps its own line breaks: `ruff format` is not part of
#                     the check), and ESLint on sim/table/static
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
LINTED := sim strategies tests experiments benchmarks studies examples

.PHONY: run test lint typecheck format notebooks install install-dev install-notebooks browser \
        node lint-js outside-tools clean

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

# The web table's script (sim/table/static/table.js) is linted by ESLint, pinned in
# package-lock.json and installed into node_modules/ by npm; Node.js and npm come from the
# system's packages when missing (apt-get, as root or through sudo), like the browser's.
node:
	@if command -v node >/dev/null && command -v npm >/dev/null; then :; \
	elif ! command -v apt-get >/dev/null; then \
	    echo "make: no node or npm, and no apt-get to install them: install Node.js (18 or" \
	         "later) and npm with your system's packages"; exit 2; \
	else \
	    echo "make: installing nodejs and npm for the script's linter (apt-get)"; \
	    sudo=$$([ "$$(id -u)" -eq 0 ] || echo sudo); \
	    $$sudo apt-get -qq -o DPkg::Lock::Timeout=300 update \
	    && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get -qq -o DPkg::Lock::Timeout=300 \
	           install -y --no-install-recommends nodejs npm >/dev/null; \
	fi

node_modules/.installed: package.json package-lock.json | node
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $@

lint-js: node_modules/.installed
	npx --no-install eslint sim/table/static

# The outside players' tests run Java (the EAAI bridge, tests/test_eaai_bridge.py) and Node.js
# (examples/agent.js, from the node target): take a JDK from the system's packages when missing,
# as the browser target does for Chromium. When that fails the suite still runs, and those
# tests fail saying what to install.
outside-tools:
	@need=""; command -v javac >/dev/null && command -v java >/dev/null \
	    || need="default-jdk-headless"; \
	if [ -z "$$need" ]; then :; \
	elif ! command -v apt-get >/dev/null; then \
	    echo "make: no apt-get to install $$need: the outside players' tests will fail;" \
	         "install a JDK (17 or later) with your system's packages"; \
	else \
	    echo "make: installing $$need for the outside players' tests (apt-get)"; \
	    sudo=$$([ "$$(id -u)" -eq 0 ] || echo sudo); log=$$(mktemp); \
	    { $$sudo apt-get -qq -o DPkg::Lock::Timeout=300 update \
	      && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get -qq -o DPkg::Lock::Timeout=300 \
	             install -y --no-install-recommends $$need; } >$$log 2>&1 \
	    || { cat $$log; echo "make: could not install $$need: the outside players' tests" \
	                         "will fail; run: sudo apt-get install $$need"; }; \
	    rm -f $$log; \
	fi

run: install
	$(BIN)/ginbox run experiments/quick.toml --force

test: install-dev browser outside-tools lint typecheck
	$(BIN)/python -m pytest -n $(WORKERS)

lint: install-dev lint-js
	$(BIN)/ruff check $(LINTED)

typecheck: install-dev
	$(BIN)/mypy

format: install-dev
	$(BIN)/ruff check --fix $(LINTED)

notebooks: install-notebooks
	$(BIN)/jupyter lab --notebook-dir=notebooks

clean:
	rm -rf $(VENV) build *.egg-info node_modules
