"""Experiments: experiment files, the parallel resumable runner (joblib processes or a Dask
cluster), its results directory, per-game aggregates and progress lines.

It plays games through the game loop of :mod:`sim.play` and knows nothing of how a game is
stepped; the game loop imports nothing from here.
"""
