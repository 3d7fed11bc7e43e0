"""Numbers, intervals and tables as text: what the headline and report.md print.

Pure string functions with no knowledge of runs, kept apart so that the report's layout
and the sweep summary format numbers the same way (and so that no table module grows a
second formatter).
"""

from __future__ import annotations

import math


def plural(count: int, noun: str) -> str:
    """``1 hand``, ``2 hands``, ``1,000 games``: a count and its noun, in the plural unless the
    count is one (the noun's last word takes the ``s``)."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def fmt_pct(x: float, digits: int = 1) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else \
        f"{100 * x:.{digits}f}%"


def fmt_diff(value: float, low: float, high: float, percent: bool) -> tuple[str, str]:
    """A difference and its interval as text, with enough decimals to show the width:
    percentage points for proportions, the metric's own unit otherwise."""
    scale = 100.0 if percent else 1.0
    width = scale * (high - low) if not (math.isnan(low) or math.isnan(high)) else 1.0
    digits = 2 if width >= 0.2 else 3 if width >= 0.02 else 4
    unit = " pts" if percent else ""

    def fmt(x: float) -> str:
        return "n/a" if math.isnan(x) else f"{scale * x:+.{digits}f}{unit}"

    return fmt(value), f"{fmt(low)} to {fmt(high)}"


def fmt_num(x: float, digits: int = 2) -> str:
    return "n/a" if math.isnan(x) else f"{x:.{digits}f}"


def pct_digits(low: float, high: float) -> int:
    """Decimals (of a percentage) that keep an interval's width visible."""
    width = 100 * (high - low)
    if math.isnan(width) or width >= 0.2:
        return 1
    return 2 if width >= 0.02 else 3


def fmt_interval(low: float, high: float, percent: bool = True, digits: int | None = None) -> str:
    if math.isnan(low) or math.isnan(high):
        return "n/a"
    if digits is None:
        digits = pct_digits(low, high) if percent else 2
    if percent:
        return f"{100 * low:.{digits}f} - {100 * high:.{digits}f}%"
    return f"{low:.{digits}f} - {high:.{digits}f}"


def text_table(rows: list[list[str]], header: list[str], right: set[int]) -> str:
    """A plain fixed-width table (no extra dependency)."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(header)]

    def line(cells: list[str]) -> str:
        return "  ".join(c.rjust(w) if i in right else c.ljust(w)
                         for i, (c, w) in enumerate(zip(cells, widths, strict=True))).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)])


def md_table(rows: list[list[str]], header: list[str], right: set[int]) -> str:
    """A GitHub-flavoured markdown table (pandas' to_markdown needs tabulate; we don't)."""
    def esc(c: str) -> str:
        return c.replace("|", "\\|")

    aligns = ["---:" if i in right else ":---" for i in range(len(header))]
    out = ["| " + " | ".join(map(esc, header)) + " |", "| " + " | ".join(aligns) + " |"]
    out += ["| " + " | ".join(map(esc, r)) + " |" for r in rows]
    return "\n".join(out)


__all__ = ["fmt_diff", "fmt_interval", "fmt_num", "fmt_pct", "md_table", "pct_digits", "text_table"]
