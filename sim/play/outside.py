"""The table side of outside players (``agent:PATH``, ``eaai:CLASS``): what each one is told
as a game is played, what it is asked, and the forfeit when one fails.

:class:`OutsideTable` is a :class:`sim.play.state.GameListener`: the game object calls it at
every hand dealt, move played and hand ended (the one Python game step, whatever front end
steps it), and it turns these into the protocol's events, each from the seat's own side (a
stock card drawn by another is an unknown card). The driver asks it the decisions of the
outside seats (:meth:`OutsideTable.decide`). A program's failure, anywhere, becomes a
:class:`SeatFault` naming the seat, and :func:`forfeit` ends the game there: the hand log's
last line says ``"ended_by": {"seat": N, "reason": "..."}`` and the game goes to the other
side (docs/outside-players.md, "Faults").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np

from sim.engine.cards import DECK, card_str
from sim.engine.game import GO_ERROR, game_fields, record_game
from sim.engine.melds import ALL_MELDS
from sim.engine.rng import seed_words
from sim.engine.rules import Rules
from sim.engine.showdown import (
    EAAI_CARD_ORDER,
    OUTCOME_ILLEGAL,
    IllegalMelds,
    bot_declared_melds,
    settle_declared,
)
from sim.play.events import HandResult, Played, move_code
from sim.play.state import GameListener, GameState
from sim.records.log import hand_record, hand_result
from sim.records.schema import HandRecord
from strategies.moves import Move, move_str
from strategies.outside import OutsideFault, OutsidePlayer

#: The hand log's ``result.end`` of a hand cut short by a fault.
FORFEIT = "forfeit"
_MELDS = frozenset(int(m) for m in ALL_MELDS)
#: Each card text's place in the EAAI framework's card order (its layoff order).
_FRAMEWORK_RANK = {card_str(int(c)): i for i, c in enumerate(EAAI_CARD_ORDER)}


class SeatFault(Exception):
    """The outside player in ``seat`` failed (``reason``): its game is forfeit."""

    def __init__(self, seat: int, reason: str) -> None:
        super().__init__(f"seat {seat}: {reason}")
        self.seat = seat
        self.reason = reason


#: Each card's text by code, looked up rather than formatted: a game tells thousands of cards.
_TEXT = {int(c): card_str(int(c)) for c in DECK}


def _cards(codes: Sequence[int]) -> list[str]:
    return [_TEXT[int(c)] for c in codes]


def _mask(cards: Sequence[str]) -> int:
    from sim.engine.cards import parse_card

    out = 0
    for c in cards:
        out |= 1 << parse_card(c)
    return out


def declared_melds(value: Any, cards: Sequence[str] | None) -> list[list[str]]:
    """A player's own melds as it declared them (a knock's ``melds``, a ``layout``): checked
    to be melds, disjoint and, given ``cards``, of that hand; an OutsideFault otherwise."""
    from sim.engine.cards import parse_card

    if not isinstance(value, list) or not all(isinstance(m, list) for m in value):
        raise OutsideFault(f"declared melds {str(value)[:80]} are not a list of card lists")
    used = 0
    for meld in value:
        try:
            mask = _mask(meld) if all(isinstance(c, str) for c in meld) else -1
        except ValueError:
            mask = -1
        if mask not in _MELDS or mask & used or len(meld) != bin(mask).count("1"):
            raise OutsideFault(f"declared melds {str(value)[:80]}: {meld} is not a meld of "
                               "its own cards")
        used |= mask
    if cards is not None and used & ~_mask(cards):
        raise OutsideFault(f"declared melds {str(value)[:80]} hold cards not in its hand")
    return [[card_str(parse_card(c)) for c in meld] for meld in value]


def layoff_targets(knocker_melds: Sequence[Sequence[str]], layoffs: Sequence[str],
                   framework_order: bool = False) -> list[dict[str, Any]]:
    """Each laid-off card with the knocker's meld it goes onto, as that meld stands then: what
    an event-driven player is told. The cards go in the hand log's playable order, or with
    ``framework_order`` in the order the EAAI framework's showdown lays them off (again and
    again the first card in its card order that fits a meld, onto the first meld it fits)."""
    melds = [list(m) for m in knocker_melds]
    order = (_FRAMEWORK_RANK if framework_order else {c: i for i, c in enumerate(layoffs)})
    left = sorted(layoffs, key=order.__getitem__)
    out = []
    while left:
        for card in left:
            bit = _mask([card])
            meld = next((m for m in melds if _mask(m) | bit in _MELDS), None)
            if meld is not None:
                out.append({"card": card, "meld": list(meld)})
                meld.append(card)
                left.remove(card)
                break
        else:  # no card fits: not a layoff of these melds (cannot happen for a hand's own)
            break
    return out


class OutsideTable(GameListener):
    """Tells the outside players of a game what happens and asks them their decisions.

    ``players``: the outside player of each outside seat; ``names``: every seat's name. One
    table serves the games of a driver one after the other (:meth:`begin_game` each)."""

    def __init__(self, rules: Rules, players: Mapping[int, OutsidePlayer],
                 names: Sequence[str], inner: GameListener | None = None) -> None:
        for seat, player in players.items():
            if player.seat.kind == "eaai" and rules.players != 2:
                raise ValueError(f"seat {seat}: {player.name} is a player of the EAAI "
                                 f"framework, which plays two-handed games only; the "
                                 f"{rules.name} rules are three-handed: choose a two-handed "
                                 "preset (eaai, classic, hollywood)")
        self.rules = rules
        self.players = dict(players)
        self.names = list(names)
        self.inner = inner  # another listener told of everything first (the driver's watch)
        self.state: GameState | None = None
        self.declared: dict[int, list[list[str]]] = {}  # this hand's melds, as declared
        self._laid: list[list[str]] | None = None  # the knocker's melds settled on, in order
        self.game = 0
        self._strategy_seed = 0

        for seat, player in self.players.items():  # a bad start is refused before any game
            try:
                player.start(self._hello(seat))
            except OutsideFault as exc:
                player.fail()
                raise ValueError(f"seat {seat}: {player.name}: {exc.reason}") from None

    def _hello(self, seat: int) -> dict[str, Any]:
        return {"rules": {"preset": self.rules.name, "options": self.rules.to_dict()},
                "seat": seat, "players": self.rules.players, "advisor": self._advises(seat),
                "seats": self.names, "time_limit": self.players[seat].seat.time_limit}

    def begin_game(self, game: int, strategy_seed: int) -> None:
        """A new game is about to be dealt: the programs are started (or kept) and told."""
        self.game, self._strategy_seed, self.state = game, strategy_seed, None
        for seat, player in self.players.items():
            seed = int(seed_words(strategy_seed, seat) >> np.uint64(1))
            with self._blame(seat):
                player.start(self._hello(seat))
                player.tell({"type": "game", "game": game, "seat": seat, "seed": seed})

    def _advises(self, seat: int) -> bool:
        return self.rules.players == 3 and self.rules.team_policy == "advisor"

    def _blame(self, seat: int) -> _Blame:
        return _Blame(seat, self.players[seat])

    def _sees(self, state: GameState, seat: int, player: int) -> bool:
        """``seat`` sees hand player ``player``'s cards (its own, or the captain's it advises)."""
        roles = state.roles
        return roles[player] == seat or (player == 1 and self._advises(seat)
                                         and roles[2] == seat)

    def _role(self, state: GameState, seat: int) -> str:
        return state.role_names[state.roles.index(seat)]

    # ------------------------------------------------------------------ the game's events

    def hand_started(self, state: GameState) -> None:
        self.state = state
        self.declared = {}
        self._laid = None
        if self.inner is not None:
            self.inner.hand_started(state)
        roles = state.roles
        for seat, player in self.players.items():
            seen = [p for p in (0, 1) if self._sees(state, seat, p)]
            with self._blame(seat):
                player.tell({
                    "type": "hand", "hand": state.hand, "dealer": roles[0],
                    "nondealer": roles[1], "sitter": roles[2] if len(roles) > 2 else None,
                    "role": self._role(state, seat), "advising": seen == [1] and roles[1] != seat,
                    "cards": _cards(state.hand_cards(seen[0])) if seen else [],
                    "upcard": card_str(state.upcard), "scores": list(state.scores)})

    def deciding(self, state: GameState) -> None:
        if self.inner is not None:
            self.inner.deciding(state)

    def moved(self, state: GameState, played: Played) -> None:
        if self.inner is not None:
            self.inner.moved(state, played)
        move = Move.of_code(played.move)
        for seat, player in self.players.items():
            event: dict[str, Any] = {"type": "move", "seat": played.seat,
                                     "by": played.decider, "move": move.kind}
            if move.kind == "draw_discard":
                event["card"] = _TEXT[played.top]
            elif move.kind == "draw_stock":
                event["card"] = (_TEXT[played.drawn]
                                 if self._sees(state, seat, played.player) else None)
            elif move.card is not None:
                event["card"] = move_str(move)
            with self._blame(seat):
                player.tell(event)

    def hand_ended(self, state: GameState, result: HandResult) -> None:
        if self.inner is not None:
            self.inner.hand_ended(state, result)
        roles = state.roles
        hands = {str(roles[p]): _cards(state.hand_cards(p)) for p in (0, 1)}
        message = {
            "type": "hand_end", "hand": state.hand,
            "result": {"end": result.end, "knocker": result.knocker, "winner": result.winner,
                       "points": result.points, "knocker_melds": result.knocker_melds,
                       "knocker_deadwood": result.knocker_deadwood,
                       "defender_melds": result.defender_melds,
                       "defender_deadwood": result.defender_deadwood,
                       "layoffs": layoff_targets(self._laid or result.knocker_melds,
                                                 result.layoffs, self._laid is not None)},
            "declared": {str(seat): melds for seat, melds in self.declared.items()},
            "hands": hands, "scores": list(result.scores)}
        for seat, player in self.players.items():
            with self._blame(seat):
                player.confirm(message)

    def showdown(self, state: GameState) -> None:
        """A knock, before it is scored: an outside defender is asked its melds
        (``showdown``), as the framework asks the defender's; the knocker's melds it sees are
        the ones the knocker declared, if any. Under ``showdown = "eaai"`` a knock with an
        outside player in it is then settled on the melds both sides declared (a ginbox
        bot's, or an outside player's that declared none: ginbox's least-deadwood melds); a
        declaration the framework refuses forfeits its side."""
        roles = state.roles
        result = hand_result(state.bufs.hs, roles[:2])
        knocker = result["knocker"]
        assert knocker is not None
        defender = roles[1 - roles.index(knocker)]
        hands = {str(roles[p]): _cards(state.hand_cards(p)) for p in (0, 1)}
        if knocker in self.declared:
            with self._blame(knocker):
                self.declared[knocker] = declared_melds(self.declared[knocker],
                                                        hands[str(knocker)])
        if defender in self.players:
            message = {"type": "showdown", "knocker": knocker,
                       "knocker_melds": self.declared.get(knocker, result["knocker_melds"]),
                       "cards": hands[str(defender)]}
            with self._blame(defender):
                melds = self.players[defender].lay_out(message)
                if melds is not None:  # none declared: the others are told ginbox's
                    self.declared[defender] = declared_melds(melds, hands[str(defender)])
        if self.rules.showdown == "eaai" and (knocker in self.players
                                               or defender in self.players):
            self._settle_declared(state, knocker, defender, hands)

    def _settle_declared(self, state: GameState, knocker: int, defender: int,
                         hands: Mapping[str, list[str]]) -> None:
        """The framework's showdown on the declared melds; its refusal forfeits the side."""
        melds = {seat: self.declared[seat] if seat in self.declared
                 else bot_declared_melds(hands[str(seat)]) for seat in (knocker, defender)}
        outcome = state.settle_declared(melds[knocker], melds[defender])
        if outcome >= 0:  # its layoffs are told onto the melds in the order laid
            self._laid = melds[knocker]
            return
        try:  # the framework's reason, in words
            settle_declared(hands[str(knocker)], hands[str(defender)], melds[knocker],
                            melds[defender], self.rules, state.upcard)
            reason = "declared melds the framework refuses"
        except IllegalMelds as exc:
            reason = str(exc)
        offender = knocker if outcome == OUTCOME_ILLEGAL else defender
        assert offender in self.players, "a ginbox bot declares its least-deadwood melds"
        with self._blame(offender):
            raise OutsideFault(reason)

    def end_game(self, winner: int, scores: Sequence[int],
                 ended_by: Mapping[str, Any] | None = None) -> None:
        """Tell every program the game is over (a failed one is not told)."""
        failed = ended_by["seat"] if ended_by else None
        for seat, player in self.players.items():
            if seat == failed:
                continue
            with self._blame(seat):
                player.tell({"type": "game_end", "winner": winner, "scores": list(scores),
                             "ended_by": dict(ended_by) if ended_by else None})
                player.flush()

    # ------------------------------------------------------------------ decisions

    def decide(self, state: GameState) -> int:
        """The deciding outside seat's move, asked with the legal moves."""
        seat = state.seat
        assert seat is not None and state.hand_player is not None
        p = state.hand_player
        pile = state.discard_pile
        message = {"type": "decision", "decision": state.decision,
                   "legal": state.legal_move_names(), "seat": seat, "for": state.roles[p],
                   "cards": _cards(state.hand_cards(p)),
                   "top": _TEXT[pile[-1]] if pile else None, "stock": state.stock_left}
        player = self.players[seat]
        with self._blame(seat):
            move = player.decide(message)
            if move == "knock" and "melds" in player.last_answer:  # told to the others
                self.declared[state.roles[p]] = declared_melds(player.last_answer["melds"],
                                                               None)
        return move_code(move)


class _Blame:
    """Within it, an outside player's failure is a :class:`SeatFault` of its seat, and the
    program is stopped (the next game starts it again)."""

    def __init__(self, seat: int, player: OutsidePlayer) -> None:
        self.seat, self.player = seat, player

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> None:
        if isinstance(exc, OutsideFault):
            self.player.fail()
            raise SeatFault(self.seat, exc.reason) from None


# --------------------------------------------------------------------------------- forfeits


def awarded_to(state: GameState, offender: int) -> int:
    """Who wins a game forfeit by ``offender``: the other side of the hand in play (the
    opposing hand player; the box when the captain's advisor failed), else the other seat
    with the most points (a tie: the lower seat)."""
    roles = state.roles
    if state.in_hand and roles:
        if offender in roles[:2]:
            return roles[1 - roles.index(offender)]
        if len(roles) > 2 and roles[2] == offender and state.rules.team_policy == "advisor":
            return roles[0]
    scores = state.scores
    others = [s for s in range(state.rules.players) if s != offender]
    return max(others, key=lambda s: (scores[s], -s))


def forfeit(state: GameState | None, rules: Rules, names: Sequence[str], game: int,
            fault: SeatFault) -> tuple[np.ndarray, list[HandRecord], int]:
    """The game ended by ``fault``: its statistics row (``error`` = 1 + the offender's seat),
    its hand log with ``ended_by`` on the last line, and the winner."""
    from sim.engine.game import GO_LEN

    ended_by = {"seat": fault.seat, "reason": fault.reason}
    if state is None:  # failed before the first deal: no hand to log
        winner = min(s for s in range(rules.players) if s != fault.seat)
        row = np.zeros(GO_LEN, np.int64)
        row[0], row[GO_ERROR] = winner, 1 + fault.seat
        return row, [], winner
    winner = awarded_to(state, fault.seat)
    b = state.bufs
    gs = b.gs.copy()
    ended = game_fields(gs)
    ended.over, ended.winner = 1, winner
    records = list(state.records)
    scores = [int(v) for v in ended.score[:rules.players]]
    if state.in_hand:
        record = hand_record(rules, names, game, state.hand, state.roles, dealt=b.deck,
                             hs=b.hs, moves=b.moves, gs=gs)
        record["result"] = {"end": FORFEIT, "knocker": None, "knocker_melds": [],
                            "knocker_deadwood": None, "defender_melds": [], "layoffs": [],
                            "defender_deadwood": None, "winner": None, "points": 0}
        records.append(record)
    elif records:
        records[-1] = cast(HandRecord, dict(records[-1]))  # a copy: the state keeps its own
    if records:
        last = records[-1]
        last["game_over"], last["game_winner"], last["final_scores"] = True, winner, scores
        last["ended_by"] = ended_by
    row = state.stats_row.copy()
    record_game(row, gs)
    row[GO_ERROR] = 1 + fault.seat
    return row, records, winner
