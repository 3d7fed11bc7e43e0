"""The web table's page: its HTML, CSS and JavaScript are files of their own in ``static/``
(``index.html``, ``table.css``, ``table.js``), shipped as package data and served as they are,
with no build step; ``make test`` lints the JavaScript with ESLint (``eslint.config.mjs``).

The page keeps the game in its address (``#rules=eaai&bot=simple&seat=0&seed=..&moves=..``),
so a reload, a bookmark or a server restart resumes it; every click posts the game and its
moves to the server, which replays them and answers with what to show (:mod:`sim.table.web`).

What a card player sees: the cards drawn as cards (SVG made by the page, no image files), the
hand in its melds and A 2 .. 9 10 J Q K within a suit, the stock and the pile as cards to
click, every opponent's hand as card backs with its count, the seats with their roles and
scores toward the target, whose turn it is. Only the legal moves are enabled. At each hand's
end its showdown, drawn as cards (both hands in their melds, the layoffs and the deadwood
marked, the points counted), waits for a button before the next hand is shown; at the game's
end the result, a new game and the review of this one. Every card is a real ``<button>`` named
in words ("nine of hearts"), so the game is played from the keyboard and read by a screen
reader. On a phone the set-up form folds away once a table is dealt, the table fits the width
and every target is at least 44 px.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

#: The page's files, served under ``/static/``.
STATIC = Path(__file__).resolve().parent / "static"


@cache
def page_html() -> str:
    """The page itself (``static/index.html``), which loads the style and script."""
    return (STATIC / "index.html").read_text(encoding="utf-8")
