"""One game with people at the table: presentation over the game object.

:class:`Table` is a :class:`sim.play.state.GameState` with the ``human`` seats as the
caller's (the same seeds, seat step, rule kernels and hand records as ``ginbox play``): the
game stops at each of their decisions and waits for :meth:`Table.play`, the bots' moves are
played inside it. The table listens to the game (:class:`sim.play.state.GameListener`) to tell
what happened in the open, and shows a person only what the seat's view holds.

A game is its settings and the human's moves (:attr:`Table.answers`, in the move notation's
short form): the web table rebuilds any game from them (:meth:`Table.replay`), so it keeps no
state it cannot rebuild. With no human seat the table plays the whole game at once and writes
the very records ``ginbox play --log`` writes for the same seed (tests/test_table.py checks it).

**Team policies.** ``advisor``: the sitter decides for the captain, so a human sitter is
asked for the captain's moves, and a human captain with a bot advisor sees every move it
plays for him. ``consensus``: the step lets a captain decide alone when either chair is not
a built-in, so a human captain decides and is shown his bot advisor's suggestion (the
sitter's strategy asked on a copy of the position: nothing of the game changes); a human
sitter is not asked, since the step has no way to combine a person's choice with the
captain's option values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sim.engine.cards import card_str, parse_card, sort_for_display
from sim.engine.game import CAPTAIN, SITTER
from sim.engine.hand import (
    DEC_DISCARD,
    DEC_DRAW,
    DEC_KNOCK,
    DEC_OFFER,
    MOVE_DRAW_DISCARD,
    MOVE_DRAW_STOCK,
    MOVE_KNOCK,
    MOVE_NO_KNOCK,
    MOVE_PASS,
)
from sim.engine.rules import Rules
from sim.engine.view import View
from sim.play.events import HandResult, IllegalMove, Played
from sim.play.state import ROLE_NAMES, ROLE_NAMES_2, GameListener, GameState
from sim.records.render import render_hand
from sim.records.schema import HandRecord
from sim.review.judge import judge_text
from strategies.human import (
    MoveError,
    arrangement,
    legal_notation,
    parse_answer,
)
from strategies.mc_options import option_values
from strategies.moves import Move, MoveTextError, move_str, parse_move
from strategies.registry import HUMAN, StrategySpec, parse_strategies, resolve

__all__ = ["ROLE_NAMES", "ROLE_NAMES_2", "Event", "Hint", "Table", "hint_judge",
           "showdown_cards", "showdown_text"]

@dataclass(frozen=True)
class Event:
    """Something that happened in the open: a move, a hand's end, a game's end."""

    hand: int
    text: str
    kind: str = "move"  # "move", "advice", "hand" (a hand begins), "showdown", "game"
    #: a showdown's cards for a page to draw (:func:`showdown_cards`); None for other kinds
    cards: dict[str, Any] | None = None


@dataclass(frozen=True)
class Hint:
    """One option of the decision with its chance of winning the game (the judge's value)."""

    move: str  # in the notation: "d", "p", "pass", "x 9H", "k 9H"
    value: float
    judge: bool  # the option the judge would play


def hint_judge(samples: int | None) -> str:
    """The judge's spec for hints: the review's judge with ``samples`` worlds if given."""
    return judge_text("mc" if samples is None else f"mc:samples={samples}")


class Table(GameListener):
    """One game: bots play, ``human`` seats answer through :meth:`play` (see module doc).

    ``strategies``: one per seat, registered built-ins or ``human``; ``seed`` and ``game``
    pick the deals and the bots' random streams as ``ginbox play --seed`` does for its game
    ``game``. ``hint_samples``: the hints' budget (default: each human seat's
    ``human:hint_samples``, else the judge's). :attr:`state` is the game
    (:class:`sim.play.state.GameState`); the table tells it and shows it.
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
        self.events: list[Event] = []
        self.answers: list[str] = []  # the human moves played, as tokens (strategies.human)
        self.suggestion: str | None = None  # a bot advisor's suggestion to a human captain
        self.state = GameState(rules, self.specs, seed=seed, game=game,
                               controlled=self.humans, listener=self)

    # ----------------------------------------------------------------------------- playing

    @property
    def over(self) -> bool:
        """The game is finished (every hand logged)."""
        return self.state.game_over

    @property
    def waiting(self) -> bool:
        """A human seat is asked for a move."""
        return self.state.waiting

    @property
    def seat(self) -> int:
        """The seat asked now (the advisor when he decides for the captain), -1 if none."""
        seat = self.state.seat
        return -1 if seat is None else seat

    @property
    def played_for(self) -> int:
        """The seat whose hand the asked seat plays (the captain's, for an advisor)."""
        p = self.state.hand_player
        return -1 if p is None else self.roles[p]

    @property
    def decision(self) -> int:
        """The decision asked (``DEC_*``; ``DEC_OVER`` when none)."""
        return self.state.decision_code

    @property
    def hand(self) -> int:
        """The hand being played (or the last played), 0 for the first."""
        return self.state.hand

    @property
    def in_hand(self) -> bool:
        """A hand is being played (not yet logged)."""
        return self.state.in_hand

    @property
    def roles(self) -> tuple[int, ...]:
        """The seats of the box (dealer), captain (non-dealer) and sitter this hand."""
        return self.state.roles

    @property
    def records(self) -> list[HandRecord]:
        """The finished hands, as ``ginbox play --log`` writes them."""
        return self.state.records

    def view(self) -> View:
        """What the asked seat sees (the captain's view for an advisor)."""
        return self.state.view()

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
            self._human_move(move, text)

    def play_token(self, token: str) -> None:
        """Play one engine move given as its token (the move notation's short form: ``d``,
        ``p``, ``pass``, ``k``, ``n``, a card); MoveError, with nothing changed, unless it is
        legal for the asked seat."""
        if not self.waiting:
            raise MoveError("no move is asked: the game is over")
        try:
            move = parse_move(token)
        except MoveTextError:
            raise MoveError(f"{token!r} is not a move") from None
        self._human_move(move.code, token)

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

    def _human_move(self, move: int, text: str) -> None:
        try:
            self.state.play(move)
        except IllegalMove:
            raise MoveError(f"illegal: {text!r} is not a legal move now") from None
        self.answers.append(move_str(Move.of_code(move), "short"))

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
        if seat in self.roles:
            return self.state.role_names[self.roles.index(seat)]
        return ""

    def _describe(self, played: Played) -> str:
        """A move as everyone at the table saw it (a stock draw shows no card)."""
        top = card_str(played.top) if played.top >= 0 else None
        decider = self._who(played.decider)
        if played.decider != played.seat:
            decider += f" for the {self.role_name(played.seat)}"  # the advisor
        you = self.label(played.decider) == "you"
        decision, move = played.decision, played.move
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

    # ----------------------------------------------------------------------- what it hears

    def hand_started(self, state: GameState) -> None:
        self.state = state  # the first it hears, while the game is being built
        self.events.append(Event(state.hand, self._roles_text(), "hand"))

    def deciding(self, state: GameState) -> None:
        if state.seat in self.humans:
            self.suggestion = self._advice()

    def moved(self, state: GameState, played: Played) -> None:
        self.suggestion = None
        text = self._describe(played) if played.decision >= 0 else ""  # not the forced draw
        if text:
            self.events.append(Event(played.hand, text[0].upper() + text[1:]))

    def hand_ended(self, state: GameState, result: HandResult) -> None:
        records = state.records
        previous = records[-2] if len(records) > 1 else None
        you = {s: "you" for s in range(self.rules.players) if self.label(s) == "you"}
        self.events.append(Event(result.hand, showdown_text(records[-1], previous, you),
                                 "showdown", showdown_cards(records[-1], previous, you)))
        game = state.result
        if game is not None:
            winner = self.label(game.winner)
            self.events.append(Event(result.hand, f"Game over: {winner} "
                                     f"{'win' if winner == 'you' else 'wins'}", "game"))

    def _advice(self) -> str | None:
        """A bot advisor's suggestion to a human captain under consensus (asked on copies)."""
        if not (self.rules.players == 3 and self.rules.team_policy == "consensus"
                and self.state.hand_player == CAPTAIN):
            return None
        sitter = self.roles[SITTER]
        move = self.state.ask(sitter)
        if move is None:
            return None
        text = {MOVE_PASS: "pass", MOVE_DRAW_DISCARD: "p", MOVE_DRAW_STOCK: "d",
                MOVE_KNOCK: "k", MOVE_NO_KNOCK: "x (no knock)"}.get(move)
        return f"{self._who(sitter)} suggests {text or 'x ' + card_str(move)}"

    def _roles_text(self) -> str:
        scores = ", ".join(f"{self._who(s)} {v}" for s, v in enumerate(self.state.scores))
        text = f"Hand {self.hand + 1}: {scores} (target {self.rules.target})"
        if self.rules.players == 3:
            advises = {"captain": "does not advise", "advisor": "decides for the captain",
                       "consensus": "advises the captain"}[self.rules.team_policy]
            text += f"; the sitter {advises}"
        return text

    # ----------------------------------------------------------------------------- showing

    def scores(self) -> list[int]:
        """Each seat's score."""
        return list(self.state.scores)

    def opponent_play(self) -> tuple[list[int], list[int]]:
        """The cards the asked seat's opponent took from the pile and discarded this hand,
        each in the order played (a view holds them as sets)."""
        opponent = 1 - (self.state.hand_player or 0)
        pile = [self.state.upcard]
        took: list[int] = []
        threw: list[int] = []
        for player, move in self.state.hand_moves():
            if move < 64:
                pile.append(move)
                if player == opponent:
                    threw.append(move)
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
        question: every ``k CARD`` and ``x CARD``). Plays nothing: the options are valued on
        copies of the game."""
        if not self.waiting:
            return []
        judge = hint_judge(self.hint_samples)
        seed = len(self.answers) + 1000 * self.game
        state = self.state
        if self.decision != DEC_KNOCK:
            return _hints(option_values(state.view_array.copy(), judge, seed,
                                        state.after.copy()), self.decision)
        out: list[Hint] = []
        for answer, prefix in ((MOVE_KNOCK, "k"), (MOVE_NO_KNOCK, "x")):
            world = state.clone()
            world.play(answer)  # the same seat discards next: its decision, so it stops
            if world.decision_code != DEC_DISCARD:
                continue
            out += _hints(option_values(world.view_array, judge, seed, world.after),
                          DEC_DISCARD, prefix)
        return sorted(out, key=lambda h: -h.value)


def _hints(options: list[Any], decision: int, prefix: str = "x") -> list[Hint]:
    names = {"pass": "pass", "draw_discard": "p", "draw_stock": "d"}
    best = max((o.value for o in options), default=0.0)
    out = [Hint(names.get(o.move, f"{prefix} {o.move}"), o.value, o.chosen) for o in options]
    if len(out) == 1 and options[0].worlds == 0:  # one candidate: nothing was searched
        out = [Hint(out[0].move, best, True)]
    return sorted(out, key=lambda h: -h.value)


def showdown_text(record: Mapping[str, Any], previous: Mapping[str, Any] | None,
                  names: dict[int, str] | None = None) -> str:
    """The end of a logged hand as :func:`sim.records.render.render_hand` tells it: the
    showdown (melds, layoffs, deadwood, points) or the draw, and the scores after it;
    ``names`` calls seats by a name (``{0: "you"}``)."""
    lines = render_hand(record, previous, names=names).splitlines()
    start = next((i for i, line in enumerate(lines)
                  if line.startswith(("Showdown", "End:"))), 0)
    return "\n".join(lines[start:])


def final_hands(record: Mapping[str, Any]) -> dict[int, list[str]]:
    """The two playing seats' cards at the end of a logged hand: the deal, each card drawn
    (from the stock in its order, or the pile's top), each discard taken out."""
    deal = record["deal"]
    hands = {record["dealer"]: list(deal["dealer"]),
             record["nondealer"]: list(deal["nondealer"])}
    stock = iter(deal["stock"])
    pile = [deal["upcard"]]
    for move in record["moves"]:
        hand = hands[move["seat"]]
        if move["move"] == "draw_discard":
            hand.append(pile.pop())
        elif move["move"] == "draw_stock":
            hand.append(next(stock))
        elif move["move"] == "discard":
            hand.remove(move["card"])
            pile.append(move["card"])
    return hands


def showdown_cards(record: Mapping[str, Any], previous: Mapping[str, Any] | None = None,
                   names: Mapping[int, str] | None = None) -> dict[str, Any]:
    """The end of a logged hand as cards, for a page to draw: per playing seat (the knocker
    first) its melds, the cards it laid off, its deadwood cards and count; the sitter; the
    scores after the hand. A drawn hand shows each hand in its least-deadwood melds, with no
    count (nothing is scored). ``notes``: the lines of :func:`showdown_text` the cards do not
    show (how the hand ended, the points and why, the scores after it). ``names`` calls
    seats by a name (``{0: "you"}``)."""
    result = record["result"]
    names = names or {}
    hands = final_hands(record)
    knocker = result["knocker"]
    order = [s for s in (record["dealer"], record["nondealer"]) if s == knocker]
    order += [s for s in (record["dealer"], record["nondealer"]) if s != knocker]
    roles = {record["dealer"]: "box" if record["sitter"] is not None else "dealer",
             record["nondealer"]: "captain" if record["sitter"] is not None else "non-dealer"}
    players = []
    for seat in order:
        codes = [parse_card(c) for c in hands[seat]]
        if knocker is None:  # a draw: the hands as their holders arrange them
            melds, loose, _ = arrangement(codes)
            shown = [[card_str(c) for c in meld] for meld in melds]
            layoffs: list[str] = []
            deadwood = None
        else:
            mine = seat == knocker
            shown = [list(m) for m in result["knocker_melds" if mine else "defender_melds"]]
            layoffs = [] if mine else list(result["layoffs"])
            used = {c for m in shown for c in m} | set(layoffs)
            loose = [c for c in codes if card_str(c) not in used]
            deadwood = result["knocker_deadwood" if mine else "defender_deadwood"]
        players.append({
            "seat": seat, "name": names.get(seat, f"seat {seat} ({record['seats'][seat]})"),
            "role": roles[seat], "knocker": seat == knocker, "melds": shown,
            "layoffs": layoffs, "deadwood_cards": [card_str(c) for c in sort_for_display(loose)],
            "deadwood": deadwood})
    return {"hand": record["hand"] + 1, "end": result["end"], "winner": result["winner"],
            "points": result["points"], "sitter": record["sitter"], "players": players,
            "scores": list(record["scores"]), "game_over": record["game_over"],
            "notes": [line.strip() for line in showdown_text(record, previous, dict(names))
                      .splitlines() if not line.startswith("Showdown (")
                      and " lays down " not in line and " holds " not in line]}
