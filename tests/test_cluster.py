"""A Dask cluster of separate processes (``dask scheduler``, ``dask worker --nthreads 1`` on
127.0.0.1, started and stopped here): ``run``, ``league`` and ``tune`` on it equal ``--jobs 1``;
its faults (a worker killed mid-chunk, every worker killed, the scheduler killed, a worker that
cannot import a strategy, a worker of another ginbox) each do what sim.runs.cluster says; no
process outlives its test."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import sim
from sim.cli import main
from sim.runs import cluster as cluster_module
from sim.runs import runner as runner_module
from sim.runs.cluster import ClusterLost, WorkerRefused, cluster_chunk, play_on_cluster
from sim.runs.experiment import load_experiment
from sim.runs.runner import plan_chunks, play_chunk_file, run_experiment
from sim.runs.storage import MANIFEST, finished_chunks, read_manifest
from tests.support.cluster import ProcessCluster

FIELD = ["greedy-knock", "simple", "random"]
SMALL: dict[str, Any] = {"name": "small", "seed": 11, "games": 60, "chunk_size": 16,
                         "arms": [{"name": "a", "strategies": FIELD, "seating": "rotate"},
                                  {"name": "b", "strategies": FIELD, "rules": "three-handed-20"}]}
# chunks long enough (about a second) that a kill lands in the middle of one
LONG: dict[str, Any] = {"name": "long", "seed": 5, "games": 60_000, "chunk_size": 10_000,
                        "arms": [{"name": "a", "strategies": FIELD, "seating": "rotate"}]}


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProcessCluster]:
    """One scheduler and two workers for the tests that kill nothing."""
    with ProcessCluster(tmp_path_factory.mktemp("cluster")) as cluster:
        cluster.start_scheduler()
        cluster.add_worker(2)
        yield cluster
    assert cluster.orphans() == []


@pytest.fixture
def own(tmp_path: Path) -> Iterator[ProcessCluster]:
    """A cluster a test may kill parts of."""
    directory = tmp_path / "cluster"
    directory.mkdir()
    with ProcessCluster(directory) as cluster:
        yield cluster
    assert cluster.orphans() == []


@pytest.fixture(scope="module")
def long_reference(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    return run_experiment(LONG, out=tmp_path_factory.mktemp("ref") / "run", jobs=1,
                          quiet=True).games


def _toml(path: Path, body: str) -> str:
    path.write_text(body)
    return str(path)


def _when_chunks(out: Path, count: int, action: Callable[[], None],
                 timeout: float = 120.0) -> threading.Thread:
    """Run ``action`` in a thread as soon as ``out`` holds ``count`` chunk files."""
    def watch() -> None:
        deadline = time.monotonic() + timeout
        while len(list(out.glob("arm=*/chunk-*.parquet"))) < count:
            if time.monotonic() > deadline:
                return
            time.sleep(0.02)
        action()

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def _check_written_once(out: Path, spec: dict[str, Any], writes: list[Any]) -> None:
    """Every chunk on disk verifies against the manifest, none written twice, none half."""
    plan = plan_chunks(load_experiment(spec))
    manifest = read_manifest(out)
    assert manifest is not None and manifest["status"] == "complete"
    recorded = {(c["arm"], c["chunk"]): c["sha256"] for c in manifest["chunks"]}
    assert len(finished_chunks(out, plan, recorded)) == len(plan)
    assert sorted(writes, key=_order) == plan  # each chunk's file written exactly once
    assert not [p for p in out.rglob("*") if p.name.startswith(".") or ".tmp" in p.name]


def _order(chunk: Any) -> tuple[int, int]:
    return chunk.arm, chunk.index


@pytest.fixture
def writes(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The chunks the runner writes, one entry per write."""
    seen: list[Any] = []
    original = runner_module.write_chunk

    def counting(out: Path, chunk: Any, data: bytes) -> None:
        seen.append(chunk)
        original(out, chunk, data)

    monkeypatch.setattr(runner_module, "write_chunk", counting)
    return seen


# ------------------------------------------------------------ the commands on a cluster


def test_run_league_and_tune_on_a_process_cluster_equal_jobs_1(
        shared: ProcessCluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    dask = ["--backend", "dask", "--scheduler", shared.address, "--quiet"]
    run_file = _toml(tmp_path / "small.toml", 'name = "small"\nseed = 11\ngames = 60\n'
                     'chunk_size = 16\n[[arms]]\nname = "a"\nstrategies = '
                     '["greedy-knock", "simple", "random"]\n')
    assert main(["run", run_file, "--jobs", "1", "--out", "one", "--quiet"]) == 0
    assert main(["run", run_file, *dask, "--out", "cluster"]) == 0
    local, remote = run_experiment_results("one"), run_experiment_results("cluster")
    pd.testing.assert_frame_equal(local.games, remote.games)
    session = remote.manifest["sessions"][-1]
    assert session["backend"] == "dask" and session["workers"] == 2
    assert {c["worker"] for c in remote.manifest["chunks"]} <= set(shared.workers)

    league_file = _toml(tmp_path / "league.toml", 'name = "lg"\nseed = 2\ngames = 8\n'
                        'rules = "three-handed"\nstrategies = ["simple", "greedy-knock"]\n'
                        'bootstrap = 10\n')
    assert main(["league", league_file, "--jobs", "1", "--out", "lg-one", "--quiet"]) == 0
    assert main(["league", league_file, *dask, "--out", "lg-cluster"]) == 0
    for name in ("leaderboard.csv", "leaderboard.md"):
        assert (tmp_path / "lg-one" / name).read_text() == \
            (tmp_path / "lg-cluster" / name).read_text()

    tune_file = _toml(tmp_path / "t.toml", 'name = "t"\nseed = 2\nstrategy = "greedy-knock"\n'
                      'field = ["simple"]\nrules = "eaai"\ngenerations = 2\npopulation = 3\n'
                      'games_per_candidate = 40\nholdout_games = 60\nchunk_size = 20\n')
    capsys.readouterr()
    assert main(["tune", tune_file, "--jobs", "1", "--out", "t-one", "--quiet"]) == 0
    one = capsys.readouterr().out
    assert main(["tune", tune_file, *dask, "--out", "t-cluster"]) == 0
    assert capsys.readouterr().out == one.replace("t-one", "t-cluster")
    assert (tmp_path / "t-one/tuned.txt").read_text() == \
        (tmp_path / "t-cluster/tuned.txt").read_text()


def run_experiment_results(out: str) -> Any:
    from sim.runs.storage import load_results

    return load_results(out)


# ------------------------------------------------------------- workers that must not play


def test_a_worker_that_cannot_import_a_strategy_is_named_before_anything_is_written(
        shared: ProcessCluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The module is importable here (the client) but not on the workers."""
    (tmp_path / "only_here_bots.py").write_text(
        "from strategies.examples import GreedyKnockPy as Mine  # noqa: F401\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = {**SMALL, "arms": [{"name": "mine",
                               "strategies": ["only_here_bots:Mine", "simple", "random"]}]}
    load_experiment(spec)  # the client itself can build it
    with pytest.raises(ValueError) as info:
        run_experiment(spec, out=tmp_path / "run", backend="dask", scheduler=shared.address,
                       quiet=True)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("worker tcp://127.0.0.1:")
    assert message.split()[1] in shared.workers
    assert "cannot import the strategy module 'only_here_bots'" in message
    assert not (tmp_path / "run").exists()


def test_a_worker_of_another_ginbox_is_refused_not_mixed(shared: ProcessCluster,
                                                        tmp_path: Path) -> None:
    """One worker's engine hash is faked: the run is refused before any file, naming it; a
    task reaching that worker anyway (one that joined later) refuses to play."""
    other = sorted(shared.workers)[0]
    with shared.client() as client:
        client.run(setattr, sim, "SOURCE_STAMP", "0123456789abcdef", workers=[other])
        try:
            with pytest.raises(ValueError) as info:
                run_experiment(SMALL, out=tmp_path / "run", backend="dask",
                               scheduler=shared.address, quiet=True)
            assert str(info.value) == (
                f"worker {other} runs another ginbox (engine source 0123456789abcdef, ginbox "
                f"{sim.__version__}; the client's engine source is {sim.SOURCE_STAMP}): "
                "install the same ginbox on every worker")
            assert not (tmp_path / "run").exists()

            spec = load_experiment(SMALL)
            chunk = plan_chunks(spec)[0]
            future = client.submit(cluster_chunk, sim.SOURCE_STAMP, play_chunk_file, spec, chunk,
                                   1, 2,
                                   workers=[other], pure=False)
            with pytest.raises(WorkerRefused, match=f"^worker {other} runs another ginbox"):
                future.result()
            with pytest.raises(ClusterLost, match=f"^worker {other} runs another") as lost:
                list(play_on_cluster(client, play_chunk_file, spec,
                                     [(c, 1, 2) for c in plan_chunks(spec)], False))
            assert not lost.value.lost  # not a lost cluster: no local fallback for this
        finally:
            client.run(setattr, sim, "SOURCE_STAMP", sim.SOURCE_STAMP, workers=[other])


# ---------------------------------------------------------------------------- the faults


def test_a_worker_killed_mid_chunk_costs_only_its_chunk(
        own: ProcessCluster, tmp_path: Path, long_reference: pd.DataFrame,
        writes: list[Any]) -> None:
    own.start_scheduler()
    own.add_worker(2)
    out = tmp_path / "run"
    killed: dict[str, Any] = {}

    def kill_a_busy_worker() -> None:
        with own.client() as client:
            deadline = time.monotonic() + 120  # until a worker is busy, however slow the machine
            while time.monotonic() < deadline:
                busy = {w: keys for w, keys in client.processing().items() if keys}
                if busy:
                    worker = sorted(busy)[0]
                    killed.update(worker=worker, keys=list(busy[worker]))
                    own.kill_worker(worker)
                    return
                time.sleep(0.01)

    watcher = _when_chunks(out, 1, kill_a_busy_worker)
    result = run_experiment(LONG, out=out, backend="dask", scheduler=own.address, quiet=True)
    watcher.join(10)
    assert killed, "no worker was busy"
    pd.testing.assert_frame_equal(result.games, long_reference)
    _check_written_once(out, LONG, writes)
    by_key = {f"{c['arm']}-{c['chunk']}": c["worker"] for c in result.manifest["chunks"]}
    cut = [k.split("-")[-3] + "-" + k.split("-")[-2] for k in killed["keys"]]
    assert cut and all(by_key[k] != killed["worker"] for k in cut)  # re-run elsewhere


def test_every_worker_killed_stops_in_one_line_and_resume_finishes(
        own: ProcessCluster, tmp_path: Path, long_reference: pd.DataFrame,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(cluster_module, "NO_WORKERS_GRACE_S", 1.0)
    monkeypatch.chdir(tmp_path)
    run_file = _toml(tmp_path / "long.toml", _long_toml())
    address = own.start_scheduler()
    own.add_worker(2)
    argv = ["run", run_file, "--backend", "dask", "--scheduler", address, "--out", "run",
            "--quiet"]
    watcher = _when_chunks(tmp_path / "run", 1,
                           lambda: [own.kill_worker(w) for w in list(own.workers)])
    assert main(argv) == 1
    watcher.join(10)
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    done = read_manifest(tmp_path / "run")["chunks"]
    written = sum(c["status"] == "done" for c in done)
    assert err == (f"ginbox: the Dask scheduler {address} has had no worker for 1 s: "
                   f"{written} of 6 chunks are saved in run; finish the run with: ginbox run "
                   f"{run_file} --out run --backend dask --scheduler {address} --resume\n")
    manifest = json.loads((tmp_path / "run" / MANIFEST).read_text())
    assert manifest["status"] == "interrupted"
    assert manifest["sessions"][-1]["stopped"].startswith(
        f"the Dask scheduler {address} has had no worker for 1 s: the run stopped with")

    own.add_worker(1)
    assert main([*argv, "--resume"]) == 0
    pd.testing.assert_frame_equal(run_experiment_results("run").games, long_reference)


def test_the_scheduler_killed_stops_and_resumes_on_a_new_one_or_goes_local_if_asked(
        own: ProcessCluster, tmp_path: Path, long_reference: pd.DataFrame,
        writes: list[Any], capfd: pytest.CaptureFixture[str]) -> None:
    first = own.start_scheduler()
    own.add_worker(1)
    out = tmp_path / "run"
    watcher = _when_chunks(out, 1, own.kill_scheduler)
    with pytest.raises(ClusterLost, match=f"^lost the Dask scheduler {first}: the run stopped "
                                          r"with [1-5] of 6 chunks written; resume it"):
        run_experiment(LONG, out=out, backend="dask", scheduler=first, quiet=True)
    watcher.join(10)
    manifest = read_manifest(out)
    assert manifest["status"] == "interrupted"
    assert manifest["sessions"][-1]["status"] == "interrupted"
    assert "fallback" not in manifest["sessions"][-1]

    own.close()  # the old workers go with their scheduler; a new cluster takes over
    second = own.start_scheduler()
    own.add_worker(2)
    writes.clear()
    resumed = run_experiment(LONG, out=out, backend="dask", scheduler=second, quiet=True,
                             resume=True)
    pd.testing.assert_frame_equal(resumed.games, long_reference)
    assert len(resumed.manifest["sessions"]) == 2
    assert len(writes) == resumed.manifest["sessions"][-1]["chunks"]

    # another run asks to go on locally: the scheduler lost, it finishes here and says so
    local = tmp_path / "local"
    watcher = _when_chunks(local, 1, own.kill_scheduler)
    capfd.readouterr()
    result = run_experiment(LONG, out=local, backend="dask", scheduler=second, quiet=True,
                            jobs=1, if_cluster_lost="local")
    watcher.join(10)
    err = capfd.readouterr().err
    session = result.manifest["sessions"][-1]
    assert [line for line in err.splitlines() if "ginbox" in line] == [
        f"ginbox: warning: lost the Dask scheduler {second}: playing the remaining "
        f"{session['fallback']['chunks']} chunks on this machine (1 processes), as "
        "--if-cluster-lost local asks"]
    assert session["status"] == "complete" and session["fallback"]["reason"] == \
        f"lost the Dask scheduler {second}"
    assert result.manifest["status"] == "complete"
    pd.testing.assert_frame_equal(result.games, long_reference)


def _long_toml() -> str:
    return (f'name = "long"\nseed = {LONG["seed"]}\ngames = {LONG["games"]}\n'
            f'chunk_size = {LONG["chunk_size"]}\n[[arms]]\nname = "a"\n'
            'strategies = ["greedy-knock", "simple", "random"]\nseating = "rotate"\n')
