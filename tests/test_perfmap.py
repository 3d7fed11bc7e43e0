"""benchmarks/perfmap.py: the symbol map that lets perf name compiled functions."""

from __future__ import annotations

import numpy as np
from numba import njit

from benchmarks.perfmap import readable, symbol_map, write_map


def test_readable_names() -> None:
    assert readable("_ZN3sim6engine5melds18_best_discard_fromB2v8B40c8tJTIeFIjxExxx") == (
        "sim.engine.melds._best_discard_from")
    assert readable("_ZN10strategies7builtin6decideB3v1") == "strategies.builtin.decide"
    assert readable("NRT_incref") == "NRT_incref"


def test_symbol_map_covers_functions_compiled_here() -> None:
    @njit  # compiled in this process (not cache-loaded), so numba keeps its module
    def total(a: np.ndarray) -> int:
        return int(a.sum())

    assert total(np.arange(5)) == 10
    entries = symbol_map([total])
    names = [name for _, _, name in entries]
    assert any("total" in name for name in names)
    assert any(name.startswith("NRT_") for name in names)  # numba's runtime, always there
    addresses = [a for a, _, _ in entries]
    assert addresses == sorted(addresses)
    assert all(size > 0 for _, size, _ in entries)
    for (a, size, _), (b, _, _) in zip(entries, entries[1:], strict=False):
        assert a + size <= b
    path = write_map(entries, pid=999_999_999)
    try:
        lines = path.read_text().splitlines()
        assert len(lines) == len(entries)
        first = lines[0].split(" ", 2)
        assert int(first[0], 16) == entries[0][0] and int(first[1], 16) == entries[0][1]
    finally:
        path.unlink()
