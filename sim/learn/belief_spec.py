"""The belief's, the knock model's and the keep model's training file: ``ginbox train FILE``
with ``model = "belief"``, ``"knock"`` or ``"keep"`` (all learn from games among a
population).

Such a file is TOML with flat keys (and one table, ``population``); every key is checked
before any game is played, and a bad one is refused in one line naming it. docs/learning.md
lists the keys; ``experiments/train_belief.toml`` trained the shipped belief.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from sim.engine.rules import PRESETS, Rules
from sim.io.specs import (
    check_int,
    check_keys,
    check_run_name,
    check_text,
    is_plain_int,
    require_keys,
)
from strategies.mc_belief import MAX_HIDDEN
from strategies.mc_keep import MAX_KEEP_HIDDEN
from strategies.mc_knock import MAX_KNOCK_HIDDEN
from strategies.registry import parse_strategy

KEYS = ("name", "model", "seed", "tables", "games", "chunk_size", "holdout", "every",
        "population", "hidden", "epochs", "batch", "learning_rate", "weight_decay", "threads",
        "description")
MAX_SEED = 2**63 - 1
MAX_ROWS = 3_000_000
"""Records one training may hold (about 1.3 kB each once encoded)."""
KNOCKS_PER_GAME = 40
"""Knock decisions a game gives, generously (the knock model's population averages about 20)."""
MAX_KNOCK_ROWS = 10_000_000
"""Knock decisions one training may hold (about 0.4 kB each in training)."""
KEEPS_PER_GAME = 150
"""Discards a game gives, generously (the keep model's population averages about 125, and
as many takes)."""
MAX_KEEP_ROWS = 1_500_000
"""Discards one training may hold (reckoned at about 3 kB each while they are encoded, their
int64 facts, float32 inputs and the float64 pass between, with a take beside each: some 4.5 GB
at the most)."""
ROWS_PER_GAME = {2: 280, 3: 230}
"""Decisions a game gives, generously (an eaai game between heuristics has about 200)."""
DEFAULT_POPULATION = {
    "eaai": ("simple", "discard-tracking", "tuned@eaai", "greedy-knock:knock_at=0",
             "greedy-knock:knock_at=10", "net", "mc:samples=16"),
    "three-handed": ("simple", "discard-tracking", "tuned", "greedy-knock:knock_at=0",
                     "greedy-knock:knock_at=10", "net", "mc:samples=16"),
}


@dataclass(frozen=True)
class BeliefSpec:
    """A validated belief (or knock or keep model) training file: construct through
    :func:`build_belief`."""

    name: str
    seed: int
    tables: tuple[str, ...]
    games: int
    population: Mapping[str, tuple[str, ...]] = field(hash=False)
    chunk_size: int = 50
    holdout: int = 10
    every: int = 4
    hidden: int = 128
    epochs: int = 6
    batch: int = 1024
    learning_rate: float = 0.002
    weight_decay: float = 1e-5
    threads: int = 1
    description: str = ""
    model: str = "belief"

    @property
    def chunks(self) -> int:
        """Chunks per table."""
        return -(-self.games // self.chunk_size)

    def is_holdout(self, chunk: int) -> bool:
        """Whether a chunk's games are held out of training (every ``holdout``-th chunk)."""
        return chunk % self.holdout == self.holdout - 1

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["tables"] = list(self.tables)
        out["population"] = {k: list(v) for k, v in self.population.items()}
        return out


def _number(name: str, value: object, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise ValueError(f"{name}={value!r} is not valid: expected a number {low:g}..{high:g}")
    return float(value)


def _population(value: Any, tables: list[str]) -> dict[str, tuple[str, ...]]:
    """Each table's players: compiled built-ins with the shipped weights (a player the
    recorder can seat), at least two."""
    if value is None:
        value = {t: list(DEFAULT_POPULATION.get(t, DEFAULT_POPULATION["eaai"])) for t in tables}
    if not isinstance(value, dict) or set(value) != set(tables):
        raise ValueError(f"population={value!r} is not valid: expected a table with a list "
                         "of strategies for each training table")
    out = {}
    for table, names in value.items():
        if not isinstance(names, list) or len(names) < 2 or \
                not all(isinstance(n, str) for n in names):
            raise ValueError(f"population.{table}={names!r} is not valid: expected a list of "
                             "at least two strategy names")
        for text in names:
            try:
                spec = parse_strategy(text)
            except ValueError as exc:
                raise ValueError(f"population.{table}: {exc}") from None
            if spec.strategy_id is None or spec.weights is not None or spec.name == "human":
                raise ValueError(f"population.{table}: {text!r} is not valid: expected a "
                                 "compiled built-in playing its shipped weights")
        out[table] = tuple(names)
    return out


def build_belief(data: dict[str, Any]) -> BeliefSpec:
    """A :class:`BeliefSpec` from a training file's table, every key checked (``model`` is
    ``"belief"``, ``"knock"`` or ``"keep"``; the knock and keep models keep every decision of
    their kind, so they take no ``every``)."""
    model = data.get("model", "belief")
    check_keys(data, tuple(k for k in KEYS if model == "belief" or k != "every"),
               f"the {model} training file")
    require_keys(data, ("name", "seed", "tables", "games"),
                 f"a {model} training file needs name, seed, tables and games")
    tables = data["tables"]
    if not isinstance(tables, list) or not tables or len(set(map(str, tables))) != len(tables) \
            or any(t not in PRESETS for t in tables):
        raise ValueError(f"tables={tables!r} is not valid: expected a list of distinct presets "
                         f"from {', '.join(PRESETS)}")
    most = {"belief": MAX_HIDDEN, "keep": MAX_KEEP_HIDDEN}.get(model, MAX_KNOCK_HIDDEN)
    hidden = data.get("hidden", {"belief": 128, "keep": 8}.get(model, 16))
    if not is_plain_int(hidden) or not 1 <= hidden <= most:
        raise ValueError(f"hidden={hidden!r} is not valid: expected a layer size 1..{most}")
    spec = BeliefSpec(
        name=check_run_name(data["name"]),
        seed=check_int("seed", data["seed"], 0, MAX_SEED),
        tables=tuple(tables),
        games=check_int("games", data["games"], 1, 1_000_000),
        population=_population(data.get("population"), tables),
        chunk_size=check_int("chunk_size", data.get("chunk_size", 50), 1, 10_000),
        holdout=check_int("holdout", data.get("holdout", 10), 2, 1000,
                          "an integer 2..1000 (every holdout-th chunk is held out)"),
        every=check_int("every", data.get("every", 4), 1, 1000,
                        "an integer 1..1000 (every every-th decision is recorded)"),
        hidden=hidden,
        epochs=check_int("epochs", data.get("epochs", 6), 1, 200),
        batch=check_int("batch", data.get("batch", 1024), 8, 65536),
        learning_rate=_number("learning_rate", data.get("learning_rate", 0.002), 1e-6, 1.0),
        weight_decay=_number("weight_decay", data.get("weight_decay", 1e-5), 0.0, 1.0),
        threads=check_int("threads", data.get("threads", 1), 1, 256),
        description=check_text("description", data.get("description", "")),
        model=model,
    )
    if spec.chunks < spec.holdout:
        raise ValueError(f"games={spec.games} in chunks of {spec.chunk_size} make "
                         f"{spec.chunks} chunks: expected at least holdout={spec.holdout}, so "
                         "that some games are held out")
    if model == "knock":
        decisions = spec.games * KNOCKS_PER_GAME * len(spec.tables)
        if decisions > MAX_KNOCK_ROWS:
            raise ValueError(f"games={spec.games} would record about {decisions:,} knock "
                             f"decisions: expected at most {MAX_KNOCK_ROWS:,} (fewer games)")
        return spec
    if model == "keep":
        discards = spec.games * KEEPS_PER_GAME * len(spec.tables)
        if discards > MAX_KEEP_ROWS:
            raise ValueError(f"games={spec.games} would record about {discards:,} discards: "
                             f"expected at most {MAX_KEEP_ROWS:,} (fewer games)")
        return spec
    rows = sum(spec.games * ROWS_PER_GAME[Rules.preset(t).players] // spec.every
               for t in spec.tables)
    if rows > MAX_ROWS:
        raise ValueError(f"games={spec.games} with every={spec.every} would record about "
                         f"{rows:,} positions: expected at most {MAX_ROWS:,} (fewer games or a "
                         "larger every)")
    return spec
