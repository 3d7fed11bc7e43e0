"""``ginbox train``: expert iteration, round by round, resumable at every step.

Round ``r``:

1. **Self-play.** The expert plays ``games`` games per table in every seat (round 1: the
   file's ``expert``, ``mc`` at its defaults unless told; later rounds: ``mc`` searching with
   round ``r - 1``'s network, its uses given by ``uses``), recorded by
   :mod:`sim.learn.selfplay` in shards of ``chunk_size`` games, each written atomically as
   it comes back from a worker (joblib's loky workers, or a Dask cluster): an interrupted
   round resumes from the shards on disk. Round ``r`` and table ``t`` deal from their own
   seed words, so the games do not depend on the workers.
2. **Training.** The network learns the last ``keep_rounds`` rounds' training shards
   (every ``holdout``-th shard is held out and gives the learning curve), starting from the
   previous round's weights (``warm_start``); :mod:`sim.learn.train` checkpoints every epoch.
   The weights go to ``round-<r>/net.npz`` with what made them.
3. **Strength.** The apprentice (``net`` with those weights) and the next round's expert
   play the file's fixed opponents on the held-out seed ``evaluate_seed``, mirrored (every
   seat of every deal), the same games every round; before round 1 the first expert does too.

Output (``results/train/<name>``): ``training.json`` (the file), ``state.json`` (what is
done), ``round-<r>/`` (``data/``, ``checkpoint.pt``, ``net.npz``, ``curve.csv``,
``strength.json``), and at the end ``curve.csv``, ``strength.csv`` and ``report.md``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import pandas as pd
from joblib import delayed

from sim import SOURCE_STAMP, __version__
from sim.engine.game import GO_HANDS, GO_SEAT_GINS, GO_SEAT_KNOCKS, GO_WINNER
from sim.engine.rng import seed_words
from sim.engine.rules import Rules
from sim.io.files import atomic_write_bytes, atomic_write_text, is_temp
from sim.learn.report import (
    RESULT_FILES,
    SPEC_FILE,
    TrainingResult,
    round_dir,
    write_report,
)
from sim.learn.selfplay import Shard, record_games
from sim.learn.spec import TrainingSpec, load_training
from sim.play.driver import Seeds
from sim.runs.progress import Progress
from sim.runs.runner import check_run_options, play_chunk
from sim.runs.storage import Chunk, lock
from sim.runs.workers import usable_cpus
from sim.tune.evaluate import task_pool
from strategies.net import load_net
from strategies.registry import parse_strategy

STATE_FILE = "state.json"
GROWING = ("rounds", "uses", "description")
"""Keys a resumed training may change: more rounds, and the network's uses in the experts of
rounds not begun (each round's expert is kept in ``state.json`` and checked on resume)."""
EVAL_CHUNK = 50
"""Games per evaluation task."""


def _seeds(spec: TrainingSpec, r: int, table: int) -> Seeds:
    """The deals and worlds of round ``r``'s self-play at table ``table``."""
    return Seeds(seed_words(spec.seed, r, table, 0), seed_words(spec.seed, r, table, 1))


def selfplay_shard(table: str, params: np.ndarray, net: np.ndarray, deck: int,
                   strategy: int, first_game: int, games: int) -> bytes:
    """One shard of self-play, played in a worker: the records as ``.npz`` bytes."""
    views, meta, cands, values, kept = record_games(
        Rules.preset(table).to_array(), params, net, np.uint64(deck), np.uint64(strategy),
        first_game, games)
    return Shard(table, views, meta, cands, values, kept).to_bytes()


def strength_chunk(table: str, strategy: str, opponent: str, seed: int, first_game: int,
                   games: int) -> dict[str, Any]:
    """``strategy`` in every seat against ``opponent`` in the others, games ``first_game ..``
    of ``seed`` (played in a worker): its wins per deal (0..seats) and its finish mix."""
    rules = Rules.preset(table)
    seeds = Seeds.from_seed(seed)
    wins = np.zeros(games, np.int64)
    mix = {"hands": 0, "knocks": 0, "gins": 0}
    for seat in range(rules.players):
        lineup = [opponent] * (rules.players - 1)
        lineup.insert(seat, strategy)
        _, rows, _, _ = play_chunk(rules, tuple(lineup), int(seeds.deck), int(seeds.strategy),
                                   True, Chunk(0, 0, first_game, games))
        wins += rows[:, GO_WINNER] == seat
        mix["hands"] += int(rows[:, GO_HANDS].sum())
        mix["knocks"] += int(rows[:, GO_SEAT_KNOCKS + seat].sum())
        mix["gins"] += int(rows[:, GO_SEAT_GINS + seat].sum())
    return {"wins": wins.tolist(), **mix}


class _Run:
    """One session of a training: the folder, its state and the worker pool."""

    def __init__(self, spec: TrainingSpec, out: Path, parallel: Any, quiet: bool,
                 stream: TextIO) -> None:
        self.spec, self.out, self.parallel = spec, out, parallel
        self.quiet, self.stream = quiet, stream
        self.state = _read_json(out / STATE_FILE) or {"done": [], "experts": {}}

    def done(self, step: str) -> bool:
        return step in self.state["done"]

    def mark(self, step: str | None = None) -> None:
        """Note ``step`` done (and save the state)."""
        if step is not None:
            self.state["done"].append(step)
        atomic_write_text(self.out / STATE_FILE, json.dumps(self.state, indent=1) + "\n")

    def bar(self, label: str, total: int, unit: str = "games") -> Progress:
        return Progress(label, total, quiet=self.quiet, stream=self.stream, unit=unit)

    def selfplay(self, r: int, expert: str) -> None:
        """Round ``r``'s shards that are not on disk yet."""
        spec = self.spec
        data = round_dir(self.out, r) / "data"
        parsed = parse_strategy(expert)
        # the expert is net or mc with it: a built-in, whose info is set
        net = parsed.info.decide.net if parsed.weights else _blank_net()  # type: ignore[union-attr]
        todo = [(t, table, c) for t, table in enumerate(spec.tables) for c in range(spec.chunks)
                if not (data / _shard_name(table, c)).exists()]
        bar = self.bar(f"round {r}: self-play ({expert})",
                       sum(_chunk_games(spec, c) for _, _, c in todo))
        tasks = []
        for t, table, c in todo:
            seeds = _seeds(spec, r, t)
            tasks.append(delayed(selfplay_shard)(table, parsed.params_array(), net,
                                                 int(seeds.deck), int(seeds.strategy),
                                                 c * spec.chunk_size, _chunk_games(spec, c)))
        for (_, table, c), data_bytes in zip(todo, self.parallel(tasks), strict=True):
            atomic_write_bytes(data / _shard_name(table, c), data_bytes, mkdir=True)
            bar.update(_chunk_games(spec, c))
        bar.close()

    def shards(self, r: int, holdout: bool) -> list[Path]:
        """The shards of round ``r``, training or held out."""
        spec = self.spec
        data = round_dir(self.out, r) / "data"
        return [data / _shard_name(table, c) for table in spec.tables
                for c in range(spec.chunks) if spec.is_holdout(c) == holdout]

    def train(self, r: int, init: np.ndarray | None, expert: str) -> None:
        """Round ``r``'s network, from the last ``keep_rounds`` rounds' shards."""
        from sim.learn.data import load_positions
        from sim.learn.model import to_flat
        from sim.learn.train import Schedule, train

        spec = self.spec
        rounds = range(max(1, r - spec.keep_rounds + 1), r + 1)
        train_data = load_positions([p for k in rounds for p in self.shards(k, False)])
        valid_data = load_positions(self.shards(r, True))
        schedule = Schedule(hidden=spec.hidden, epochs=spec.epochs, batch=spec.batch,
                            learning_rate=spec.learning_rate, weight_decay=spec.weight_decay,
                            value_weight=spec.value_weight, points_weight=spec.points_weight,
                            search_target=spec.search_target,
                            seed=int(seed_words(spec.seed, r, 99)) % 2**31,
                            threads=spec.threads)
        bar = self.bar(f"round {r}: training", len(train_data) * spec.epochs, "positions")
        started = time.perf_counter()
        model, curve = train(train_data, valid_data, schedule,
                             round_dir(self.out, r) / "checkpoint.pt",
                             init if spec.warm_start else None, bar.update)
        bar.close()
        meta = {"command": "ginbox train", "training": spec.to_dict(), "round": r,
                "expert": expert, "positions": len(train_data), "held_out": len(valid_data),
                "seed": spec.seed, "version": __version__, "source_stamp": SOURCE_STAMP,
                "commit": _commit(), "curve": curve,
                "seconds": round(time.perf_counter() - started, 1)}
        write_net(round_dir(self.out, r) / "net.npz", to_flat(model), meta)
        atomic_write_text(round_dir(self.out, r) / "curve.csv",
                          pd.DataFrame(curve).assign(round=r).to_csv(index=False))

    def strength(self, r: int, players: dict[str, str]) -> None:
        """``players`` (role: strategy text) against the fixed opponents, mirrored on the
        held-out seed; saved to ``round-<r>/strength.json``."""
        spec = self.spec
        path = round_dir(self.out, r) / "strength.json"
        if spec.evaluate_games == 0 or path.exists():
            return
        work = [(role, text, table, opponent)
                for role, text in players.items() for table in spec.tables
                for opponent in spec.opponents.get(table, ())]
        chunks = [(f, min(EVAL_CHUNK, spec.evaluate_games - f))
                  for f in range(0, spec.evaluate_games, EVAL_CHUNK)]
        tasks = [delayed(strength_chunk)(table, text, opponent, spec.evaluate_seed, f, n)
                 for _, text, table, opponent in work for f, n in chunks]
        seats = {table: Rules.preset(table).players for table in spec.tables}
        games = [n * seats[table] for _, _, table, _ in work for _, n in chunks]
        bar = self.bar(f"round {r}: strength", sum(games))
        results = []
        for n, part in zip(games, self.parallel(tasks), strict=True):
            results.append(part)
            bar.update(n)
        bar.close()
        rows = []
        for i, (role, text, table, opponent) in enumerate(work):
            parts = results[i * len(chunks):(i + 1) * len(chunks)]
            rows.append({"round": r, "player": role, "strategy": text, "table": table,
                         "opponent": opponent, "seats": seats[table],
                         "wins": [w for p in parts for w in p["wins"]],
                         **{k: sum(p[k] for p in parts) for k in ("hands", "knocks", "gins")}})
        atomic_write_text(path, json.dumps(rows) + "\n", mkdir=True)


def write_net(path: Path, net: np.ndarray, meta: Mapping[str, Any]) -> None:
    """A weights file (``net`` and ``meta``), written atomically."""
    import io

    buffer = io.BytesIO()
    np.savez_compressed(buffer, net=net, meta=np.array(json.dumps(meta)))
    atomic_write_bytes(path, buffer.getvalue(), mkdir=True)


def _blank_net() -> np.ndarray:
    """Weights for an expert that uses no network (they are never read)."""
    from strategies.net import NET_WEIGHTS, read_only

    return read_only(NET_WEIGHTS)


def _shard_name(table: str, chunk: int) -> str:
    return f"{table}-{chunk:05d}.npz"


def _chunk_games(spec: TrainingSpec, chunk: int) -> int:
    return min(spec.chunk_size, spec.games - chunk * spec.chunk_size)


def _commit() -> str | None:
    """The checkout's commit, when ginbox runs from one (for the weights' metadata)."""
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=5, cwd=Path(__file__).parent,
                              check=True).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _check_out(out: Path, spec: TrainingSpec, resume: bool, force: bool) -> None:
    """Refuse a folder that is not this training's (or not a training at all) unless told."""
    if out.exists() and not out.is_dir():
        raise ValueError(f"out={str(out)!r} is a file: expected a directory")
    if not out.exists():
        if resume:
            raise ValueError(f"cannot resume {out}: there is no such directory (to start the "
                             "training, leave out --resume)")
        return
    ours = {SPEC_FILE, STATE_FILE, *RESULT_FILES, ".lock"}
    foreign = sorted(p.name for p in out.iterdir()
                     if p.name not in ours and not p.name.startswith("round-") and not is_temp(p))
    if foreign:
        raise ValueError(f"{out} holds files that are not a ginbox training "
                         f"({', '.join(foreign[:3])}): choose another --out")
    then = _read_json(out / SPEC_FILE)
    if then is None or force:
        return
    if not resume:
        raise ValueError(f"{out} already holds the training {spec.name!r}: use --resume to "
                         "finish it or --force to start over")
    now = spec.to_dict()
    changed = [k for k in sorted(set(then) | set(now))
               if then.get(k) != now.get(k) and k not in GROWING]
    if changed:
        shown = "; ".join(f"{k}: {then.get(k)!r} there, {now.get(k)!r} now"
                          for k in changed[:3])
        raise ValueError(f"cannot resume {out}: it holds a different training ({shown}); use "
                         "--force to start over or another --out")
    experts = (_read_json(out / STATE_FILE) or {}).get("experts", {})
    weights = spec.init
    for r in range(1, spec.rounds + 1):
        if str(r) in experts and experts[str(r)] != spec.expert_for(r, weights):
            raise ValueError(f"cannot resume {out}: round {r} was played by "
                             f"{experts[str(r)]!r}, this file's expert there is "
                             f"{spec.expert_for(r, weights)!r}; use --force to start over")
        weights = str(round_dir(out, r) / "net.npz")


def run_training(source: TrainingSpec | str | Path | Mapping[str, Any], *,
                 out: str | Path | None = None, jobs: int | None = None,
                 backend: str = "loky", scheduler: Any = None, resume: bool = False,
                 force: bool = False, quiet: bool = False,
                 stream: TextIO | None = None) -> TrainingResult:
    """Run (or resume) a training: every round's self-play, network and strength (module
    docstring). Bad settings raise ``ValueError`` (one line) before anything is written."""
    spec = source if isinstance(source, TrainingSpec) else load_training(source)
    if resume and force:
        raise ValueError("resume and force exclude each other")
    check_run_options(jobs, backend, scheduler)
    _check_learn_extra()
    out = Path(out) if out is not None else Path("results") / "train" / spec.name
    _check_out(out, spec, resume, force)
    stream = stream if stream is not None else sys.stderr
    strategies = [s for names in spec.opponents.values() for s in names] + [spec.expert]
    with task_pool(jobs or usable_cpus(), backend, scheduler, strategies) as parallel:
        out.mkdir(parents=True, exist_ok=True)
        with lock(out):
            if force:
                _wipe(out)
            atomic_write_text(out / SPEC_FILE, json.dumps(spec.to_dict(), indent=2) + "\n")
            run = _Run(spec, out, parallel, quiet, stream)
            _rounds(run)
    return finish(out)


def _rounds(run: _Run) -> None:
    spec, out = run.spec, run.out
    run.strength(0, {"expert": spec.expert})
    weights = spec.init
    for r in range(1, spec.rounds + 1):
        expert = spec.expert_for(r, weights)
        if not run.done(f"selfplay-{r}"):
            run.state["experts"][str(r)] = expert
            run.mark()
            run.selfplay(r, expert)
            run.mark(f"selfplay-{r}")
        if not run.done(f"train-{r}"):
            init = load_net(weights)[0] if weights is not None else None
            run.train(r, init, expert)
            run.mark(f"train-{r}")
        weights = str(round_dir(out, r) / "net.npz")
        run.strength(r, {"apprentice": f"net:weights={weights}",
                         "expert": spec.expert_for(r + 1, weights)})


def _wipe(out: Path) -> None:
    """Delete what a training wrote in ``out`` (``--force``), nothing else."""
    import shutil

    for name in (SPEC_FILE, STATE_FILE, *RESULT_FILES):
        (out / name).unlink(missing_ok=True)
    for path in out.glob("round-*"):
        if path.is_dir():
            shutil.rmtree(path)


def _check_learn_extra() -> None:
    """Refuse, before any game, a training that could not train: PyTorch is missing."""
    try:
        import torch  # noqa: F401
    except ImportError:
        raise ValueError("ginbox train needs PyTorch: pip install 'ginbox[learn]'") from None


def finish(out: str | Path) -> TrainingResult:
    """The tables and report of a training folder (what :func:`run_training` returns)."""
    return write_report(Path(out))


__all__ = ["TrainingResult", "finish", "round_dir", "run_training", "write_net"]
