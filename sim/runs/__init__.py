"""The experiment machinery: experiment files, the parallel resumable runner, its results
directory, the Dask cluster, the worker pool and progress (the game loop they play through is
:mod:`sim.play`)."""
