"""How a compiled strategy declares itself, beside its code.

Each strategy module (:mod:`strategies.builtin` for the simple ones, :mod:`strategies.tuned`,
:mod:`strategies.mc`) declares one :class:`StrategyInfo` next to its decision function: its
dispatcher id, name, description, parameters, named sets, the set it plays for given rules,
and its capabilities. :mod:`strategies.registry` only collects the declarations, and
``python -m strategies.generate`` writes the dispatcher from them.

The parameters are declared once as a :class:`Params` list, which also gives the kernel's
parameter slots: numba needs plain integer module globals, so the module unpacks them the way
:class:`sim.engine.layout.Layout` offsets are unpacked, and :meth:`Params.check` fails at
import if a slot constant is missing, misnamed or out of order::

    PARAMS = Params("P_", (ParamInfo("knock_at", None, 0, 10, "..."), ...))
    (P_KNOCK_AT, ...) = PARAMS.slots
    PARAMS.check(globals())

Why here and not in the registry: the modules declaring entries are the registry's imports,
so the record types must live in a module that imports none of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sim.engine.layout import Layout


@dataclass(frozen=True)
class ParamInfo:
    """One integer parameter of a built-in strategy. ``default`` None means "from the rules"."""

    name: str
    default: int | None
    low: int
    high: int
    doc: str


class Params:
    """A strategy's parameters in slot order: the records and their ``P_*`` slot numbers."""

    def __init__(self, prefix: str, params: Iterable[ParamInfo]) -> None:
        self.params: tuple[ParamInfo, ...] = tuple(params)
        self.layout = Layout(prefix, [(p.name.upper(), 1) for p in self.params])

    @property
    def slots(self) -> tuple[int, ...]:
        """Each parameter's slot in ``params``, in declaration order (for unpacking)."""
        return self.layout.offsets

    @property
    def names(self) -> tuple[str, ...]:
        """The parameters' names, in slot order."""
        return tuple(p.name for p in self.params)

    def __len__(self) -> int:
        return len(self.params)

    def check(self, namespace: Mapping[str, Any]) -> None:
        """Raise ``AssertionError`` unless ``namespace`` binds every slot constant to its slot."""
        self.layout.check(namespace)


@dataclass(frozen=True)
class StrategyInfo:
    """A compiled strategy: everything about it in one record.

    ``strategy_id`` is its number in the compiled dispatcher, ``decide`` its decision function
    (a ``@kernel`` with the shared signature ``(decision, params, view, after, mem, rng,
    scratch) -> move``), ``params`` its integer parameters in the order of ``params[0]``,
    ``params[1]``, ... (at most ``N_PARAMS``), and ``twin`` the import path of a plain-Python
    twin that must play identically (checked by :func:`sim.testing.check_strategy`), if any.

    Registered in :data:`strategies.registry.BUILTINS`, it runs inside the compiled batch loop;
    not registered (yet), it still plays through the Python driver (pass the record as a
    strategy).
    """

    name: str
    strategy_id: int
    decide: Any
    description: str
    params: tuple[ParamInfo, ...] = ()
    twin: str | None = None
    sets: tuple[tuple[str, dict[str, int]], ...] = ()
    """Named parameter sets, ``(name, {param: value})``: ``tuned@eaai`` plays the set ``eaai``
    (parameters left out of a set keep their defaults; ``tuned@eaai:slack=2`` overrides one)."""
    rules_set: Callable[[Any], str | None] | None = None
    """The named set a spelling without ``@set`` plays under the given
    :class:`sim.engine.rules.Rules` (None: its defaults), as the base of any parameters it
    gives; applied by :meth:`strategies.registry.StrategySpec.for_rules`."""
    consensus: Any = None
    """The capability "has option values": a compiled function ``(decision, captain_params,
    advisor_params, view, after, mem, rng, scratch) -> move`` that scores the captain's options
    with both seats' values, which ``team_policy = "consensus"`` plays when captain and advisor
    are both this strategy (:mod:`strategies.team`)."""

    decide_with_net: Any = None
    """The capability "plays a network": a compiled ``(net, decision, params, view, after, mem,
    rng, scratch) -> move`` that decides with the flat weights ``net``
    (:mod:`strategies.net`); ``decide`` is it with the shipped weights. Such a strategy takes
    ``weights=PATH`` to play a user's network (:mod:`strategies.registry`)."""

    @property
    def has_option_values(self) -> bool:
        """Can it score options for ``consensus``?"""
        return self.consensus is not None

    def param_set(self, name: str) -> dict[str, int]:
        """Every parameter's value in the named set (refused when there is no such set)."""
        for set_name, values in self.sets:
            if set_name == name:
                return {**{p.name: int(p.default) for p in self.params if p.default is not None},
                        **values}
        known = ", ".join(n for n, _ in self.sets) or "none"
        raise ValueError(f"unknown parameter set {name!r} for {self.name}: its sets are {known}")

    def set_for(self, rules: Any) -> str | None:
        """The named set it plays under ``rules`` when no set is named (None: the defaults)."""
        return None if self.rules_set is None else self.rules_set(rules)
