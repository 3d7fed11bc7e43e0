"""mc's keep model: the facts of a discard and a take, the records' labels, the compiled pass
against PyTorch's, the fast rule as a special case, what the shipped model learned, the
rollouts reading it, the training file's checks; the keep and knock trainings' rerun and
resume."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sim.engine.cards import parse_card, parse_cards
from sim.engine.hand import (
    AF_TIES,
    AFTER_LEN,
    DEC_DISCARD,
    DEC_DRAW,
    DEC_OFFER,
    HS_DISCARDED,
    HS_DRAWN,
    HS_FORBID_TAKEN,
    HS_HAND,
    HS_LEN,
    HS_PHASE,
    HS_PILE_LEN,
    HS_PILE_MASK,
    HS_STOCK_TOP,
    HS_TAKEN,
    HS_TO_MOVE,
    HS_TOOK,
    HS_TURNS,
    MOVE_DRAW_DISCARD,
    MOVE_DRAW_STOCK,
    PH_DISCARD,
    PH_KNOCK_DISCARD,
    best_legal_after,
    deadwood_table,
    forget_after,
)
from sim.engine.melds import min_deadwood_mask, pick_highest
from sim.engine.view import V_KNOCK_LIMIT, V_LEN, V_OPP_GINS, V_PLAYERS, V_TARGET
from sim.learn.belief_spec import build_belief
from sim.learn.keep import M_PLAYER, play_chunk
from sim.learn.spec import load_any_training
from strategies.builtin import SCRATCH_LEN, in_some_best_meld
from strategies.mc_keep import (
    C_COST,
    C_DRAWN,
    C_FAST,
    C_FEEDS,
    C_NEAR1,
    C_NEAR2,
    C_OTHER_THREW,
    C_PAIRS,
    C_PILE_NEAR,
    C_PILE_RANK,
    C_POINTS,
    C_STOCK,
    CARD_INPUT_NAMES,
    KEEP_FILE,
    KEEP_META,
    KEEP_WEIGHTS,
    KEEP_WORK_LEN,
    N_CARD_FACTS,
    N_CARD_INPUTS,
    N_STYLE_INPUTS,
    N_TAKE_FACTS,
    N_TAKE_INPUTS,
    T_MELD,
    T_NEAR1,
    T_NEAR2,
    T_OFFER,
    T_OTHER_THREW,
    T_PAIRS,
    T_PILE_RANK,
    T_POINTS,
    T_STOCK,
    T_TOOK,
    T_TURNS,
    card_facts,
    card_scores_of,
    check_keep,
    model_discard,
    model_takes,
    pack,
    style_weights,
    take_facts,
    take_logits_of,
)
from strategies.mc_knock import F_GINS, F_LIMIT, F_PLAYERS, F_TARGET, N_FACTS
from strategies.mc_worlds import (
    S_KEEP_WORK,
    S_KNOCK_FACTS,
    load_keep_style,
    load_opponent_style,
    opponent_keep_move,
)

POPULATION = ("simple", "greedy-knock:knock_at=10")
"""One player who takes only into a meld, one who throws the fast rule's discard."""


def _state(hand: str, pile: str = "", other_took: str = "", other_threw: str = "",
           drawn: str | None = None, stock: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """A hand state with player 0 to move, and its pile array (the last card on top)."""
    hs = np.zeros(HS_LEN, np.int64)
    pile_cards = parse_cards(pile.split()) if pile else []
    hs[HS_HAND] = sum(1 << c for c in parse_cards(hand.split()))
    hs[HS_PILE_MASK] = sum(1 << c for c in pile_cards)
    hs[HS_PILE_LEN] = len(pile_cards)
    hs[HS_TOOK + 1] = sum(1 << c for c in parse_cards(other_took.split())) if other_took else 0
    hs[HS_DISCARDED + 1] = (sum(1 << c for c in parse_cards(other_threw.split()))
                            if other_threw else 0)
    hs[HS_DRAWN] = parse_card(drawn) if drawn else -1
    hs[HS_TAKEN] = -1
    hs[HS_FORBID_TAKEN] = 1
    hs[HS_STOCK_TOP] = 52 - stock
    hs[HS_TO_MOVE] = 0
    hs[HS_PHASE] = PH_DISCARD
    arr = np.zeros(52, np.int64)
    arr[:len(pile_cards)] = pile_cards
    return hs, arr


def _after() -> np.ndarray:
    after = np.zeros(AFTER_LEN, np.int64)
    after[:] = 1
    forget_after(after)
    return after


def test_a_discards_facts_are_what_the_cards_show() -> None:
    hs, _ = _state("5H 5S 5D 6H 7H KC QD 2C 9S TS JD", pile="5C 4H", other_took="4S",
                   other_threw="KD", drawn="9S", stock=17)
    after = _after()
    best = best_legal_after(hs, after)
    fast = pick_highest(after[AF_TIES])
    deadwood_table(hs[HS_HAND], -1, after)
    facts = np.zeros(N_CARD_FACTS, np.int64)

    def of(card: str) -> np.ndarray:
        c = parse_card(card)
        card_facts(hs, after, c, best, fast, facts)
        assert facts[C_COST] == min_deadwood_mask(hs[HS_HAND] & ~(1 << c)) - best
        assert facts[C_FAST] == (c == fast) and facts[C_STOCK] == 17
        return facts.copy()

    five = of("5H")  # 5S 5D beside it, 6H one away, 7H two; 5C and 4H in the pile
    assert (five[C_POINTS], five[C_PAIRS], five[C_NEAR1], five[C_NEAR2], five[C_PILE_RANK],
            five[C_PILE_NEAR], five[C_FEEDS], five[C_DRAWN]) == (5, 2, 1, 1, 1, 1, 0, 0)
    assert of("5S")[C_FEEDS] == 1  # the other player took 4S
    assert of("KC")[C_OTHER_THREW] == 1 and of("QD")[C_OTHER_THREW] == 1  # he threw KD
    assert of("QD")[C_NEAR1] == 1 and of("QD")[C_POINTS] == 10  # JD
    assert of("9S")[C_DRAWN] == 1 and of("9S")[C_NEAR1] == 1  # TS
    assert of("KC")[C_COST] == 0 and fast == parse_card("KC")  # the highest loose card


def test_a_takes_facts_are_what_the_cards_show() -> None:
    hs, pile = _state("5H 5S 6H 8H KC QD 2C 9S TS JD", pile="5C 4H 7H",
                      other_threw="7C")
    hs[HS_TOOK] = 1 << parse_card("QS")
    hs[HS_TURNS] = 9
    facts = np.zeros(N_TAKE_FACTS, np.int64)
    take_facts(hs, pile, DEC_DRAW, facts)  # 7H: a run 5H 6H 7H 8H
    assert (facts[T_MELD], facts[T_PAIRS], facts[T_NEAR1], facts[T_NEAR2], facts[T_POINTS],
            facts[T_STOCK], facts[T_TOOK], facts[T_TURNS], facts[T_OFFER], facts[T_PILE_RANK],
            facts[T_OTHER_THREW]) == (1, 0, 2, 1, 7, 20, 1, 9, 0, 0, 1)
    hs, pile = _state("5H 5S 6H 8H KC QD 2C 9S TS JD", pile="5C")
    take_facts(hs, pile, DEC_OFFER, facts)  # 5C: a set 5H 5S 5C
    assert (facts[T_MELD], facts[T_PAIRS], facts[T_OFFER]) == (1, 2, 1)
    hs, pile = _state("5H 5S 6H 8H KC QD 2C 9S TS JD", pile="3D")
    take_facts(hs, pile, DEC_DRAW, facts)
    assert (facts[T_MELD], facts[T_PAIRS], facts[T_NEAR1], facts[T_NEAR2]) == (0, 0, 0, 0)


@pytest.fixture(scope="module")
def shard():  # type: ignore[no-untyped-def]
    spec = build_belief({"name": "k", "model": "keep", "seed": 5, "tables": ["eaai"],
                         "games": 40, "chunk_size": 4, "holdout": 2,
                         "population": {"eaai": list(POPULATION)}})
    return play_chunk(spec, "eaai", 0, 1)


def test_records_label_each_take_and_discard_by_the_rule_that_made_it(shard) -> None:  # type: ignore[no-untyped-def]
    assert shard.games == 4 and len(shard.thrown) > 100 and len(shard.took) > 100
    take_player, discard_player = shard.take_meta[:, M_PLAYER], shard.discard_meta[:, M_PLAYER]
    assert set(take_player) == {0, 1} and set(discard_player) == {0, 1}
    # simple takes exactly the cards that fit a best meld
    simple = take_player == 0
    assert np.array_equal(shard.took[simple], shard.take_facts[simple, T_MELD])
    assert shard.took[simple].sum() > 0
    cards = shard.cards.astype(np.int64)
    rows = np.arange(len(shard.thrown))
    thrown = cards[rows, shard.thrown]
    # greedy-knock throws the fast rule's discard, always
    assert (thrown[discard_player == 1, C_FAST] == 1).all()
    # every row: 11 legal discards after a stock draw (the drawn card among them), 10 after
    # a pile card (it may not be thrown); one fast rule's card; the least cost is 0
    for r in rows:
        legal = cards[r, :shard.legal[r]]
        assert shard.legal[r] == (11 if legal[:, C_DRAWN].any() else 10)
        assert legal[:, C_FAST].sum() == 1 and legal[:, C_COST].min() == 0
        assert (legal[:, C_STOCK] == legal[0, C_STOCK]).all()
        assert 0 <= shard.thrown[r] < shard.legal[r]
    assert (shard.discard_style[:, F_TARGET] == 100).all()
    assert (shard.take_style[:, F_PLAYERS] == 2).all()


def test_compiled_scores_equal_pytorch(shard) -> None:  # type: ignore[no-untyped-def]
    torch = pytest.importorskip("torch")
    from sim.learn.keep import KeepNet, encode, keep_data, predict, to_flat

    torch.manual_seed(3)
    model = KeepNet(6)
    for p in model.parameters():
        torch.nn.init.normal_(p, std=0.5)
    weights = check_keep(to_flat(model))
    data = keep_data([shard], ("eaai",))
    data.take_style[::3, F_GINS] = 2  # styles that differ, so that the style layer matters
    data.discard_style[::3, F_GINS] = 2
    logits, scores = predict(model, encode(data))
    assert np.allclose(take_logits_of(weights, data.take_style, data.take_facts), logits,
                       atol=1e-4)
    for r in range(0, len(data.thrown), 7):
        n = data.legal[r]
        compiled = card_scores_of(weights, data.discard_style[r], data.cards[r, :n])
        assert np.allclose(compiled, scores[r, :n], atol=1e-4)
        assert np.isneginf(scores[r, n:]).all()


def _fast_rule_weights() -> np.ndarray:
    card = np.zeros((N_CARD_INPUTS, 2))
    card[CARD_INPUT_NAMES.index("fast"), 1] = 1.0
    take = np.zeros((N_TAKE_INPUTS, 2))
    take[0, 1], take[1, 1] = -1.0, 2.0
    return check_keep(pack(np.zeros((N_STYLE_INPUTS, 1)), np.zeros(1), card, take))


def test_weights_that_read_only_the_fast_rule_play_it() -> None:
    weights = _fast_rule_weights()
    work = np.zeros(KEEP_WORK_LEN, np.float64)
    style_weights(weights, np.zeros(N_FACTS, np.int64), work)
    facts = np.zeros(max(N_CARD_FACTS, N_TAKE_FACTS), np.int64)
    rng = np.random.default_rng(8)
    deck = [s * 16 + r for s in range(4) for r in range(13)]
    for _ in range(300):
        cards = rng.choice(deck, 13, replace=False)
        hs, pile = _state(" ".join(_name(c) for c in cards[:11]), pile=_name(cards[11]))
        after = _after()
        best_legal_after(hs, after)
        assert model_discard(hs, after, facts, work) == pick_highest(after[AF_TIES])
        hs[HS_HAND] &= ~(1 << int(cards[10]))  # ten cards, the pile's top on offer
        assert model_takes(hs, pile, DEC_DRAW, facts, work) == in_some_best_meld(
            hs[HS_HAND], int(cards[11]))


def _name(code: int) -> str:
    return "A23456789TJQK"[code % 16] + "SHDC"[code // 16]


def test_the_shipped_model_reads_the_cards() -> None:
    assert KEEP_FILE.exists() and KEEP_WEIGHTS.flags.writeable is False
    assert KEEP_META["command"] == "ginbox train" and KEEP_META["seed"] == 2030
    style = np.zeros(N_FACTS, np.int64)
    style[[F_TARGET, F_PLAYERS, F_LIMIT]] = 100, 2, 10

    def score(facts: dict[int, int]) -> float:
        row = np.zeros((1, N_CARD_FACTS), np.int64)
        row[0, C_STOCK] = 20
        for at, value in facts.items():
            row[0, at] = value
        return float(card_scores_of(KEEP_WEIGHTS, style, row)[0])

    # of two loose cards, he throws the one that leaves less deadwood, and keeps the one that
    # the other player collects (he took a card it goes with)
    assert score({C_POINTS: 8}) > score({C_COST: 3, C_POINTS: 8})
    assert score({C_POINTS: 8}) > score({C_POINTS: 8, C_FEEDS: 1})
    takes = np.zeros((2, N_TAKE_FACTS), np.int64)
    takes[:, [T_STOCK, T_TURNS, T_POINTS]] = 20, 10, 7
    takes[1, [T_MELD, T_NEAR1]] = 1, 2
    logits = take_logits_of(KEEP_WEIGHTS, np.stack([style, style]), takes)
    assert logits[0] < 0 < logits[1]  # he takes a 7 into a run, not a loose 7


def test_the_rollouts_play_the_opponent_by_the_model() -> None:
    view = np.zeros(V_LEN, np.int64)
    view[[V_OPP_GINS, V_TARGET, V_PLAYERS, V_KNOCK_LIMIT]] = 2, 100, 2, 10
    scratch = np.zeros(SCRATCH_LEN, np.int64)
    load_opponent_style(view, scratch)
    load_keep_style(scratch)
    work = np.zeros(KEEP_WORK_LEN, np.float64)
    style_weights(KEEP_WEIGHTS, scratch[S_KNOCK_FACTS:S_KNOCK_FACTS + N_FACTS], work)
    loaded = scratch.view(np.float64)[S_KEEP_WORK:S_KEEP_WORK + KEEP_WORK_LEN]
    assert np.array_equal(loaded[:N_CARD_INPUTS + N_TAKE_INPUTS],
                          work[:N_CARD_INPUTS + N_TAKE_INPUTS])
    hs, pile = _state("5H 5S 6H 8H KC QD 2C 9S TS JD", pile="5C")
    after = _after()
    hs[HS_TO_MOVE] = 0
    assert opponent_keep_move(DEC_DRAW, hs, pile, after, scratch) == MOVE_DRAW_DISCARD
    hs, pile = _state("5H 5S 6H 8H KC QD 2C 9S TS JD", pile="7C")
    hs[HS_TURNS] = 10
    assert opponent_keep_move(DEC_DRAW, hs, pile, after, scratch) == MOVE_DRAW_STOCK
    # after a knock, the fast rule's discard (the rules narrow it to the best)
    hs, _ = _state("5H 5S 5D 6H 7H 8H 2C 3C 4C AS KC")
    hs[HS_PHASE] = PH_KNOCK_DISCARD
    assert opponent_keep_move(DEC_DISCARD, hs, pile, _after(), scratch) == parse_card("KC")


def test_mc_with_the_keep_model_plays_legal_games_its_own_way() -> None:
    from sim.play.driver import play_games
    from sim.testing import check_strategy

    report = check_strategy("mc:opp_model=4,samples=8", presets=["eaai", "three-handed"],
                            games=1)
    assert report.hands > 0 and report.checks  # it raises on an illegal move
    runs = [play_games(["mc:samples=32,opp_model=" + m, "tuned@eaai"], "eaai", games=6,
                       seed=4, log=True) for m in ("3", "4")]
    assert [r["moves"] for r in runs[0].log] != [r["moves"] for r in runs[1].log]


def test_bad_weights_are_refused() -> None:
    good = _fast_rule_weights()
    with pytest.raises(ValueError, match="encoding"):
        check_keep(np.r_[np.float32(9), good[1:]])
    with pytest.raises(ValueError, match="hidden size"):
        check_keep(good[:-1])
    with pytest.raises(ValueError, match="not finite"):
        check_keep(np.r_[good[:-1], np.float32(np.nan)])


@pytest.mark.parametrize(("change", "message"), [
    ({"every": 4}, "unknown key"),
    ({"hidden": 17}, "hidden=17 is not valid: expected a layer size 1..16"),
    ({"games": 20}, "expected at least holdout=10"),
    ({"games": 20_000}, "discards: expected at most 1,500,000"),
    ({"model": "kept"}, "model='kept' is not valid"),
])
def test_bad_keep_files_are_refused_in_one_line(change: dict, message: str) -> None:
    data = {"name": "k", "model": "keep", "seed": 1, "tables": ["eaai"], "games": 500}
    data.update(change)
    with pytest.raises(ValueError, match=message) as err:
        load_any_training(data)
    assert "\n" not in str(err.value)


TINY_TRAININGS = {
    "keep": 'games = 4\nchunk_size = 1\nholdout = 2\nhidden = 3\nepochs = 2\nbatch = 64\n'
            'population = { eaai = ["simple", "greedy-knock:knock_at=10"] }\n',
    "knock": 'games = 8\nchunk_size = 2\nholdout = 2\nhidden = 4\nepochs = 2\n'
             'population = { eaai = ["greedy-knock:knock_at=10", "greedy-knock:knock_at=0"] }\n',
}


@pytest.mark.parametrize("model", ["keep", "knock"])
def test_training_twice_gives_the_same_weights(model: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    from sim.cli import main
    from sim.learn.keep import run_keep_training
    from sim.learn.knock import run_knock_training

    path = tmp_path / "k.toml"
    path.write_text(f'name = "k"\nmodel = "{model}"\nseed = 3\ntables = ["eaai"]\n'
                    + TINY_TRAININGS[model])
    # the command, in this process: what it compiles is what the test's other runs reuse
    assert main(["train", str(path), "--out", str(tmp_path / "a"), "--jobs", "1"]) == 0
    printed = capsys.readouterr().out
    assert f"{model} model written to" in printed and "| all |" in printed
    outs = []
    with np.load(tmp_path / "a" / f"{model}.npz") as f:
        outs.append(f[model])
    spec = load_any_training(path)
    run = run_keep_training if model == "keep" else run_knock_training
    # again from scratch, and resumed over the first run's recorded chunks (none played again)
    (tmp_path / "a" / f"{model}.npz").unlink()
    chunks = {p: p.stat().st_mtime_ns for p in (tmp_path / "a" / "data").iterdir()}
    assert len(chunks) == 4
    for name in ("b", "a"):
        run(spec, tmp_path / name, jobs=1, quiet=True)
        with np.load(tmp_path / name / f"{model}.npz") as f:
            outs.append(f[model])
    assert np.array_equal(outs[0], outs[1]) and np.array_equal(outs[0], outs[2])
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "a" / "data").iterdir()} == chunks
