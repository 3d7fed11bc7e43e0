"""Shared support code for the tests, one idea per module.

The test modules live in ``tests/`` without an ``__init__.py``, so pytest (import mode
``prepend``, the default) puts ``tests/`` on ``sys.path`` and they import this package as
``support``; ``tests/conftest.py`` does the same explicitly so that the import does not depend
on which test file pytest collects first.

- :mod:`support.decks`: card helpers and scripted deals (decks built card by card).
- :mod:`support.moves`: the script vocabulary (``pass``, ``take``, ``knock``, ...) as kernel moves.
- :mod:`support.hypothesis_profile`: the deterministic hypothesis settings of the engine tests.
- :mod:`support.hands`: one hand through the compiled kernels, with readable accessors.
- :mod:`support.scripted`: scripted, random and spying Python strategies.
- :mod:`support.fixtures`: make ``GameDriver`` deal fixed decks (a monkeypatch).
- :mod:`support.endings`: game states driven hand by hand through ``end_hand``.
- :mod:`support.referee`: an independent referee that re-checks hand logs by docs/rules.md.
- :mod:`support.hollywood`: the referee's own Hollywood score sheet (three games at once).
- :mod:`support.views`: checks that every strategy view shows exactly what it may see.
- :mod:`support.oracle`: brute-force reference for melds, deadwood and the showdown.
- :mod:`support.layout`: the package's layers in import order, and the layers a text lists.
"""
