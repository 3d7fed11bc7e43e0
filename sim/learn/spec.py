"""The training file of ``ginbox train``: what the expert plays, how much, and how to learn it.

A training file is TOML (or a dict) with flat keys; :func:`load_training` validates every
one before any work starts and refuses a bad value in one line naming the key, the value and
what is accepted. docs/learning.md lists the keys; ``experiments/train_net.toml`` is the file
that trained the shipped network.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sim.engine.rules import PRESETS, Rules
from sim.io.specs import (
    MAX_SEED,
    SEED_RANGE,
    check_int,
    check_keys,
    check_run_name,
    check_text,
    is_plain_int,
    load_toml,
    require_keys,
)
from sim.learn.belief_spec import BeliefSpec, build_belief
from strategies.net import MAX_HIDDEN, load_net
from strategies.registry import parse_strategies, parse_strategy

KEYS = ("name", "seed", "rounds", "tables", "games", "chunk_size", "holdout", "expert", "uses",
        "keep_rounds", "hidden", "epochs", "batch", "learning_rate", "weight_decay",
        "value_weight", "points_weight", "search_target", "warm_start", "threads", "evaluate_games",
        "evaluate_seed", "opponents", "init", "description")
MAX_GAMES = 1_000_000
MAX_POSITIONS = 8_000_000
"""Positions one training may hold in memory (about 600 bytes each once encoded): a file
asking for more is refused before any game is played."""
POSITIONS_PER_GAME = {2: 300, 3: 250}
"""Recorded decisions a self-play game gives, generously (measured: about 265 two-handed and
215 three-handed, mc self-play)."""
DEFAULT_USES = 2
"""The later rounds' expert is ``mc:net=2``: the network orders the discard shortlist, the one
use measured to help (docs/lab/2026-12-04-net.md); a weak network, as a small run makes, can
then only reorder the candidates ``mc`` still judges, not replace its moves or values."""
DEFAULT_OPPONENTS = {"eaai": ("simple", "tuned@eaai"),
                     "three-handed": ("discard-tracking", "tuned")}


@dataclass(frozen=True)
class TrainingSpec:
    """A validated training file: construct through :func:`load_training`."""

    name: str
    seed: int
    rounds: int
    tables: tuple[str, ...]
    games: int
    chunk_size: int = 25
    holdout: int = 10
    expert: str = "mc"
    uses: int = DEFAULT_USES
    keep_rounds: int = 2
    hidden: tuple[int, int] = (128, 64)
    epochs: int = 6
    batch: int = 512
    learning_rate: float = 0.002
    weight_decay: float = 1e-5
    value_weight: float = 1.0
    points_weight: float = 0.5
    search_target: float = 0.5
    warm_start: bool = True
    threads: int = 1
    evaluate_games: int = 200
    evaluate_seed: int = 90210
    opponents: Mapping[str, tuple[str, ...]] = field(default_factory=dict, hash=False)
    init: str | None = None
    description: str = ""

    @property
    def chunks(self) -> int:
        """Shards per table and round."""
        return -(-self.games // self.chunk_size)

    def is_holdout(self, chunk: int) -> bool:
        """Whether a chunk's games are held out of training (every ``holdout``-th chunk)."""
        return chunk % self.holdout == self.holdout - 1

    def expert_for(self, round_number: int, weights: str | None) -> str:
        """The expert's strategy text in a round: the file's ``expert`` in round 1 (or with
        ``uses = 0``), afterwards ``mc`` searching with the previous round's network."""
        if weights is None or self.uses == 0:
            return self.expert
        extra = f"net={self.uses},weights={weights}"
        return f"{self.expert},{extra}" if ":" in self.expert else f"{self.expert}:{extra}"

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["tables"] = list(self.tables)
        out["hidden"] = list(self.hidden)
        out["opponents"] = {k: list(v) for k, v in self.opponents.items()}
        return out


def load_training(source: str | Path | Mapping[str, Any]) -> TrainingSpec:
    """A :class:`TrainingSpec` from a TOML file or a dict, every key checked."""
    if isinstance(source, Mapping):
        return _build(dict(source))
    return load_toml(source, "training", _build)


def load_any_training(source: str | Path | Mapping[str, Any]) -> TrainingSpec | BeliefSpec:
    """The training file's spec by its ``model``: ``"net"`` (the default, a
    :class:`TrainingSpec`), ``"belief"``, ``"knock"`` or ``"keep"`` (a
    :class:`sim.learn.belief_spec.BeliefSpec`)."""
    def build(data: dict[str, Any]) -> TrainingSpec | BeliefSpec:
        model = data.get("model", "net")
        if model in ("belief", "knock", "keep"):
            return build_belief(data)
        if model != "net":
            raise ValueError(f"model={model!r} is not valid: expected \"net\", \"belief\", "
                             "\"knock\" or \"keep\"")
        return _build({k: v for k, v in data.items() if k != "model"})
    if isinstance(source, Mapping):
        return build(dict(source))
    return load_toml(source, "training", build)


def _number(name: str, value: object, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise ValueError(f"{name}={value!r} is not valid: expected a number {low:g}..{high:g}")
    return float(value)


def _build(data: dict[str, Any]) -> TrainingSpec:
    check_keys(data, KEYS, "the training file")
    require_keys(data, ("name", "seed", "rounds", "tables", "games"),
                 "a training file needs name, seed, rounds, tables and games")
    tables = data["tables"]
    if not isinstance(tables, list) or not tables or len(set(map(str, tables))) != len(tables) \
            or any(t not in PRESETS for t in tables):
        raise ValueError(f"tables={tables!r} is not valid: expected a list of distinct presets "
                         f"from {', '.join(PRESETS)}")
    hidden = data.get("hidden", [128, 64])
    if not isinstance(hidden, list) or len(hidden) != 2 or not all(map(is_plain_int, hidden)) \
            or not (1 <= hidden[0] <= MAX_HIDDEN[0] and 1 <= hidden[1] <= MAX_HIDDEN[1]):
        raise ValueError(f"hidden={hidden!r} is not valid: expected two layer sizes "
                         f"[1..{MAX_HIDDEN[0]}, 1..{MAX_HIDDEN[1]}]")
    expert = check_text("expert", data.get("expert", "mc"))
    try:
        spec = parse_strategy(expert)
    except ValueError as exc:
        raise ValueError(f"expert={expert!r} is not valid: {exc}") from None
    if spec.name != "mc" or spec.weights is not None:
        raise ValueError(f"expert={expert!r} is not valid: expected mc with parameters "
                         "(the rounds add the network themselves)")
    if spec.params.get("net"):
        raise ValueError(f"expert={expert!r} is not valid: the rounds set net themselves "
                         "(the key uses says how)")
    warm = data.get("warm_start", True)
    if not isinstance(warm, bool):
        raise ValueError(f"warm_start={warm!r} is not valid: expected true or false")
    init = data.get("init")
    if init is not None and (not isinstance(init, str) or not Path(init).is_file()):
        raise ValueError(f"init={init!r} is not valid: expected the path of a weights file")
    if init is not None:
        try:
            load_net(init)  # read and checked now, not after round 1's self-play
        except ValueError as exc:
            raise ValueError(f"init={init!r} is not valid: {exc}") from None
    built = TrainingSpec(
        name=check_run_name(data["name"]),
        seed=check_int("seed", data["seed"], 0, MAX_SEED, SEED_RANGE),
        rounds=check_int("rounds", data["rounds"], 1, 50),
        tables=tuple(tables),
        games=check_int("games", data["games"], 1, MAX_GAMES),
        chunk_size=check_int("chunk_size", data.get("chunk_size", 25), 1, 10_000),
        holdout=check_int("holdout", data.get("holdout", 10), 2, 1000,
                          "an integer 2..1000 (every holdout-th chunk is held out)"),
        expert=expert,
        uses=check_int("uses", data.get("uses", DEFAULT_USES), 0, 15,
                       "an integer 0..15: the sum of 1 base, 2 prior, 4 leaf, 8 rollouts"),
        keep_rounds=check_int("keep_rounds", data.get("keep_rounds", 2), 1, 50),
        hidden=(hidden[0], hidden[1]),
        epochs=check_int("epochs", data.get("epochs", 6), 1, 200),
        batch=check_int("batch", data.get("batch", 512), 8, 65536),
        learning_rate=_number("learning_rate", data.get("learning_rate", 0.002), 1e-6, 1.0),
        weight_decay=_number("weight_decay", data.get("weight_decay", 1e-5), 0.0, 1.0),
        value_weight=_number("value_weight", data.get("value_weight", 1.0), 0.0, 100.0),
        points_weight=_number("points_weight", data.get("points_weight", 0.5), 0.0, 100.0),
        search_target=_number("search_target", data.get("search_target", 0.5), 0.0, 1.0),
        warm_start=warm,
        threads=check_int("threads", data.get("threads", 1), 1, 256),
        evaluate_games=check_int("evaluate_games", data.get("evaluate_games", 200), 0,
                                 MAX_GAMES),
        evaluate_seed=check_int("evaluate_seed", data.get("evaluate_seed", 90210), 0,
                                MAX_SEED, SEED_RANGE),
        opponents=_opponents(data.get("opponents"), tables),
        init=init,
        description=check_text("description", data.get("description", "")),
    )
    if built.evaluate_seed == built.seed:
        raise ValueError(f"evaluate_seed={built.evaluate_seed} is the training seed: expected "
                         "another seed, so the strength table is measured on held-out deals")
    _check_memory(built)
    _check_held_out(built)
    return built


def _opponents(value: Any, tables: list[str]) -> dict[str, tuple[str, ...]]:
    """The fixed opponents of the strength table, per table (defaults for the two reference
    tables); each opponent string is parsed now."""
    if value is None:
        value = {t: list(DEFAULT_OPPONENTS.get(t, ("simple",))) for t in tables}
    if not isinstance(value, dict) or set(value) - set(tables):
        raise ValueError(f"opponents={value!r} is not valid: expected a table of the "
                         "training tables, each a list of strategies")
    out = {}
    for table, names in value.items():
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ValueError(f"opponents.{table}={names!r} is not valid: expected a list of "
                             "strategy names")
        try:
            parse_strategies(names)
        except ValueError as exc:
            raise ValueError(f"opponents.{table}: {exc}") from None
        if any(n.strip().lower().startswith("human") for n in names):
            raise ValueError(f"opponents.{table}: human is a seat for a person, not an "
                             "opponent of a batch run")
        out[table] = tuple(names)
    return out


def _check_held_out(spec: TrainingSpec) -> None:
    """Refuse, before any self-play, a file whose shards leave none held out (fewer shards than
    ``holdout``): the training keeps the epoch of least held-out loss and would have no
    positions to measure it on."""
    if spec.chunks < spec.holdout:
        raise ValueError(f"games={spec.games} in shards of chunk_size={spec.chunk_size} is "
                         f"{spec.chunks} shard{'s' if spec.chunks != 1 else ''} per table, and "
                         f"every holdout={spec.holdout}th is held out: none would be, leaving "
                         "no positions to measure the training on; expected games of at least "
                         f"chunk_size * holdout = {spec.chunk_size * spec.holdout} (or a smaller "
                         "chunk_size)")


def _check_memory(spec: TrainingSpec) -> None:
    """Refuse a file whose training would hold more than :data:`MAX_POSITIONS` positions."""
    per_round = sum(spec.games * POSITIONS_PER_GAME[Rules.preset(t).players]
                    for t in spec.tables)
    held = per_round * min(spec.keep_rounds, spec.rounds)
    if held > MAX_POSITIONS:
        raise ValueError(f"games={spec.games} with keep_rounds={spec.keep_rounds} would train "
                         f"on about {held:,} positions at once: expected at most "
                         f"{MAX_POSITIONS:,} (fewer games or keep_rounds)")


__all__ = ["DEFAULT_OPPONENTS", "DEFAULT_USES", "KEYS", "TrainingSpec", "load_any_training",
           "load_training"]
