"""Whole games: roles and the box rotation, scores, two-player mode, and the two drivers.

The game rules (initial roles, who deals, rotation after a win, a drawn hand keeping the roles,
who scores, the target and end bonuses, and Hollywood scoring's three games at once) live in
the compiled functions :func:`game_init`, :func:`start_hand` and :func:`end_hand`. Under
Hollywood scoring the unit played here (a "game" of the tables and logs) is the match of three
games; its winner has the highest total over the three (docs/rules.md, "Hollywood scoring").
Hollywood's sheet and kernels are its variant module's (``sim.engine.variants.hollywood``),
called here behind ``if rules[RI_HOLLYWOOD]`` on its block of the game state. Two loops use
them:

* ``sim.play.batch.play_batch_kernel`` plays a batch of games inside one compiled call,
  built-in strategies only, recording per-game statistics with :func:`record_hand` and
  :func:`record_game`;
* ``sim.play.state.GameState`` is one game as a Python object, stopping at the decisions
  its caller plays (a Python strategy, a person, a learning seat, OpenSpiel), with the same
  statistics and the hand log; the compiled environments of ``sim.env`` step tables alike.

Seats are numbered 0, 1, 2 (0, 1 in two-player mode). Roles: 0 the box (dealer), 1 the captain
(non-dealer), 2 the sitter. In a hand, hand player 0 is the dealer and 1 the non-dealer.
"""

from __future__ import annotations

import numpy as np

from sim.engine.cards import DECK
from sim.engine.hand import (
    END_DRAW,
    END_GIN,
    END_TURN_LIMIT,
    END_UNDERCUT,
    HS_END,
    HS_KNOCKER,
    HS_KNOCKER_DEADWOOD,
    HS_POINTS,
    HS_TURNS,
    HS_WINNER,
    deal,
)
from sim.engine.jit import kernel
from sim.engine.layout import Layout, Record
from sim.engine.rng import below
from sim.engine.rules import (
    RI_GAME_BONUS,
    RI_HAND_BONUS,
    RI_HOLLYWOOD,
    RI_INITIAL_ROLES,
    RI_PLAYERS,
    RI_SHUTOUT_BONUS,
    RI_SHUTOUT_DOUBLING,
    RI_TARGET,
    RI_TEAM_ADVISOR,
)
from sim.engine.variants import hollywood
from sim.engine.view import (
    GI_GINS,
    GI_HOLLYWOOD,
    GI_KNOCK_DEADWOOD,
    GI_KNOCKS,
    GI_PLAYERS,
    GI_SCORE,
    GI_SCORE_OTHER,
    GI_TARGET,
)

BOX = 0
CAPTAIN = 1
SITTER = 2

# Game state layout, declared once (offsets computed by Layout).
GS_LAYOUT = Layout("GS_", [
    ("ROLE_SEAT", 3),  # seat holding each role (sitter -1 in two-player mode)
    ("SCORE", 3),  # by seat: points from hands (what counts towards the target)
    ("HANDS_WON", 3),  # by seat
    ("HANDS", 1),  # hands played
    ("OVER", 1),
    ("WINNER", 1),
    ("BONUS", 3),  # by seat: end-of-game bonuses (hand, game, shutout)
    ("INITIAL_ROLE_SEAT", 3),
    ("PREV_BOX", 1),  # statistics bookkeeping: the box seat of the previous hand
    # by seat, how he ended hands this game (public: every showdown is shown to the table):
    ("KNOCKS", 3),  # hands he ended by knocking with deadwood (undercut or not)
    ("GINS", 3),  # hands he ended by going gin
    ("KNOCK_DEADWOOD", 3),  # the most deadwood he knocked with (0: no knock yet)
    # the rules variants' blocks: Hollywood scoring's sheet (sim.engine.variants.hollywood
    # .SHEET, as GS_HW_*; zero under standard scoring but for its winners, -1)
    *(("HW_" + name, size) for name, size in hollywood.SHEET.pieces),
])
(GS_ROLE_SEAT, GS_SCORE, GS_HANDS_WON, GS_HANDS, GS_OVER, GS_WINNER, GS_BONUS,
 GS_INITIAL_ROLE_SEAT, GS_PREV_BOX, GS_KNOCKS, GS_GINS, GS_KNOCK_DEADWOOD, GS_HW_OPENED,
 GS_HW_SCORE, GS_HW_HANDS_WON, GS_HW_WINNER, GS_HW_FINAL) = GS_LAYOUT.offsets
GS_LAYOUT.check(globals())
GS_LEN = GS_LAYOUT.length
_SHEET_END = GS_HW_OPENED + hollywood.SHEET.length
_FACTS_END = GI_HOLLYWOOD + hollywood.FACTS.length
#: Each rules variant's block of the game state, by variant name (its Python hooks read it:
#: the hand log's object).
STATE_BLOCKS: dict[str, slice] = {"hollywood": slice(GS_HW_OPENED, _SHEET_END)}


def game_fields(gs: np.ndarray) -> Record:
    """The game state by name (``game.score[seat]``, ``game.over``, writable): how Python code
    reads ``gs``, so the ``GS_*`` offsets stay inside compiled code."""
    return GS_LAYOUT.record(gs)

# Per-game statistics: one int64 row per game, one column per name below. Seat columns end in
# the seat number; "pair_*_<b><c>" count hands with seat b in the box and seat c as captain.
GAME_COLUMNS: list[str] = (
    ["winner", "hands", "turns"]
    + [f"score_{s}" for s in range(3)]  # hand points, which count towards the target
    + [f"final_{s}" for s in range(3)]  # hand points plus end-of-game bonuses
    + ["initial_box", "initial_captain", "initial_sitter"]
    + ["end_none", "knocks", "gins", "undercuts", "draws", "turn_limits"]  # by END_* code
    + ["box_knock_wins", "box_gins", "box_undercut_wins"]  # hands the box won, by how
    + ["captain_knock_wins", "captain_gins", "captain_undercut_wins"]
    + ["box_knocks", "captain_knocks", "box_points", "captain_points"]
    + [f"box_hands_{s}" for s in range(3)]  # hands played in the box, by seat
    + [f"box_wins_{s}" for s in range(3)]  # hands won in the box, by seat
    + [f"box_runs_{s}" for s in range(3)]  # separate spells in the box, by seat
    + [f"hands_won_{s}" for s in range(3)]
    + [f"knocks_{s}" for s in range(3)]  # knocks by seat (won or undercut)
    + [f"gins_{s}" for s in range(3)]  # gins by seat
    + [f"undercut_wins_{s}" for s in range(3)]  # hands won by seat as an undercutting defender
    + [f"pair_hands_{b}{c}" for b in range(3) for c in range(3)]
    + [f"pair_box_wins_{b}{c}" for b in range(3) for c in range(3)]
    # games of the match won, by seat: Hollywood's three, else 1 for the winner of the game
    + [f"games_won_{s}" for s in range(3)]
    + ["error"]  # non-zero if a built-in strategy made an illegal move (an engine bug)
)
GO_LEN = len(GAME_COLUMNS)
GO_WINNER = GAME_COLUMNS.index("winner")
GO_HANDS = GAME_COLUMNS.index("hands")
GO_TURNS = GAME_COLUMNS.index("turns")
GO_SCORE = GAME_COLUMNS.index("score_0")
GO_FINAL = GAME_COLUMNS.index("final_0")
GO_INITIAL_ROLE_SEAT = GAME_COLUMNS.index("initial_box")
GO_END = GAME_COLUMNS.index("end_none")
GO_WIN_BY_ROLE = GAME_COLUMNS.index("box_knock_wins")  # + 3 * role + (end - 1)
GO_KNOCKS_BY_ROLE = GAME_COLUMNS.index("box_knocks")  # + role
GO_POINTS_BY_ROLE = GAME_COLUMNS.index("box_points")  # + role
GO_SEAT_BOX_HANDS = GAME_COLUMNS.index("box_hands_0")
GO_SEAT_BOX_WINS = GAME_COLUMNS.index("box_wins_0")
GO_SEAT_BOX_RUNS = GAME_COLUMNS.index("box_runs_0")
GO_SEAT_HANDS_WON = GAME_COLUMNS.index("hands_won_0")
GO_SEAT_KNOCKS = GAME_COLUMNS.index("knocks_0")
GO_SEAT_GINS = GAME_COLUMNS.index("gins_0")
GO_SEAT_UNDERCUT_WINS = GAME_COLUMNS.index("undercut_wins_0")
GO_PAIR_HANDS = GAME_COLUMNS.index("pair_hands_00")
GO_PAIR_BOX_WINS = GAME_COLUMNS.index("pair_box_wins_00")
GO_GAMES_WON = GAME_COLUMNS.index("games_won_0")
GO_ERROR = GAME_COLUMNS.index("error")
_COLUMN_INDEX = {name: i for i, name in enumerate(GAME_COLUMNS)}


def game_column(rows: np.ndarray, name: str) -> np.ndarray:
    """Column ``name`` of per-game statistics rows (one row per game, ``GAME_COLUMNS``, as
    the batch kernel and :class:`sim.play.state.GameState` write them): ``"winner"``,
    ``"knocks_1"``, ``"pair_hands_02"``, ... by name, as the tables of ``play_games`` show."""
    return rows[:, _COLUMN_INDEX[name]]


#: The six seatings (box, captain, sitter) of the rotation.
ROTATIONS = np.array([[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 2, 1], [1, 0, 2], [2, 1, 0]], np.int64)


@kernel
def shuffle_deck(deck: np.ndarray, rng: np.ndarray) -> None:
    """A fresh uniformly shuffled deck (Fisher-Yates from the game's deck stream)."""
    for i in range(52):
        deck[i] = DECK[i]
    for i in range(51, 0, -1):
        j = below(rng, i + 1)
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t


@kernel
def game_init(gs: np.ndarray, rules: np.ndarray, deck_rng: np.ndarray, rotate: int) -> None:
    """Initial roles: a uniform permutation of the seats (the card draw), unless fixed.

    ``rotate >= 0`` seats game ``rotate`` by the rotation instead: permutation ``rotate % n!``
    of the seats, so over every n! consecutive games each seat holds each initial role equally
    often. The draw always consumes the stream, so all seatings see the same decks.
    """
    for j in range(GS_LEN):
        gs[j] = 0
    n = rules[RI_PLAYERS]
    seats = gs[GS_ROLE_SEAT:GS_ROLE_SEAT + 3]  # shuffled in place: role r -> seat
    for r in range(3):
        seats[r] = r
    for i in range(n - 1, 0, -1):
        j = below(deck_rng, i + 1)
        t = seats[i]
        seats[i] = seats[j]
        seats[j] = t
    if rotate >= 0:
        k = rotate % (6 if n == 3 else 2)
        for r in range(n):
            seats[r] = ROTATIONS[k, r] if n == 3 else (k + r) % 2
    elif rules[RI_INITIAL_ROLES] >= 0:
        for r in range(n):
            seats[r] = rules[RI_INITIAL_ROLES + r]
    for r in range(3):
        if r >= n:
            seats[r] = -1
        gs[GS_INITIAL_ROLE_SEAT + r] = seats[r]
    gs[GS_WINNER] = -1
    start_variants(gs)


@kernel
def start_variants(gs: np.ndarray) -> None:
    """The rules variants' blocks of a new game's state (zeroed before): Hollywood's sheet
    with every game open. Under standard scoring the sheet stays so, all games open."""
    hollywood.start(gs[GS_HW_OPENED:_SHEET_END])


@kernel
def decider_seat(gs: np.ndarray, rules: np.ndarray, hand_player: int) -> int:
    """The seat whose strategy decides for a hand player (the sitter advises the captain)."""
    if hand_player == 1 and rules[RI_TEAM_ADVISOR] and rules[RI_PLAYERS] == 3:
        return gs[GS_ROLE_SEAT + SITTER]
    return gs[GS_ROLE_SEAT + hand_player]


@kernel
def start_hand(gs: np.ndarray, hs: np.ndarray, pile: np.ndarray, deck: np.ndarray,
               rules: np.ndarray, deck_rng: np.ndarray, game_info: np.ndarray) -> None:
    """Shuffle, deal, and fill the public game facts the views show."""
    shuffle_deck(deck, deck_rng)
    deal(hs, pile, deck, rules)
    fill_game_info(gs, rules, game_info)


@kernel
def fill_game_info(gs: np.ndarray, rules: np.ndarray, game_info: np.ndarray) -> None:
    """The public game facts of the views (scores by role, how each hand player ended hands
    this game, target, players, the Hollywood sheet) from the game state: what
    :func:`start_hand` shows each hand, and what a replay of a logged hand rebuilds from the
    record (``sim.records.replay.game_state_before``)."""
    for p in range(2):
        seat = gs[GS_ROLE_SEAT + p]
        game_info[GI_SCORE + p] = gs[GS_SCORE + seat]
        game_info[GI_KNOCKS + p] = gs[GS_KNOCKS + seat]
        game_info[GI_GINS + p] = gs[GS_GINS + seat]
        game_info[GI_KNOCK_DEADWOOD + p] = gs[GS_KNOCK_DEADWOOD + seat]
    sitter = gs[GS_ROLE_SEAT + SITTER]
    game_info[GI_SCORE_OTHER] = gs[GS_SCORE + sitter] if sitter >= 0 else 0
    game_info[GI_TARGET] = rules[RI_TARGET]
    game_info[GI_PLAYERS] = rules[RI_PLAYERS]
    if rules[RI_HOLLYWOOD]:
        hollywood.fill_facts(gs[GS_HW_OPENED:_SHEET_END], gs[GS_ROLE_SEAT:GS_ROLE_SEAT + 3],
                             game_info[GI_SCORE:GI_SCORE + 3], game_info[GI_HOLLYWOOD:_FACTS_END])
    elif game_info[GI_HOLLYWOOD]:  # a buffer last used under Hollywood scoring
        for j in range(GI_HOLLYWOOD, _FACTS_END):
            game_info[j] = 0


@kernel
def note_ending(gs: np.ndarray, hs: np.ndarray) -> None:
    """Count how the hand's knocker ended it (``GS_KNOCKS``, ``GS_GINS``, the most deadwood he
    knocked with): the public record of his play that the views show his opponents."""
    knocker = hs[HS_KNOCKER]
    if knocker < 0:
        return
    seat = gs[GS_ROLE_SEAT + knocker]
    if hs[HS_END] == END_GIN:
        gs[GS_GINS + seat] += 1
    else:
        gs[GS_KNOCKS + seat] += 1
        if hs[HS_KNOCKER_DEADWOOD] > gs[GS_KNOCK_DEADWOOD + seat]:
            gs[GS_KNOCK_DEADWOOD + seat] = hs[HS_KNOCKER_DEADWOOD]


@kernel
def end_hand(gs: np.ndarray, hs: np.ndarray, rules: np.ndarray) -> int:
    """Score the finished hand, rotate the roles, detect the end of the game.

    Returns the seat that scored, or -1 for a drawn hand.
    """
    gs[GS_HANDS] += 1
    end = hs[HS_END]
    note_ending(gs, hs)
    if end == END_DRAW or end == END_TURN_LIMIT:
        return -1  # no points, same roles, same dealer
    winner_player = hs[HS_WINNER]
    scorer = gs[GS_ROLE_SEAT + winner_player]
    gs[GS_HANDS_WON + scorer] += 1
    box = gs[GS_ROLE_SEAT + BOX]
    captain = gs[GS_ROLE_SEAT + CAPTAIN]
    if rules[RI_PLAYERS] == 3:
        sitter = gs[GS_ROLE_SEAT + SITTER]
        if winner_player == BOX:  # the box keeps the box; captain and sitter swap
            gs[GS_ROLE_SEAT + CAPTAIN] = sitter
            gs[GS_ROLE_SEAT + SITTER] = captain
        else:  # box sits out, captain takes the box, sitter becomes captain
            gs[GS_ROLE_SEAT + BOX] = captain
            gs[GS_ROLE_SEAT + CAPTAIN] = sitter
            gs[GS_ROLE_SEAT + SITTER] = box
    else:  # the deal passes to the other player
        gs[GS_ROLE_SEAT + BOX] = captain
        gs[GS_ROLE_SEAT + CAPTAIN] = box
    if rules[RI_HOLLYWOOD]:  # the hand goes on the sheet, which ends the match
        sheet = gs[GS_HW_OPENED:_SHEET_END]
        scores = gs[GS_SCORE:GS_SCORE + 3]
        if hollywood.enter(sheet, scores, rules, scorer, hs[HS_POINTS]):
            gs[GS_OVER] = 1
            gs[GS_WINNER] = hollywood.end_match(sheet, scores, gs[GS_BONUS:GS_BONUS + 3], rules)
        return scorer
    gs[GS_SCORE + scorer] += hs[HS_POINTS]
    if gs[GS_SCORE + scorer] >= rules[RI_TARGET]:
        gs[GS_OVER] = 1
        gs[GS_WINNER] = scorer
        n = rules[RI_PLAYERS]
        shutout = True
        for s in range(n):
            gs[GS_BONUS + s] = rules[RI_HAND_BONUS] * gs[GS_HANDS_WON + s]
            if s != scorer and gs[GS_SCORE + s] > 0:
                shutout = False
        gs[GS_BONUS + scorer] += rules[RI_GAME_BONUS]
        if shutout:
            gs[GS_BONUS + scorer] += rules[RI_SHUTOUT_BONUS]
            if rules[RI_SHUTOUT_DOUBLING]:  # the whole total doubles: add it once more
                gs[GS_BONUS + scorer] += gs[GS_SCORE + scorer] + gs[GS_BONUS + scorer]
    return scorer


@kernel
def record_hand(row: np.ndarray, gs: np.ndarray, hs: np.ndarray) -> None:
    """Add a finished hand to a game's statistics row (call before :func:`end_hand`)."""
    box = gs[GS_ROLE_SEAT + BOX]
    captain = gs[GS_ROLE_SEAT + CAPTAIN]
    end = hs[HS_END]
    row[GO_END + end] += 1
    row[GO_TURNS] += hs[HS_TURNS]
    row[GO_SEAT_BOX_HANDS + box] += 1
    if gs[GS_HANDS] == 0 or gs[GS_PREV_BOX] != box:
        row[GO_SEAT_BOX_RUNS + box] += 1
    gs[GS_PREV_BOX] = box
    row[GO_PAIR_HANDS + 3 * box + captain] += 1
    knocker = hs[HS_KNOCKER]
    if knocker >= 0:
        row[GO_KNOCKS_BY_ROLE + knocker] += 1
        row[GO_SEAT_KNOCKS + gs[GS_ROLE_SEAT + knocker]] += 1
    winner = hs[HS_WINNER]
    if winner >= 0:
        row[GO_WIN_BY_ROLE + 3 * winner + end - 1] += 1
        row[GO_POINTS_BY_ROLE + winner] += hs[HS_POINTS]
        if end == END_GIN:
            row[GO_SEAT_GINS + gs[GS_ROLE_SEAT + winner]] += 1
        elif end == END_UNDERCUT:
            row[GO_SEAT_UNDERCUT_WINS + gs[GS_ROLE_SEAT + winner]] += 1
    if winner == BOX:
        row[GO_SEAT_BOX_WINS + box] += 1
        row[GO_PAIR_BOX_WINS + 3 * box + captain] += 1


@kernel
def record_game(row: np.ndarray, gs: np.ndarray) -> None:
    """Write a finished game's winner, hands and scores to its statistics row."""
    row[GO_WINNER] = gs[GS_WINNER]
    row[GO_HANDS] = gs[GS_HANDS]
    sheet = gs[GS_HW_OPENED:_SHEET_END]
    for s in range(3):
        row[GO_SCORE + s] = gs[GS_SCORE + s]
        row[GO_FINAL + s] = gs[GS_SCORE + s] + gs[GS_BONUS + s]
        row[GO_SEAT_HANDS_WON + s] = gs[GS_HANDS_WON + s]
        row[GO_INITIAL_ROLE_SEAT + s] = gs[GS_INITIAL_ROLE_SEAT + s]
        row[GO_GAMES_WON + s] = hollywood.games_won(sheet, s)  # 0 under standard scoring
    if not hollywood.all_games_ended(sheet) and gs[GS_WINNER] >= 0:  # standard: the one game
        row[GO_GAMES_WON + gs[GS_WINNER]] = 1
