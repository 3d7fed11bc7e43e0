"""Tests for sim.runs.runner: determinism across workers and backends, resume, refusal, pairing."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import distributed
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sim.engine.game import GAME_COLUMNS
from sim.engine.rules import Rules
from sim.io.files import temp_path
from sim.play.driver import Seeds, iter_games
from sim.runs.experiment import load_experiment
from sim.runs.runner import COLUMNS, load_results, plan_chunks, run_experiment

FIELD = ["greedy-knock", "simple", "random"]

SPEC: dict[str, Any] = {
    "name": "small",
    "seed": 11,
    "games": 90,
    "chunk_size": 24,  # 4 chunks per arm, the last one short
    "arms": [
        {"name": "rotated", "strategies": FIELD, "seating": "rotate"},
        {"name": "gin 20", "rules": "three-handed-20", "strategies": FIELD,
         "seating": "random"},
    ],
}


def run(out: Path, **kwargs: Any) -> Any:
    kwargs.setdefault("quiet", True)
    kwargs.setdefault("jobs", 1)
    return run_experiment(kwargs.pop("spec", SPEC), out=out, **kwargs)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    """The games of an uninterrupted single-worker run."""
    return run(tmp_path_factory.mktemp("ref") / "run").games


def chunk_files(out: Path) -> list[Path]:
    return sorted(out.glob("arm=*/chunk-*.parquet"))


# -------------------------------------------------------------------- contents and layout


def test_layout_columns_and_manifest(tmp_path: Path, reference: pd.DataFrame) -> None:
    out = tmp_path / "run"
    result = run(out)
    games = result.games
    pd.testing.assert_frame_equal(games, reference)
    assert list(games.columns) == COLUMNS
    assert len(games) == 180
    assert games[["arm", "game"]].equals(games[["arm", "game"]].sort_values(["arm", "game"]))
    assert games.groupby("arm")["game"].apply(list).tolist() == [list(range(90))] * 2
    assert (games.groupby("arm")["arm_name"].first() == ["rotated", "gin 20"]).all()
    assert (games[["strategy_0", "strategy_1", "strategy_2"]] == FIELD).all().all()
    assert games["winner"].between(0, 2).all() and (games["error"] == 0).all()
    names = [str(p.relative_to(out)) for p in chunk_files(out)]
    assert names == [f"arm={a}/chunk-{c:05d}.parquet" for a in range(2) for c in range(4)]
    assert pq.read_metadata(out / names[3]).num_rows == 90 - 3 * 24

    m = json.loads((out / "manifest.json").read_text())
    assert m == result.manifest
    spec = load_experiment(SPEC)
    assert m["spec"] == json.loads(json.dumps(spec.to_dict()))
    assert m["status"] == "complete" and m["ginbox_version"]
    assert m["seed"] == 11 and m["games_per_arm"] == 90 and m["chunk_size"] == 24
    assert m["columns"] == COLUMNS
    assert [a["rules"] for a in m["arms"]] == [Rules().to_dict(),
                                               Rules.preset("three-handed-20").to_dict()]
    for i, arm in enumerate(m["arms"]):
        seeds = Seeds.from_seed(11)
        assert arm["seeds"] == {"deck": int(seeds.deck), "strategy": int(seeds.strategy)}
        assert arm["strategies"] == FIELD and arm["name"] == spec.arms[i].name
    assert [(c["arm"], c["chunk"], c["first_game"], c["games"]) for c in m["chunks"]] == [
        (c.arm, c.index, c.first_game, c.games) for c in plan_chunks(spec)]
    assert all(c["status"] == "done" and c["seconds"] >= 0 for c in m["chunks"])
    assert set(m["machine"]) >= {"platform", "cpu_count", "python", "numpy", "numba"}
    assert m["timings"]["finished"] and m["timings"]["wall_seconds"] >= 0
    assert m["sessions"][-1]["status"] == "complete" and m["sessions"][-1]["games"] == 180
    assert not (out / ".lock").exists()
    assert result.complete and result.arm_names == ["rotated", "gin 20"]
    assert result.rules("gin 20").gin_bonus == 20
    pd.testing.assert_frame_equal(load_results(out).games, reference)
    parts = list(result.iter_chunks(columns=["arm", "game", "winner"]))
    assert len(parts) == 8 and sum(map(len, parts)) == 180


def test_rows_equal_the_engine_directly(reference: pd.DataFrame) -> None:
    """Arm i is exactly iter_games with Seeds.from_seed(seed): the runner adds nothing."""
    for i, (preset, rotate) in enumerate([("three-handed", True), ("three-handed-20", False)]):
        rows = np.concatenate([out for out, _ in iter_games(
            Rules.preset(preset), FIELD, 90, Seeds.from_seed(11), rotate=rotate)])
        got = reference.loc[reference["arm"] == i, GAME_COLUMNS].to_numpy()
        np.testing.assert_array_equal(got, rows)


def test_rotation_balances_initial_roles(reference: pd.DataFrame) -> None:
    rotated = reference[reference["arm"] == 0]
    for role in ("initial_box", "initial_captain", "initial_sitter"):
        assert rotated[role].value_counts().to_dict() == {0: 30, 1: 30, 2: 30}


def test_games_seed_overrides_and_default_directory(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_experiment(SPEC, games=30, seed=12, jobs=1, quiet=True)
    assert result.out == Path("results") / "small"
    assert (tmp_path / "results" / "small" / "manifest.json").exists()
    assert result.manifest["spec"]["games"] == 30 and result.manifest["seed"] == 12
    assert len(result.games) == 60


def test_two_player_arm_has_null_third_seat(tmp_path: Path) -> None:
    spec = {"name": "duel", "seed": 1, "games": 10, "chunk_size": 4,
            "arms": [{"name": "eaai", "rules": "eaai", "strategies": ["simple", "random"]}]}
    games = run(tmp_path / "duel", spec=spec).games
    assert games["strategy_2"].isna().all() and games["winner"].between(0, 1).all()


# ------------------------------------------------------------------ determinism, backends


def test_two_jobs_equal_one(tmp_path: Path, reference: pd.DataFrame) -> None:
    games = run(tmp_path / "two", jobs=2).games
    pd.testing.assert_frame_equal(games, reference)


def test_dask_local_cluster_equals_loky(tmp_path: Path, reference: pd.DataFrame) -> None:
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        games = run(tmp_path / "dask", backend="dask", scheduler=client).games
    pd.testing.assert_frame_equal(games, reference)


# ------------------------------------------------------------------- pairing (common decks)


def test_arms_share_decks(tmp_path: Path) -> None:
    """Arms differing only by name give identical games; seating is drawn from the decks."""
    greedy = ["greedy-knock"] * 3
    spec = {"name": "pairs", "seed": 5, "games": 40, "chunk_size": 16, "arms": [
        {"name": "a", "strategies": greedy, "seating": "random"},
        {"name": "b", "strategies": greedy, "seating": "random"},
        {"name": "c", "strategies": ["random"] * 3, "seating": "random"},
        {"name": "d", "strategies": ["random"] * 3, "seating": [2, 0, 1]},
    ]}
    result = run(tmp_path / "pairs", spec=spec)
    g = result.games.set_index(["arm", "game"])
    stats = [g.loc[i, GAME_COLUMNS] for i in range(4)]
    pd.testing.assert_frame_equal(stats[0], stats[1])
    roles = ["initial_box", "initial_captain", "initial_sitter"]
    pd.testing.assert_frame_equal(stats[0][roles], stats[2][roles])  # same draw, other players
    assert stats[0][roles].drop_duplicates().shape[0] > 1  # the draw really varies
    assert (stats[3][roles] == [2, 0, 1]).all().all()
    arms = result.manifest["arms"]
    assert len({a["seeds"]["deck"] for a in arms}) == 1
    assert len({a["seeds"]["strategy"] for a in arms}) == 1  # strategy choices shared too


# ---------------------------------------------------------------- refusal, force, resume


def test_refuses_existing_results_and_force_reruns(tmp_path: Path,
                                                   reference: pd.DataFrame) -> None:
    out = tmp_path / "run"
    run(out)
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*")}
    with pytest.raises(ValueError, match=r"already holds a run of 'small' \(8 of 8 chunks done\)"
                                         r": use resume \(--resume\) .* force \(--force\)"):
        run(out)
    with pytest.raises(ValueError, match="resume and force exclude each other"):
        run(out, resume=True, force=True)
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*")} == before
    (out / "notes.txt").write_text("mine")
    (out / "arm=7").mkdir()
    result = run(out, force=True, games=30)
    assert len(result.games) == 60 and (out / "arm=7").is_dir()
    assert (out / "notes.txt").read_text() == "mine"  # force deletes only what runs wrote
    pd.testing.assert_frame_equal(run(out, force=True, jobs=2).games, reference)


def test_resume_with_other_spec_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "run"
    run(out, games=30)
    with pytest.raises(ValueError, match=r"cannot resume .*: it holds a different experiment "
                                         r"\(games: 30 there, 90 now\)"):
        run(out, resume=True)
    changed = json.loads(json.dumps(SPEC))
    changed["arms"][1]["rules"] = "three-handed"
    with pytest.raises(ValueError, match=r"different experiment \(arms\[1\]\.rules: "
                                         r"'three-handed-20' there, 'three-handed' now\)"):
        run(out, spec=changed, games=30, resume=True)


def test_bad_arguments_write_nothing(tmp_path: Path) -> None:
    out = tmp_path / "never"
    for kwargs, message in [
        ({"jobs": 0}, r"^jobs=0 is not valid"),
        ({"backend": "spark"}, r"^backend='spark' is not valid: expected one of loky, dask"),
        ({"scheduler": "tcp://x:1"}, r"^scheduler is only used with backend='dask'"),
        ({"games": 0}, r"^games=0 is out of range"),
        ({"spec": {**SPEC, "seed": -3}}, r"^seed=-3 is out of range"),
    ]:
        with pytest.raises(ValueError, match=message):
            run(out, **kwargs)
    assert not out.exists()
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="is a file"):
        run(tmp_path / "file")


def test_resume_after_partial_run_equals_uninterrupted(tmp_path: Path,
                                                       reference: pd.DataFrame) -> None:
    out = tmp_path / "run"
    run(out)
    files = chunk_files(out)
    for path in files[1::2]:
        path.unlink()  # as if killed with half the chunks done
    temp_path(out / "arm=0" / "chunk-00001.parquet").write_bytes(b"partial")
    (out / ".lock").write_text(json.dumps({"pid": 2**22 + 12345, "host": os.uname().nodename}))
    with pytest.raises(ValueError, match=r"4 of 8 chunks done"):
        run(out)
    with pytest.raises(ValueError, match="incomplete \\(4 of 8 chunks\\)"):
        load_results(out)
    assert len(load_results(out, allow_partial=True).games) == 2 * (24 + 24)
    result = run(out, resume=True, jobs=2)
    pd.testing.assert_frame_equal(result.games, reference)
    assert not list(out.rglob("*.tmp")) and not (out / ".lock").exists()
    sessions = result.manifest["sessions"]
    assert [s["chunks"] for s in sessions] == [8, 4]
    again = run(out, resume=True)  # nothing left to do
    assert again.manifest["sessions"][-1]["chunks"] == 0
    pd.testing.assert_frame_equal(again.games, reference)


def test_live_lock_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / ".lock").write_text(json.dumps({"pid": os.getppid(), "host": os.uname().nodename}))
    with pytest.raises(ValueError, match=r"in use by another ginbox run \(pid"):
        run(out, resume=True)


KILL_SPEC: dict[str, Any] = {
    "name": "slow", "seed": 3, "games": 360, "chunk_size": 12,
    "arms": [{"name": "random", "strategies": ["random"] * 3}],
}

HANG_AFTER = 4  # chunks the child writes before it hangs

# The child run plays HANG_AFTER chunks, then hangs in the next one until the test kills it, so
# the kill always lands mid-run whatever the speed of the machine. iter_games is wrapped where
# the runner looks it up (before the runner imports it, and on the runner after).
CHILD = """
import json, sys, time
import sim.play.driver as driver
real = driver.iter_games
played = [0]
def iter_games(*args, **kwargs):
    played[0] += 1
    if played[0] > int(sys.argv[3]):
        time.sleep(600)
    return real(*args, **kwargs)
driver.iter_games = iter_games
import sim.runs.runner as runner
runner.iter_games = iter_games
runner.run_experiment(json.loads(sys.argv[1]), out=sys.argv[2], jobs=1, quiet=True)
"""


def test_resume_after_sigkill_equals_uninterrupted(tmp_path: Path) -> None:
    """kill -9 with some but not all chunks on disk; the resumed run plays exactly the missing
    chunks and ends with the games of an uninterrupted run."""
    expected = run(tmp_path / "whole", spec=KILL_SPEC).games
    out = tmp_path / "killed"
    child = subprocess.Popen([sys.executable, "-c", CHILD, json.dumps(KILL_SPEC), str(out),
                              str(HANG_AFTER)])
    try:
        deadline = time.monotonic() + 120
        while len(chunk_files(out)) < HANG_AFTER and child.poll() is None:
            assert time.monotonic() < deadline, "the child run never wrote its chunks"
            time.sleep(0.01)
        time.sleep(0.2)  # a chunk beyond HANG_AFTER would show up now
        assert child.poll() is None, "the child run ended before it was killed"
    finally:
        child.kill()  # SIGKILL: kill -9
        child.wait()
    total = KILL_SPEC["games"] // KILL_SPEC["chunk_size"]
    assert len(chunk_files(out)) == HANG_AFTER < total
    assert (out / "manifest.json").exists()
    with pytest.raises(ValueError, match="use resume"):
        run(out, spec=KILL_SPEC)
    result = run(out, spec=KILL_SPEC, resume=True)
    pd.testing.assert_frame_equal(result.games, expected)
    assert result.manifest["status"] == "complete"
    killed, resumed = result.manifest["sessions"]
    assert (killed["status"], killed["stopped"]) == (
        "interrupted", "ended without recording its end (killed); closed by the next session")
    assert killed["finished"] == killed["last_saved"] and killed["wall_seconds"] >= 0
    assert result.manifest["timings"]["wall_seconds"] == round(
        killed["wall_seconds"] + resumed["wall_seconds"], 3)
    assert resumed["status"] == "complete"
    assert resumed["chunks"] == total - HANG_AFTER > 0
    assert resumed["games"] == KILL_SPEC["games"] - HANG_AFTER * KILL_SPEC["chunk_size"]
    assert len(chunk_files(out)) == total


def test_resume_refuses_results_the_engine_does_not_reproduce(tmp_path: Path) -> None:
    """Chunks written by another engine version must not be mixed with new ones."""
    out = tmp_path / "run"
    run(out, games=48)
    first = out / "arm=1" / "chunk-00000.parquet"
    table = pq.read_table(first)
    turns = table.column("turns").to_numpy() + 1
    pq.write_table(table.set_column(table.schema.get_field_index("turns"), "turns",
                                    pa.array(turns)), first)
    manifest = json.loads((out / "manifest.json").read_text())  # as the other engine wrote it
    manifest["chunks"][2]["sha256"] = hashlib.sha256(first.read_bytes()).hexdigest()
    assert manifest["chunks"][2]["file"] == "arm=1/chunk-00000.parquet"
    (out / "manifest.json").write_text(json.dumps(manifest))
    (out / "arm=1" / "chunk-00001.parquet").unlink()
    with pytest.raises(ValueError, match=r"cannot resume .*: this engine does not reproduce "
                                         r"its stored games \(arm 1, game 0"):
        run(out, games=48, resume=True)


def test_python_strategy_by_import_path_in_workers(tmp_path: Path) -> None:
    spec = {"name": "py", "seed": 2, "games": 12, "chunk_size": 4, "arms": [
        {"name": "py", "strategies": ["strategies.base:BaseStrategy", "simple", "random"]}]}
    one = run(tmp_path / "one", spec=spec).games
    two = run(tmp_path / "two", spec=spec, jobs=2).games
    pd.testing.assert_frame_equal(one, two)
    assert (one["strategy_0"] == "strategies.base:BaseStrategy").all()


# ---------------------------------------------------------------------------- hand logs


def test_hand_logs_when_asked(tmp_path: Path) -> None:
    """log=True writes each chunk's hand log beside its rows; the games are the same games."""
    from sim.records.log import read_log
    from sim.records.replay import replay_game

    spec = {"name": "logged", "seed": 8, "games": 12, "chunk_size": 6, "arms": [
        {"name": "mix", "strategies": ["greedy-knock", "simple", "discard-tracking"]}]}
    logged = run_experiment(spec, out=tmp_path / "a", jobs=1, quiet=True, log=True)
    plain = run_experiment(spec, out=tmp_path / "b", jobs=1, quiet=True)
    pd.testing.assert_frame_equal(logged.games, plain.games)
    assert logged.manifest["hand_logs"] is True and plain.manifest["hand_logs"] is False
    records = []
    for chunk in (0, 1):
        records += read_log(tmp_path / "a" / f"arm=0/chunk-{chunk:05d}.jsonl")
    assert not list((tmp_path / "b").rglob("*.jsonl"))
    assert len(records) == int(plain.games["hands"].sum())
    assert sorted({r["game"] for r in records}) == list(range(12))
    first_game = [r for r in records if r["game"] == 0]
    assert all(check.ok for check in replay_game(first_game))
    with pytest.raises(ValueError, match="hand logs on; resume it the same way"):
        run_experiment(spec, out=tmp_path / "a", jobs=1, quiet=True, resume=True)
