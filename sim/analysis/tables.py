"""The per-arm tables of a run: win rates, seat win rates, box retention and runs, outcomes.

Each function reads only the columns it needs, chunk by chunk (:mod:`sim.analysis.runs`), and
returns a tidy DataFrame whose rates carry ``n`` and a 95% interval
(:mod:`sim.analysis.statistics`). Kept apart from the paired comparisons, which need two arms
at once.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from sim.analysis.runs import Arm, arm_frames, arm_totals, arms_of, open_run, seat_sum
from sim.analysis.statistics import Ratio, wilson
from sim.runs.storage import RunResult

ROLES: tuple[str, ...] = ("box", "captain")


def win_rates(result: RunResult | str | Path) -> pd.DataFrame:
    """Game win rate of each strategy in each arm, with Wilson 95% intervals.

    A strategy may hold several seats (one-vs-two setups): a game counts as won when any seat
    holding it won, and the per-seat rate divides by the seats held, so every row reads against
    the same fair share 1/players.

    Columns:

    - ``arm``, ``arm_name``: the arm (number, name)
    - ``strategy``: strategy text as in the experiment
    - ``seats``: seats it holds at the table
    - ``games``: games played in the arm (``n``)
    - ``wins``: games won by a seat holding it
    - ``win_rate``, ``ci_low``, ``ci_high``: ``wins / games`` and its Wilson 95% interval
    - ``fair_share``: ``seats / players``, the win rate of a strategy no better than the field
    - ``vs_fair_share``: ``above`` / ``below`` when the interval excludes the fair share,
      else ``consistent``
    - ``per_seat_rate``, ``per_seat_ci_low``, ``per_seat_ci_high``: ``wins / (games * seats)``
      and its interval, to read against ``1 / players``
    """
    result = open_run(result)
    arms = arms_of(result)
    games = np.zeros(len(arms), np.int64)
    wins: dict[tuple[int, str], int] = {}
    totals = arm_totals(result)
    if totals is not None:
        for arm, t in zip(arms, totals, strict=True):
            games[arm.index] = t.games
            for strategy in arm.distinct():
                wins[(arm.index, strategy)] = t.wins(arm.seats(strategy))
    for a, frame in arm_frames(result, ["winner"]) if totals is None else ():
        winner = frame["winner"].to_numpy()
        games[a] += len(winner)
        arm = arms[a]
        for strategy in arm.distinct():
            key = (a, strategy)
            wins[key] = wins.get(key, 0) + int(np.isin(winner, arm.seats(strategy)).sum())
    rows = []
    for arm in arms:
        for strategy in arm.distinct():
            seats = len(arm.seats(strategy))
            rows.append({"arm": arm.index, "arm_name": arm.name, "strategy": strategy,
                         "seats": seats, "games": int(games[arm.index]),
                         "wins": wins.get((arm.index, strategy), 0),
                         "fair_share": seats / arm.players})
    df = pd.DataFrame(rows, columns=["arm", "arm_name", "strategy", "seats", "games", "wins",
                                     "fair_share"])
    n, k = df["games"].to_numpy(), df["wins"].to_numpy()
    low, high = wilson(k, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        df["win_rate"] = np.where(n > 0, k / np.maximum(n, 1), np.nan)
    df["ci_low"], df["ci_high"] = low, high
    df["vs_fair_share"] = np.select([df["ci_low"] > df["fair_share"],
                                     df["ci_high"] < df["fair_share"]],
                                    ["above", "below"], "consistent")
    seats = df["seats"].to_numpy()
    df["per_seat_rate"] = df["win_rate"] / seats
    df["per_seat_ci_low"] = df["ci_low"] / seats
    df["per_seat_ci_high"] = df["ci_high"] / seats
    return df[["arm", "arm_name", "strategy", "seats", "games", "wins", "win_rate", "ci_low",
               "ci_high", "fair_share", "vs_fair_share", "per_seat_rate", "per_seat_ci_low",
               "per_seat_ci_high"]]


def seat_win_rates(result: RunResult | str | Path) -> pd.DataFrame:
    """Game win rate of each seat, with Wilson 95% intervals: the control for self-play.

    Seats holding the same strategy should win equally often (with rotated seating every seat
    holds every initial role equally often), so in an arm of one strategy each seat should win
    ``1/players`` of games within its interval.

    Columns: ``arm``, ``arm_name``, ``seat``, ``strategy``, ``games`` (n), ``wins``,
    ``win_rate``, ``ci_low``, ``ci_high`` (Wilson 95%), ``fair_share`` (``1 / players``),
    ``vs_fair_share`` (``above``, ``below`` or ``consistent``).
    """
    result = open_run(result)
    arms = arms_of(result)
    games = np.zeros(len(arms), np.int64)
    wins = np.zeros((len(arms), 3), np.int64)
    totals = arm_totals(result)
    if totals is not None:
        for a, t in enumerate(totals):
            games[a] = t.games
            wins[a] = [t.wins([s]) for s in range(3)]
    for a, frame in arm_frames(result, ["winner"]) if totals is None else ():
        winner = frame["winner"].to_numpy()
        games[a] += len(winner)
        wins[a] += np.bincount(winner[winner >= 0], minlength=3)[:3]
    rows = [{"arm": arm.index, "arm_name": arm.name, "seat": seat, "strategy": strategy,
             "games": int(games[arm.index]), "wins": int(wins[arm.index, seat]),
             "fair_share": 1.0 / arm.players}
            for arm in arms for seat, strategy in enumerate(arm.strategies)]
    df = pd.DataFrame(rows, columns=["arm", "arm_name", "seat", "strategy", "games", "wins",
                                     "fair_share"])
    df = with_rate(df, "wins", "games").rename(columns={"rate": "win_rate"})
    df["vs_fair_share"] = np.select([df["ci_low"] > df["fair_share"],
                                     df["ci_high"] < df["fair_share"]],
                                    ["above", "below"], "consistent")
    return df[["arm", "arm_name", "seat", "strategy", "games", "wins", "win_rate", "ci_low",
               "ci_high", "fair_share", "vs_fair_share"]]


# --------------------------------------------------------------------------- box retention


def box_retention(result: RunResult | str | Path, pooled: bool = False) -> pd.DataFrame:
    """How often the box wins a hand (and so keeps the box), by box and captain strategy.

    Counted from the per-game ``pair_hands_<b><c>`` / ``pair_box_wins_<b><c>`` columns (hands
    with seat b in the box and seat c as captain) through each arm's seat -> strategy mapping.
    ``hands`` counts every hand of the pair, drawn ones included (a draw keeps the box but is
    not a win). In two-player mode the box is the dealer. Under ``team_policy = "advisor"`` the
    captain's decisions come from the sitter; ``captain_strategy`` is still the captain seat's.

    Columns (``pooled=False``): ``arm``, ``arm_name``, ``box_strategy``, ``captain_strategy``,
    ``hands`` (n), ``box_wins``, ``rate`` (``box_wins / hands``), ``ci_low``, ``ci_high``
    (Wilson 95%). With ``pooled=True`` arms that play the same rules are summed: ``arm`` and
    ``arm_name`` give way to ``rules`` (the rules label) and ``arms`` (how many arms were pooled):
    the box's chance depends on the two players in the hand, not on the sitter.
    """
    result = open_run(result)
    arms = arms_of(result)
    totals: dict[int, np.ndarray] = {}
    cols = [f"pair_{w}_{b}{c}" for w in ("hands", "box_wins") for b in range(3) for c in range(3)]
    stored = arm_totals(result)
    if stored is not None:
        totals = {a: np.array([t.sums[c] for c in cols], np.int64)
                  for a, t in enumerate(stored) if t.games}
    for a, frame in arm_frames(result, cols) if stored is None else ():
        sums = frame[cols].to_numpy(np.int64).sum(axis=0)
        totals[a] = totals.get(a, 0) + sums
    rows = []
    for arm in arms:
        sums = totals.get(arm.index, np.zeros(len(cols), np.int64))
        hands, box_wins = sums[:9].reshape(3, 3), sums[9:].reshape(3, 3)
        pairs: dict[tuple[str, str], list[int]] = {}
        for b in range(arm.players):
            for c in range(arm.players):
                if b == c:
                    continue
                key = (arm.strategies[b], arm.strategies[c])
                acc = pairs.setdefault(key, [0, 0])
                acc[0] += int(hands[b, c])
                acc[1] += int(box_wins[b, c])
        for (box, captain), (n, k) in pairs.items():
            rows.append({"arm": arm.index, "arm_name": arm.name, "box_strategy": box,
                         "captain_strategy": captain, "hands": n, "box_wins": k})
    df = pd.DataFrame(rows, columns=["arm", "arm_name", "box_strategy", "captain_strategy",
                                     "hands", "box_wins"])
    df = with_rate(df, "box_wins", "hands")
    return pool_box(df, arms) if pooled else df


def pool_box(per_arm: pd.DataFrame, arms: list[Arm]) -> pd.DataFrame:
    """Sum the per-arm box retention over arms that play the same rules."""
    labels = {arm.index: _group_label(arms, arm) for arm in arms}
    df = (per_arm.assign(rules=per_arm["arm"].map(labels))
          .groupby(["rules", "box_strategy", "captain_strategy"], sort=False)
          .agg(arms=("arm", "nunique"), hands=("hands", "sum"), box_wins=("box_wins", "sum"))
          .reset_index())
    return with_rate(df, "box_wins", "hands")


def _group_label(arms: list[Arm], arm: Arm) -> str:
    """A label for the arms sharing ``arm``'s rules (unique per group)."""
    keys = list(dict.fromkeys(a.rules_key for a in arms))
    first = next(a for a in arms if a.rules_key == arm.rules_key)
    label = first.rules_label
    clash = [k for k in keys if next(a for a in arms if a.rules_key == k).rules_label == label]
    return label if len(clash) == 1 else f"{label} #{clash.index(arm.rules_key) + 1}"


def with_rate(df: pd.DataFrame, k: str, n: str) -> pd.DataFrame:
    kk, nn = df[k].to_numpy(np.float64), df[n].to_numpy(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        df["rate"] = np.where(nn > 0, kk / nn, np.nan)
    df["ci_low"], df["ci_high"] = wilson(kk, nn)
    return df


def box_runs(result: RunResult | str | Path) -> pd.DataFrame:
    """Hands in the box, the chance to keep it, and how long a spell in the box lasts.

    A spell is a run of consecutive hands with the same seat in the box (a drawn hand continues
    it); ``mean_run`` is hands per spell (``box_hands_s / box_runs_s`` summed over the seats
    holding the strategy), with a normal 95% interval from game-to-game variation. Spells are
    cut short by the end of the game.

    Columns: ``arm``, ``arm_name``, ``box_strategy``, ``hands`` (n: hands it dealt in the box),
    ``box_wins``, ``rate``, ``ci_low``, ``ci_high`` (``box_wins / hands``, Wilson 95%),
    ``runs`` (spells), ``mean_run``, ``mean_run_ci_low``, ``mean_run_ci_high`` (hands per spell).
    """
    result = open_run(result)
    arms = arms_of(result)
    cols = [f"box_{w}_{s}" for w in ("hands", "wins", "runs") for s in range(3)]
    ratios: dict[tuple[int, str], Ratio] = {}
    wins: dict[tuple[int, str], int] = {}
    stored = arm_totals(result)
    for arm, t in zip(arms, stored or (), strict=False):
        for strategy in arm.distinct():
            seats = arm.seats(strategy)
            ratios.setdefault((arm.index, strategy), Ratio()).add_sums(*t.ratio_sums(
                [f"box_hands_{s}" for s in seats], [f"box_runs_{s}" for s in seats]))
            wins[(arm.index, strategy)] = t.total([f"box_wins_{s}" for s in seats])
    for a, frame in arm_frames(result, cols) if stored is None else ():
        arm = arms[a]
        for strategy in arm.distinct():
            seats = arm.seats(strategy)
            key = (a, strategy)
            ratios.setdefault(key, Ratio()).add(seat_sum(frame, "box_hands_", seats),
                                                seat_sum(frame, "box_runs_", seats))
            wins[key] = wins.get(key, 0) + int(seat_sum(frame, "box_wins_", seats).sum())
    rows = []
    for arm in arms:
        for strategy in arm.distinct():
            acc = ratios.get((arm.index, strategy), Ratio())
            mean, low, high = acc.estimate()
            rows.append({"arm": arm.index, "arm_name": arm.name, "box_strategy": strategy,
                         "hands": int(acc.sx), "box_wins": wins.get((arm.index, strategy), 0),
                         "runs": int(acc.sy), "mean_run": mean, "mean_run_ci_low": low,
                         "mean_run_ci_high": high})
    df = pd.DataFrame(rows, columns=["arm", "arm_name", "box_strategy", "hands", "box_wins",
                                     "runs", "mean_run", "mean_run_ci_low", "mean_run_ci_high"])
    df = with_rate(df, "box_wins", "hands")
    return df[["arm", "arm_name", "box_strategy", "hands", "box_wins", "rate", "ci_low",
               "ci_high", "runs", "mean_run", "mean_run_ci_low", "mean_run_ci_high"]]


# --------------------------------------------------------------------------- hand outcomes

# (role, outcome, column(s) summed): proportions of hands, Wilson intervals.
_OUTCOMES: list[tuple[str, str, tuple[str, ...]]] = [
    *[(role, outcome, cols)
      for role in ROLES
      for outcome, cols in (
          ("knock_win", (f"{role}_knock_wins",)),
          ("gin", (f"{role}_gins",)),
          ("undercut_win", (f"{role}_undercut_wins",)),
          ("win", (f"{role}_knock_wins", f"{role}_gins", f"{role}_undercut_wins")),
          ("knocked", (f"{role}_knocks",)))],
    ("any", "knock_win", ("knocks",)),
    ("any", "gin", ("gins",)),
    ("any", "undercut_win", ("undercuts",)),
    ("any", "draw", ("draws",)),
    ("any", "turn_limit", ("turn_limits",)),
]
# (role, outcome, numerator columns, denominator column or None for per game, unit).
_MEANS: list[tuple[str, str, tuple[str, ...], str | None, str]] = [
    ("box", "points", ("box_points",), "hands", "points per hand"),
    ("captain", "points", ("captain_points",), "hands", "points per hand"),
    ("any", "points", ("box_points", "captain_points"), "hands", "points per hand"),
    ("any", "hands_per_game", ("hands",), None, "hands per game"),
    ("any", "turns_per_hand", ("turns",), "hands", "turns per hand"),
]


def hand_outcomes(result: RunResult | str | Path) -> pd.DataFrame:
    """How hands end, by role (box, captain), per arm; points per hand; hands per game.

    One row per estimate (tidy). Outcomes, as proportions of all hands of the arm:
    ``knock_win`` (the knocker won without gin), ``gin``, ``undercut_win`` (the defender
    undercut the knocker), ``win`` (the role won the hand, any way), ``knocked`` (the role
    knocked, whatever the result); with role ``any``: every hand of that end, plus ``draw``
    (the wall) and ``turn_limit`` (the safety cap). Means: ``points`` (points the role scored
    per hand played), ``hands_per_game``, ``turns_per_hand``.

    Columns: ``arm``, ``arm_name``, ``role`` (``box``, ``captain`` or ``any``), ``outcome``,
    ``count`` (hands with the outcome, or the total of the measured quantity), ``n`` (hands, or
    games for ``hands_per_game``), ``unit``, ``rate`` (``count / n``), ``ci_low``, ``ci_high``,
    ``ci_method`` (``wilson`` for proportions, ``normal`` for means over games).
    """
    result = open_run(result)
    arms = arms_of(result)
    cols = sorted({c for _, _, cs in _OUTCOMES for c in cs}
                  | {c for _, _, cs, _, _ in _MEANS for c in cs} | {"hands"})
    sums: dict[int, pd.Series] = {}
    means: dict[tuple[int, int], Ratio] = {}
    stored = arm_totals(result)
    for a, t in enumerate(stored or ()):
        if not t.games:
            continue
        sums[a] = pd.Series({c: t.sums[c] for c in cols}, dtype=np.int64)
        for i, (_, _, num, den, _) in enumerate(_MEANS):
            means.setdefault((a, i), Ratio()).add_sums(*t.ratio_sums(num, [den] if den else None))
    for a, frame in arm_frames(result, cols) if stored is None else ():
        part = frame[cols].sum()
        sums[a] = sums[a] + part if a in sums else part
        for i, (_, _, num, den, _) in enumerate(_MEANS):
            x = frame[list(num)].to_numpy(np.int64).sum(axis=1)
            y = frame[den].to_numpy(np.int64) if den else None
            means.setdefault((a, i), Ratio()).add(x, y)
    rows = []
    for arm in arms:
        total = sums.get(arm.index, pd.Series(0, index=cols))
        hands = int(total["hands"])
        for role, outcome, num in _OUTCOMES:
            rows.append({"arm": arm.index, "arm_name": arm.name, "role": role,
                         "outcome": outcome, "count": int(sum(total[c] for c in num)),
                         "n": hands, "unit": "share of hands", "ci_method": "wilson"})
        for i, (role, outcome, _, den, unit) in enumerate(_MEANS):
            acc = means.get((arm.index, i), Ratio())
            value, low, high = acc.estimate()
            rows.append({"arm": arm.index, "arm_name": arm.name, "role": role,
                         "outcome": outcome, "count": int(acc.sx),
                         "n": int(acc.sy) if den else acc.n, "unit": unit, "rate": value,
                         "ci_low": low, "ci_high": high, "ci_method": "normal"})
    df = pd.DataFrame(rows, columns=["arm", "arm_name", "role", "outcome", "count", "n", "unit",
                                     "rate", "ci_low", "ci_high", "ci_method"])
    props = (df["ci_method"] == "wilson").to_numpy()
    k = df.loc[props, "count"].to_numpy(np.float64)
    n = df.loc[props, "n"].to_numpy(np.float64)
    low, high = wilson(k, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        df.loc[props, "rate"] = np.where(n > 0, k / n, np.nan)
    df.loc[props, "ci_low"] = low
    df.loc[props, "ci_high"] = high
    return df.astype({"rate": float, "ci_low": float, "ci_high": float})


#: Columns of :func:`hollywood_matches`.
HOLLYWOOD_TABLE_COLUMNS: list[str] = [
    "arm", "arm_name", "strategy", "seats", "matches", "match_wins", "match_win_rate",
    "ci_low", "ci_high", "games_won_per_match", "games_won_ci_low", "games_won_ci_high",
    "points_per_match", "points_ci_low", "points_ci_high"]


def is_hollywood(arm: Arm) -> bool:
    """Whether the arm was played under Hollywood scoring (three games a match)."""
    return arm.rules.get("scoring") == "hollywood"


def hollywood_matches(result: RunResult | str | Path) -> pd.DataFrame | None:
    """Per strategy in each Hollywood arm: matches won, games won and points per match.

    Under ``scoring = "hollywood"`` a stored game is a match of three games: its ``winner``
    has the highest total over the three (docs/rules.md), ``games_won_<s>`` counts the games
    of the three each seat won and ``final_<s>`` is the seat's total, bonuses included. A
    strategy holding several seats is counted per seat (its means divide by the seats).
    None when no arm is Hollywood (the columns read here are then not needed).

    Columns: ``arm``, ``arm_name``, ``strategy``, ``seats``, ``matches`` (n), ``match_wins``,
    ``match_win_rate``, ``ci_low``, ``ci_high`` (Wilson 95%), ``games_won_per_match`` (0..3,
    per seat) with ``games_won_ci_low``/``_high``, ``points_per_match`` (per seat) with
    ``points_ci_low``/``_high`` (normal 95% intervals over matches).
    """
    result = open_run(result)
    arms = [a for a in arms_of(result) if is_hollywood(a)]
    if not arms:
        return None
    wanted = {a.index for a in arms}
    cols = ["winner", *(f"{p}_{s}" for p in ("games_won", "final") for s in range(3))]
    wins: dict[tuple[int, str], int] = {}
    games: dict[int, int] = {}
    means: dict[tuple[int, str, str], Ratio] = {}
    for a, frame in arm_frames(result, cols):
        if a not in wanted:
            continue
        arm = next(x for x in arms if x.index == a)
        games[a] = games.get(a, 0) + len(frame)
        winner = frame["winner"].to_numpy()
        for strategy in arm.distinct():
            seats = arm.seats(strategy)
            wins[(a, strategy)] = (wins.get((a, strategy), 0)
                                   + int(np.isin(winner, seats).sum()))
            for prefix in ("games_won_", "final_"):
                means.setdefault((a, strategy, prefix), Ratio()).add(
                    seat_sum(frame, prefix, seats) / len(seats))
    rows = []
    for arm in arms:
        for strategy in arm.distinct():
            n = games.get(arm.index, 0)
            k = wins.get((arm.index, strategy), 0)
            low, high = wilson(k, n)
            gw = means.get((arm.index, strategy, "games_won_"), Ratio()).estimate()
            pts = means.get((arm.index, strategy, "final_"), Ratio()).estimate()
            rows.append([arm.index, arm.name, strategy, len(arm.seats(strategy)), n, k,
                         k / n if n else np.nan, float(low), float(high), *gw, *pts])
    return pd.DataFrame(rows, columns=HOLLYWOOD_TABLE_COLUMNS)


__all__ = ["HOLLYWOOD_TABLE_COLUMNS", "ROLES", "box_retention", "box_runs", "hand_outcomes",
           "hollywood_matches", "is_hollywood", "pool_box", "seat_win_rates", "win_rates",
           "with_rate"]


def forfeits(result: RunResult | str | Path) -> pd.DataFrame | None:
    """Games a player's fault ended (an outside player's, docs/outside-players.md), counted
    apart: one row per arm and seat that forfeited (``arm``, ``arm_name``, ``seat``,
    ``strategy``, ``forfeits``); None when no game ended so. The rows' ``error`` column holds
    1 + the offending seat; the stored sums say whether any did, so a run without one reads
    no rows."""
    result = open_run(result)
    totals = arm_totals(result)
    if totals is not None and not any(t.total(["error"]) for t in totals):
        return None
    arms = arms_of(result)
    counts: dict[tuple[int, int], int] = {}
    for a, frame in arm_frames(result, ["error"]):
        errors = frame["error"].to_numpy()
        for seat in range(arms[a].players):
            n = int((errors == seat + 1).sum())
            if n:
                counts[(a, seat)] = counts.get((a, seat), 0) + n
    if not counts:
        return None
    return pd.DataFrame([{"arm": a, "arm_name": arms[a].name, "seat": seat,
                          "strategy": arms[a].strategies[seat], "forfeits": n}
                         for (a, seat), n in sorted(counts.items())])
