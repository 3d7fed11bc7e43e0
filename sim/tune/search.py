"""The search: CMA-ES over integer parameters, one checkpoint per generation, then the
held-out check.

Why it is built this way:

* **CMA-ES from** ``cma``, on the parameters' own integer grid: each coordinate is bounded by
  its ``ParamInfo`` range, declared an integer variable (cma keeps a minimal step on it and
  rounds the samples), and scaled by its range (``CMA_stds``), so ``sigma0`` is a share of
  every range whatever its units. cma's integer handling needs two coordinates or more, so a
  single parameter gets a second, ignored, continuous one.
* **Common random numbers**: generation ``k`` plays every candidate on games
  ``k * games_per_candidate ..`` of the tune's seed, the same deals for all, so the ranking
  within a generation is not blurred by deal luck; successive generations get fresh deals, so
  the search does not overfit one set. The incumbent (the rounded distribution mean, cma's
  best estimate under noise) is evaluated on the same deals for the learning curve.
* **Several fields**: each candidate plays ``games_per_candidate`` games against every field,
  each field on its own deals (:meth:`~sim.tune.spec.TuneSpec.field_seed`: adding a field
  leaves the others' deals alone), and is ranked by the weighted mean of its win rates,
  computed exactly (:meth:`~sim.tune.spec.TuneSpec.objective`). A single ``field`` is the
  one-field case and plays, ranks and writes exactly what it did before mixes existed.
* **Resumable to the same result**: cma samples from a generator seeded by the tune's seed
  (its ``randn`` option), and numpy's global generator, which cma may also touch (its ``seed``
  option seeds it), is swapped in and out around every cma call; both are saved with the
  optimiser, the history and the generation in one atomic pickle after every generation. A
  resumed tune (after anything, ``kill -9`` included) replays the interrupted generation on
  the same deals with the same candidates.
* **Held-out confirmation, and the choice it makes**: the distribution mean is cma's estimate
  under noise, yet a short or noisy search can leave it far from a candidate it measured well
  (a search that never came back to it). So the mean, the best strategy the search measured
  and the strategy as written (the baseline) play games numbered from ``2**40``, never used
  in training, on the same deals, paired; the better of the first two is the result. The
  choice costs the result's held-out figure a little optimism (the larger of two estimates),
  which is small beside the selection bias of the training figures it replaces.
"""

from __future__ import annotations

import contextlib
import pickle
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from sim.analysis.statistics import Z95, wilson
from sim.io.files import atomic_write_bytes, is_temp
from sim.runs.progress import Progress
from sim.runs.storage import lock
from sim.tune.evaluate import Evaluator, GameEvaluator
from sim.tune.output import (
    FILES,
    TuneResult,
    best_measured,
    field_label,
    holdout_summary,
    mixed_holdout,
    write_outputs,
)
from sim.tune.spec import HOLDOUT_FIRST_GAME, TuneSpec, load_tune

CHECKPOINT = "checkpoint.pkl"
FORMAT = 1


class _NumpyRandom:
    """numpy's global random state for cma alone: swapped in around each cma call, so the
    caller's draws and cma's never mix and the state can be checkpointed."""

    def __init__(self, seed: int) -> None:
        outer = np.random.get_state()
        np.random.seed(seed)
        self.state = np.random.get_state()
        np.random.set_state(outer)

    @contextlib.contextmanager
    def active(self) -> Iterator[None]:
        outer = np.random.get_state()
        np.random.set_state(self.state)
        try:
            yield
        finally:
            self.state = np.random.get_state()
            np.random.set_state(outer)


class _Randn:
    """cma's source of normal samples, a seeded generator of the tune's own. The default,
    ``np.random.randn``, is a method of numpy's global generator, which a pickle copies by
    value: a resumed optimiser would draw from a stale copy and diverge."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng([seed, 0x636D61])

    def __call__(self, *shape: int) -> np.ndarray:
        return self.rng.standard_normal(shape)


def _cma_seed(seed: int) -> int:
    return seed % (2**31 - 2) + 1  # cma: a positive integer; 0 would mean "from the clock"


def new_optimizer(spec: TuneSpec, rng: _NumpyRandom) -> Any:
    """A fresh ``cma.CMAEvolutionStrategy`` for the spec's parameters."""
    import cma

    infos = spec.infos
    lows = [float(p.low) for p in infos]
    highs = [float(p.high) for p in infos]
    x0 = [float(v) for v in spec.start()]
    stds = [h - lo for lo, h in zip(lows, highs, strict=True)]
    if len(infos) == 1:  # cma's integer handling needs a second coordinate: a dummy
        lows, highs, x0, stds = lows + [0.0], highs + [1.0], x0 + [0.5], stds + [1.0]
    options = {
        "bounds": [lows, highs], "integer_variables": list(range(len(infos))),
        "CMA_stds": stds, "seed": _cma_seed(spec.seed), "randn": _Randn(spec.seed),
        "verbose": -9, "verb_log": 0,
        "verb_disp": 0, "tolflatfitness": 10**9, "tolfun": 0, "tolfunhist": 0, "tolx": 0,
        "maxiter": 10**9,
    }
    if spec.population is not None:
        options["popsize"] = spec.population
    with rng.active(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cma.CMAEvolutionStrategy(x0, float(spec.sigma0), options)


def _values(spec: TuneSpec, x: Any) -> tuple[int, ...]:
    """A cma point as the parameters' integers: rounded, clipped to the ranges."""
    return tuple(int(min(max(round(float(v)), p.low), p.high))
                 for v, p in zip(list(x)[:len(spec.infos)], spec.infos, strict=True))


def _share(k: int, n: int) -> tuple[float, float, float]:
    low, high = wilson(k, n)
    return k / n, low, high


def objective_share(spec: TuneSpec, wins: list[int], games: int) -> tuple[float, float, float]:
    """The objective with a 95% interval: a field's Wilson interval for one field; for a mix,
    the weighted mean with the fields' Wilson intervals combined as independent errors."""
    if len(spec.fields) == 1:
        return _share(wins[0], games)
    total = sum(spec.weights)
    rate = float(spec.objective(wins, games))
    var = 0.0
    for weight, k in zip(spec.weights, wins, strict=True):
        low, high = wilson(k, games)
        var += (weight / total * (high - low) / (2 * Z95)) ** 2
    half = Z95 * var ** 0.5
    return rate, max(rate - half, 0.0), min(rate + half, 1.0)


def run_generation(spec: TuneSpec, es: Any, rng: _NumpyRandom, evaluator: Evaluator,
                   index: int) -> dict[str, Any]:
    """Ask, evaluate on this generation's deals (every field), tell; the learning-curve
    row."""
    with rng.active(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        points = es.ask()
        incumbent = _values(spec, es.result.xfavorite)
    candidates = [_values(spec, x) for x in points]
    unique = list(dict.fromkeys([*candidates, incumbent]))  # equal integers, equal games
    games = spec.games_per_candidate
    first = index * games
    per_field = evaluator.wins_per_field(unique, first, games, len(spec.fields))
    wins = {c: [field[i] for field in per_field] for i, c in enumerate(unique)}
    score = {c: spec.objective(wins[c], games) for c in unique}
    with rng.active(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        es.tell(points, [-float(score[c]) for c in candidates])
    best = max(candidates, key=lambda c: (score[c], [-v for v in c]))
    pooled = [sum(wins[c][i] for c in candidates) for i in range(len(spec.fields))]
    rate, low, high = objective_share(spec, wins[best], games)
    mean_rate, mean_low, mean_high = objective_share(spec, pooled, games * len(candidates))
    inc_rate, inc_low, inc_high = objective_share(spec, wins[incumbent], games)
    row = {
        "generation": index, "first_game": first, "games": games,
        "candidates": len(candidates), "distinct": len(set(candidates)),
        "best": spec.strategy_text(best), "best_values": list(best),
        "best_wins": sum(wins[best]),
        "best_win_rate": rate, "best_low": low, "best_high": high,
        "mean_win_rate": mean_rate, "mean_low": mean_low, "mean_high": mean_high,
        "incumbent": spec.strategy_text(incumbent), "incumbent_values": list(incumbent),
        "incumbent_wins": sum(wins[incumbent]), "incumbent_win_rate": inc_rate,
        "incumbent_low": inc_low, "incumbent_high": inc_high, "sigma": float(es.sigma),
    }
    if spec.mixed:
        row.update({"best_field_wins": wins[best], "mean_field_wins": pooled,
                    "incumbent_field_wins": wins[incumbent]})
    return row


def _progress_line(spec: TuneSpec, row: dict[str, Any], seconds: float) -> str:
    rate = "objective " if spec.mixed else ""
    line = (f"{spec.name}: generation {row['generation'] + 1}/{spec.generations}: "
            f"best {rate}{row['best_win_rate']:.1%} ({row['best']}), population mean "
            f"{row['mean_win_rate']:.1%}, incumbent {row['incumbent_win_rate']:.1%} "
            f"[{row['incumbent_low']:.1%} - {row['incumbent_high']:.1%}] {row['incumbent']}")
    if spec.mixed:
        line += ", incumbent by field: " + ", ".join(
            f"{field_label(f)} {k / row['games']:.1%}"
            for f, k in zip(spec.fields, row["incumbent_field_wins"], strict=True))
    return line + f", {seconds:.1f} s"


def _check_directory(out: Path, spec: TuneSpec, resume: bool,
                     force: bool) -> dict[str, Any] | None:
    """Refuse what would mix tunes or touch files this tool did not write; the checkpoint."""
    if out.exists() and not out.is_dir():
        raise ValueError(f"out={str(out)!r} is a file: expected a directory for the tune")
    if not out.exists():
        if resume:
            raise ValueError(f"cannot resume {out}: there is no such directory (to start the "
                             "tune, leave out --resume)")
        return None
    ours = {CHECKPOINT, *FILES, ".lock"}
    foreign = sorted(p.name for p in out.iterdir() if p.name not in ours and not is_temp(p))
    if foreign:
        raise ValueError(f"{out} holds files that are not a ginbox tune ({', '.join(foreign[:3])}"
                         f"{', ...' if len(foreign) > 3 else ''}): ginbox writes only into a new "
                         "or empty folder or one of its own tunes; choose another --out")
    state = _read_checkpoint(out) if (out / CHECKPOINT).exists() else None
    if state is None or force:
        return None
    if not resume:
        raise ValueError(f"{out} already holds a tune of {state['spec']['name']!r} "
                         f"({len(state['history'])} of {state['spec']['generations']} "
                         "generations done): use resume (--resume) to finish it or force "
                         "(--force) to start over")
    then, now = state["spec"], spec.to_dict()
    changed = [k for k in sorted((set(then) | set(now)) - {"description"})
               if then.get(k) != now.get(k)]
    if changed:
        shown = "; ".join(f"{k}: {then.get(k)!r} there, {now.get(k)!r} now" for k in changed[:3])
        raise ValueError(f"cannot resume {out}: it holds a different tune ({shown}); use force "
                         "(--force) to start over or another --out")
    return state


def _read_checkpoint(out: Path) -> dict[str, Any]:
    try:
        state = pickle.loads((out / CHECKPOINT).read_bytes())
    except Exception as exc:  # a damaged or foreign file: refuse rather than guess
        raise ValueError(f"cannot read {out / CHECKPOINT} ({type(exc).__name__}): use force "
                         "(--force) to start over") from None
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise ValueError(f"{out / CHECKPOINT} is not a checkpoint of this ginbox version: use "
                         "force (--force) to start over")
    return state


def _save(out: Path, state: dict[str, Any]) -> None:
    atomic_write_bytes(out / CHECKPOINT, pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL))


class _GamesBar(contextlib.AbstractContextManager["_GamesBar"]):
    """The tune's progress in games, every field included: each generation counts
    ``(population + 1) x games_per_candidate x fields`` (the candidates and the incumbent; a
    candidate equal to another counts as played), the held-out check ``3 x holdout_games x
    fields`` (the mean, the best measured and the strategy as written; two when the first
    two are one). Games are counted as the evaluator reports them (``on_games``), the rest of a
    step when it ends, so an evaluator that does not report still moves the bar."""

    def __init__(self, spec: TuneSpec, population: int, done: int, holdout_done: bool,
                 evaluator: Evaluator, quiet: bool, stream: TextIO) -> None:
        fields = len(spec.fields)
        self.per_generation = (population + 1) * spec.games_per_candidate * fields
        self.holdout = 3 * spec.holdout_games * fields
        total = spec.generations * self.per_generation + self.holdout
        initial = done * self.per_generation + (self.holdout if holdout_done else 0)
        self.progress = Progress(spec.name, total, initial, quiet, stream)
        self.stream, self.step = stream, 0
        self.evaluator, self.before = evaluator, evaluator.on_games
        evaluator.on_games = self.count

    def count(self, games: int) -> None:
        self.step += games
        self.progress.update(games)

    def finish_step(self, games: int) -> None:
        """A generation (or the held-out check) of ``games`` is over: count what was not
        reported."""
        self.progress.update(max(games - self.step, 0))
        self.step = 0

    def write(self, line: str) -> None:
        """A line on the stream, above the bar on a terminal."""
        if self.progress.bar is not None:
            self.progress.bar.write(line, file=self.stream)
        else:
            print(line, file=self.stream, flush=True)

    def __exit__(self, *exc: object) -> None:
        self.evaluator.on_games = self.before
        self.progress.close()


def tune(spec_or_path: TuneSpec | str | Path | dict[str, Any], *, out: str | Path | None = None,
         jobs: int | None = None, backend: str = "loky", scheduler: Any = None,
         resume: bool = False, force: bool = False, quiet: bool = False,
         evaluator: Evaluator | None = None, stream: TextIO | None = None) -> TuneResult:
    """Tune a strategy's parameters by self-play (a spec, a TOML path or a dict).

    Writes into ``out`` (default ``results/<name>``): ``checkpoint.pkl`` after every
    generation, then ``learning_curve.csv``/``.png``, ``tuned.txt`` (the tuned strategy's
    name) and ``summary.json``. A folder holding a tune is refused unless ``resume`` (continue
    the same tune: the result equals an uninterrupted run's) or ``force`` (start over).
    ``jobs``/``backend``/``scheduler`` as for :func:`~sim.runs.runner.run_experiment`.
    ``evaluator`` replaces the games (a synthetic objective, in tests). ``quiet`` hides the
    progress (on ``stream``, default stderr): a bar in games over every generation, field and
    the held-out check, and one line per generation. Bad input raises
    ``ValueError`` (one line) before anything is written.
    """
    spec = load_tune(spec_or_path)
    if resume and force:
        raise ValueError("resume and force exclude each other: resume finishes a tune, force "
                         "starts it over")
    out = Path(out) if out is not None else Path("results") / spec.name
    state = _check_directory(out, spec, resume, force)
    stream = stream if stream is not None else sys.stderr
    own = evaluator is None
    if evaluator is None:
        evaluator = GameEvaluator(spec, jobs, backend, scheduler)
    with contextlib.ExitStack() as stack:
        if own:
            stack.callback(evaluator.close)
            evaluator.open()  # type: ignore[attr-defined]  # a GameEvaluator: Dask errors first
        out.mkdir(parents=True, exist_ok=True)
        stack.enter_context(lock(out))
        if state is None:
            if force:
                for name in (CHECKPOINT, *FILES):
                    (out / name).unlink(missing_ok=True)
            rng = _NumpyRandom(_cma_seed(spec.seed))
            state = {"format": FORMAT, "spec": spec.to_dict(), "history": [],
                     "es": new_optimizer(spec, rng), "rng": rng, "holdout": None,
                     "seconds": 0.0}
        es, rng, history = state["es"], state["rng"], state["history"]
        bar = stack.enter_context(_GamesBar(spec, es.popsize, len(history), _checked(state),
                                            evaluator, quiet, stream))
        for index in range(len(history), spec.generations):
            start = time.perf_counter()
            row = run_generation(spec, es, rng, evaluator, index)
            seconds = time.perf_counter() - start
            row["seconds"] = round(seconds, 3)
            history.append(row)
            state["seconds"] += seconds
            _save(out, state)
            bar.finish_step(bar.per_generation)
            if not quiet:
                bar.write(_progress_line(spec, row, seconds))
        with rng.active(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            final = _values(spec, es.result.xfavorite)
        best = best_measured(history)
        if not _checked(state) and spec.holdout_games > 0:
            start = time.perf_counter()
            state["holdout"] = check_on_held_out(spec, evaluator, final, best)
            state["seconds"] += time.perf_counter() - start
            _save(out, state)
            bar.finish_step(bar.holdout)
        holdout = state["holdout"] if spec.holdout_games > 0 else None
        values = tuple(holdout["result"]) if holdout is not None else final
        result = TuneResult(out, spec, list(history), values, holdout,
                            round(state["seconds"], 3), mean=final, best=best)
        write_outputs(result)
    return result


def _checked(state: dict[str, Any]) -> bool:
    """The held-out check is done (a checkpoint of an older ginbox, which checked the mean
    alone, is checked again)."""
    return state["holdout"] is not None and "kept" in state["holdout"]


def check_on_held_out(spec: TuneSpec, evaluator: Evaluator, mean: tuple[int, ...],
                      best: dict[str, Any] | None) -> dict[str, Any]:
    """The held-out check: the search distribution's ``mean``, the ``best`` strategy the
    search measured (when it is another) and the strategy as written play the same
    held-out games of every field; the better of the first two on the objective is the
    result (the mean on a tie). The summary is the result's against the strategy as written
    (:func:`~sim.tune.output.holdout_summary`, or ``mixed_holdout`` for a mix), with
    ``kept`` (``"mean"`` or ``"best measured"``), ``result`` (its values) and, when the two
    differ, ``not_kept``: the other's win rate and the paired difference result minus it."""
    options = [mean]
    if best is not None and tuple(best["values"]) != mean:
        options.append(tuple(best["values"]))
    matches = [evaluator.compare([*options, None], HOLDOUT_FIRST_GAME, spec.holdout_games,
                                 **({"field": i} if spec.mixed else {}))
               for i in range(len(spec.fields))]

    def summary(a: int, b: int) -> dict[str, Any]:
        pairs = [m.pair(a, b) for m in matches]
        return (mixed_holdout(spec, pairs) if spec.mixed
                else holdout_summary(pairs[0], HOLDOUT_FIRST_GAME))

    base = len(options)
    checked = [summary(j, base) for j in range(base)]
    kept = int(base == 2 and checked[1]["tuned_win_rate"] > checked[0]["tuned_win_rate"])
    out = {**checked[kept], "kept": ("mean", "best measured")[kept],
           "result": list(options[kept])}
    if base == 2:
        other, versus = checked[1 - kept], summary(kept, 1 - kept)
        out["not_kept"] = {"strategy": spec.strategy_text(options[1 - kept]),
                           "values": list(options[1 - kept]),
                           **{k: other[k] for k in ("tuned_win_rate", "tuned_low",
                                                    "tuned_high")},
                           "kept_minus": versus["difference"],
                           "kept_minus_low": versus["difference_low"],
                           "kept_minus_high": versus["difference_high"]}
    return out


__all__ = ["CHECKPOINT", "check_on_held_out", "new_optimizer", "objective_share",
           "run_generation", "tune"]
