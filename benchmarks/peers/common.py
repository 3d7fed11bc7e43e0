"""What the peer comparisons share: the table's rows and columns, the peers' imports and
versions, the machine line, and writing a block of docs/performance.md between its markers."""

from __future__ import annotations

import importlib
import os
import platform
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sim.io.files import atomic_write_text

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "performance.md"
BEGIN = "<!-- peers:begin -->"
END = "<!-- peers:end -->"
NOT_INSTALLED = "not installed (pip install .[peers])"
SKIPPED = "skipped (--no-peers)"
COLUMNS = ("engine", "metric", "value", "notes")


def import_peer(name: str) -> Any:
    """The peer's module (``pyspiel`` or ``rlcard``), or None when it cannot be imported."""
    try:
        return importlib.import_module(name)
    except Exception:  # ImportError, or a broken binary wheel
        return None


def peer_version(dist: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return None


def table_row(engine: str, metric: str, value: Any, notes: str) -> dict[str, Any]:
    """One row of a table: engine, metric, value (None: not measured) and notes."""
    return {"engine": engine, "metric": metric, "value": value, "notes": notes}


# --------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------


def format_value(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float | int):
        return f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.1f}"
    return str(value)


def machine() -> str:
    """One line: what the figures were measured on."""
    import numba

    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            names = [ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")]
        if names:
            model = names[0]
    except OSError:
        pass
    versions = [f"numpy {np.__version__}", f"numba {numba.__version__}"]
    for dist in ("open_spiel", "rlcard"):
        versions.append(f"{dist} {peer_version(dist) or 'not installed'}")
    return (f"{os.cpu_count()} CPUs ({model}), {platform.platform()}, "
            f"Python {platform.python_version()}, {', '.join(versions)}")


def load_average() -> str:
    """The 1/5/15-minute load averages: other work on the machine skews every rate."""
    return "/".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"


def markdown_table(rows: Sequence[dict[str, Any]]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in rows:
        cells = [r["engine"], r["metric"], format_value(r["value"]), r["notes"]]
        lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def write_docs(text: str, path: Path = DOC, begin: str = BEGIN, end: str = END,
               heading: str = "## Against the peers") -> None:
    """Put ``text`` between the markers of ``path`` (created if missing), atomically."""
    block = f"{begin}\n{text}\n{end}"
    if path.exists():
        old = path.read_text(encoding="utf-8")
        start, stop = old.find(begin), old.find(end)
        if start >= 0 and stop > start:
            new = old[:start] + block + old[stop + len(end):]
        else:
            new = old.rstrip("\n") + f"\n\n{heading}\n\n" + block + "\n"
    else:
        new = ("# Performance\n\n"
               "How fast ginbox is, how it was measured, and how it compares with the engines "
               "people know. `ginbox bench` measures ginbox alone; the comparison below comes "
               "from `python -m benchmarks.peers --write-docs` (peers: `pip install .[peers]`)."
               "\n\n## Against the peers\n\n" + block + "\n")
    atomic_write_text(path, new, encoding="utf-8", mkdir=True)
