"""Makes the shared test support package, ``tests/support``, importable as ``support``.

``tests/`` has no ``__init__.py``: pytest's default import mode already puts it on ``sys.path``
for each test module it collects, and this conftest (collected first) does it explicitly, so
``from support.decks import make_deck`` works whichever file runs and under any import mode.
"""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = str(Path(__file__).resolve().parent)
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)
