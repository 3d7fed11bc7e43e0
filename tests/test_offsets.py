"""Offsets are declared once and read only by compiled code; Python code reads fields by name.

Every :class:`~sim.engine.layout.Layout` of the project (found by reading the source for its
declarations, then importing them) gives a structured dtype and typed records that agree
slot for slot with the ``PREFIX_*`` constants the kernels index by. The scan at the end holds
the rule: a function that numba does not compile never names one of those constants.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from sim.engine import game, hand, rules, view
from sim.engine.layout import Layout
from sim.engine.variants import hollywood
from sim.env import core, encoding

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("sim", "strategies", "studies")

#: Decorators that hand a function to numba: its body is compiled code and may index offsets.
COMPILING = frozenset({"kernel", "allocating", "njit", "jit"})

def _sources() -> list[Path]:
    return sorted(p for top in SCANNED for p in (ROOT / top).rglob("*.py"))


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _declarations() -> list[tuple[str, str]]:
    """(module, name) of every module-level ``NAME = Layout(...)`` or ``NAME = Params(...)``
    (a strategy's parameter slots, a layout too)."""
    found = []
    for path in _sources():
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and isinstance(
                    node.value.func, ast.Name) and node.value.func.id in ("Layout", "Params"):
                found += [(_module_name(path), t.id) for t in node.targets
                          if isinstance(t, ast.Name)]
    return found


def _layouts() -> dict[str, tuple[Layout, dict[str, object]]]:
    """Every declared layout by ``module.NAME``, with the namespace of its module."""
    out = {}
    for module, name in _declarations():
        namespace = vars(importlib.import_module(module))
        declared = namespace[name]
        layout = declared if isinstance(declared, Layout) else declared.layout  # type: ignore[attr-defined]  # a Params
        out[f"{module}.{name}"] = (layout, namespace)
    return out


LAYOUTS = _layouts()


def test_every_declaration_is_found() -> None:
    prefixes = {layout.prefix for layout, _ in LAYOUTS.values()}
    assert {"HS_", "AF_", "GS_", "V_", "GI_", "RI_", "ES_", "OPT_", "O_", "GK_", "P_"} <= prefixes
    assert all(isinstance(layout, Layout) for layout, _ in LAYOUTS.values())


@pytest.mark.parametrize("key", sorted(LAYOUTS))
def test_the_dtype_and_the_record_agree_with_the_constants(key: str) -> None:
    """Field k sits at constant k's offset with the piece's size, in the dtype and the record."""
    layout, namespace = LAYOUTS[key]
    width = layout.element.itemsize
    assert layout.dtype.itemsize == layout.length * width
    buffer = np.arange(layout.length).astype(layout.element)
    typed = layout.record(buffer)
    as_dtype = buffer.view(layout.dtype)[0]
    for constant, field, (_, size) in zip(layout.names, layout.field_names, layout.pieces,
                                          strict=True):
        at = namespace[constant]
        assert isinstance(at, int)
        dtype, offset = layout.dtype.fields[field][:2]
        assert (offset, dtype.shape) == (at * width, () if size == 1 else (size,)), field
        expected = buffer[at] if size == 1 else buffer[at:at + size]
        assert np.array_equal(getattr(typed, field), expected), field
        assert np.array_equal(as_dtype[field], expected), field


@pytest.mark.parametrize("key", sorted(LAYOUTS))
def test_record_writes_reach_the_buffer_at_the_constants(key: str) -> None:
    layout, namespace = LAYOUTS[key]
    buffer = np.zeros(layout.length, layout.element)
    typed = layout.record(buffer)
    for constant, field, (_, size) in zip(layout.names, layout.field_names, layout.pieces,
                                          strict=True):
        at = namespace[constant]
        assert isinstance(at, int)
        values = np.arange(1, size + 1) + 10 * at
        setattr(typed, field, values[0] if size == 1 else values)
        assert buffer[at:at + size].tolist() == values.tolist(), field
    for field, at, (_, size) in zip(layout.field_names, layout.offsets, layout.pieces,
                                    strict=True):  # no later write overwrote an earlier one
        assert np.ravel(getattr(typed, field)).tolist() == list(range(10 * at + 1,
                                                                      10 * at + size + 1))


def test_fields_read_the_buffer_not_a_copy() -> None:
    hs = np.zeros(hand.HS_LEN, np.int64)
    fields = hand.hand_fields(hs)
    fields.to_move = 1
    fields.hand[1] = 0b1010
    hs[hand.HS_PILE_LEN] = 7
    assert hs[hand.HS_TO_MOVE] == 1 and hs[hand.HS_HAND + 1] == 0b1010
    assert fields.pile_len == 7 and fields.buffer is hs
    gs = np.zeros(game.GS_LEN, np.int64)
    game.game_fields(gs).score[2] = 41
    assert gs[game.GS_SCORE + 2] == 41


def test_rows_read_as_columns() -> None:
    views = np.zeros((3, view.V_LEN), np.int64)
    views[:, view.V_DECISION] = [0, 1, 2]
    seen = view.view_fields(views)
    assert seen.decision.tolist() == [0, 1, 2]
    seen.knocked = [1, 0, 1]
    assert views[:, view.V_KNOCKED].tolist() == [1, 0, 1]
    gs = np.zeros((2, game.GS_LEN), np.int64)
    game.game_fields(gs).score[1] = [5, 6]  # seat 1's score in each row
    assert gs[:, game.GS_SCORE + 1].tolist() == [5, 6]


def test_each_accessor_reads_its_own_layout() -> None:
    pairs = [(hand.hand_fields, hand.HS_LAYOUT), (hand.after_fields, hand.AF_LAYOUT),
             (game.game_fields, game.GS_LAYOUT), (view.view_fields, view.V_LAYOUT),
             (view.info_fields, view.GI_LAYOUT), (rules.rules_fields, rules.RULES_LAYOUT),
             (encoding.observation_fields, encoding.OBS_LAYOUT),
             (core.env_fields, core.ES_LAYOUT), (core.option_fields, core.OPT_LAYOUT),
             (hollywood.sheet_fields, hollywood.SHEET),
             (hollywood.view_block_fields, hollywood.VIEW)]
    for accessor, layout in pairs:
        assert accessor(np.zeros(layout.length, layout.element)).layout is layout
    array = rules.Rules.preset("classic").to_array()
    assert rules.rules_fields(array).game_bonus == 100
    assert rules.rules_fields(array).initial_roles.tolist() == [-1, -1, -1]


@pytest.mark.parametrize("buffer, message", [
    (np.zeros(hand.HS_LEN - 1, np.int64), rf"reads {hand.HS_LEN} slots .* shape \(\d+,\)"),
    (np.zeros((2, hand.HS_LEN + 1), np.int64), rf"reads {hand.HS_LEN} slots"),
    (np.zeros((1, 1, hand.HS_LEN), np.int64), rf"reads {hand.HS_LEN} slots"),
    (np.zeros(hand.HS_LEN, np.float32), "reads int64 arrays, got float32"),
    ([0] * hand.HS_LEN, "reads int64 arrays, got list"),
])
def test_a_wrong_buffer_is_refused(buffer: object, message: str) -> None:
    with pytest.raises(ValueError, match=r"^a HS_\* record " + message):
        hand.hand_fields(buffer)  # type: ignore[arg-type]  # refused at run time


def test_empty_pieces_and_clashing_names() -> None:
    layout = Layout("X_", [("A", 2), ("NONE", 0), ("B", 1)])
    assert layout.dtype.fields["none"][0].shape == (0,)
    typed = layout.record(np.array([4, 5, 6], np.int64))
    assert typed.none.tolist() == [] and typed.b == 6 and typed.a.tolist() == [4, 5]
    assert repr(typed) == "X_Record(a=array([4, 5]), none=array([], dtype=int64), b=np.int64(6))"
    with pytest.raises(ValueError, match=r"X_\* pieces \['buffer'\] clash"):
        Layout("X_", [("BUFFER", 1)]).record(np.zeros(1, np.int64))


# ---------------------------------------------------------------------------- the rule


def _offset_names() -> frozenset[str]:
    return frozenset(n for layout, _ in LAYOUTS.values() for n in layout.names)


def _decorator_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Attribute):
        return target.attr
    return target.id if isinstance(target, ast.Name) else ""


def _python_reads(tree: ast.Module, names: frozenset[str]) -> Iterator[tuple[str, int, str]]:
    """(function, line, constant) for each offset constant named in uncompiled function code;
    module and class bodies (the constants' definitions) are not function code."""
    def walk(node: ast.AST, function: str | None) -> Iterator[tuple[str, int, str]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                if not any(_decorator_name(d) in COMPILING for d in child.decorator_list):
                    yield from walk(child, function or child.name)
            elif isinstance(child, ast.Lambda):
                yield from walk(child, function or "<lambda>")
            else:
                name = child.id if isinstance(child, ast.Name) else (
                    child.attr if isinstance(child, ast.Attribute) else None)
                if function is not None and name in names:
                    yield function, child.lineno, name
                yield from walk(child, function)

    yield from walk(tree, None)


def offset_reads_outside_compiled_code() -> list[str]:
    """``file:line: function reads CONSTANT`` for every offset read in uncompiled code."""
    names = _offset_names()
    found = []
    for path in _sources():
        rel = path.relative_to(ROOT).as_posix()
        for function, line, name in _python_reads(ast.parse(path.read_text()), names):
            found.append(f"{rel}:{line}: {function} reads {name}")
    return found


def test_python_code_reads_no_offsets() -> None:
    """Offsets are read only in compiled code: elsewhere ``hand_fields(hs).to_move``."""
    found = offset_reads_outside_compiled_code()
    assert not found, ("Python code indexes engine arrays by offset; read them through the "
                       "typed records (sim.engine.layout.Layout.record):\n" + "\n".join(found))


def test_the_scan_sees_a_read_and_spares_compiled_code() -> None:
    source = '''
from sim.engine.hand import HS_TO_MOVE
FIRST = HS_TO_MOVE + 1  # a module-level constant: fine
@kernel
def compiled(hs):
    return hs[HS_TO_MOVE]
@kernel(inline="always")
def inlined(hs):
    return hs[HS_TO_MOVE]
def plain(hs):
    return hs[hand.HS_TO_MOVE]
class Holder:
    AT = HS_TO_MOVE
    def method(self):
        return lambda hs: hs[HS_TO_MOVE]
'''
    reads = list(_python_reads(ast.parse(source), _offset_names()))
    assert reads == [("plain", 11, "HS_TO_MOVE"), ("method", 15, "HS_TO_MOVE")]

