"""The judge of a decision review: ``mc``'s search, asked for the value of every option.

The judge is ``mc`` (:mod:`strategies.mc`) run with every legal discard on its shortlist and
no early stop, so each option of a decision is valued on the same number of sampled worlds:
its mean chance of winning the game after playing it. Two habits keep the verdicts honest:

- **Choose on one set of worlds, measure on another.** The best of eleven noisy estimates is
  too high, so judging the move played against the maximum of the same estimates would count
  the judge's own luck as the player's error (a perfect player would show a loss). The judge
  values every option twice on independent worlds: the first valuation picks the best option,
  the second measures the loss, ``value(best) - value(played)``. The loss is then unbiased; it
  is 0 when the player chose the judge's best, and it can be slightly below 0 when the second
  worlds favour the move played.
- **Every decision its own worlds.** The worlds of a decision come from a seed derived from
  the review's seed and the decision's game, hand and move, so a review gives the same
  numbers in any order and for any number of workers.

Labels follow the spirit of GNU Backgammon's doubtful / bad / very bad (0.04, 0.08, 0.16 of
equity, about 0.02, 0.04, 0.08 of win probability) and lichess's inaccuracy / mistake /
blunder (a drop of 5, 10 and 15 points of win percentage): a gin decision moves the game
less than a chess move, so the bars are those of backgammon, rounded: **inaccuracy** from 0.02
of the game's win probability, **mistake** from 0.05, **blunder** from 0.10. A decision with one
legal answer is **forced**, one whose options the judge cannot tell apart (all within
:data:`EQUAL_WITHIN`) is **equal**: neither counts as a decision, as GNU Backgammon skips
forced moves and XG rates only non-obvious ones.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.analysis.positions import DecisionPoint
from sim.engine.rng import seed_words
from strategies.mc_options import option_values
from strategies.registry import parse_strategy

#: The judge's settings beneath whatever a review's ``judge`` spec sets: every discard on the
#: shortlist, no early stop (every option gets every world).
JUDGE_BASE = (("shortlist", 11), ("stop", 0), ("futile", 0))
#: The default judge: ``mc`` at its own budget (256 worlds two-handed, 192 three-handed).
DEFAULT_JUDGE = "mc"
#: The loss (in game-win probability) from which each label applies, worst first.
THRESHOLDS = (("blunder", 0.10), ("mistake", 0.05), ("inaccuracy", 0.02))
#: Options whose first valuations all lie within this of each other are not a choice.
EQUAL_WITHIN = 0.001
#: Labels of decisions that count (the others: ``forced``, ``equal``).
COUNTED_LABELS = ("best", "good", "inaccuracy", "mistake", "blunder")


def judge_text(spec: str = DEFAULT_JUDGE) -> str:
    """The judge's full spec: :data:`JUDGE_BASE` under the parameters ``spec`` sets
    (``"mc:samples=1024"`` raises the budget). ValueError unless ``spec`` is ``mc``."""
    parsed = parse_strategy(spec)
    if parsed.name != "mc":
        raise ValueError(f"the judge must be mc (with parameters, e.g. mc:samples=1024), "
                         f"not {spec!r}: only mc values every option")
    params = dict(JUDGE_BASE)
    params.update(dict(parsed.given))
    text = "mc:" + ",".join(f"{k}={v}" for k, v in params.items())
    parse_strategy(text)  # every value in range
    return text


def label_of(loss: float) -> str:
    """The label of a counted decision's loss: blunder, mistake, inaccuracy; else ``best``
    for no loss at all and ``good`` for a loss under every bar."""
    for name, least in THRESHOLDS:
        if loss >= least:
            return name
    return "best" if loss == 0 else "good"


@dataclass(frozen=True)
class Judgment:
    """The judge's verdict on one decision.

    ``values``: each option's value (chance of winning the game after playing it) on the
    measuring worlds, by option name; ``best``: the option the choosing worlds rate highest;
    ``chosen``: the move played; ``value_best`` and ``value_chosen`` their measured values;
    ``loss``: ``value_best - value_chosen``; ``label``: see the module docstring; ``worlds``:
    worlds per option and valuation."""

    values: dict[str, float]
    best: str
    chosen: str
    value_best: float
    value_chosen: float
    loss: float
    label: str
    worlds: int

    @property
    def counted(self) -> bool:
        """Whether the decision counts (not forced, not equal)."""
        return self.label in COUNTED_LABELS


def decision_seed(seed: int, game: int, hand: int, point: DecisionPoint, valuation: int) -> int:
    """The worlds' seed of one valuation of one decision (independent of review order)."""
    return int(seed_words(seed, game, hand, point.index, point.decision, valuation))


def judge_point(point: DecisionPoint, judge: str, seed: int, game: int, hand: int) -> Judgment:
    """Judge one decision with the judge spec ``judge`` (a :func:`judge_text`)."""
    if point.legal <= 1:
        return Judgment({point.played: float("nan")}, point.played, point.played, float("nan"),
                        float("nan"), 0.0, "forced", 0)
    choose = option_values(point.view, judge, decision_seed(seed, game, hand, point, 0),
                           point.after.copy())
    measure = option_values(point.view, judge, decision_seed(seed, game, hand, point, 1),
                            point.after.copy())
    first = {o.move: o.value for o in choose}
    values = {o.move: o.value for o in measure}
    if point.played not in values:
        raise ValueError(f"the judge did not value the move played, {point.played} (options: "
                         f"{', '.join(values)}); its shortlist must hold every discard")
    best = max(first, key=lambda move: first[move])
    loss = values[best] - values[point.played]
    if max(first.values()) - min(first.values()) < EQUAL_WITHIN:
        label = "equal"
    else:
        label = label_of(loss)
    return Judgment(values, best, point.played, values[best], values[point.played], loss,
                    label, measure[0].worlds)
