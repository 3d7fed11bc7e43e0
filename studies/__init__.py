"""Strength studies: one package per question, each with the experiment and tuning files it plays.

Each study runs one way from the repository root, ``python -m studies.<study> ...`` (its module
docstring says how), after any ``ginbox run`` or ``ginbox tune`` of its own files that its
docstring names. The studies use ginbox's public API only, so they double as worked examples.
``benchmarks/`` holds speed work; ``experiments/`` the experiment files users run.
"""
