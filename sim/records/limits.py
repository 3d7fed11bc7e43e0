"""What a hand-log reader accepts from a file it cannot trust, and how its errors show values.

A hand log may be damaged, edited or hostile. Its reader (:func:`sim.records.log.iter_log`)
stays bounded whatever the file holds:

* **Line length**: a line is read with a limit (:data:`MAX_LINE_BYTES`, far above the longest
  hand at the highest turn cap), so a 300 MB line costs no more memory than the limit.
* **Integers**: every integer must fit in 64 bits (the engine's game, hand and score numbers
  are ``int64``); a longer one is refused before Python converts it, so a 5,000-digit number
  is one clear error, not Python's own digit limit, and no number wraps in a table or a name.
* **Nesting**: a line nested deeper than the JSON reader's stack allows is refused as
  malformed instead of ending the program with a ``RecursionError``.
* **Messages**: :func:`shown` prints a value cut short (a few items of a list, the ends of a
  long string or number), so a damaged field of millions of items gives one short line;
  :func:`shorten` cuts a whole message built elsewhere (a rules field's, a card's), which the
  reader and the ``ginbox`` command apply to every error they print.

Every refusal is a :class:`LineError` (a ``ValueError``) that the reader prefixes with the file
and line.
"""

from __future__ import annotations

import json
import re
import reprlib
from collections.abc import Iterator
from typing import IO, Any

#: The longest line a hand log may hold: a hand at the highest turn cap (10,000 turns) with
#: its rules takes about 1 MB, so four leave room for extra keys and still bound the memory.
MAX_LINE_BYTES = 4 * 1024 * 1024
#: The integers a hand log may hold: the engine's 64-bit range.
INT_MIN, INT_MAX = -(2**63), 2**63 - 1
#: The most characters of one value an error message shows, and of a whole message.
SHOWN_CHARS = 80
MESSAGE_CHARS = 1000


class LineError(ValueError):
    """A line the reader refuses: its one-line message says why, without the file and line."""


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxlist, _REPR.maxtuple, _REPR.maxdict = 3, 6, 6, 4
_REPR.maxstring, _REPR.maxlong, _REPR.maxother = 40, 24, 40


def shown(value: Any) -> str:
    """``repr(value)`` cut short for an error message: at most a few items of a list or an
    object, the ends of a long string or number, and never more than about
    :data:`SHOWN_CHARS` characters (``...`` marks what was left out)."""
    try:
        text = _REPR.repr(value)
    except RecursionError:  # pragma: no cover - reprlib stops at maxlevel
        text = f"<{type(value).__name__}>"
    if len(text) > SHOWN_CHARS:
        half = SHOWN_CHARS // 2 - 2
        text = f"{text[:half]}...{text[-half:]}"
    return text


_LONG_WORD = re.compile(rf"\S{{{SHOWN_CHARS + 1},}}")


def shorten(message: str, limit: int = MESSAGE_CHARS) -> str:
    """``message`` within ``limit`` characters: each run of more than :data:`SHOWN_CHARS`
    characters without a space is cut in its middle, then, if still too long, the middle of
    the message (its start and its end, which says what is accepted, are kept)."""
    if len(message) <= limit:
        return message
    half = SHOWN_CHARS // 2 - 2
    message = _LONG_WORD.sub(lambda m: f"{m[0][:half]}...{m[0][-half:]}", message)
    if len(message) <= limit:
        return message
    marker = f" ... ({len(message):,} characters, the middle left out) ... "
    keep = max(0, limit - len(marker)) // 2
    return f"{message[:keep]}{marker}{message[len(message) - keep:]}"


def bounded_lines(file: IO[bytes], limit: int) -> Iterator[bytes]:
    """The lines of a binary file, reading at most ``limit`` bytes of one (its line break
    aside) before refusing it with :class:`LineError`: memory stays within the limit."""
    while raw := file.readline(limit + 2):  # the limit, a line break, one byte past them
        if len(raw.rstrip(b"\r\n")) > limit:
            raise LineError(f"the line is longer than {limit:,} bytes, the most a hand log's "
                            "line holds: is this a hand log?")
        yield raw


def _bounded_int(text: str) -> int:
    """A JSON integer within the engine's 64 bits; :class:`LineError` otherwise (checked on
    the digits first, so a number of thousands of digits is never converted)."""
    digits = text.lstrip("-")
    if len(digits) > 19 or not INT_MIN <= (value := int(text)) <= INT_MAX:
        number = text if len(text) <= 24 else f"{text[:10]}...{text[-10:]}"
        raise LineError(f"the integer {number} ({len(digits):,} digits) is out of range: a "
                        f"hand log's integers are {INT_MIN}..{INT_MAX}")
    return value


def parse_line(text: str) -> Any:
    """One JSON line, its integers bounded and its nesting limited; :class:`LineError` says
    what is wrong (for invalid JSON, where, and whether the line is cut short)."""
    try:
        return json.loads(text, parse_int=_bounded_int)
    except json.JSONDecodeError as exc:
        short = "; the line is cut short" if exc.pos >= len(text.rstrip()) else ""
        raise LineError(f"not valid JSON ({exc.msg} at character {exc.pos + 1}{short})"
                        ) from None
    except RecursionError:
        raise LineError("not a hand record: its values are nested deeper than a JSON reader "
                        "follows (a hand record nests 4 levels)") from None


__all__ = ["INT_MAX", "INT_MIN", "MAX_LINE_BYTES", "MESSAGE_CHARS", "LineError", "bounded_lines",
           "parse_line", "shorten", "shown"]
