"""ginbox in OpenSpiel: the cross-engine match, OpenSpiel's searches on python_ginbox, the
C++ search bots' crash check. ``python -m studies.openspiel <command> ...`` (``--help``).

* ``cross --spec S --hands N``: ginbox's ``S`` (through :func:`sim.openspiel.bot`) against
  ``pyspiel.make_simple_gin_rummy_bot`` in OpenSpiel's ``gin_rummy``, single hands refereed
  by ``pyspiel.evaluate_bots``, seats swapped every hand (``--no-layoffs``: the ginbox bot
  never lays off, as OpenSpiel's simple bot);
* ``ginbox --spec S --vs V --hands N``: a pairing in ginbox's engine: single ``eaai`` hands
  of ``python_ginbox``, both seats ginbox built-ins, seats swapped every hand;
* ``search --algo ismcts|mcts --rules R --vs V --hands N --sims K``: OpenSpiel's Python
  ``ISMCTSBot`` (resampler: :func:`sim.openspiel.resampler`) or ``MCTSBot`` against ginbox's
  built-in ``V`` (:func:`sim.openspiel.builtin_bot`) in ``python_ginbox``, single hands;
* ``crash``: whether the C++ ``pyspiel.MCTSBot.step`` / ``ISMCTSBot.step`` survive a Python
  game, each in a subprocess.

Each writes one JSON line of results (means with 95% intervals) to ``--out`` (atomically).
"""
