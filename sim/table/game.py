"""One game with people at the table, stepped through the engine's one game loop.

:class:`Table` plays a game exactly as :class:`sim.play.driver.GameDriver` does (the same
seeds, :func:`sim.play.step.seat_move` at every decision, the rule kernels, the same hand
records), but it stops at each decision of a ``human`` seat (the step's ``CALLER``) and
waits for :meth:`Table.play`. Bots' moves are played inside; what the table shows a person
is only what the seat's view holds and what was played in the open.

A game is its settings and the human's moves (:attr:`Table.answers`, compact tokens): the
web table rebuilds any game from them (:meth:`Table.replay`), so it keeps no state it cannot
rebuild. With no human seat the table plays the whole game at once and writes the very
records ``ginbox play --log`` writes for the same seed (tests/test_table.py checks it).

**Team policies.** ``advisor``: the sitter decides for the captain, so a human sitter is
asked for the captain's moves, and a human captain with a bot advisor sees every move it
plays for him. ``consensus``: the step lets a captain decide alone when either chair is not
a built-in, so a human captain decides and is shown his bot advisor's suggestion (the
sitter's strategy asked on a copy of the position: nothing of the game changes); a human
sitter is not asked, since the step has no way to combine a person's choice with the
captain's option values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.engine.cards import card_str
from sim.engine.game import (
    CAPTAIN,
    GS_OVER,
    GS_ROLE_SEAT,
    GS_SCORE,
    GS_WINNER,
    SITTER,
    end_hand,
    game_init,
    start_hand,
)
from sim.engine.hand import (
    DEC_DISCARD,
    DEC_DRAW,
    DEC_KNOCK,
    DEC_OFFER,
    DEC_OVER,
    ERROR_TEXT,
    HS_N_MOVES,
    HS_TO_MOVE,
    MOVE_DRAW_DISCARD,
    MOVE_DRAW_STOCK,
    MOVE_KNOCK,
    MOVE_NO_KNOCK,
    MOVE_PASS,
    OK,
    advance,
    apply_move,
)
from sim.engine.rng import stream_seed
from sim.engine.rules import Rules
from sim.engine.view import V_PILE_LEN, V_TOP, View, fill_view
from sim.play.driver import Seeds
from sim.play.step import CALLER, seat_move, table_buffers
from sim.records.log import hand_record
from sim.records.render import render_hand
from sim.review.judge import judge_text
from strategies._dispatch import decide
from strategies.human import (
    MoveError,
    legal_notation,
    move_of_token,
    parse_answer,
    token_of,
)
from strategies.mc_options import option_values
from strategies.registry import HUMAN, StrategySpec, parse_strategies, resolve

#: Role names by role index (box = dealer, captain = non-dealer, sitter), three-handed.
ROLE_NAMES = ("box", "captain", "sitter")
#: Two-player role names.
ROLE_NAMES_2 = ("dealer", "non-dealer")


@dataclass(frozen=True)
class Event:
    """Something that happened in the open: a move, a hand's end, a game's end."""

    hand: int
    text: str
    kind: str = "move"  # "move", "advice", "hand" (a hand begins), "showdown", "game"


@dataclass(frozen=True)
class Hint:
    """One option of the decision with its chance of winning the game (the judge's value)."""

    move: str  # in the notation: "d", "p", "pass", "x 9H", "k 9H"
    value: float
    judge: bool  # the option the judge would play


def hint_judge(samples: int | None) -> str:
    """The judge's spec for hints: the review's judge with ``samples`` worlds if given."""
    return judge_text("mc" if samples is None else f"mc:samples={samples}")


class Table:
    """One game: bots play, ``human`` seats answer through :meth:`play` (see module doc).

    ``strategies``: one per seat, registered built-ins or ``human``; ``seed`` and ``game``
    pick the deals and the bots' random streams as ``ginbox play --seed`` does for its game
    ``game``. ``hint_samples``: the hints' budget (default: each human seat's
    ``human:hint_samples``, else the judge's).
    """

    def __init__(self, rules: Rules, strategies: Sequence[str] | str, seed: int = 0,
                 game: int = 0, hint_samples: int | None = None) -> None:
        self.rules = rules
        self.specs: list[StrategySpec] = resolve(parse_strategies(strategies), rules)
        if len(self.specs) != rules.players:
            raise ValueError(f"{rules.players_text()}: got "
                             f"{len(self.specs)} strategies")
        for spec in self.specs:
            if spec.name != HUMAN and not spec.compiled:
                raise ValueError(f"the table seats built-in strategies and human: "
                                 f"{spec.text!r} is neither")
        self.humans = [s for s, spec in enumerate(self.specs) if spec.name == HUMAN]
        samples = [self.specs[s].params.get("hint_samples") for s in self.humans]
        self.hint_samples = hint_samples if hint_samples is not None else next(
            (n for n in samples if n is not None), None)
        self.seed, self.game = seed, game
        self.rules_array = rules.to_array()
        rows = [s.params_array() if s.compiled else np.full_like(
            self.specs[0].params_array(), -1) for s in self.specs]
        self.params = np.stack(rows + [np.full_like(rows[0], -1)] * (3 - len(rows)))
        self.ids = np.array([s.strategy_id if s.compiled else -1 for s in self.specs] +
                            [-1] * (3 - len(self.specs)), np.int64)
        self.bufs = table_buffers(self.rules_array, log=True)
        seeds = Seeds.from_seed(seed)
        self.bufs.rng[0] = stream_seed(seeds.deck, game)
        self.bufs.rng[1] = stream_seed(seeds.strategy, game)
        game_init(self.bufs.gs, self.rules_array, self.bufs.rng[0:1], -1)
        self.records: list[dict[str, Any]] = []
        self.events: list[Event] = []
        self.answers: list[str] = []  # the human moves played, as tokens (strategies.human)
        self.hand = -1
        self.in_hand = False
        self.roles: list[int] = []
        self.dealt = np.zeros(52, np.int64)
        self.decision = DEC_OVER
        self.seat = -1  # the seat asked now (the advisor when he decides for the captain)
        self.suggestion: str | None = None  # a bot advisor's suggestion to a human captain
        self._go()

    # ----------------------------------------------------------------------------- playing

    @property
    def over(self) -> bool:
        """The game is finished (every hand logged)."""
        return bool(self.bufs.gs[GS_OVER]) and not self.in_hand

    @property
    def waiting(self) -> bool:
        """A human seat is asked for a move."""
        return not self.over and self.seat >= 0

    def view(self) -> View:
        """What the asked seat sees (the captain's view for an advisor)."""
        return View.from_arrays(self.bufs.view, self.bufs.pile)

    def play(self, text: str) -> None:
        """Play one typed move of the asked seat (notation of :mod:`strategies.human`).

        Raises :class:`strategies.human.MoveError` (one line) for a malformed or illegal
        move, or when no human seat is asked; nothing changes then.
        """
        if not self.waiting:
            raise MoveError("no move is asked: the game is over")
        answer = parse_answer(text, self.view())
        if isinstance(answer, str):
            raise MoveError(f"{answer!r} is not a move")
        for move in answer:
            self._human_move(move)

    def play_token(self, token: str) -> None:
        """Play one engine move given as its token (``d``, ``p``, ``pass``, ``k``, ``n``, a
        card); MoveError, with nothing changed, unless it is legal for the asked seat."""
        if not self.waiting:
            raise MoveError("no move is asked: the game is over")
        move = move_of_token(token)
        if move not in self.view().legal_moves():
            raise MoveError(f"illegal: {token!r} is not a legal move now")
        self._human_move(move)

    @classmethod
    def replay(cls, rules: Rules, strategies: Sequence[str] | str, seed: int, game: int,
               answers: Sequence[str], hint_samples: int | None = None) -> Table:
        """The table after the human moves ``answers``: how a game is rebuilt from its
        settings and moves. MoveError names the first move that is not legal."""
        table = cls(rules, strategies, seed, game, hint_samples)
        for i, token in enumerate(answers):
            try:
                table.play_token(token)
            except MoveError as exc:
                raise MoveError(f"move {i + 1} ({token!r}): {exc}") from None
        return table

    def _human_move(self, move: int) -> None:
        self._apply(move)
        self.answers.append(token_of(move))
        self._go()

    def label(self, seat: int) -> str:
        """``you`` (the one human seat) or ``seat 1 (mc)``."""
        if seat in self.humans and len(self.humans) == 1:
            return "you"
        return f"seat {seat} ({self.specs[seat].canonical})"

    def _who(self, seat: int) -> str:
        """``Box seat 1 (mc)``, ``You (captain)``."""
        role = self.role_name(seat)
        if self.label(seat) == "you":
            return f"You ({role})" if role else "You"
        return f"{role.capitalize() or 'Seat'} {self.label(seat)}".replace("Seat seat", "Seat")

    def role_name(self, seat: int) -> str:
        """The seat's role this hand (box, captain, sitter; dealer, non-dealer)."""
        names = ROLE_NAMES if self.rules.players == 3 else ROLE_NAMES_2
        if seat in self.roles:
            return names[self.roles.index(seat)]
        return ""

    def _describe(self, seat: int, p: int, decision: int, move: int) -> str:
        """A move as everyone at the table saw it (a stock draw shows no card)."""
        view = self.bufs.view
        top = card_str(int(view[V_TOP])) if view[V_PILE_LEN] else None
        decider = self._who(seat)
        if seat != self.roles[p]:
            decider += f" for the {self.role_name(self.roles[p])}"  # the advisor
        you = self.label(seat) == "you"
        if decision == DEC_OFFER:
            action = (f"take{'' if you else 's'} the upcard {top}" if move == MOVE_DRAW_DISCARD
                      else f"pass{'' if you else 'es'} on the upcard {top}")
        elif decision == DEC_DRAW:
            action = (f"take{'' if you else 's'} {top} from the pile"
                      if move == MOVE_DRAW_DISCARD else f"draw{'' if you else 's'} from the stock")
        elif decision == DEC_KNOCK:
            action = f"knock{'' if you else 's'}" if move == MOVE_KNOCK else ""
        else:
            action = f"discard{'' if you else 's'} {card_str(move)}"
        return f"{decider} {action}" if action else ""

    def _apply(self, move: int) -> None:
        b = self.bufs
        p = int(b.hs[HS_TO_MOVE])
        text = self._describe(self.seat, p, self.decision, move)
        err = apply_move(b.hs, b.pile, b.deck, b.after, b.moves, move)
        if err != OK:  # parse_answer and play_token check first: an engine bug
            raise RuntimeError(f"the engine refused a checked move: {ERROR_TEXT[err]}")
        if text:
            self.events.append(Event(self.hand, text[0].upper() + text[1:]))
        self.seat = -1
        self.suggestion = None

    def _go(self) -> None:
        """Play the bots until a human seat is asked or the game ends."""
        b = self.bufs
        rules = self.rules_array
        while True:
            if not self.in_hand:
                if b.gs[GS_OVER]:
                    self.seat = -1
                    return
                start_hand(b.gs, b.hs, b.pile, b.deck, rules, b.rng[0:1], b.game_info)
                b.mem[:, :] = 0
                self.roles = [int(b.gs[GS_ROLE_SEAT + r]) for r in range(3)]
                self.dealt = b.deck.copy()
                self.hand += 1
                self.in_hand = True
                self.events.append(Event(self.hand, self._roles_text(), "hand"))
            decision = advance(b.hs, b.pile, b.deck, b.after, b.moves)
            if decision == DEC_OVER:
                self._end_hand()
                continue
            seat, move = seat_move(decision, rules, self.ids, self.params, self.controlled,
                                   b.gs, b.hs, b.pile, b.game_info, b.view, b.after, b.mem,
                                   b.rng[1:2], b.scratch)
            self.decision, self.seat = int(decision), int(seat)
            if move == CALLER:
                self.suggestion = self._advice()
                return
            self._apply(int(move))

    @property
    def controlled(self) -> int:
        """The step's mask of seats whose moves are the caller's: the human seats."""
        return sum(1 << s for s in self.humans)

    def _advice(self) -> str | None:
        """A bot advisor's suggestion to a human captain under consensus, from copies."""
        b = self.bufs
        p = int(b.hs[HS_TO_MOVE])
        if not (self.rules.players == 3 and self.rules.team_policy == "consensus"
                and p == CAPTAIN):
            return None
        sitter = self.roles[SITTER]
        if self.ids[sitter] < 0:
            return None
        move = int(decide(self.ids[sitter], self.decision, self.params[sitter],
                          b.view.copy(), b.after.copy(), b.mem[p].copy(), b.rng[1:2].copy(),
                          b.scratch))
        text = {MOVE_PASS: "pass", MOVE_DRAW_DISCARD: "p", MOVE_DRAW_STOCK: "d",
                MOVE_KNOCK: "k", MOVE_NO_KNOCK: "x (no knock)"}.get(move)
        return f"{self._who(sitter)} suggests {text or 'x ' + card_str(move)}"

    def _roles_text(self) -> str:
        gs = self.bufs.gs
        scores = ", ".join(f"{self._who(s)} {int(gs[GS_SCORE + s])}"
                           for s in range(self.rules.players))
        text = f"Hand {self.hand + 1}: {scores} (target {self.rules.target})"
        if self.rules.players == 3:
            advises = {"captain": "does not advise", "advisor": "decides for the captain",
                       "consensus": "advises the captain"}[self.rules.team_policy]
            text += f"; the sitter {advises}"
        return text

    def _end_hand(self) -> None:
        b = self.bufs
        end_hand(b.gs, b.hs, self.rules_array)
        record = hand_record(self.rules, [s.text for s in self.specs], self.game, self.hand,
                             self.roles, self.dealt, b.hs, b.moves, b.gs)
        previous = self.records[-1] if self.records else None
        self.records.append(record)
        self.in_hand = False
        you = {s: "you" for s in range(self.rules.players) if self.label(s) == "you"}
        self.events.append(Event(self.hand, showdown_text(record, previous, you),
                                 "showdown"))
        if b.gs[GS_OVER]:
            winner = self.label(int(b.gs[GS_WINNER]))
            self.events.append(Event(self.hand, f"Game over: {winner} "
                                     f"{'win' if winner == 'you' else 'wins'}", "game"))

    # ----------------------------------------------------------------------------- showing

    def scores(self) -> list[int]:
        """Each seat's score."""
        return [int(self.bufs.gs[GS_SCORE + s]) for s in range(self.rules.players)]

    def opponent_play(self) -> tuple[list[int], list[int]]:
        """The cards the asked seat's opponent took from the pile and discarded this hand,
        each in the order played (a view holds them as sets)."""
        b = self.bufs
        opponent = 1 - int(b.hs[HS_TO_MOVE])
        pile = [int(self.dealt[20])]  # the upcard
        took: list[int] = []
        threw: list[int] = []
        for player, move in b.moves[:int(b.hs[HS_N_MOVES])]:
            if move < 64:
                pile.append(int(move))
                if player == opponent:
                    threw.append(int(move))
            elif move == MOVE_DRAW_DISCARD:
                card = pile.pop()
                if player == opponent:
                    took.append(card)
        return took, threw

    def legal(self) -> list[str]:
        """The asked seat's legal answers in the notation."""
        return legal_notation(self.view()) if self.waiting else []

    def hints(self) -> list[Hint]:
        """The judge's value of every option of the asked decision, best first (at the knock
        question: every ``k CARD`` and ``x CARD``). Plays nothing."""
        if not self.waiting:
            return []
        judge = hint_judge(self.hint_samples)
        seed = len(self.answers) + 1000 * self.game
        b = self.bufs
        if self.decision != DEC_KNOCK:
            return _hints(option_values(b.view.copy(), judge, seed, b.after.copy()),
                          self.decision)
        out: list[Hint] = []
        for answer, prefix in ((MOVE_KNOCK, "k"), (MOVE_NO_KNOCK, "x")):
            hs, pile, deck, after, moves = (b.hs.copy(), b.pile.copy(), b.deck.copy(),
                                            b.after.copy(), b.moves.copy())
            apply_move(hs, pile, deck, after, moves, answer)
            if advance(hs, pile, deck, after, moves) != DEC_DISCARD:
                continue
            view = b.view.copy()
            fill_view(view, hs, pile, b.game_info, DEC_DISCARD)
            out += _hints(option_values(view, judge, seed, after), DEC_DISCARD, prefix)
        return sorted(out, key=lambda h: -h.value)


def _hints(options: list[Any], decision: int, prefix: str = "x") -> list[Hint]:
    names = {"pass": "pass", "draw_discard": "p", "draw_stock": "d"}
    best = max((o.value for o in options), default=0.0)
    out = [Hint(names.get(o.move, f"{prefix} {o.move}"), o.value, o.chosen) for o in options]
    if len(out) == 1 and options[0].worlds == 0:  # one candidate: nothing was searched
        out = [Hint(out[0].move, best, True)]
    return sorted(out, key=lambda h: -h.value)


def showdown_text(record: dict[str, Any], previous: dict[str, Any] | None,
                  names: dict[int, str] | None = None) -> str:
    """The end of a logged hand as :func:`sim.records.render.render_hand` tells it: the
    showdown (melds, layoffs, deadwood, points) or the draw, and the scores after it;
    ``names`` calls seats by a name (``{0: "you"}``)."""
    lines = render_hand(record, previous, names=names).splitlines()
    start = next((i for i, line in enumerate(lines)
                  if line.startswith(("Showdown", "End:"))), 0)
    return "\n".join(lines[start:])
