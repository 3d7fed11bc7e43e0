"""Progress of a run on stderr: a bar on a terminal, occasional plain lines elsewhere.

A carriage-return progress bar is unreadable in a CI log or a file (every redraw is kept), so
when stderr is not a terminal the run prints one plain line at most every
:data:`PLAIN_EVERY_S` seconds instead. Counts are whole games in both.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

#: Seconds between the plain progress lines written when stderr is not a terminal.
PLAIN_EVERY_S = 30.0


class Progress:
    """Games played out of ``total`` (``initial`` already done before this session); other
    work counts in its own ``unit`` (positions, say)."""

    def __init__(self, name: str, total: int, initial: int = 0, quiet: bool = False,
                 stream: TextIO | None = None, unit: str = "games") -> None:
        self.name, self.total, self.done, self.unit = name, total, initial, unit
        self.stream = stream if stream is not None else sys.stderr
        self.bar: Any = None
        self.plain = False
        if quiet:
            return
        if _isatty(self.stream):
            from tqdm import tqdm

            self.bar = tqdm(total=total, initial=initial, unit=f" {unit}", unit_scale=False,
                            desc=name, file=self.stream, smoothing=0.05, dynamic_ncols=True)
        else:
            self.plain = True
            self.last = time.monotonic()

    def update(self, games: int) -> None:
        """Count ``games`` more played."""
        self.done += games
        if self.bar is not None:
            self.bar.update(games)
        elif self.plain and time.monotonic() - self.last >= PLAIN_EVERY_S:
            self.last = time.monotonic()
            print(self.line(), file=self.stream, flush=True)

    def line(self) -> str:
        """The plain progress line, e.g. ``tiny: 6/24 games (25%)``."""
        share = self.done / self.total if self.total else 1.0
        return f"{self.name}: {self.done:,}/{self.total:,} {self.unit} ({share:.0%})"

    def close(self) -> None:
        """End the bar (plain output needs no ending)."""
        if self.bar is not None:
            self.bar.close()


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # closed or not a real stream
        return False
