"""Makes the shared test support package, ``tests/support``, importable as ``support``.

``tests/`` has no ``__init__.py``: pytest's default import mode already puts it on ``sys.path``
for each test module it collects, and this conftest (collected first) does it explicitly, so
``from support.decks import make_deck`` works whichever file runs and under any import mode.

It also turns off hypothesis's per-example time limit for every test: a property test checks
what the code does, not how fast a loaded machine (or a first call that compiles) runs it.

Under pytest-xdist (``make test`` runs two workers), the controller fills numba's on-disk cache
before the workers start (:mod:`support.compile_cache`), so that the two never both compile the
engine: a cold cache is then compiled once.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("ginbox", deadline=None)
settings.load_profile("ginbox")

TESTS = str(Path(__file__).resolve().parent)
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)


def pytest_configure(config: pytest.Config) -> None:
    """In the xdist controller alone (a worker has ``workerinput``), compile before the
    workers start."""
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        from support.compile_cache import warm

        warm()
