"""General input and output, the lowest layer: every other layer may use it, and it imports
nothing else of ginbox.

* :mod:`sim.io.files`: atomic writes (a reader sees the old file or the new one, never half),
  the temporaries' naming and clean-up, and the list of files a report wrote;
* :mod:`sim.io.specs`: reading a TOML spec file (experiment, tuning, league) and the checks
  their loaders share, each refusing bad input with one line naming the field.
"""
