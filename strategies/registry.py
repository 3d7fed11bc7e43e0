"""Strategy names, parameters and the ``name:key=value`` notation.

A strategy is named as in the CLI, TOML and reports: ``greedy-knock``,
``greedy-knock:knock_at=6``, or a user class by import path, ``mypkg.mybot:MyBot`` (with
optional keyword arguments, ``mypkg.mybot:MyBot:depth=2``). Python code may also pass a
strategy object directly.

One strategy has many spellings (``greedy``, ``Greedy-Knock``, ``greedy-knock:knock_at=05``), so
every spec also has one *canonical* text (:attr:`StrategySpec.canonical`,
:func:`canonical_strategy`), by which arms are compared: a built-in's canonical name, then the
parameters that differ from their default in declaration order (a parameter whose default comes
from the rules is kept whenever given); a Python class's import path, then its keyword arguments
sorted by name. Built-in names and aliases are case-insensitive, spaces around ``:``, ``,`` and
``=`` are ignored, and a number's leading zeros are dropped; a parameter given twice, a sign, an
underscore or a non-ASCII digit is refused.

A built-in whose text names no set plays, under given rules, the set its declaration chooses
for them, with the parameters the text gives on top (:meth:`StrategySpec.for_rules`,
:func:`resolve`, called by every entry point that plays): bare ``tuned`` under eaai plays, and
is shown and compared as, ``tuned@eaai``, and ``tuned:slack=2`` there is ``tuned@eaai:slack=2``.
A canonical text plays the same under any rules: bare ``tuned`` in it means the defaults (the
three-handed set), ``tuned@three-handed`` everywhere.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import multiprocessing
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sim.engine.rules import PRESETS, Rules
from strategies.builtin import (
    DISCARD_TRACKING,
    GIN_HUNTER,
    GREEDY_KNOCK,
    N_PARAMS,
    RANDOM,
    SIGNATURE,
    SIMPLE,
)
from strategies.declare import ParamInfo, StrategyInfo
from strategies.human import Human
from strategies.mc import MC
from strategies.net import NET, load_net, with_weights
from strategies.outside import KINDS as OUTSIDE_KINDS
from strategies.outside import outside_seat
from strategies.tuned import TUNED

__all__ = ["ALIASES", "BUILTINS", "HUMAN", "PERSON_SEAT", "ParamInfo", "StrategyInfo",
           "StrategySpec", "build_strategy", "can_ask_a_person", "canonical_strategy",
           "check_decide", "check_no_person", "check_table", "describe", "is_person",
           "parse_strategies", "parse_strategy", "resolve", "resolve_texts"]

# Adding a compiled strategy: declare its StrategyInfo beside its decision function (its own
# module, or strategies/builtin.py) with the next free id, add it here, and run
# ``python -m strategies.generate``. The registry only collects the declarations.
_TABLE: tuple[StrategyInfo, ...] = (RANDOM, SIMPLE, GREEDY_KNOCK, GIN_HUNTER, DISCARD_TRACKING,
                                    TUNED, MC, NET)


def check_decide(name: str, fn: Any) -> None:
    """Raise ValueError unless ``fn`` is a compiled function of the shared signature."""
    if not hasattr(fn, "py_func"):
        raise ValueError(f"strategy {name!r}: its decision function must be compiled "
                         "(@kernel from sim.engine.jit)")
    n = len(inspect.signature(fn.py_func).parameters)
    if n != len(SIGNATURE):
        raise ValueError(f"strategy {name!r}: its decision function takes {n} arguments, "
                         f"expected ({', '.join(SIGNATURE)})")


def check_table(entries: Any) -> None:
    """Raise ValueError unless the entries have distinct names and ids (>= 0), compiled
    decision functions of the shared signature and at most ``N_PARAMS`` parameters each."""
    seen: dict[int, str] = {}
    names: set[str] = set()
    for info in entries:
        if info.name in names:
            raise ValueError(f"two strategies are named {info.name!r}")
        names.add(info.name)
        if not isinstance(info.strategy_id, int) or info.strategy_id < 0:
            raise ValueError(f"strategy {info.name!r}: id {info.strategy_id!r} is not an "
                             "integer >= 0")
        if info.strategy_id in seen:
            raise ValueError(f"strategies {seen[info.strategy_id]!r} and {info.name!r} share "
                             f"id {info.strategy_id}")
        seen[info.strategy_id] = info.name
        check_decide(info.name, info.decide)
        for role, fn in (("consensus", info.consensus), ("network", info.decide_with_net)):
            if fn is not None and not hasattr(fn, "py_func"):
                raise ValueError(f"strategy {info.name!r}: its {role} function must be "
                                 "compiled (@kernel from sim.engine.jit)")
        if len(info.params) > N_PARAMS:
            raise ValueError(f"strategy {info.name!r} has {len(info.params)} parameters: "
                             f"at most {N_PARAMS}")
        _check_sets(info)


_SET_NAME = re.compile(r"[a-z0-9][a-z0-9-]*", re.ASCII)


def _check_sets(info: StrategyInfo) -> None:
    """Raise ValueError unless every named set has a plain distinct name and in-range values
    of known parameters."""
    known = {p.name: p for p in info.params}
    names: set[str] = set()
    for set_name, values in info.sets:
        if not _SET_NAME.fullmatch(set_name) or set_name in names:
            raise ValueError(f"strategy {info.name!r}: set name {set_name!r} is repeated or "
                             "not lower-case letters, digits and '-'")
        names.add(set_name)
        for key, value in values.items():
            p = known.get(key)
            if p is None or not isinstance(value, int) or not p.low <= value <= p.high:
                raise ValueError(f"strategy {info.name!r}, set {set_name!r}: {key}={value!r} "
                                 "is not a parameter within its range")
    for preset in PRESETS if info.rules_set is not None else ():
        chosen = info.set_for(Rules.preset(preset))
        if chosen is not None and chosen not in names:
            raise ValueError(f"strategy {info.name!r} chooses the set {chosen!r} for {preset} "
                             "rules, which it does not declare")


check_table(_TABLE)
BUILTINS: dict[str, StrategyInfo] = {info.name: info for info in _TABLE}
"""The registered compiled strategies by name: the one table the dispatcher is generated from."""
ALIASES = {"greedy": "greedy-knock", "eaai-simple": "simple"}


@dataclass(frozen=True)
class StrategySpec:
    """A resolved strategy: a built-in with parameters, or a Python strategy factory."""

    text: str  # the name as given (shown in logs and reports)
    name: str  # canonical name, or the import path
    params: dict[str, Any] = field(default_factory=dict)
    strategy_id: int | None = None  # compiled built-in id; None for Python strategies
    factory: Any = None  # class or object for Python strategies
    info: StrategyInfo | None = None  # a compiled strategy's record (registered or not)
    set_name: str | None = None  # the named set the parameters start from, if any
    given: tuple[tuple[str, int], ...] = ()  # the parameters the text sets, in its order
    set_from_rules: bool = False  # set_name was chosen by for_rules, not named in the text
    weights: str | None = None  # a user's network (``weights=PATH``) for a strategy that plays one

    def for_rules(self, rules: Any) -> StrategySpec:
        """The spec as it plays under ``rules`` (:class:`sim.engine.rules.Rules`).

        A built-in whose text names no set (``tuned``, ``tuned:slack=2``) plays the set its
        declaration chooses for the rules (``StrategyInfo.rules_set``: ``tuned`` under eaai
        plays ``tuned@eaai``), with the parameters the text gives on top of it; the text
        becomes ``name@set[:params]``, so logs, reports and :attr:`canonical` say which set
        played. A named set (``tuned@three-handed``) and every other strategy are kept. When
        the chosen set plays as the text alone would (``tuned`` under three-handed, whose set
        is the defaults), the spec is returned unchanged.
        """
        info = self.info
        if info is None or info.rules_set is None or (self.set_name and not self.set_from_rules):
            return self
        set_name = info.set_for(rules)
        base = info.param_set(set_name) if set_name else {p.name: p.default
                                                          for p in info.params}
        params = {**base, **dict(self.given)}
        if params == self.params:
            return self
        if params == {**{p.name: p.default for p in info.params}, **dict(self.given)}:
            set_name = None  # the set is the defaults: the plain spelling says it
        text = self.name + (f"@{set_name}" if set_name else "")
        if self.given:
            text += ":" + ",".join(f"{k}={v}" for k, v in self.given)
        return StrategySpec(text=text, name=self.name, params=params,
                            strategy_id=self.strategy_id, info=info, set_name=set_name,
                            given=self.given, set_from_rules=True)

    @property
    def canonical(self) -> str:
        """One text per distinct strategy, by which arms are compared (see the module doc):
        ``greedy``, ``GREEDY-KNOCK:knock_at=00`` and ``greedy-knock:knock_at=0`` differ as
        ``text`` but all give ``greedy-knock:knock_at=0``. Parameters equal to the defaults
        give the bare name; equal to a named set (and not the defaults), ``name@set``."""
        if self.info is not None:
            full = {p.name: self.params.get(p.name, p.default) for p in self.info.params}
            if full != {p.name: p.default for p in self.info.params}:
                for set_name, _ in self.info.sets:
                    if full == self.info.param_set(set_name):
                        return f"{self.name}@{set_name}"
            shown = [f"{p.name}={self.params[p.name]}" for p in self.info.params
                     if self.params.get(p.name, p.default) != p.default]
            if self.weights is not None:
                shown.append(f"weights={self.weights}")
            return f"{self.name}:{','.join(shown)}" if shown else self.name
        if self.params:
            return f"{self.name}:" + ",".join(f"{k}={v}" for k, v in sorted(self.params.items()))
        return self.name

    @property
    def compiled(self) -> bool:
        """True when the strategy runs inside the compiled batch loop (a registered built-in)."""
        return self.strategy_id is not None

    @property
    def kernel(self) -> Any:
        """The decision function of a compiled strategy that is not registered, which the
        Python driver calls directly; None otherwise (registered ones go through ``decide``)."""
        return self.info.decide if self.info is not None and not self.compiled else None

    def params_array(self) -> np.ndarray:
        """Parameters for the compiled engine, in declaration order; -1 for "from the rules"."""
        arr = np.full(N_PARAMS, -1, np.int64)
        info = self.info
        if info is None and self.compiled:
            info = BUILTINS.get(self.name)
        if info is not None:
            for i, p in enumerate(info.params):
                value = self.params.get(p.name, p.default)
                arr[i] = -1 if value is None else int(value)
        return arr

    def make(self) -> Any:
        """A fresh Python strategy object (for Python strategies)."""
        if self.factory is None:
            raise ValueError(f"{self.text!r} is a compiled built-in, not a Python strategy")
        if hasattr(self.factory, "create_player"):  # an outside player: one per seat
            return self.factory.create_player()
        if isinstance(self.factory, type):
            return self.factory(**self.params)
        return self.factory


def resolve(specs: Any, rules: Any) -> list[StrategySpec]:
    """The strategies as they play under ``rules`` (:meth:`StrategySpec.for_rules`): the one
    place a bare name meets the rules, called by every entry point that plays games."""
    return [spec.for_rules(rules) for spec in parse_strategies(specs)]


def resolve_texts(texts: Any, rules: Any) -> tuple[str, ...]:
    """Strategy texts as they play under ``rules`` (``tuned`` under eaai: ``tuned@eaai``),
    for specs stored as texts (experiment arms, leagues). A user class is not imported, and a
    text that does not parse is kept as given, for the caller's own check to refuse."""
    out = []
    for text in texts:
        try:
            out.append(_parse_text(text, load=False).for_rules(rules).text
                       if isinstance(text, str) else text)
        except ValueError:
            out.append(text)
    return tuple(out)


def build_strategy(spec: StrategySpec, seat: int | None = None) -> Any:
    """``spec.make()``, with a failing constructor reported as one ``ValueError`` line naming
    the strategy (and the seat, when given) instead of the class's own bare message."""
    try:
        return spec.make()
    except Exception as exc:
        where = f" (seat {seat})" if seat is not None else ""
        raise ValueError(f"cannot create strategy {spec.text!r}{where}: "
                         f"{type(exc).__name__}: {exc}") from None


def _accepted() -> str:
    return ("one of " + ", ".join(BUILTINS) + ", human, an outside player agent:PATH or "
            "eaai:CLASS, or an import path module:Class")


def canonical_strategy(spec: str | Any) -> str:
    """The canonical text of a strategy (:attr:`StrategySpec.canonical`).

    A Python class named by import path is not imported, so a report can compare arms on a
    machine where the user's module is not installed; everything else is validated as by
    :func:`parse_strategy`.
    """
    if isinstance(spec, str):
        return _parse_text(spec, load=False).canonical
    return parse_strategy(spec).canonical


def parse_strategy(spec: str | Any) -> StrategySpec:
    """Resolve one strategy: a name with optional ``:key=value,...``, an import path, an object."""
    if isinstance(spec, StrategySpec):
        return spec
    if isinstance(spec, StrategyInfo) or hasattr(spec, "py_func"):
        return _compiled_spec(spec)
    if not isinstance(spec, str):
        if not all(hasattr(spec, m) for m in ("take_upcard", "draw_from_discard", "knock",
                                              "discard")):
            raise ValueError(
                f"strategy object {spec!r} lacks the protocol methods take_upcard, "
                "draw_from_discard, knock and discard"
            )
        name = getattr(spec, "name", type(spec).__name__)
        return StrategySpec(text=str(name), name=str(name), factory=spec)
    return _parse_text(spec, load=True)


def _parse_text(spec: str, load: bool) -> StrategySpec:
    """A strategy named by text; ``load`` False leaves a user class unimported."""
    text = spec.strip()
    head, _, rest = text.partition(":")
    head, at, set_name = head.strip().partition("@")
    head = head.strip()
    canonical = ALIASES.get(head.lower(), head.lower())
    if canonical in OUTSIDE_KINDS and not at:
        seat = outside_seat(text, canonical, rest, load)
        options = {k: v for k, v in (("time_limit", seat.time_limit),
                                     ("classpath", seat.classpath))
                   if v is not None and f"{k}=" in rest}
        return StrategySpec(text=text, name=f"{canonical}:{seat.target}", params=options,
                            factory=seat)
    if canonical in BUILTINS:
        info = BUILTINS[canonical]
        _check_dispatched(info)
        base = info.param_set(set_name.strip().lower()) if at else None
        rest, weights = _split_weights(text, info, rest)
        params = _parse_params(text, info, rest, base)
        given = tuple((k, params[k]) for k in _parse_kwargs(text, rest))
        if weights is not None:
            return _network_spec(text, canonical, params, info, weights, load)
        return StrategySpec(text=text, name=canonical, params=params,
                            strategy_id=info.strategy_id, info=info, set_name=set_name,
                            given=given)
    first_segment = rest.partition(",")[0]
    if rest and "=" not in first_segment.partition(":")[0]:  # module:Class[:key=value,...]
        cls_name, _, kw = rest.partition(":")
        cls_name = cls_name.strip()
        return StrategySpec(text=text, name=f"{head}:{cls_name}", params=_parse_kwargs(text, kw),
                            factory=_import(text, head, cls_name) if load else None)
    if canonical == HUMAN:
        return _human_spec(text, rest)
    raise ValueError(f"unknown strategy {head!r}: expected {_accepted()}")


def _split_weights(text: str, info: StrategyInfo, rest: str) -> tuple[str, str | None]:
    """``rest`` without its ``weights=PATH`` parameter, and the path (None when not given);
    refused for a strategy that plays no network."""
    kept, weights = [], None
    for pair in filter(None, (p.strip() for p in rest.split(","))):
        key, _, value = pair.partition("=")
        if key.strip() != "weights":
            kept.append(pair)
            continue
        if info.decide_with_net is None:
            raise ValueError(f"{info.name} plays no network, so it takes no weights=PATH "
                             f"(in {text!r}); net and mc do")
        if weights is not None:
            raise ValueError(f"parameter 'weights' is given twice in {text!r}: expected each "
                             "parameter at most once")
        if not value.strip():
            raise ValueError(f"weights= names no file in {text!r}: expected weights=PATH")
        weights = value.strip()
    return ",".join(kept), weights


def _network_spec(text: str, name: str, params: dict[str, Any], info: StrategyInfo,
                  weights: str, load: bool) -> StrategySpec:
    """A built-in playing the network in the file ``weights``: not the registered entry
    (whose compiled code holds the shipped network), so the Python driver plays it, each
    decision through the strategy's compiled ``decide_with_net`` with the file's weights."""
    decide = info.decide
    if load:
        net, _ = load_net(weights)
        decide = with_weights(info.decide_with_net, net)
    record = dataclasses.replace(info, strategy_id=-1, decide=decide)
    return StrategySpec(text=text, name=name, params=params, info=record, weights=weights)


#: The strategy name of a person at the table (docs/play.md): a plain-Python strategy that
#: asks a terminal, which ``ginbox play`` and ``ginbox serve`` seat through ``sim.table``.
HUMAN = "human"


def _human_spec(text: str, rest: str) -> StrategySpec:
    """``human`` or ``human:hint_samples=N`` (the hints' budget, 1..1024 worlds)."""
    params: dict[str, Any] = {}
    for key, value in _parse_kwargs(text, rest).items():
        if key != "hint_samples":
            raise ValueError(f"unknown parameter {key!r} for human: it takes hint_samples")
        if not _DIGITS.fullmatch(value) or not 1 <= int(value) <= 1024:
            raise ValueError(f"human parameter hint_samples={value!r} is not an integer "
                             "1..1024")
        params[key] = int(value)
    return StrategySpec(text=text, name=HUMAN, params=params, factory=Human)


#: What the seat is, for the refusals below and ``ginbox strategies``.
PERSON_SEAT = "human is the seat of a person at a terminal (ginbox play, ginbox serve)"


def is_person(spec: StrategySpec) -> bool:
    """True for the seat of a person: ``human``, or a :class:`Human` object that reads the
    process's own standard input (one given a stream of its own is a script, not a person)."""
    factory = spec.factory
    return factory is Human or (isinstance(factory, Human) and factory.stdin is None)


def can_ask_a_person() -> bool:
    """A person can answer here: the main process, with a terminal on its standard input.
    Worker processes (joblib's loky, Dask, multiprocessing) have none, whatever their parent's."""
    try:
        return (multiprocessing.parent_process() is None and sys.stdin is not None
                and sys.stdin.isatty())
    except (AttributeError, OSError, ValueError):  # a closed or replaced stdin
        return False


def check_no_person(specs: Any, batch: bool = True) -> None:
    """Refuse a person's seat where nobody can answer it, in one ``ValueError`` line naming
    the seat (``strategies[i]=...``, as experiment files do): in a batch run (``batch``:
    experiment arms, tunes, leagues, exploits, whose games play in worker processes), and
    elsewhere when :func:`can_ask_a_person` is False. Every batch command reaches it through
    :class:`sim.runs.experiment.ArmSpec`; the Python driver and ``ginbox play`` call it with
    ``batch=False``."""
    for seat, spec in enumerate(specs):
        if not is_person(spec) or (not batch and can_ask_a_person()):
            continue
        why = ("a batch run plays in worker processes, where nobody can answer" if batch else
               "this process cannot ask one (its standard input is not a terminal, or it is "
               "a worker process)")
        raise ValueError(f"strategies[{seat}]={spec.text!r}: {PERSON_SEAT}, and {why}: name "
                         "a bot for that seat (see ginbox strategies)")


def _compiled_spec(obj: Any) -> StrategySpec:
    """A compiled strategy given as its record, or as a bare decision function (no params)."""
    if isinstance(obj, StrategyInfo):
        info = obj
    else:
        name = obj.py_func.__name__
        info = StrategyInfo(name=name.removesuffix("_decide").replace("_", "-") or name,
                            strategy_id=-1, decide=obj, description=obj.py_func.__doc__ or "")
    check_decide(info.name, info.decide)
    params = {p.name: p.default for p in info.params}
    if BUILTINS.get(info.name) == info:  # registered: the compiled batch loop can run it
        _check_dispatched(info)
        return StrategySpec(text=info.name, name=info.name, params=params,
                            strategy_id=info.strategy_id, info=info)
    return StrategySpec(text=info.name, name=info.name, params=params, info=info)


def _check_dispatched(info: StrategyInfo) -> None:
    """Refuse a registered strategy that the generated dispatcher does not route to its own
    decision function: the registry changed and ``strategies/_dispatch.py`` was not
    regenerated."""
    from strategies._dispatch import DISPATCHED, OPTION_VALUES

    fn = info.decide.py_func
    if (DISPATCHED.get(info.strategy_id) != f"{fn.__module__}.{fn.__qualname__}"
            or (info.strategy_id in OPTION_VALUES) != info.has_option_values):
        raise RuntimeError(
            f"strategy {info.name!r} (id {info.strategy_id}) is registered but "
            "strategies/_dispatch.py does not dispatch it: regenerate with "
            "python -m strategies.generate"
        )


def parse_strategies(text: str | Sequence[Any]) -> list[StrategySpec]:
    """Parse ``"a,b:k=1,k2=2,c"``: a comma followed by ``key=value`` continues the parameters."""
    if not isinstance(text, str):
        return [parse_strategy(s) for s in text]
    items: list[str] = []
    for token in (t.strip() for t in text.split(",")):
        if not token:
            raise ValueError(f"empty strategy name in {text!r}")
        if "=" in token and ":" not in token and items:
            items[-1] += "," + token
        else:
            items.append(token)
    return [parse_strategy(s) for s in items]


def _parse_kwargs(text: str, rest: str) -> dict[str, str]:
    """``key=value,...`` as a dict; spaces around keys and values dropped, repeats refused."""
    out: dict[str, str] = {}
    for pair in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = pair.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"malformed parameter {pair!r} in {text!r}: expected key=value")
        if key.strip() in out:
            raise ValueError(f"parameter {key.strip()!r} is given twice in {text!r}: expected "
                             "each parameter at most once")
        out[key.strip()] = value.strip()
    return out


#: A parameter value: ASCII digits only (``int()`` would also take ``+5``, ``1_0`` and
#: non-ASCII digits such as ``\u0665``, each one more spelling of a number).
_DIGITS = re.compile(r"[0-9]+", re.ASCII)


def _parse_params(text: str, info: StrategyInfo, rest: str,
                  base: dict[str, Any] | None = None) -> dict[str, Any]:
    """The parameters given in ``rest`` over ``base`` (a named set) or the defaults."""
    raw = _parse_kwargs(text, rest)
    known = {p.name: p for p in info.params}
    params: dict[str, Any] = dict(base) if base is not None else {
        p.name: p.default for p in info.params}
    for key, value in raw.items():
        if key not in known:
            accepted = ", ".join(known) if known else "no parameters"
            raise ValueError(f"unknown parameter {key!r} for {info.name}: it takes {accepted}")
        p = known[key]
        if not _DIGITS.fullmatch(value):
            raise ValueError(f"{info.name} parameter {key}={value!r} is not an integer "
                             f"{p.low}..{p.high} (digits 0-9 only)")
        number = int(value)
        if not p.low <= number <= p.high:
            raise ValueError(
                f"{info.name} parameter {key}={number} is out of range: expected {p.low}..{p.high}"
            )
        params[key] = number
    return params


def _import(text: str, module: str, attr: str) -> Any:
    if not module:
        raise ValueError(f"cannot import strategy {text!r}: the module name before ':' is "
                         "empty")
    try:
        obj = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError, TypeError) as exc:
        raise ValueError(f"cannot import strategy {text!r}: {exc}") from None
    return obj


def describe() -> list[dict[str, Any]]:
    """Every built-in with its parameters and defaults, for ``ginbox strategies``; a built-in
    whose bare name plays a set chosen by the rules also has ``rules_sets``, the set (None:
    the defaults) under each preset."""
    out = []
    for info in BUILTINS.values():
        entry: dict[str, Any] = {
            "name": info.name,
            "description": info.description,
            "params": {p.name: {"default": p.default, "range": [p.low, p.high], "doc": p.doc}
                       for p in info.params},
            "sets": {set_name: dict(values) for set_name, values in info.sets},
        }
        if info.rules_set is not None:
            entry["rules_sets"] = {name: info.set_for(Rules.preset(name)) for name in PRESETS}
        out.append(entry)
    return out
