"""The decision review: its walk over a logged hand, the judge's verdicts and labels, the table,
the summaries, the files and the command (``sim.review``, ``ginbox review``)."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pandas as pd
import pytest

from sim.analysis.positions import iter_decision_points, stage_of
from sim.cli import main
from sim.engine.rules import Rules
from sim.play.driver import play_games
from sim.records.log import write_log
from sim.review import decisions as review_table
from sim.review import review
from sim.review.judge import judge_point, judge_text, label_of
from sim.review.report import compare, error_rate, summary

GOLDEN = Path(__file__).parent / "golden"
FAST_JUDGE = "mc:samples=16"


@pytest.fixture(scope="module")
def eaai_log() -> list[dict]:
    return play_games("simple,tuned", rules="eaai", games=2, seed=3, log=True).log


def _golden(name: str) -> list[dict]:
    return [json.loads(line) for line in (GOLDEN / f"{name}.jsonl").read_text().splitlines()]


def test_the_walk_meets_every_logged_decision_and_the_declined_knocks() -> None:
    record = _golden("eaai")[0]
    points = list(iter_decision_points(record))
    # The first moves: both pass the upcard, the forced draw (no decision), then turns.
    assert [(p.index, p.kind, p.played, p.legal, p.seat, p.stock_left) for p in points[:5]] == [
        (0, "take", "pass", 2, 0, 31), (1, "take", "pass", 2, 1, 31),
        (3, "discard", "KS", 11, 0, 30), (4, "draw", "draw_stock", 2, 1, 30),
        (5, "discard", "JD", 11, 1, 29)]
    logged = [p for p in points if p.played != "no_knock"]
    moves = record["moves"]
    # Every logged move but the forced draw is a decision, played as the log says, by its seat.
    assert [p.index for p in logged] == [i for i in range(len(moves)) if i != 2]
    for p in logged:
        move = moves[p.index]
        assert p.played == (move["card"] if move["move"] == "discard" else move["move"])
        assert p.seat == move["seat"] == p.decider
    declined = [p for p in points if p.played == "no_knock"]
    assert len(declined) == 6
    assert all(p.kind == "knock" and moves[p.index]["move"] == "discard" for p in declined)


def test_stages_split_the_stock_in_thirds() -> None:
    assert [stage_of(n) for n in (31, 21, 20, 11, 10, 0)] == [
        "early", "early", "middle", "middle", "late", "late"]


def test_labels_start_at_the_documented_bars() -> None:
    assert [label_of(x) for x in (0.0, -0.01, 0.019, 0.02, 0.049, 0.05, 0.099, 0.10, 0.5)] == [
        "best", "good", "good", "inaccuracy", "inaccuracy", "mistake", "mistake", "blunder",
        "blunder"]


def test_the_judge_values_every_option_with_no_early_stop() -> None:
    assert judge_text("mc") == "mc:shortlist=11,stop=0,futile=0"
    assert judge_text("mc:samples=1024") == "mc:shortlist=11,stop=0,futile=0,samples=1024"
    assert judge_text("mc:stop=20") == "mc:shortlist=11,stop=20,futile=0"
    with pytest.raises(ValueError, match="the judge must be mc"):
        judge_text("tuned")
    with pytest.raises(ValueError, match="samples"):
        judge_text("mc:samples=5000")


def test_playing_the_judges_best_loses_nothing_and_a_forced_move_does_not_count(
        eaai_log: list[dict]) -> None:
    judge = judge_text(FAST_JUDGE)
    point = next(p for p in iter_decision_points(eaai_log[0]) if p.kind == "discard")
    verdict = judge_point(point, judge, seed=7, game=0, hand=0)
    assert len(verdict.values) == point.legal == 10  # every legal discard: not the upcard taken
    assert verdict.worlds == 16
    assert verdict.loss == pytest.approx(verdict.value_best - verdict.value_chosen)
    best = judge_point(dataclasses.replace(point, played=verdict.best), judge, 7, 0, 0)
    assert (best.loss, best.label, best.counted) == (0.0, "best", True)
    forced = judge_point(dataclasses.replace(point, legal=1), judge, 7, 0, 0)
    assert (forced.label, forced.counted, forced.loss, forced.worlds) == ("forced", False, 0, 0)


def test_a_review_is_the_same_for_any_workers_and_any_games_reviewed(
        eaai_log: list[dict]) -> None:
    both = review(eaai_log, judge=FAST_JUDGE, seed=5, quiet=True).decisions
    assert list(both.columns) == list(review_table.COLUMNS)
    parallel = review(eaai_log, judge=FAST_JUDGE, seed=5, jobs=2, quiet=True).decisions
    pd.testing.assert_frame_equal(both, parallel)
    second = [r for r in eaai_log if r["game"] == 1]
    alone = review(second, judge=FAST_JUDGE, seed=5, quiet=True).decisions
    pd.testing.assert_frame_equal(alone, both[both["game"] == 1].reset_index(drop=True))
    seat1 = review(eaai_log, seats=[1], judge=FAST_JUDGE, seed=5, quiet=True).decisions
    pd.testing.assert_frame_equal(seat1, both[both["seat"] == 1].reset_index(drop=True))
    assert set(both["strategy"]) == {"simple", "tuned@eaai"}
    assert set(both["role"]) == {"dealer", "non-dealer"}
    judged = both[both["label"] != "forced"]
    assert (judged["loss"] == judged["value_best"] - judged["value_chosen"]).all()
    assert (both.loc[both["chosen"] == both["best"], "loss"] == 0).all()


def test_an_advising_sitter_is_judged_for_the_captains_decisions() -> None:
    rules = Rules.preset("three-handed").replace(team_policy="advisor")
    log = play_games("simple,greedy-knock,tuned", rules=rules, games=1, seed=2, log=True).log
    rows = review(log[:1], judge=FAST_JUDGE, quiet=True).decisions
    captain = log[0]["nondealer"]
    advisor = log[0]["sitter"]
    advised = rows[rows["for_seat"] == captain]
    assert len(advised) > 0
    assert (advised["seat"] == advisor).all() and (advised["role"] == "advisor").all()
    assert (advised["team"] == "advisor").all()
    assert (advised["strategy"] == log[0]["seats"][advisor]).all()
    box = rows[rows["for_seat"] == log[0]["dealer"]]
    assert (box["role"] == "box").all() and (box["team"] == "").all()


def test_the_error_rate_and_its_interval_are_the_ratio_estimators() -> None:
    table = pd.DataFrame({"game": [0, 0, 1, 1, 1], "seat": [0] * 5,
                          "loss": [0.02, 0.0, 0.10, 0.0, 0.03], "counted": [True] * 5})
    rate, low, high, n = error_rate(table)
    assert n == 5 and rate == pytest.approx(1000 * 0.15 / 5)
    # clusters: y = (0.02, 0.13), m = (2, 3); u = y - r m = (-0.04, 0.04)
    se = math.sqrt(2 / 1 * (0.04 ** 2 + 0.04 ** 2)) / 5
    assert low == pytest.approx(1000 * (0.03 - 1.959963984540054 * se))
    assert high == pytest.approx(1000 * (0.03 + 1.959963984540054 * se))


def test_the_comparison_splits_the_gap_by_kind() -> None:
    table = pd.DataFrame({
        "game": [0, 0, 0, 1, 1, 1], "seat": [0, 0, 1, 0, 1, 1],
        "strategy": ["a", "a", "b", "a", "b", "b"],
        "kind": ["draw", "discard", "discard", "discard", "draw", "discard"],
        "loss": [0.04, 0.02, 0.01, 0.06, 0.0, 0.01], "counted": [True] * 6})
    gaps = compare(table, "a", "b").set_index("kind")
    assert list(gaps.index) == ["draw", "discard"]
    assert gaps.loc["draw", "a"] == pytest.approx(0.02)  # 0.04 over its 2 games
    assert gaps.loc["discard", "a"] == pytest.approx(0.04)
    assert gaps.loc["discard", "b"] == pytest.approx(0.01)
    assert gaps["share"].sum() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="no decisions of 'c'"):
        compare(table, "a", "c")
    s = summary(table.assign(label="good"), ("strategy",)).set_index("strategy")
    assert s.loc["a", "decisions"] == 3 and s.loc["a", "loss_per_game"] == pytest.approx(0.06)


def test_a_game_that_differs_from_the_rules_is_refused(eaai_log: list[dict]) -> None:
    edited = [dict(r) for r in eaai_log[:1]]
    edited[0]["result"] = dict(edited[0]["result"], points=edited[0]["result"]["points"] + 1)
    with pytest.raises(ValueError, match="game 0 hand 0 differs from the rules.*points"):
        review(edited, judge=FAST_JUDGE, quiet=True)
    with pytest.raises(ValueError, match="seat 2 is not a seat of this log"):
        review(eaai_log, seats=[2], judge=FAST_JUDGE, quiet=True)


def test_an_interrupted_review_resumes_to_the_same_files(
        eaai_log: list[dict], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "hands.jsonl"
    write_log(log, eaai_log)
    whole = review(log, judge=FAST_JUDGE, out=tmp_path / "whole", quiet=True)
    assert sorted(p.name for p in whole.files) == [
        "decisions.csv", "decisions.parquet", "report.md", "winprob-game-0.png",
        "winprob-game-1.png"]
    real = review_table.review_game

    def stop_at_game_1(records, *args):  # type: ignore[no-untyped-def]
        if records[0]["game"] == 1:
            raise KeyboardInterrupt
        return real(records, *args)

    monkeypatch.setattr(review_table, "review_game", stop_at_game_1)
    with pytest.raises(KeyboardInterrupt):
        review(log, judge=FAST_JUDGE, out=tmp_path / "cut", quiet=True)
    kept = (tmp_path / "cut" / "decisions.partial.jsonl").read_text().splitlines()
    assert [json.loads(line)["game"] for line in kept] == [0]
    assert not (tmp_path / "cut" / "decisions.parquet").exists()
    monkeypatch.setattr(review_table, "review_game", real)
    with pytest.raises(ValueError, match="already holds a review"):
        review(log, judge=FAST_JUDGE, out=tmp_path / "cut", quiet=True)
    with pytest.raises(ValueError, match="other settings \\(judge\\)"):
        review(log, judge="mc:samples=17", out=tmp_path / "cut", resume=True, quiet=True)
    resumed = review(log, judge=FAST_JUDGE, out=tmp_path / "cut", resume=True, quiet=True)
    pd.testing.assert_frame_equal(resumed.decisions, whole.decisions)
    assert (tmp_path / "cut" / "report.md").read_text() == (
        tmp_path / "whole" / "report.md").read_text()
    assert not (tmp_path / "cut" / "decisions.partial.jsonl").exists()
    def judged_again(*args):  # type: ignore[no-untyped-def]
        raise AssertionError("a finished review judged a game again")

    monkeypatch.setattr(review_table, "review_game", judged_again)
    again = review(log, judge=FAST_JUDGE, out=tmp_path / "cut", resume=True, quiet=True)
    pd.testing.assert_frame_equal(again.decisions, whole.decisions)


def test_the_command_prints_the_report_and_writes_the_table(
        eaai_log: list[dict], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "hands.jsonl"
    write_log(log, eaai_log[:1])
    out = tmp_path / "review"
    assert main(["review", str(log), "--judge", FAST_JUDGE, "--out", str(out), "--quiet",
                 "--costliest", "2"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith(f"# Decision review of {log}")
    assert "## By seat" in printed and "## The costliest decisions" in printed
    assert "## simple against tuned@eaai, by kind, role and stage" in printed
    assert "| kind | simple | tuned@eaai | gap (95%) | share |" in printed
    table = pd.read_parquet(out / "decisions.parquet")
    for column in ("game", "hand", "seat", "strategy", "kind", "chosen", "best", "loss",
                   "label"):
        assert column in table.columns
    assert set(table["kind"]) <= {"take", "draw", "knock", "discard"}
    assert set(table["label"]) <= {"forced", "equal", "best", "good", "inaccuracy", "mistake",
                                   "blunder"}
    for argv, message in (
            (["review", str(log), "--judge", "simple"], "the judge must be mc"),
            (["review", str(tmp_path / "none.jsonl")], "no hand log at"),
            (["review", str(log), "--seats", "0,x"], "--seats '0,x' is not valid"),
            (["review", str(log), "--out", str(out)], "already holds a review")):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("ginbox: error: ") and message in err and err.count("\n") == 1


def test_a_folder_of_chunk_logs_is_one_log(eaai_log: list[dict], tmp_path: Path) -> None:
    """A run's arm folder holds one log per chunk: reviewed together, as one log."""
    folder = tmp_path / "arm=0"
    folder.mkdir()
    write_log(folder / "chunk-00000.jsonl", [r for r in eaai_log if r["game"] == 0])
    write_log(folder / "chunk-00001.jsonl", [r for r in eaai_log if r["game"] == 1])
    together = review(folder, seats=[0], judge=FAST_JUDGE, quiet=True)
    pd.testing.assert_frame_equal(together.decisions, review(
        eaai_log, seats=[0], judge=FAST_JUDGE, quiet=True).decisions)
    assert together.source == f"{folder / 'chunk-00000.jsonl'} {folder / 'chunk-00001.jsonl'}"
    first, second = folder / "chunk-00000.jsonl", folder / "chunk-00001.jsonl"
    with pytest.raises(ValueError, match="game 0 appears twice in the log, apart"):
        review([first, second, first], judge=FAST_JUDGE, quiet=True)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match=r"no hand log \(\*.jsonl\) in the folder"):
        review(tmp_path / "empty", judge=FAST_JUDGE, quiet=True)
