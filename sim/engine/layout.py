"""Offsets of the engine's flat int64 arrays, computed from one declaration each.

The compiled engine keeps its state in flat ``int64`` arrays (the hand state ``HS_*``, the game
state ``GS_*``, the view ``V_*``, the game facts ``GI_*``, the rules ``RI_*``). Each array is
declared once as an ordered list of ``(name, size)`` pieces, the way OpenSpiel's observers build
their tensors from a list of pieces; :class:`Layout` computes every piece's offset and the total
length. numba must see compile-time integer globals, so each module unpacks the offsets into
plain module-level constants::

    LAYOUT = Layout("HS_", [("HAND", 2), ("STOCK_TOP", 1), ...])
    HS_HAND, HS_STOCK_TOP, ... = LAYOUT.offsets
    HS_LEN = LAYOUT.length
    LAYOUT.check(globals())  # the unpacked names are the declared ones, in order

:meth:`Layout.check` fails at import if a constant is missing, misnamed or unpacked out of
order, so the hand-written list of names cannot drift from the declaration.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


class Layout:
    """An ordered list of named pieces of a flat array: offsets and total length."""

    def __init__(self, prefix: str, pieces: Iterable[tuple[str, int]]) -> None:
        self.prefix = prefix
        self.pieces: tuple[tuple[str, int], ...] = tuple(pieces)
        offsets: dict[str, int] = {}
        at = 0
        for name, size in self.pieces:
            if name in offsets:
                raise ValueError(f"{prefix}{name} is declared twice")
            if not isinstance(size, int) or size < 0:
                raise ValueError(f"{prefix}{name} has size {size!r}: expected an integer >= 0")
            offsets[name] = at
            at += size
        self._offsets = offsets
        self.length = at

    @property
    def names(self) -> tuple[str, ...]:
        """The constant names (prefix included) in declaration order."""
        return tuple(self.prefix + name for name, _ in self.pieces)

    @property
    def offsets(self) -> tuple[int, ...]:
        """Every piece's offset, in declaration order (for unpacking into constants)."""
        return tuple(self._offsets.values())

    def offset(self, name: str) -> int:
        """The offset of one piece (with or without the prefix)."""
        return self._offsets[name.removeprefix(self.prefix)]

    def size(self, name: str) -> int:
        """The number of slots of one piece (with or without the prefix)."""
        return dict(self.pieces)[name.removeprefix(self.prefix)]

    def as_dict(self) -> dict[str, int]:
        """``{constant name: offset}`` in declaration order."""
        return {self.prefix + name: at for name, at in self._offsets.items()}

    def check(self, namespace: Mapping[str, Any]) -> None:
        """Raise ``AssertionError`` unless ``namespace`` binds every declared name to its offset.

        Call it with a module's ``globals()`` right after unpacking ``offsets``: a constant
        unpacked under the wrong name, or in the wrong order, fails at import.
        """
        wrong = [f"{name}={namespace.get(name)!r} (declared {at})"
                 for name, at in self.as_dict().items() if namespace.get(name) != at]
        if wrong:
            raise AssertionError(f"{self.prefix}* constants disagree with their layout: "
                                 + ", ".join(wrong))
