"""What ``ginbox run`` and ``ginbox report`` may touch and how they fail: only files ginbox
wrote, chunks verified by content, locks, Dask set-up before any file, plain progress off a
terminal, and one-line messages that say what to do."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import socket
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import sim.runs.progress as progress
from sim.cli import main
from sim.io.files import MARKER, temp_path
from sim.runs.runner import load_results, run_experiment

FIELD = ["greedy-knock", "simple", "random"]
SPEC: dict[str, Any] = {
    "name": "safe", "seed": 5, "games": 24, "chunk_size": 8,  # 3 chunks an arm, roles balanced
    "arms": [{"name": "a", "strategies": FIELD},
             {"name": "b", "rules": "three-handed-20", "strategies": FIELD}],
}
TOML = """name = "safe"
seed = 5
games = 24
chunk_size = 8
[[arms]]
name = "a"
strategies = ["greedy-knock", "simple", "random"]
[[arms]]
name = "b"
rules = "three-handed-20"
strategies = ["greedy-knock", "simple", "random"]
"""


def run(out: Path, **kwargs: Any) -> Any:
    kwargs.setdefault("quiet", True)
    kwargs.setdefault("jobs", 1)
    return run_experiment(kwargs.pop("spec", SPEC), out=out, **kwargs)


def call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


@pytest.fixture(scope="module")
def done(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run, copied by tests that change it."""
    out = tmp_path_factory.mktemp("done") / "run"
    run(out)
    return out


def copy_of(done: Path, tmp_path: Path) -> Path:
    out = tmp_path / "run"
    shutil.copytree(done, out)
    return out


# ------------------------------------------------------------ item 2: only ginbox's files


def test_run_refuses_a_folder_of_someone_elses_files(tmp_path: Path) -> None:
    d = tmp_path / "d"
    d.mkdir()
    (d / "report.md").write_text("my notes")
    (d / "comparisons.csv").write_text("mine")
    (d / ".notes.tmp").write_text("mine too")
    before = snapshot(d)
    for kwargs in ({}, {"force": True}, {"resume": True}):
        with pytest.raises(ValueError, match=r"^.*/d is not empty \(\.notes\.tmp, "
                                             r"comparisons\.csv, report\.md\) and holds no "
                                             r"ginbox run: ginbox writes only into a new or "
                                             r"empty folder or one of its own runs, so it never "
                                             r"overwrites your files; choose another --out$"):
            run(d, **kwargs)
    assert snapshot(d) == before


def test_chunks_without_a_manifest_are_not_offered_a_resume(done: Path, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    out = copy_of(done, tmp_path)
    (out / "manifest.json").unlink()
    before = snapshot(out)
    (tmp_path / "safe.toml").write_text(TOML)
    for extra in ([], ["--resume"], ["--force"]):
        code, stdout, err = call(capsys, "run", str(tmp_path / "safe.toml"), "--out", str(out),
                                 "--quiet", *extra)
        assert code == 2 and stdout == ""
        assert err == (f"ginbox: error: {out} holds chunk files or a manifest.json that ginbox "
                       "cannot read (missing, damaged or of another version), so it cannot "
                       "tell which files it wrote and will not touch them: move them away or "
                       "choose another --out\n")
    assert snapshot(out) == before


def test_force_and_resume_touch_only_what_ginbox_wrote(done: Path, tmp_path: Path) -> None:
    out = copy_of(done, tmp_path)
    (out / "arm=0" / "mine.txt").write_text("mine")
    (out / "arm=7").mkdir()
    (out / ".notes.tmp").write_text("mine")
    (out / "my.1.abc.tmp").write_text("mine")  # not a ginbox temporary either
    ours = temp_path(out / "manifest.json")
    ours.write_text("left by a killed run")
    chunk_tmp = temp_path(out / "arm=1" / "chunk-00001.parquet")
    chunk_tmp.write_bytes(b"partial")
    run(out, resume=True)
    assert not ours.exists() and not chunk_tmp.exists()
    assert (out / ".notes.tmp").read_text() == "mine" and (out / "my.1.abc.tmp").exists()
    run(out, force=True, games=8)
    assert (out / "arm=0" / "mine.txt").read_text() == "mine" and (out / "arm=7").is_dir()
    assert not (out / "arm=0" / "chunk-00001.parquet").exists()  # the old run's: deleted


def test_report_overwrites_and_deletes_only_files_it_wrote(done: Path, tmp_path: Path) -> None:
    from sim.analysis.report import report

    rep = report(done)
    d = tmp_path / "d"
    d.mkdir()
    (d / "knock_sweep.csv").write_text("mine")  # a report file name this report does not write
    written = {p.name for p in rep.write(d)}
    assert (d / "knock_sweep.csv").read_text() == "mine"
    marker = json.loads((d / MARKER).read_text())
    assert marker == {"written_by": "ginbox report", "files": sorted(written)}
    # a file of a section an earlier report wrote, which no longer applies, is removed
    marker["files"].append("box_runs_old.csv")
    (d / "box_runs_old.csv").write_text("not a report file name")
    marker["files"].append("knock_sweep.csv")
    (d / MARKER).write_text(json.dumps(marker))
    rep.write(d)
    assert not (d / "knock_sweep.csv").exists() and (d / "box_runs_old.csv").exists()
    e = tmp_path / "e"
    e.mkdir()
    (e / "report.md").write_text("my report")
    with pytest.raises(ValueError, match=r"^cannot write the report into .*/e: report\.md is "
                                         r"there and ginbox did not write it \(its "
                                         r"\.ginbox-written\.json does not list it\), so it is "
                                         r"left alone: move it away or write the report "
                                         r"elsewhere \(--out\)$"):
        rep.write(e)
    assert sorted(p.name for p in e.iterdir()) == ["report.md"]


# ------------------------------------------------- items 5, 6: chunks verified by content


def test_manifest_records_each_chunks_sha256(done: Path) -> None:
    manifest = json.loads((done / "manifest.json").read_text())
    for entry in manifest["chunks"]:
        data = (done / entry["file"]).read_bytes()
        assert entry["sha256"] == hashlib.sha256(data).hexdigest()


def flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 16] = bytes(b ^ 0xFF for b in data[middle:middle + 16])
    path.write_bytes(bytes(data))


def test_a_damaged_chunk_is_named_and_resume_replays_it(done: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    reference = load_results(done).games
    out = copy_of(done, tmp_path)
    bad = out / "arm=1" / "chunk-00001.parquet"
    flip(bad)
    message = (f"ginbox: error: {bad} does not match the manifest of {out}: its sha256 differs "
               "from the one recorded when it was written (damaged or replaced); replay it "
               f"with 'ginbox run FILE --out {out} --resume' (FILE: the run's experiment)\n")
    code, stdout, err = call(capsys, "report", str(out))
    assert (code, stdout, err) == (2, "", message)
    result = run(out, resume=True)
    assert result.manifest["sessions"][-1]["chunks"] == 1
    pd.testing.assert_frame_equal(load_results(out).games, reference)


def test_unrecorded_chunks_are_checked_by_decoding(done: Path, tmp_path: Path) -> None:
    """A chunk written after the manifest's last save (a crash) has no checksum yet: an
    intact one counts as done, a damaged one is replayed."""
    reference = load_results(done).games
    out = copy_of(done, tmp_path)
    manifest = json.loads((out / "manifest.json").read_text())
    for entry in manifest["chunks"]:
        entry["sha256"] = None
    (out / "manifest.json").write_text(json.dumps(manifest))
    flip(out / "arm=0" / "chunk-00002.parquet")
    result = run(out, resume=True)
    assert result.manifest["sessions"][-1]["chunks"] == 1
    pd.testing.assert_frame_equal(load_results(out).games, reference)
    assert all(e["sha256"] for e in result.manifest["chunks"])


def test_report_refuses_a_chunk_of_another_run(done: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    other = run(tmp_path / "other", spec={**SPEC, "seed": 6, "chunk_size": 20})
    out = copy_of(done, tmp_path)
    target = out / "arm=0" / "chunk-00000.parquet"
    shutil.copy(other.out / "arm=0" / "chunk-00000.parquet", target)
    code, stdout, err = call(capsys, "report", str(out))
    assert code == 2 and stdout == ""
    assert err.startswith(f"ginbox: error: {target} does not match the manifest of {out}: it "
                          "holds 20 games where the manifest lists 8; replay it with")
    same_size = run(tmp_path / "same", spec={**SPEC, "seed": 6})
    shutil.copy(same_size.out / "arm=0" / "chunk-00000.parquet", target)
    code, stdout, err = call(capsys, "report", str(out))
    assert code == 2 and "its sha256 differs" in err


# ------------------------------------------------------------------------ item 10: locks


def test_a_lock_with_our_own_pid_is_stale(done: Path, tmp_path: Path) -> None:
    """ginbox as PID 1 in a restarted container finds its own pid in the old lock."""
    out = copy_of(done, tmp_path)
    (out / ".lock").write_text(json.dumps({"pid": os.getpid(), "host": socket.gethostname()}))
    result = run(out, resume=True)
    assert result.manifest["status"] == "complete" and not (out / ".lock").exists()


def test_a_lock_from_another_host_says_what_to_do(done: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = copy_of(done, tmp_path)
    (out / ".lock").write_text(json.dumps({"pid": 42, "host": "lost-machine"}))
    (tmp_path / "safe.toml").write_text(TOML)
    argv = ["run", str(tmp_path / "safe.toml"), "--out", str(out), "--quiet", "--resume"]
    code, stdout, err = call(capsys, *argv)
    assert (code, stdout) == (2, "")
    assert err == (f"ginbox: error: {out} is locked by a run on host 'lost-machine' (pid 42), "
                   "which this machine cannot check: if no run is active there (a lost "
                   "machine), take the lock over with --break-lock\n")
    code, stdout, err = call(capsys, *argv, "--break-lock")
    assert code == 0 and stdout.startswith("nothing to run: all 48 games")
    assert err == ("ginbox: warning: took over the lock of the run on host 'lost-machine' "
                   "(pid 42), as --break-lock asks\n")
    assert not (out / ".lock").exists()


# --------------------------------------------------------- item 9, 16: Dask set-up first


def test_dask_set_up_errors_come_before_any_file(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "never"
    with pytest.raises(ValueError, match=r"^cannot connect to the Dask scheduler 'nonsense': "
                                         r"missing port number in address 'nonsense' \(expected "
                                         r"an address such as tcp://host:8786\)$"):
        run(out, backend="dask", scheduler="nonsense")
    assert not out.exists()
    monkeypatch.setitem(sys.modules, "distributed", None)  # not installed
    with pytest.raises(ValueError, match=r"^backend='dask' needs the distributed package"):
        run(out, backend="dask")
    assert not out.exists()


def test_dask_manifest_records_workers_not_the_ignored_jobs(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        result = run(tmp_path / "run", backend="dask", scheduler=cluster, jobs=5,
                     spec={**SPEC, "games": 8})
    session = result.manifest["sessions"][-1]
    assert session["backend"] == "dask" and session["jobs"] is None and session["workers"] == 1


# ------------------------------------------------------------ item 13: messages that help


def test_arms_differ_says_how(done: Path, tmp_path: Path) -> None:
    out = copy_of(done, tmp_path)
    changed = json.loads(json.dumps(SPEC))
    changed["arms"][1]["rules"] = "three-handed"
    changed["arms"][0]["strategies"] = ["simple", "simple", "random"]
    with pytest.raises(ValueError, match=(
            r"different experiment \(arms\[0\]\.strategies: \['greedy-knock', 'simple', "
            r"'random'\] there, \['simple', 'simple', 'random'\] now; arms\[1\]\.rules: "
            r"'three-handed-20' there, 'three-handed' now\)")):
        run(out, spec=changed, resume=True)
    changed["arms"].append({"name": "c", "strategies": FIELD})
    with pytest.raises(ValueError, match=r"different experiment \(arms: 2 there, 3 now; "):
        run(out, spec=changed, resume=True)


def test_interrupted_run_says_how_to_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import sim.runs.runner as runner

    real = runner.write_chunk
    written = []

    def write_then_interrupt(*args: Any) -> None:
        if len(written) == 2:
            raise KeyboardInterrupt
        written.append(args)
        real(*args)

    monkeypatch.setattr(runner, "write_chunk", write_then_interrupt)
    (tmp_path / "safe.toml").write_text(TOML)
    out = tmp_path / "my results"
    code, stdout, err = call(capsys, "run", str(tmp_path / "safe.toml"), "--out", str(out),
                             "--games", "24", "--quiet", "--jobs", "1")
    assert (code, stdout) == (130, "")
    assert err == (f"ginbox: interrupted: 2 of 6 chunks are saved in {out}; finish the run "
                   f"with: ginbox run {tmp_path / 'safe.toml'} --games 24 --out '{out}' "
                   "--resume\n")
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"


def test_os_errors_name_the_path_and_what_was_being_done(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    (tmp_path / "safe.toml").write_text(TOML)
    (tmp_path / "afile").write_text("x")
    code, stdout, err = call(capsys, "run", str(tmp_path / "safe.toml"), "--out",
                             str(tmp_path / "afile" / "sub"), "--quiet")
    assert (code, stdout) == (2, "")
    assert err == (f"ginbox: error: cannot write the run's results into "
                   f"{tmp_path / 'afile' / 'sub'}: Not a directory\n")


# ------------------------------------------- item 16: a report of a read-only results folder


def read_only(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Writes into ``folder`` fail as on a read-only file system (the tests may run as root,
    whom file modes do not stop)."""
    import sim.io.files as files

    real = files.atomic_paths

    def refuse(paths: Any, mkdir: bool = False) -> Any:
        if any(Path(p).parent == folder for p in paths):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS),
                          str(folder / ".x.ginbox-1.abcdef12.tmp"))
        return real(paths, mkdir)

    monkeypatch.setattr("sim.analysis.report.atomic_paths", refuse)


def test_report_of_a_read_only_run_prints_and_says_so(done: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    out = copy_of(done, tmp_path)
    before = snapshot(out)
    read_only(monkeypatch, out)
    code, stdout, err = call(capsys, "report", str(out))
    assert code == 0
    assert stdout.startswith("safe: 24 games per arm x 2 arms, seed 5 - game win rates")
    assert err == (f"ginbox: warning: cannot write the report files into {out}: Read-only file "
                   "system; the report above is complete: write its files elsewhere with: "
                   f"ginbox report {out} --out DIR\n")
    assert snapshot(out) == before
    elsewhere = tmp_path / "elsewhere"
    code, stdout, err = call(capsys, "report", str(out), "--out", str(elsewhere))
    assert code == 0 and err == ""
    assert stdout.endswith(f"report: {elsewhere / 'report.md'} (7 CSV tables, 3 PNG plots)\n")
    assert (elsewhere / "report.md").exists() and snapshot(out) == before
    read_only(monkeypatch, elsewhere)
    code, stdout, err = call(capsys, "report", str(out), "--out", str(elsewhere))
    assert (code, stdout) == (2, "")
    assert err == (f"ginbox: error: cannot write the report files into {elsewhere}: Read-only "
                   "file system\n")


# --------------------------------------------------------- item 15: progress off a terminal


def test_progress_off_a_terminal_is_plain_lines_of_whole_games(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "PLAIN_EVERY_S", 0.0)  # a line per chunk, to see them all
    monkeypatch.setattr(progress, "BOARD_EVERY_S", 3600.0)  # and none while a chunk plays
    (tmp_path / "safe.toml").write_text(TOML)
    code, stdout, err = call(capsys, "run", str(tmp_path / "safe.toml"), "--out",
                             str(tmp_path / "run"), "--jobs", "1")
    assert code == 0 and "\r" not in err
    assert err.splitlines() == [f"safe: {n}/48 games ({n / 48:.0%})"
                                for n in (8, 16, 24, 32, 40, 48)]
    monkeypatch.setattr(progress, "PLAIN_EVERY_S", 3600.0)
    code, stdout, err = call(capsys, "run", str(tmp_path / "safe.toml"), "--out",
                             str(tmp_path / "run2"), "--jobs", "1")
    assert code == 0 and err == ""  # a run shorter than the interval prints no progress


def test_progress_bar_on_a_terminal_counts_whole_games() -> None:
    import io

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Terminal()
    bar = progress.Progress("safe", 60, 0, stream=stream)
    bar.update(20)
    bar.close()
    assert "20/60" in stream.getvalue() and "20.0" not in stream.getvalue()
