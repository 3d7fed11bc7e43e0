"""A logged hand told the way a card player would: :func:`render_hand`.

It prints a hand move by move: the seats and their roles, both hands in hand order
(:func:`sim.engine.cards.fan`: by suit, A 2 .. 9 T J Q K within a suit),
every draw and discard (stock cards are known from the deal), the knock, the showdown with
melds, layoffs and deadwood, who scored what and why, and the scores after it.
:func:`sim.records.replay.replay_hand` adds it to its verdict.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sim.engine.cards import card_str, fan, parse_card
from sim.engine.melds import min_deadwood
from sim.engine.rules import Rules
from sim.engine.variants import VARIANTS, played_by
from sim.records.log import check_record, rules_of


def _melds_text(melds: list[list[str]]) -> str:
    return " | ".join(" ".join(m) for m in melds) or "no melds"


def _role_names(record: Mapping[str, Any], players: int) -> dict[int, str]:
    if players == 3:
        names = {record["dealer"]: "Box", record["nondealer"]: "Captain"}
        if record["sitter"] is not None:
            names[record["sitter"]] = "Sitter"
        return names
    return {record["dealer"]: "Dealer", record["nondealer"]: "Non-dealer"}


def render_hand(record: Mapping[str, Any], previous: Mapping[str, Any] | None = None,
                next_roles: tuple[int, int, int | None] | None = None,
                names: Mapping[int, str] | None = None) -> str:
    """A logged hand, move by move, as a card player would tell it.

    ``previous`` (the game's previous record) adds the scores before the hand; ``next_roles``
    (from :func:`replay_hand`) adds who holds which role next; ``names`` calls seats by a
    name instead of ``seat N, strategy`` (the terminal seat's ``{0: "you"}``).
    """
    check_record(record)
    rules = rules_of(record)
    seats = record["seats"]
    role = _role_names(record, rules.players)
    names = names or {}

    def who(seat: int) -> str:
        name = seats[seat] if 0 <= seat < len(seats) else "?"
        return f"{role.get(seat, 'Seat')} ({names.get(seat, f'seat {seat}, {name}')})"

    def called(seat: int) -> str:
        return names.get(seat, f"seat {seat} ({seats[seat] if seat < len(seats) else '?'})")

    out = _header_lines(record, rules, previous)
    d = record["deal"]
    dealer, nondealer = record["dealer"], record["nondealer"]
    hands = {dealer: [parse_card(c) for c in d["dealer"]],
             nondealer: [parse_card(c) for c in d["nondealer"]]}
    stock = [parse_card(c) for c in d["stock"]]
    out += _deal_lines(rules, role, hands, (dealer, nondealer), stock, parse_card(d["upcard"]))
    play, top = _play_lines(record["moves"], hands, stock, parse_card(d["upcard"]), who, role)
    out += play
    out.extend(_render_result(record, rules, hands, who, role, stock, top))
    out += _closing_lines(record, rules, who, called, next_roles)
    return "\n".join(out)


def _header_lines(record: Mapping[str, Any], rules: Rules, previous: Mapping[str, Any] | None
                  ) -> list[str]:
    """The hand's rules, who holds which role and the scores before it."""
    seats, n = record["seats"], rules.players
    dealer, nondealer, sitter = record["dealer"], record["nondealer"], record["sitter"]
    out: list[str] = []
    extras = [f"gin bonus {rules.gin_bonus}", f"undercut bonus {rules.undercut_bonus}",
              f"knock limit {rules.knock_limit}", f"target {rules.target}"]
    for variant in VARIANTS:  # what each variant played changes
        extras += variant.rules_notes(rules)
    if n == 3 and rules.team_policy != "captain":  # who decides for the captain
        extras.append(f"team policy {rules.team_policy}")
    out.append(f"Game {record['game']}, hand {record['hand']}: {record['rules']} rules "
               f"({', '.join(extras)})")
    if n == 3:
        out.append(f"  Box (deals):      seat {dealer}, {seats[dealer]}")
        out.append(f"  Captain:          seat {nondealer}, {seats[nondealer]}")
        if sitter is not None:
            advice = {"advisor": " (advises the captain, who follows the advice)",
                      "consensus": " (scores the captain's options with the captain's "
                                   "strategy, when both can)"}.get(rules.team_policy, "")
            out.append(f"  Sitting out:      seat {sitter}, {seats[sitter]}{advice}")
    else:
        out.append(f"  Dealer:           seat {dealer}, {seats[dealer]}")
        out.append(f"  Non-dealer:       seat {nondealer}, {seats[nondealer]}")
    if previous is not None and isinstance(previous.get("scores"), list):
        before = previous["scores"]
    elif record["hand"] == 0:
        before = [0] * len(seats)
    else:
        before = None
    if before is not None:
        out.append("  Scores before:    " + ", ".join(f"seat {s} {v}" for s, v in
                                                       enumerate(before)))
    return out


def _deal_lines(rules: Rules, role: dict[int, str], hands: dict[int, list[int]],
                order: tuple[int, int], stock: list[int], upcard: int) -> list[str]:
    """The two hands dealt, fanned with their deadwood, and the upcard."""
    width = max(len(role.get(s, "")) for s in hands) + 1
    out = ["Deal"]
    for seat in order:
        out.append(f"  {role.get(seat, ''):<{width}} {fan(hands[seat])}   "
                   f"(deadwood {min_deadwood(hands[seat])})")
    up_note = "".join(variant.upcard_note(rules, upcard) for variant in VARIANTS)
    out.append(f"  {'Upcard':<{width}} {card_str(upcard)}{up_note}; "
               f"{len(stock)} cards in the stock")
    return out


def _play_lines(moves: list[dict[str, Any]], hands: dict[int, list[int]], stock: list[int],
                upcard: int, who: Any, role: dict[int, str]) -> tuple[list[str], int]:
    """Every move told, the hands kept up to date; and how many stock cards were drawn."""
    out = ["Play"]
    pile = [upcard]
    top = 0  # next stock card
    taken_first = False
    knocked_hand: list[int] | None = None
    for i, m in enumerate(moves):
        seat = m["seat"]
        hand = hands.setdefault(seat, [])
        kind = m["move"]
        num = f"  {i + 1:>3}. {who(seat)} "
        if kind == "pass":
            out.append(num + f"passes on the upcard {card_str(upcard)}")
        elif kind == "draw_discard":
            if not pile:
                out.append(num + "takes from the empty discard pile (!)")
                continue
            card = pile.pop()
            hand.append(card)
            if not taken_first and card == upcard and i < 2:
                out.append(num + f"takes the upcard {card_str(card)}")
            else:
                out.append(num + f"takes {card_str(card)} from the discard pile")
        elif kind == "draw_stock":
            forced = i == 2 and all(x["move"] == "pass" for x in moves[:2])
            if top >= len(stock):
                out.append(num + "draws from the empty stock (!)")
                continue
            card = stock[top]
            top += 1
            hand.append(card)
            note = (f" (both passed the upcard, so the {role.get(seat, 'non-dealer').lower()} "
                    "starts)") if forced else ""
            out.append(num + f"draws {card_str(card)} from the stock{note}   "
                       f"[{len(stock) - top} left]")
        elif kind == "knock":
            knocked_hand = list(hand)
            out.append(num + f"knocks, holding {fan(hand)}")
        elif kind == "discard":
            card = parse_card(m["card"])
            flag = "" if card in hand else " (not in the hand!)"
            if card in hand:
                hand.remove(card)
            pile.append(card)
            tail = " and lays down the hand" if knocked_hand is not None and \
                i > 0 and moves[i - 1]["move"] == "knock" else ""
            out.append(num + f"discards {card_str(card)}{tail}{flag}")
        taken_first = taken_first or kind in ("draw_discard", "draw_stock")
    return out, top


def _closing_lines(record: Mapping[str, Any], rules: Rules, who: Any, called: Any,
                   next_roles: tuple[int, int, int | None] | None) -> list[str]:
    """The scores after the hand, the end of the game or match, or the next hand's roles."""
    out: list[str] = []
    scores = record["scores"]
    # a variant's object in the record (a score sheet) tells the scores and the end
    sheet, sheet_variant = next(((record.get(v.record_key), v) for v in played_by(rules)
                                 if v.record_key is not None and v.score_lines is not None),
                                (None, None))
    if sheet_variant is not None and sheet_variant.score_lines is not None and isinstance(
            sheet, dict):
        out.extend(sheet_variant.score_lines(sheet, rules))
    else:
        out.append("Scores after the hand: " + ", ".join(
            f"{called(s)} {v}" for s, v in enumerate(scores)) + f"   (target {rules.target})")
    if record.get("ended_by") is not None:
        out.append(f"Game over: {who(record['game_winner'])} wins by forfeit.")
    elif (sheet is not None and sheet_variant is not None and sheet_variant.game_over_line
          is not None and record["game_over"] and record["game_winner"] is not None):
        out.append(sheet_variant.game_over_line(record, who(record["game_winner"])))
    elif record["game_over"] and record["game_winner"] is not None:
        gw = record["game_winner"]
        out.append(f"Game over: {who(gw)} reaches {rules.target} and wins the game.")
        if rules.hand_bonus or rules.game_bonus or rules.shutout_bonus:
            out.append("  (the end-of-game bonuses of these rules come on top of these scores)")
    elif next_roles is not None:
        nd, nn, ns = next_roles
        if rules.players == 3:
            out.append(f"Next hand: box seat {nd}, captain seat {nn}, sitter seat {ns}.")
        else:
            out.append(f"Next hand: seat {nd} deals.")
    return out


def _render_result(record: Mapping[str, Any], rules: Rules, hands: dict[int, list[int]],
                   who: Any, role: dict[int, str], stock: list[int], top: int) -> list[str]:
    """The end of the hand: the wall or turn limit, or the showdown and its arithmetic."""
    r = record["result"]
    end = r["end"]
    out: list[str] = []
    ended_by = record.get("ended_by")
    if ended_by is not None:  # a player's fault ended the game (docs/outside-players.md)
        out.append(f"End of the game: {who(ended_by['seat'])} failed ({ended_by['reason']}) "
                   f"and forfeits; the game goes to {who(record['game_winner'])}.")
        if end == "forfeit":
            return out
    if end in ("draw", "turn_limit"):
        if end == "draw":
            out.append(f"End: only {len(stock) - top} cards are left in the stock, the wall: "
                       "the hand is a draw. No points; the same dealer deals again.")
        else:
            out.append(f"End: the hand reached the turn limit ({rules.max_turns} turns) and is "
                       "a draw. No points; the same dealer deals again.")
        for seat, cards in hands.items():
            out.append(f"  {role.get(seat, 'Seat')} holds {fan(cards)}")
        return out
    knocker = r["knocker"]
    defender = next((s for s in hands if s != knocker), None)
    k_cards = hands.get(knocker, [])
    d_cards = hands.get(defender, []) if defender is not None else []
    k_melded = {parse_card(c) for m in r["knocker_melds"] for c in m}
    d_melded = {parse_card(c) for m in r["defender_melds"] for c in m}
    laid = {parse_card(c) for c in r["layoffs"]}
    k_dead = [c for c in k_cards if c not in k_melded]
    d_dead = [c for c in d_cards if c not in d_melded and c not in laid]
    kd, dd = r["knocker_deadwood"], r["defender_deadwood"]
    kname = role.get(knocker, "Knocker")
    dname = role.get(defender if defender is not None else -1, "Defender")
    out.append(f"Showdown ({end})")
    out.append(f"  {who(knocker)} lays down {_melds_text(r['knocker_melds'])}; "
               f"deadwood {fan(k_dead) if k_dead else 'none'} = {kd}")
    layoff_text = (f"; lays off {' '.join(r['layoffs'])}" if r["layoffs"] else
                   ("; no layoffs against gin" if end == "gin" else "; nothing to lay off"))
    out.append(f"  {who(defender) if defender is not None else 'Defender'} lays down "
               f"{_melds_text(r['defender_melds'])}{layoff_text}; "
               f"deadwood {fan(d_dead) if d_dead else 'none'} = {dd}")
    pts = r["points"]
    if end == "gin":
        base = f"{dd} ({dname.lower()}'s deadwood) + {rules.gin_bonus} (gin bonus)"
        raw = (dd or 0) + rules.gin_bonus
        scorer = kname
        why = f"{kname} goes gin"
    elif end == "knock":
        base = f"{dd} ({dname.lower()}'s deadwood) - {kd} (own deadwood)"
        raw = (dd or 0) - (kd or 0)
        scorer = kname
        why = f"{kname} knocks with less deadwood"
    else:
        base = (f"{rules.undercut_bonus} (undercut bonus) + {kd} ({kname.lower()}'s deadwood) "
                f"- {dd} (own deadwood)")
        raw = rules.undercut_bonus + (kd or 0) - (dd or 0)
        scorer = dname
        why = f"{dname} undercuts (the knocker's deadwood is not lower)"
    sum_text = f"{base} = {raw}"
    upcard = parse_card(record["deal"]["upcard"])
    if rules.spade_doubling and upcard < 16:
        sum_text += f", doubled for the spade upcard = {2 * raw}"
    out.append(f"  {why}: {scorer.lower()} scores {sum_text}.")
    if r["winner"] is not None and record["sitter"] is not None and scorer == "Captain":
        out.append("  The captain scores for the team; the player sitting out never scores.")
    expected = raw * (2 if rules.spade_doubling and upcard < 16 else 1)
    if pts != expected:
        out.append(f"  (the record says {pts} points)")
    return out
