"""Learning by self-play: ``ginbox train`` (expert iteration with ``mc``) and its parts.

* :mod:`sim.learn.spec`: the training file;
* :mod:`sim.learn.selfplay`: the expert's self-play, recorded from the mover's view;
* :mod:`sim.learn.data`: recorded positions as training arrays (the encoding ``net`` plays);
* :mod:`sim.learn.model`, :mod:`sim.learn.train`: the network in PyTorch and its training
  (the ``learn`` extra; imported only to train);
* :mod:`sim.learn.loop`: the rounds, resumable; :mod:`sim.learn.report`: their tables;
* :mod:`sim.learn.belief_spec`, :mod:`sim.learn.belief_data`, :mod:`sim.learn.belief_model`,
  :mod:`sim.learn.belief`: ``model = "belief"``: ``mc``'s belief over the opponent's hidden
  cards, recorded among a population of players, trained and scored;
* :mod:`sim.learn.knock`: ``model = "knock"``: ``mc``'s model of when the opponent knocks,
  from every knock decision among the same kind of population (its file is a belief file's);
* :mod:`sim.learn.keep`: ``model = "keep"``: ``mc``'s model of what the opponent takes and
  throws, from every take of a pile card and every discard among the same population.

The trained network plays as the strategy ``net`` (:mod:`strategies.net`), compiled, with
nothing of this package imported.
"""

from __future__ import annotations

from sim.learn.loop import TrainingResult, run_training
from sim.learn.spec import TrainingSpec, load_any_training, load_training

__all__ = ["TrainingResult", "TrainingSpec", "load_any_training", "load_training",
           "run_training"]
