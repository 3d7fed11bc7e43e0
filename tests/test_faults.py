"""Bad input and faults end in one line and exit status 2, never a traceback: damaged weights
files, an exploding sweep, a full disk, a seed out of range, a resume of nothing; and a run's
progress counts games while its chunks play."""

from __future__ import annotations

import errno
import json
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

import sim.cli.games
import sim.io.files
import sim.runs.runner as runner
from sim.cli import main
from sim.io.files import atomic_write_bytes, read_npz
from sim.io.specs import MAX_SEED, check_seed
from sim.play.driver import play_games
from sim.runs.experiment import MAX_ARMS, load_experiment
from sim.runs.progress import ChunkBoard, Progress, count_played
from sim.runs.runner import Chunk, play_chunk
from strategies.net import NET_FILE
from strategies.registry import parse_strategy


def call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------ damaged weights files


def _damaged(tmp_path: Path) -> dict[str, Path]:
    """A truncated weights file, random bytes, a sparse file of zeros, an archive of objects."""
    whole = NET_FILE.read_bytes()
    files = {"truncated": whole[:len(whole) // 2],
             "random": np.random.default_rng(7).bytes(4096), "sparse": b""}
    paths = {}
    for name, data in files.items():
        paths[name] = tmp_path / f"{name}.npz"
        paths[name].write_bytes(data)
    with open(paths["sparse"], "wb") as stream:
        stream.truncate(1 << 16)
    paths["objects"] = tmp_path / "objects.npz"
    np.savez(paths["objects"], net=np.array([{"x": 1}], dtype=object))
    return paths


@pytest.mark.parametrize("kind", ["truncated", "random", "sparse", "objects"])
def test_a_damaged_weights_file_is_one_line_naming_it(kind: str, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = _damaged(tmp_path)[kind]
    for text in (f"net:weights={path}", f"mc:net=2,weights={path}"):
        with pytest.raises(ValueError) as refused:
            parse_strategy(text)
        message = str(refused.value)
        assert message.startswith(f"cannot read network weights {str(path)!r}: ")
        assert "\n" not in message and "pickle" not in message, message
    code, out, err = call(capsys, "play", "--strategies", f"net:weights={path},simple",
                          "--rules", "eaai", "--games", "1")
    assert (code, out) == (2, "") and err.count("\n") == 1 and str(path) in err
    assert "pickle" not in err and "Traceback" not in err


def test_read_npz_says_what_is_wrong(tmp_path: Path) -> None:
    paths = _damaged(tmp_path)
    expected = {"truncated": "the archive is truncated or damaged (BadZipFile)",
                "random": "not a numpy .npz archive", "sparse": "not a numpy .npz archive",
                "objects": "it holds Python objects, which ginbox never loads"}
    for kind, message in expected.items():
        with pytest.raises(ValueError) as refused:
            read_npz(paths[kind])
        assert str(refused.value) == message
    assert set(read_npz(NET_FILE)) == {"net", "meta"}


def test_a_training_file_with_a_damaged_init_is_refused_before_self_play(
        tmp_path: Path) -> None:
    from sim.learn.spec import load_training

    path = _damaged(tmp_path)["truncated"]
    with pytest.raises(ValueError) as refused:
        load_training({"name": "t", "seed": 1, "rounds": 1, "tables": ["eaai"], "games": 50,
                       "init": str(path)})
    assert str(refused.value).startswith(f"init={str(path)!r} is not valid: cannot read "
                                         "network weights")


# ----------------------------------------------------------------------- sweeps, seeds


def test_a_sweep_is_counted_before_it_is_expanded(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    sweep = {f"k{i}": list(range(10)) for i in range(10)}  # 10**10 arms
    spec = {"name": "huge", "seed": 1, "games": 6,
            "arms": [{"name": "a", "strategies": ["simple"] * 3, "sweep": sweep}]}
    with pytest.raises(ValueError) as refused:
        load_experiment(spec)
    assert str(refused.value) == (
        "arms[0]: the experiment has 10,000,000,000 arms up to here (a sweep gives one per "
        f"combination of its values): expected at most {MAX_ARMS:,}")
    keys = ", ".join(f'k{i} = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]' for i in range(10))
    (tmp_path / "huge.toml").write_text(
        'name = "huge"\nseed = 1\ngames = 6\n[[arms]]\nname = "a"\n'
        f'strategies = ["simple", "simple", "simple"]\nsweep = {{ {keys} }}\n')
    code, out, err = call(capsys, "run", str(tmp_path / "huge.toml"), "--out",
                          str(tmp_path / "out"))
    assert (code, out) == (2, "") and err.count("\n") == 1 and "at most 1,000" in err
    assert not (tmp_path / "out").exists()


def test_one_seed_rule_everywhere(capsys: pytest.CaptureFixture[str]) -> None:
    assert check_seed(MAX_SEED) == MAX_SEED and check_seed(np.uint64(3)) == 3
    with pytest.raises(ValueError, match=r"^seed=9223372036854775808 is out of range: "
                                         r"expected an integer 0\.\.2\*\*63-1$"):
        check_seed(MAX_SEED + 1)
    with pytest.raises(ValueError, match="out of range"):
        play_games("simple,simple,simple", games=1, seed=10**30)
    for command in (["play", "--strategies", "simple,simple,simple"],
                    ["run", "experiments/quick.toml"], ["review", "x.jsonl"]):
        code, out, err = call(capsys, *command, "--seed", str(10**30))
        assert (code, out) == (2, ""), command
        assert (f"argument --seed: {10**30} is out of range: expected an integer 0..2**63-1"
                in err.splitlines()[-1])


@pytest.mark.parametrize(("command", "what"), [
    (["run", "experiments/quick.toml"], "the run, leave out resume, --resume"),
    (["tune", "experiments/tune_discard_tracking_eaai.toml"], "the tune, leave out --resume"),
    (["train", "experiments/train_small.toml"], "the training, leave out --resume")])
def test_resume_of_a_missing_directory_is_refused(command: list[str], what: str, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, *command, "--out", str(tmp_path / "never"), "--resume")
    assert (code, out) == (2, "")
    assert err == (f"ginbox: error: cannot resume {tmp_path / 'never'}: there is no such "
                   f"directory (to start {what})\n")
    assert not (tmp_path / "never").exists()


# ----------------------------------------------------------------------------- full disk


TINY = ('name = "full"\nseed = 1\ngames = 48\nchunk_size = 6\n[[arms]]\nname = "a"\n'
        'strategies = ["simple", "simple", "simple"]\n')


def test_a_full_disk_names_the_file_and_marks_the_run_failed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk fills after two chunks: every later write, the manifest's atomic one
    included, fails with ENOSPC (mocked). The error names the file, the manifest says
    ``failed`` (rewritten in place), and nothing is printed after the error."""
    written = [0]
    real_write, real_fsync = runner.write_chunk, sim.io.files.fsync_path

    def write_chunk(out: Path, chunk: Chunk, data: bytes) -> None:
        real_write(out, chunk, data)
        written[0] += 1

    def fsync_path(path: Path) -> None:  # the disk is full once two chunks are written
        if written[0] >= 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_fsync(path)

    monkeypatch.setattr(runner, "write_chunk", write_chunk)
    monkeypatch.setattr(sim.io.files, "fsync_path", fsync_path)
    (tmp_path / "full.toml").write_text(TINY)
    out = tmp_path / "run"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code, stdout, err = call(capsys, "run", str(tmp_path / "full.toml"), "--out", str(out),
                                 "--jobs", "2", "--quiet")
    assert (code, stdout) == (2, "")
    assert err.count("\n") == 1 and err.startswith(
        f"ginbox: error: cannot write the run's results into {out}: No space left on device "
        f"({out}/"), err
    # the first write after the two chunks: the next chunk, or the manifest's progress when
    # the workers' timing brings that first
    named = err.rstrip("\n").rsplit(" (", 1)[1].rstrip(")")
    assert named.startswith(f"{out}/arm=0/chunk-") or named == f"{out}/manifest.json", err
    assert [str(w.message) for w in caught if issubclass(w.category, UserWarning)] == []
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "failed" and manifest["sessions"][-1]["status"] == "failed"


def test_an_atomic_write_error_names_the_target(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A failed write names no file (the OS does not say which): the error names the target."""
    def full(path: Path) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(sim.io.files, "fsync_path", full)
    with pytest.raises(OSError) as failed:
        atomic_write_bytes(tmp_path / "net.npz", b"x")
    assert (failed.value.errno, failed.value.filename) == (errno.ENOSPC,
                                                           str(tmp_path / "net.npz"))
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------------------ progress


def test_a_chunk_counts_its_games_on_the_board_as_it_plays(tmp_path: Path) -> None:
    spec = load_experiment({"name": "b", "seed": 3, "games": 40, "arms": [
        {"name": "a", "strategies": ["simple", "greedy-knock", "random"]}]})
    arm = spec.arms[0]
    board = ChunkBoard(tmp_path / "board", 3)
    seen: list[int] = []
    real = runner.count_played

    def spy(where: tuple[str, int] | None, games: int) -> None:
        real(where, games)
        seen.append(board.played([1]))

    chunk = Chunk(0, 0, 0, 40)
    try:
        runner.count_played = spy
        _, rows, _, _ = play_chunk(arm.resolved_rules, arm.strategies, 11, 12, arm.rotate, chunk,
                                   board=(str(board.path), 1))
    finally:
        runner.count_played = real
    _, alone, _, _ = play_chunk(arm.resolved_rules, arm.strategies, 11, 12, arm.rotate, chunk)
    assert seen == list(range(2, 41, 2))  # 20 steps of 2 games
    assert np.array_equal(rows, alone) and board.played([0, 2]) == 0


def test_progress_shows_games_under_way_without_counting_them_done() -> None:
    import io

    progress = Progress("p", 100, stream=io.StringIO())
    progress.set_partial(30)
    assert progress.line() == "p: 30/100 games (30%)" and progress.done == 0
    progress.update(50)
    progress.set_partial(70)  # never above the total
    assert progress.line() == "p: 100/100 games (100%)"
    count_played(None, 5)  # no board: nothing to count on


def test_run_announces_compiling(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A cold cache is compiled before the workers start, said on stderr (no timing: the
    warm-up lasts until the notice is out)."""
    announced = threading.Event()
    announce = sim.cli.games.announce_compiling

    monkeypatch.setattr(sim.cli.games, "COMPILE_NOTICE_AFTER", 0.0)
    monkeypatch.setattr(sim.cli.games, "announce_compiling",
                        lambda: (announce(), announced.set()))
    monkeypatch.setattr(sim.cli.games, "_warm_up",
                        lambda *args: announced.wait(60) or pytest.fail("no notice"))
    (tmp_path / "tiny.toml").write_text(TINY)
    code, _, err = call(capsys, "run", str(tmp_path / "tiny.toml"), "--out",
                        str(tmp_path / "run"), "--jobs", "1", "--quiet")
    assert (code, err) == (0, sim.cli.games.COMPILE_NOTICE + "\n")


# ------------------------------------------------------------------------------ training


def test_a_training_that_would_hold_nothing_out_is_refused_before_self_play(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """10 games in shards of 25 is one shard: none held out, nothing to measure on."""
    from sim.learn.spec import DEFAULT_USES, load_training

    small = {"name": "t", "seed": 1, "rounds": 1, "tables": ["eaai"], "games": 10}
    with pytest.raises(ValueError) as refused:
        load_training(small)
    assert str(refused.value) == (
        "games=10 in shards of chunk_size=25 is 1 shard per table, and every holdout=10th is "
        "held out: none would be, leaving no positions to measure the training on; expected "
        "games of at least chunk_size * holdout = 250 (or a smaller chunk_size)")
    assert load_training({**small, "chunk_size": 1}).uses == DEFAULT_USES == 2
    (tmp_path / "t.toml").write_text('name = "t"\nseed = 1\nrounds = 1\ntables = ["eaai"]\n'
                                     "games = 10\n")
    code, out, err = call(capsys, "train", str(tmp_path / "t.toml"), "--out",
                          str(tmp_path / "out"))
    assert (code, out) == (2, "") and err.count("\n") == 1 and "no positions" in err
    assert not (tmp_path / "out").exists()
