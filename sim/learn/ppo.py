"""PPO on ginbox's vector environment, CleanRL style: ``python -m sim.learn.ppo``.

Proximal policy optimisation (Schulman et al. 2017) as CleanRL's single-file ``ppo.py``
writes it (Huang et al., "The 37 implementation details of PPO", 2022): many games stepped
together, ``horizon`` decisions of each per update, generalised advantage estimation (GAE),
``epochs`` passes of ``minibatches`` clipped policy-gradient steps with a clipped value loss
and an entropy bonus, advantages normalised per minibatch, gradients clipped, the learning
rate annealed to zero.

What is ginbox's own:

* the games are :class:`sim.env.VectorEnv` with ``observation="view"`` (the learner's engine
  view arrays, from which the network computes its own inputs), one per entry of the league
  ``opponents`` (the rows split evenly; name an opponent twice to give it twice the rows);
* the policy is :class:`sim.learn.model.PolicyValueNet` through :mod:`sim.learn.netpolicy`,
  masked by the environment's action mask: from scratch (fresh weights from the seed) or
  fine-tuning a weights file (``init``), and saved as a weights file ``net:weights=PATH``
  plays;
* the critic is the network's own value heads (:func:`sim.learn.netpolicy.state_value`, so a
  fine-tuned network starts with a trained critic): ``objective="hand"``, an episode is a
  hand and its reward the hand's margin over 25 points (the env's ``reward="margin"``);
  ``"game"``, an episode is a game and its reward +1 / -1 at the end;
* every ``eval_every`` updates a checkpoint: the greedy policy (``net`` with these weights)
  against ``simple`` on held-out deals, in hands (its margin per hand and share of hands won)
  and in games (mirrored deals: each deal played from both seats), with 95% intervals;
* seeded and resumable: at every checkpoint the games restart from seeds of (seed, segment)
  and the sampling from a generator of the same, so a run stopped and resumed ends with the
  same weights, bit for bit, as one run straight through.

Needs the ``learn`` and ``rl`` extras. docs/environments.md shows the command.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # idle OpenMP threads must not spin

import argparse  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from dataclasses import asdict, dataclass, fields  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, TextIO  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import torch  # noqa: E402

from sim import __version__  # noqa: E402
from sim.engine.rng import seed_words  # noqa: E402
from sim.engine.rules import PRESETS, Rules  # noqa: E402
from sim.env.vector import VectorEnv  # noqa: E402
from sim.io.files import atomic_write_bytes, atomic_write_text  # noqa: E402
from sim.io.specs import MAX_SEED, check_int  # noqa: E402
from sim.learn.model import PolicyValueNet, from_flat, to_flat  # noqa: E402
from sim.learn.netpolicy import Decisions, act, evaluate  # noqa: E402
from sim.learn.ppo_eval import final_table, game_result, hand_result  # noqa: E402
from sim.runs.progress import Progress  # noqa: E402
from strategies.net import MAX_HIDDEN, NET_FILE, POINTS_SCALE, load_net  # noqa: E402
from strategies.registry import parse_strategies, resolve  # noqa: E402

OBJECTIVES = ("hand", "game")
LEAGUE = ("random", "simple", "greedy-knock", "discard-tracking", "tuned")
"""The default league: every built-in heuristic (``tuned`` plays the set tuned for the rules)."""


@dataclass(frozen=True)
class Settings:
    """A PPO run; every field is checked when built (a ValueError names the field)."""

    rules: str = "eaai"
    init: str | None = None  # weights to fine-tune: a file, "shipped", or None (from scratch)
    hidden: tuple[int, int] = (128, 64)  # from scratch only (a file gives its own)
    opponents: tuple[str, ...] = LEAGUE
    objective: str = "hand"
    steps: int = 2_000_000  # environment steps (rows times steps per row), CleanRL's budget
    num_envs: int = 160
    horizon: int = 64
    learning_rate: float = 3e-4
    gamma: float = 1.0
    gae_lambda: float = 0.95
    epochs: int = 4
    minibatches: int = 4
    clip: float = 0.2
    entropy: float = 0.01
    value_coef: float = 0.5
    max_grad_norm: float = 0.5
    eval_every: int = 10  # updates between checkpoints
    eval_hands: int = 2000
    eval_deals: int = 200  # mirrored: twice as many games
    eval_seed: int = 20261204
    final_deals: int = 500
    final_opponents: tuple[str, ...] = ("simple", "tuned")
    seed: int = 1

    def __post_init__(self) -> None:
        if self.rules not in PRESETS:
            raise ValueError(f"rules={self.rules!r} is not valid: expected one of "
                             + ", ".join(PRESETS))
        if self.objective not in OBJECTIVES:
            raise ValueError(f"objective={self.objective!r} is not valid: expected 'hand' or "
                             "'game'")
        for name, low, high in (("steps", 1, 10**12), ("num_envs", 1, 10**6),
                                ("horizon", 1, 10**6), ("epochs", 1, 1000),
                                ("minibatches", 1, 10**6), ("eval_every", 1, 10**9),
                                ("eval_hands", 0, 10**7), ("eval_deals", 0, 10**7),
                                ("eval_seed", 0, MAX_SEED), ("final_deals", 0, 10**7),
                                ("seed", 0, MAX_SEED)):
            check_int(name, getattr(self, name), low, high)
        for name, low_f, high_f in (("learning_rate", 0.0, 1.0), ("gamma", 0.0, 1.0),
                                ("gae_lambda", 0.0, 1.0), ("clip", 0.0, 10.0),
                                ("entropy", 0.0, 10.0), ("value_coef", 0.0, 100.0),
                                ("max_grad_norm", 0.0, 1e6)):
            value = getattr(self, name)
            positive = name in ("learning_rate", "max_grad_norm")
            if isinstance(value, bool) or not isinstance(value, int | float) or not (
                    low_f < value <= high_f if positive else low_f <= value <= high_f):
                raise ValueError(f"{name}={value!r} is not valid: expected a number in "
                                 f"{'(' if positive else '['}{low_f}, {high_f}]")
        if self.num_envs < len(self.opponents):
            raise ValueError(f"num_envs={self.num_envs} is not valid: expected at least one "
                             f"row per opponent ({len(self.opponents)})")
        if len(self.hidden) != 2 or not all(
                isinstance(h, int) and 1 <= h <= m
                for h, m in zip(self.hidden, MAX_HIDDEN, strict=True)):
            raise ValueError(f"hidden={self.hidden!r} is not valid: expected two sizes within "
                             f"1..{MAX_HIDDEN[0]} and 1..{MAX_HIDDEN[1]}")
        self._check_strategies()
        if self.init is not None and self.init != "shipped":
            load_net(self.init)  # a ValueError naming the file when it cannot be played

    def _check_strategies(self) -> None:
        rules = Rules.preset(self.rules)
        for name in ("opponents", "final_opponents"):
            specs = resolve(parse_strategies(list(getattr(self, name))), rules)
            if name == "opponents" and not specs:
                raise ValueError("opponents=() is not valid: expected at least one strategy")
            python = [s.text for s in specs if not s.compiled or s.weights]
            if python:
                raise ValueError(f"{name}: {python[0]!r} is not a built-in strategy: the "
                                 "games are played inside the compiled step")

    @property
    def updates(self) -> int:
        return math.ceil(self.steps / (self.num_envs * self.horizon))

    def start_weights(self) -> np.ndarray | None:
        """The flat weights fine-tuning starts from (None: from scratch)."""
        if self.init is None:
            return None
        if self.init == "shipped":
            if not NET_FILE.is_file():
                raise ValueError(f"init='shipped': this ginbox ships no network "
                                 f"({NET_FILE.name}); give a weights file")
            return load_net(NET_FILE)[0]
        return load_net(self.init)[0]


class League:
    """The learner's games against each opponent side by side: a vector environment per
    opponent, stepped as one batch of ``num_envs`` rows."""

    def __init__(self, settings: Settings) -> None:
        k = len(settings.opponents)
        sizes = [settings.num_envs // k + (i < settings.num_envs % k) for i in range(k)]
        hand = settings.objective == "hand"
        self.envs = [VectorEnv(size, rules=settings.rules, opponents=opponent,
                               episode="hand" if hand else "game",
                               reward="margin" if hand else "game", observation="view")
                     for size, opponent in zip(sizes, settings.opponents, strict=True)]
        self.scale = 1.0 / POINTS_SCALE if hand else 1.0
        self.opponent_of_row = np.repeat(np.arange(k), sizes)

    def reset(self, seed: int) -> tuple[np.ndarray, np.ndarray]:
        # a 64-bit word, kept to the 63 bits every seed of ginbox has
        parts = [env.reset(seed=int(seed_words(seed, i)) & MAX_SEED)
                 for i, env in enumerate(self.envs)]
        return (np.concatenate([p[0] for p in parts]),
                np.concatenate([p[1]["action_mask"] for p in parts]))

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, ...]:
        """Views, masks, rewards (scaled) and terminations of every row."""
        parts, at = [], 0
        for env in self.envs:
            parts.append(env.step(actions[at:at + env.num_envs]))
            at += env.num_envs
        return (np.concatenate([p[0] for p in parts]),
                np.concatenate([p[4]["action_mask"] for p in parts]),
                np.concatenate([p[1] for p in parts]) * self.scale,
                np.concatenate([p[2] for p in parts]))


@dataclass
class Rollout:
    """``horizon`` steps of every row: the decisions (rows that had one, step by step) and
    the per-step arrays GAE reads."""

    decisions: Decisions
    step: np.ndarray  # int64 (k,): the step of each decision
    row: np.ndarray  # int64 (k,): its row
    rewards: np.ndarray  # (T, n): reward after each step
    terms: np.ndarray  # (T, n): the episode ended at that step
    values: np.ndarray  # (T, n): the critic at each step (0 where the row had no decision)
    bootstrap: np.ndarray  # (n,): the critic after the last step (0 where no decision)
    returns: list[float]  # finished episodes' returns, in order
    returns_by_opponent: list[list[float]]


def collect(model: PolicyValueNet, league: League, views: np.ndarray, masks: np.ndarray,
            settings: Settings, rng: np.random.Generator, running: np.ndarray
            ) -> tuple[Rollout, np.ndarray, np.ndarray]:
    """Play ``horizon`` steps of every row, sampling the policy; the rollout and the views
    and masks to go on from. ``running``: each row's return so far in its episode."""
    n, horizon = len(views), settings.horizon
    rewards, terms = np.zeros((horizon, n)), np.zeros((horizon, n), np.bool_)
    values = np.zeros((horizon, n), np.float32)
    parts, steps, rows = [], [], []
    finished: list[float] = []
    by_opponent: list[list[float]] = [[] for _ in league.envs]
    for t in range(horizon):
        actions, decided, decisions = act(model, views, masks, settings.objective, rng)
        full = np.zeros(n, np.int64)
        full[decided] = actions
        values[t, decided] = decisions.value
        parts.append(decisions)
        steps.append(np.full(len(decided), t))
        rows.append(decided)
        views, masks, rewards[t], terms[t] = league.step(full)
        running[decided] += rewards[t, decided] / league.scale  # not a reset's carry-over
        for i in np.flatnonzero(terms[t]):
            finished.append(float(running[i]))
            by_opponent[league.opponent_of_row[i]].append(float(running[i]))
            running[i] = 0.0
    _, decided, last = act(model, views, masks, settings.objective, rng)
    bootstrap = np.zeros(n, np.float32)
    bootstrap[decided] = last.value
    rollout = Rollout(Decisions.concat(parts), np.concatenate(steps), np.concatenate(rows),
                      rewards, terms, values, bootstrap, finished, by_opponent)
    return rollout, views, masks


def advantages(rewards: np.ndarray, values: np.ndarray, terms: np.ndarray,
               bootstrap: np.ndarray, gamma: float, lam: float) -> np.ndarray:
    """Generalised advantage estimates, ``(T, n)`` like ``rewards``.

    ``terms[t]`` ends the episode at step t (no value after it). A step where a row had no
    decision (the reset after an episode ended) follows a termination, so nothing flows back
    through it; its own estimate is never used."""
    out = np.zeros_like(rewards, dtype=np.float64)
    running = np.zeros(rewards.shape[1])
    for t in range(len(rewards) - 1, -1, -1):
        after = bootstrap if t == len(rewards) - 1 else values[t + 1]
        live = 1.0 - terms[t]
        delta = rewards[t] + gamma * after * live - values[t]
        running = delta + gamma * lam * live * running
        out[t] = running
    return out


def ppo_update(model: PolicyValueNet, optimiser: torch.optim.Optimizer, rollout: Rollout,
               settings: Settings, rng: np.random.Generator) -> dict[str, float]:
    """``epochs`` passes of clipped PPO steps over the rollout's decisions; mean losses."""
    gae = advantages(rollout.rewards, rollout.values, rollout.terms, rollout.bootstrap,
                     settings.gamma, settings.gae_lambda)
    batch = rollout.decisions
    adv_all = torch.from_numpy(gae[rollout.step, rollout.row].astype(np.float32))
    old_value = torch.from_numpy(batch.value)
    returns = adv_all + old_value
    old_log_prob = torch.from_numpy(batch.log_prob)
    k = len(batch.value)
    size = max(1, math.ceil(k / settings.minibatches))
    sums: dict[str, float] = {}
    count = 0
    for _ in range(settings.epochs):
        order = rng.permutation(k)
        for start in range(0, k, size):
            mb = np.sort(order[start:start + size])
            index = torch.from_numpy(mb)
            log_prob, entropy, value = evaluate(model, batch, mb, settings.objective)
            log_ratio = log_prob - old_log_prob[index]
            ratio = log_ratio.exp()
            adv = adv_all[index]
            if len(mb) > 1:
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            clipped = torch.clamp(ratio, 1 - settings.clip, 1 + settings.clip)
            policy_loss = torch.max(-adv * ratio, -adv * clipped).mean()
            v_old, ret = old_value[index], returns[index]
            v_clipped = v_old + torch.clamp(value - v_old, -settings.clip, settings.clip)
            value_loss = 0.5 * torch.max((value - ret) ** 2, (v_clipped - ret) ** 2).mean()
            loss = (policy_loss - settings.entropy * entropy.mean()
                    + settings.value_coef * value_loss)
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), settings.max_grad_norm)
            optimiser.step()
            with torch.no_grad():
                stats = {"policy_loss": policy_loss, "value_loss": value_loss,
                         "entropy": entropy.mean(),
                         "approx_kl": ((ratio - 1) - log_ratio).mean(),
                         "clip_fraction": ((ratio - 1).abs() > settings.clip).float().mean()}
            for key, v in stats.items():
                sums[key] = sums.get(key, 0.0) + float(v.detach())
            count += 1
    return {key: v / max(1, count) for key, v in sums.items()}


# ------------------------------------------------------------------------------- the run


def _setup(settings: Settings) -> tuple[PolicyValueNet, torch.optim.Optimizer]:
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(settings.seed)
    start = settings.start_weights()
    model = from_flat(start) if start is not None else PolicyValueNet(*settings.hidden)
    optimiser = torch.optim.Adam(model.parameters(), lr=settings.learning_rate, eps=1e-5)
    return model, optimiser


def _meta(settings: Settings, update: int, steps: int) -> dict[str, Any]:
    from sim.learn.loop import _commit

    return {"command": "python -m sim.learn.ppo", "settings": asdict(settings),
            "update": update, "steps": steps, "seed": settings.seed, "version": __version__,
            "commit": _commit()}


def _checkpoint(out: Path, model: PolicyValueNet, optimiser: torch.optim.Optimizer,
                update: int, curve: list[dict[str, Any]], settings: Settings) -> Path:
    """The weights at this update (a file ``net:weights=`` plays), the curve and the state
    to resume from, each written atomically."""
    from sim.learn.loop import write_net

    steps = update * settings.num_envs * settings.horizon
    weights = out / "checkpoints" / f"net-{update:05d}.npz"
    write_net(weights, to_flat(model), _meta(settings, update, steps))
    buffer = io.BytesIO()
    torch.save({"model": model.state_dict(), "optimiser": optimiser.state_dict(),
                "update": update, "curve": curve, "settings": asdict(settings)}, buffer)
    atomic_write_bytes(out / "checkpoint.pt", buffer.getvalue())
    return weights


def _evaluate(model: PolicyValueNet, weights: Path, settings: Settings) -> dict[str, Any]:
    """The checkpoint's greedy play against ``simple`` on the held-out deals."""
    row: dict[str, Any] = {}
    if settings.eval_hands:
        row.update(hand_result(model, settings.rules, settings.eval_hands, settings.eval_seed))
    if settings.eval_deals:
        row.update(game_result(weights, settings.rules, "simple", settings.eval_seed,
                               settings.eval_deals))
    return row


def _check_out(out: Path, settings: Settings, resume: bool, force: bool) -> dict[str, Any]:
    """The checkpoint to resume from (empty for a new run); refuses a folder it should not
    write in, before anything is written."""
    if "," in str(out) or ":" in str(out):
        raise ValueError(f"out={str(out)!r} is not valid: the weights' path may not contain "
                         "',' or ':' (they separate a strategy's parameters)")
    if out.exists() and not out.is_dir():
        raise ValueError(f"out={str(out)!r} is a file: expected a directory")
    if resume and force:
        raise ValueError("--resume and --force exclude each other")
    saved = out / "checkpoint.pt"
    if not saved.is_file() or force:
        if out.is_dir() and any(out.iterdir()) and not force:
            raise ValueError(f"{out} is not empty: use --force to start over there, or "
                             "another --out")
        return {}
    if not resume:
        raise ValueError(f"{out} holds a PPO run: use --resume to finish it or --force to "
                         "start over")
    state = torch.load(saved, weights_only=False)
    if state["settings"] != asdict(settings):
        raise ValueError(f"cannot resume {out}: it was run with other settings "
                         "(settings.json); use --force to start over or another --out")
    return state


def run(settings: Settings, out: str | Path, resume: bool = False, force: bool = False,
        quiet: bool = False, stream: TextIO | None = None) -> pd.DataFrame:
    """Train (or resume) a run into ``out``; return its learning curve (a row per
    checkpoint). Writes ``settings.json``, ``checkpoint.pt``, ``checkpoints/net-*.npz``,
    ``curve.csv``, and at the end ``net.npz`` (the final weights) and ``final.csv``."""
    out = Path(out)
    state = _check_out(out, settings, resume, force)
    model, optimiser = _setup(settings)
    if force and out.is_dir():
        import shutil

        shutil.rmtree(out)
    atomic_write_text(out / "settings.json", json.dumps(asdict(settings), indent=1) + "\n",
                      mkdir=True)
    update, curve = 0, []
    if state:
        model.load_state_dict(state["model"])
        optimiser.load_state_dict(state["optimiser"])
        update, curve = state["update"], state["curve"]
    per_update = settings.num_envs * settings.horizon
    bar = Progress(f"ppo {'fine-tuning' if settings.init else 'from scratch'}",
                   settings.updates * per_update, initial=update * per_update, quiet=quiet,
                   stream=stream, unit="steps")
    started = time.perf_counter() - (curve[-1]["seconds"] if curve else 0.0)
    cpu = time.process_time() - (curve[-1]["cpu_seconds"] if curve else 0.0)
    if not curve:
        weights = _checkpoint(out, model, optimiser, 0, curve, settings)
        curve.append({"update": 0, "steps": 0, "seconds": 0.0, "cpu_seconds": 0.0,
                      **_evaluate(model, weights, settings)})
        _checkpoint(out, model, optimiser, 0, curve, settings)
    league = League(settings)
    train_stats: list[dict[str, float]] = []
    while update < settings.updates:
        if update % settings.eval_every == 0 or not train_stats:  # a segment begins
            segment = update // settings.eval_every
            views, masks = league.reset(int(seed_words(settings.seed, segment, 0)))
            rng = np.random.default_rng([settings.seed, segment, 1])
            running = np.zeros(settings.num_envs)
            returns: list[list[float]] = [[] for _ in settings.opponents]
        for group in optimiser.param_groups:
            group["lr"] = settings.learning_rate * (1.0 - update / settings.updates)
        rollout, views, masks = collect(model, league, views, masks, settings, rng, running)
        for k, part in enumerate(rollout.returns_by_opponent):
            returns[k].extend(part)
        train_stats.append(ppo_update(model, optimiser, rollout, settings,
                                      np.random.default_rng([settings.seed, update, 2])))
        update += 1
        bar.update(per_update)
        if update % settings.eval_every == 0 or update == settings.updates:
            weights = _checkpoint(out, model, optimiser, update, curve, settings)
            row = {"update": update, "steps": update * per_update,
                   "seconds": round(time.perf_counter() - started, 1),
                   "cpu_seconds": round(time.process_time() - cpu, 1),
                   **{k: float(np.mean([s[k] for s in train_stats])) for k in train_stats[0]},
                   **{f"return_vs_{name}": float(np.mean(r)) if r else math.nan
                      for name, r in zip(settings.opponents, returns, strict=True)},
                   **_evaluate(model, weights, settings)}
            curve.append(row)
            _checkpoint(out, model, optimiser, update, curve, settings)
            train_stats = []
            atomic_write_text(out / "curve.csv", pd.DataFrame(curve).to_csv(index=False))
    bar.close()
    _finish(out, model, settings, curve)
    return pd.DataFrame(curve)


def _finish(out: Path, model: PolicyValueNet, settings: Settings,
            curve: list[dict[str, Any]]) -> None:
    """The final weights (``net.npz``, with the curve in their metadata) and the final
    evaluation against ``final_opponents`` (``final.csv``)."""
    from sim.learn.loop import write_net

    meta = _meta(settings, settings.updates, settings.updates * settings.num_envs
                 * settings.horizon)
    write_net(out / "net.npz", to_flat(model), {**meta, "curve": curve})
    atomic_write_text(out / "curve.csv", pd.DataFrame(curve).to_csv(index=False))
    if settings.final_deals:
        start = out / "checkpoints" / "net-00000.npz"
        table = final_table({"start": start, "final": out / "net.npz"}, settings.rules,
                            settings.final_opponents, settings.eval_seed + 1,
                            settings.final_deals)
        atomic_write_text(out / "final.csv", table.to_csv(index=False))


# ------------------------------------------------------------------------- command line


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m sim.learn.ppo",
        description="PPO against a league of ginbox bots, from scratch or fine-tuning a "
                    "network (docs/environments.md).")
    defaults = Settings()
    for f in fields(Settings):
        flag = "--" + f.name.replace("_", "-")
        value = getattr(defaults, f.name)
        if isinstance(value, tuple):
            parser.add_argument(flag, nargs="+", default=list(value),
                                type=int if f.name == "hidden" else str, help=f"default {value}")
        elif f.name == "init":
            parser.add_argument(flag, default=None, help="weights file to fine-tune, or "
                                "'shipped' (default: from scratch)")
        else:
            parser.add_argument(flag, type=type(value), default=value, help=f"default {value}")
    parser.add_argument("--out", type=Path, default=None,
                        help="results folder (default results/ppo/scratch or "
                             "results/ppo/finetune)")
    parser.add_argument("--resume", action="store_true", help="finish the run in --out")
    parser.add_argument("--force", action="store_true", help="start over in --out")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def main(argv: list[str] | None = None) -> int:
    """The command; exit status 2 with one line on stderr for bad settings."""
    args = _parser().parse_args(argv)
    values = {f.name: getattr(args, f.name) for f in fields(Settings)}
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}
    try:
        settings = Settings(**values)
        out = args.out or Path("results/ppo") / ("finetune" if settings.init else "scratch")
        curve = run(settings, out, resume=args.resume, force=args.force, quiet=args.quiet)
    except ValueError as exc:
        print(f"python -m sim.learn.ppo: error: {' '.join(str(exc).split())}",
              file=sys.stderr)
        return 2
    last = curve.iloc[-1]
    print(f"{out}: {int(last['steps']):,} steps; against simple: "
          f"{last.get('game_win_rate', math.nan):.3f} of games, "
          f"{last.get('hand_margin', math.nan):+.2f} points a hand")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
