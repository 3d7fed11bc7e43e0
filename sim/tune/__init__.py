"""Self-play parameter search: ``ginbox tune FILE`` from Python.

:func:`tune` searches the integer parameters of a built-in strategy, seated against a field of
other strategies under any rules, to maximise its game win rate (or, against a weighted mix of
fields, its weighted mean win rate, so a gain against one opponent cannot hide a loss against
the others), with CMA-ES (the ``cma`` package); every candidate of a generation plays the same
deals (per field), the optimiser is checkpointed after every generation (a resumed tune ends
exactly as an uninterrupted one), and the result is confirmed on held-out deals. The file
format and the outputs are in docs/tuning.md.

* :mod:`sim.tune.spec`: the tuning file (:class:`TuneSpec`, :func:`load_tune`);
* :mod:`sim.tune.evaluate`: playing candidates (:class:`GameEvaluator`), or any
  :class:`Evaluator` standing in for games;
* :mod:`sim.tune.search`: the CMA-ES loop, checkpoints and the held-out check (:func:`tune`);
* :mod:`sim.tune.output`: the learning curve, the tuned name and the summary.
"""

from __future__ import annotations

from sim.tune.evaluate import Evaluator, GameEvaluator, PairCounts
from sim.tune.output import TuneResult
from sim.tune.search import CHECKPOINT, tune
from sim.tune.spec import HOLDOUT_FIRST_GAME, TuneSpec, load_tune

__all__ = ["CHECKPOINT", "HOLDOUT_FIRST_GAME", "Evaluator", "GameEvaluator", "PairCounts",
           "TuneResult", "TuneSpec", "load_tune", "tune"]
