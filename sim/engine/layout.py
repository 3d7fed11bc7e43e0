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

The constants are for compiled code. Python code reads the same memory by name through
:meth:`Layout.record`, a typed view of a buffer whose fields are the declared pieces in lower
case (``hand.to_move``, ``hand.hand[1]``, ``game.score[seat]``): reads and writes go to the
buffer itself, and a buffer of the wrong length or type is refused. :attr:`Layout.dtype` is the
same declaration as a numpy structured dtype (``buffer.view(layout.dtype)``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np


class Layout:
    """An ordered list of named pieces of a flat array: offsets and total length."""

    def __init__(self, prefix: str, pieces: Iterable[tuple[str, int]],
                 element: type[np.generic] = np.int64) -> None:
        self.prefix = prefix
        #: The array's element type (``int64`` for the engine's state, ``float32`` for an
        #: observation): what :meth:`record` accepts and :attr:`dtype`'s fields hold.
        self.element = np.dtype(element)
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

    @property
    def field_names(self) -> tuple[str, ...]:
        """The record's field names (the pieces in lower case), in declaration order."""
        return tuple(name.lower() for name, _ in self.pieces)

    @cached_property
    def dtype(self) -> np.dtype:
        """The declaration as a numpy structured dtype: a size-1 piece a scalar field, a larger
        (or empty) piece a sub-array field, at the piece's offset; ``buffer.view(dtype)``."""
        def field(size: int) -> Any:
            return self.element if size == 1 else (self.element, (size,))

        return np.dtype({"names": list(self.field_names),
                         "formats": [field(size) for _, size in self.pieces],
                         "offsets": [at * self.element.itemsize for at in self.offsets],
                         "itemsize": self.length * self.element.itemsize})

    @cached_property
    def record_type(self) -> type[Record]:
        """The class of :meth:`record`'s views: one property per piece, made once per layout."""
        taken = [f for f in self.field_names if f.startswith("_") or hasattr(Record, f)]
        if taken:
            raise ValueError(f"{self.prefix}* pieces {taken} clash with the record's own names")
        spec = {f: _piece(at, size) for f, (_, size), at in zip(
            self.field_names, self.pieces, self.offsets, strict=True)}
        return type(f"{self.prefix}Record", (Record,), {"__slots__": (), "layout": self, **spec})

    def record(self, buffer: np.ndarray) -> Record:
        """A typed, writable view of ``buffer``, so Python code reads the state by name.

        ``buffer`` is one array of :attr:`length` slots (each field a number, or a sub-array
        view for a piece of several slots) or a 2-D array of such rows (each field a column,
        ``views.hand`` a ``(rows,)`` array, ``hands.hand[1]`` player 1's column). Raises
        ``ValueError`` for a buffer of another length, element type or shape.
        """
        if not isinstance(buffer, np.ndarray) or buffer.dtype != self.element:
            raise ValueError(f"a {self.prefix}* record reads {self.element} arrays, got "
                             f"{getattr(buffer, 'dtype', type(buffer).__name__)}")
        if buffer.ndim not in (1, 2) or buffer.shape[-1] != self.length:
            raise ValueError(f"a {self.prefix}* record reads {self.length} slots (or rows of "
                             f"them), got an array of shape {buffer.shape}")
        return self.record_type(buffer)


class Record:
    """A view of a flat state buffer by piece name; :meth:`Layout.record` makes them.

    Fields are properties over the buffer (no copy): a one-slot piece reads as the slot's
    number and assigns it, a longer piece reads as a view of its slots and assigns them all.
    Over a 2-D buffer of rows, every slot is a column.
    """

    __slots__ = ("buffer", "_slots")
    layout: Layout

    def __init__(self, buffer: np.ndarray) -> None:
        self.buffer = buffer
        # slot k is _slots[k]: a number of one array, a column of rows
        self._slots = buffer.T if buffer.ndim == 2 else buffer

    def __repr__(self) -> str:
        values = ", ".join(f"{f}={getattr(self, f)!r}" for f in self.layout.field_names)
        return f"{type(self).__name__}({values})"

    if TYPE_CHECKING:  # fields are made per layout: any name reads and writes for mypy
        def __getattr__(self, name: str) -> Any: ...
        def __setattr__(self, name: str, value: Any) -> None: ...


def _piece(at: int, size: int) -> property:
    """The property of one piece at slot ``at`` of ``size`` slots."""
    if size == 1:
        def get_one(self: Record) -> Any:
            return self._slots[at]

        def set_one(self: Record, value: Any) -> None:
            self._slots[at] = value

        return property(get_one, set_one)
    end = at + size

    def get_many(self: Record) -> Any:
        return self._slots[at:end]

    def set_many(self: Record, value: Any) -> None:
        self._slots[at:end] = value

    return property(get_many, set_many)
