"""The paired comparison of saved ``mc`` runs in studies/mc_strength."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from studies import mc_strength


def test_paired_difference_of_two_saved_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Wins 3 of 4 against 1 of 4 on the same games: +50 points; the differences (1, 0, 1,
    0) have standard deviation sqrt(1/3), so the half-width is 1.96 * sqrt(1/3) / 2."""
    monkeypatch.setattr(mc_strength, "OUT", tmp_path)
    mc_strength._save_wins(np.array([True, True, True, False]), "a.vs_x")
    mc_strength._save_wins(np.array([False, True, False, False]), "b.vs_x")
    mc_strength.paired("a.vs_x", "b.vs_x")
    half = 100 * 1.96 * np.sqrt(1 / 3) / 2
    assert capsys.readouterr().out.strip() == (
        f"a.vs_x 75.0% - b.vs_x 25.0% = +50.0 points ({50 - half:+.1f} to {50 + half:+.1f}), "
        "4 paired games")


def test_paired_compares_the_common_first_games_of_each_seat(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A run played on to 3 games a seat against one of 2 a seat (two-handed: the CSV's
    rules say two seats): seat by seat, the first 2 games of each are compared."""
    monkeypatch.setattr(mc_strength, "OUT", tmp_path)
    for name in ("a", "b"):
        mc_strength._save([{"match": "vs x", "rules": "eaai", "won": 0}], name)
    mc_strength._save_wins(np.array([True, True, False, True, False, False]), "a.vs_x")
    mc_strength._save_wins(np.array([True, False, False, False]), "b.vs_x")
    mc_strength.paired("a.vs_x", "b.vs_x")
    half = 100 * 1.96 * np.sqrt(1 / 3) / 2  # differences (0, 1, 1, 0)
    assert capsys.readouterr().out.splitlines() == [
        "comparing the first 2 games of each of mc's 2 seats (the runs played different "
        "--games; their first games are the same deals)",
        f"a.vs_x 75.0% - b.vs_x 25.0% = +50.0 points ({50 - half:+.1f} to {50 + half:+.1f}), "
        "4 paired games"]


def test_paired_refuses_runs_it_cannot_line_up(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mc_strength, "OUT", tmp_path)
    mc_strength._save_wins(np.array([True, False]), "a.vs_x")
    mc_strength._save_wins(np.array([True]), "b.vs_x")
    with pytest.raises(SystemExit, match="no a.csv"):
        mc_strength.paired("a.vs_x", "b.vs_x")
    mc_strength._save([{"match": "vs x", "rules": "eaai", "won": 0}], "a")
    mc_strength._save_wins(np.array([True, False, True]), "a.vs_x")
    with pytest.raises(SystemExit, match="a.vs_x has 3 games and b.vs_x 1"):
        mc_strength.paired("a.vs_x", "b.vs_x")


def test_paired_names_a_missing_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mc_strength, "OUT", tmp_path)
    mc_strength._save_wins(np.array([True]), "a")
    with pytest.raises(SystemExit, match="no saved run 'b'"):
        mc_strength.paired("a", "b")


def test_runs_under_one_name_build_one_table(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """``matches --only`` runs saved under one ``--out``: each match keeps its own row, and a
    match played again replaces its row."""
    monkeypatch.setattr(mc_strength, "OUT", tmp_path)
    mc_strength._save([{"match": "vs simple", "won": 7}], "runs", merge=True)
    mc_strength._save([{"match": "vs tuned", "won": 5}], "runs", merge=True)
    frame = mc_strength._save([{"match": "vs simple", "won": 9}], "runs", merge=True)
    assert frame.to_dict("records") == [{"match": "vs tuned", "won": 5},
                                        {"match": "vs simple", "won": 9}]
    assert pd.read_csv(tmp_path / "runs.csv").to_dict("records") == frame.to_dict("records")
    mc_strength._save([{"match": "vs x", "won": 1}], "runs")  # without merge: the new rows
    assert pd.read_csv(tmp_path / "runs.csv").to_dict("records") == [{"match": "vs x",
                                                                      "won": 1}]


def test_with_samples_sets_the_budget_of_any_mc_spec() -> None:
    assert mc_strength.with_samples("mc", 64) == "mc:samples=64"
    assert mc_strength.with_samples("mc:leaf=4", 512) == "mc:leaf=4,samples=512"


def test_curve_saves_each_point_and_draws_beside_a_saved_curve(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each point's spec reaches the match, its wins are saved for ``paired``, and a saved
    curve (an older one without the ``samples`` column too) is drawn beside it."""
    monkeypatch.setattr(mc_strength, "OUT", tmp_path)
    played: list[str] = []

    def fake_match(mc: str, rules_name: str, others: list[str], games: int, seed: int,
                   label: str) -> tuple[dict[str, object], np.ndarray]:
        played.append(mc)
        won = np.array([True, False, True, True])
        return {"match": label, "rules": rules_name, "mc": mc, "games": 4, "won": 3,
                "win_rate": 0.75, "low": 0.3, "high": 0.95, "seed": seed,
                "games_per_cpu_s": 10.0}, won

    monkeypatch.setattr(mc_strength, "match", fake_match)
    mc_strength._save([{"mc": "mc:samples=16", "win_rate": 0.7, "low": 0.6, "high": 0.8,
                        "games_per_cpu_s": 50.0}], "old")
    mc_strength.curve(2, 5, [8, 32], mc="mc:leaf=4", out="new", beside=["old"])
    assert played == ["mc:leaf=4,samples=8", "mc:leaf=4,samples=32"]
    frame = pd.read_csv(tmp_path / "new.csv")
    assert frame["samples"].tolist() == [8, 32]
    assert mc_strength._budget(frame) == [8, 32]
    assert mc_strength._budget(pd.read_csv(tmp_path / "old.csv")) == [16]
    assert np.load(tmp_path / "new.samples_32.npy").tolist() == [True, False, True, True]
    assert (tmp_path / "new.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(SystemExit, match="no saved curve 'missing'"):
        mc_strength.curve(2, 5, [8], out="again", beside=["missing"])
