"""Progress of a run on stderr: a bar on a terminal, occasional plain lines elsewhere.

A carriage-return progress bar is unreadable in a CI log or a file (every redraw is kept), so
when stderr is not a terminal the run prints one plain line at most every
:data:`PLAIN_EVERY_S` seconds instead. Counts are whole games in both.

A chunk can take minutes (a large chunk, a slow strategy, a busy machine), so a bar counting
finished chunks alone would sit at 0% that long: the workers also count the games of the
chunks they are playing on a :class:`ChunkBoard` (a small file of counters in a temporary
folder, one per chunk), which the bar shows as they go.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import numpy as np

#: Seconds between the plain progress lines written when stderr is not a terminal.
PLAIN_EVERY_S = 30.0
#: Seconds between two looks at the games of the chunks under way (:class:`ChunkBoard`).
BOARD_EVERY_S = 0.5


class Progress:
    """Games played out of ``total`` (``initial`` already done before this session); other
    work counts in its own ``unit`` (positions, say)."""

    def __init__(self, name: str, total: int, initial: int = 0, quiet: bool = False,
                 stream: TextIO | None = None, unit: str = "games") -> None:
        self.name, self.total, self.done, self.unit = name, total, initial, unit
        self.partial = 0  # games of work under way (chunks being played), shown, not done
        self.stream = stream if stream is not None else sys.stderr
        self.bar: Any = None
        self.plain = False
        self.quiet = quiet
        self._lock = threading.Lock()
        if quiet:
            return
        if _isatty(self.stream):
            from tqdm import tqdm

            self.bar = tqdm(total=total, initial=initial, unit=f" {unit}", unit_scale=False,
                            desc=name, file=self.stream, smoothing=0.05, dynamic_ncols=True)
        else:
            self.plain = True
            self.last = time.monotonic()
            self.printed = ""

    def update(self, games: int, partial: int | None = None) -> None:
        """Count ``games`` more played (and, when given, ``partial`` games of the work still
        under way, as :meth:`set_partial`, shown together)."""
        with self._lock:
            self.done += games
            if partial is not None:
                self.partial = partial
            self._show()

    def set_partial(self, games: int) -> None:
        """Show ``games`` of unfinished work besides what is done (the chunks being played);
        :meth:`update` counts them once their chunk is done."""
        with self._lock:
            self.partial = games
            self._show()

    def _show(self) -> None:
        shown = min(self.total, self.done + self.partial) if self.total else self.done
        if self.bar is not None:
            if shown > self.bar.n:
                self.bar.update(shown - self.bar.n)  # tqdm decides when to redraw
            elif shown < self.bar.n:  # work under way was counted a moment early
                self.bar.n = shown
                self.bar.refresh()
        elif self.plain and time.monotonic() - self.last >= PLAIN_EVERY_S:
            line = self.line()
            if line != self.printed:  # nothing new to say
                self.last, self.printed = time.monotonic(), line
                print(line, file=self.stream, flush=True)

    def line(self) -> str:
        """The plain progress line, e.g. ``tiny: 6/24 games (25%)``."""
        shown = min(self.total, self.done + self.partial) if self.total else self.done
        share = shown / self.total if self.total else 1.0
        return f"{self.name}: {shown:,}/{self.total:,} {self.unit} ({share:.0%})"

    def close(self) -> None:
        """End the bar (plain output needs no ending)."""
        if self.bar is not None:
            self.bar.close()


class ChunkBoard:
    """Games played so far in each chunk of a run, one int64 counter per chunk in a file the
    workers on this machine write as they play and the run reads (a memory map: no pickling,
    no locks, no process to start; a chunk is played by one worker at a time)."""

    def __init__(self, path: Path, chunks: int) -> None:
        self.path = path
        np.zeros(max(1, chunks), np.int64).tofile(path)
        self.counts = np.memmap(path, np.int64, mode="r")

    def played(self, slots: list[int]) -> int:
        """The games counted in ``slots`` (the chunks still being played)."""
        return int(self.counts[slots].sum()) if slots else 0

    def watch(self, progress: Progress, pending: Callable[[], list[int]]) -> Callable[[], None]:
        """Show the unfinished chunks' games on ``progress`` every :data:`BOARD_EVERY_S`
        seconds, from a thread; returns the function that stops it."""
        stop = threading.Event()

        def loop() -> None:
            while not stop.wait(BOARD_EVERY_S):
                progress.set_partial(self.played(pending()))

        thread = threading.Thread(target=loop, name="ginbox-progress", daemon=True)
        thread.start()

        def end() -> None:
            stop.set()
            thread.join()
            progress.set_partial(0)

        return end


def count_played(board: tuple[str, int] | None, games: int) -> None:
    """In a worker: chunk ``board[1]`` of the board file ``board[0]`` has ``games`` played."""
    if board is not None:
        counts = np.memmap(board[0], np.int64, mode="r+")
        counts[board[1]] = games
        counts.flush()
        del counts


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # closed or not a real stream
        return False
