"""sim.records.log: hand logs written atomically and deterministically, read back with
validation."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from sim.play.driver import play_games
from sim.records.frame import FRAME_COLUMNS, log_to_frame
from sim.records.log import (
    RECORD_KEYS,
    LogWriter,
    dumps_record,
    read_log,
    write_log,
)


@pytest.fixture(scope="module")
def three() -> Any:
    return play_games("greedy-knock,simple,random", "three-handed", games=4, seed=11, log=True)


@pytest.fixture(scope="module")
def two() -> Any:
    return play_games("simple,greedy-knock:knock_at=5", "classic", games=2, seed=4, log=True)


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


# ---------------------------------------------------------------------------------- round trip


def test_round_trip_equal_and_one_line_per_hand(tmp_path: Path, three: Any) -> None:
    path = tmp_path / "hands.jsonl"
    assert write_log(path, three.log) == len(three.log)
    assert read_log(path) == three.log
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(three.log) == int(three.games["hands"].sum())
    assert _leftovers(tmp_path) == ["hands.jsonl"]  # no temporary file left behind


def test_lines_are_compact_with_the_documented_key_order(tmp_path: Path, three: Any) -> None:
    path = tmp_path / "hands.jsonl"
    write_log(path, three.log)
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith('{"game":0,"hand":0,"rules":"three-handed","seats":["greedy-knock",')
    assert ", " not in first and '": ' not in first
    keys = list(json.loads(first))
    assert keys[: len(RECORD_KEYS)] == list(RECORD_KEYS)
    assert list(json.loads(first)["deal"]) == ["dealer", "nondealer", "upcard", "stock"]
    assert list(json.loads(first)["result"])[:2] == ["end", "knocker"]


def test_same_games_same_bytes_whatever_the_dict_order(tmp_path: Path, three: Any) -> None:
    again = play_games("greedy-knock,simple,random", "three-handed", games=4, seed=11, log=True)
    shuffled = [dict(reversed(list(r.items()))) for r in again.log]
    write_log(tmp_path / "a.jsonl", three.log)
    write_log(tmp_path / "b.jsonl", shuffled)
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


def test_numpy_values_are_written_as_plain_json(tmp_path: Path, three: Any) -> None:
    import numpy as np

    record = dict(three.log[0], game=np.int64(0), game_over=np.bool_(False))
    assert dumps_record(record) == dumps_record(three.log[0])


def test_streaming_writer_appends_batches(tmp_path: Path, three: Any) -> None:
    path = tmp_path / "s.jsonl"
    with LogWriter(path) as log:
        log.write_all(three.log[:3])
        assert not path.exists()  # only the temporary file exists while writing
        log.write_all(three.log[3:])
    assert log.count == len(three.log)
    assert read_log(path) == three.log


def test_written_log_has_ordinary_permissions(tmp_path: Path, three: Any) -> None:
    old = os.umask(0o022)
    try:
        write_log(tmp_path / "p.jsonl", three.log[:1])
    finally:
        os.umask(old)
    assert (tmp_path / "p.jsonl").stat().st_mode & 0o777 == 0o644


# ---------------------------------------------------------------------------------- atomicity


def test_failure_mid_write_leaves_no_file(tmp_path: Path, three: Any) -> None:
    bad = [three.log[0], three.log[1], dict(three.log[2], extra=object()), three.log[3]]
    with pytest.raises(TypeError, match="JSON cannot store"):
        write_log(tmp_path / "hands.jsonl", bad)
    assert _leftovers(tmp_path) == []


def test_failure_keeps_the_previous_log_intact(tmp_path: Path, three: Any) -> None:
    path = tmp_path / "hands.jsonl"
    write_log(path, three.log[:2])
    before = path.read_bytes()
    with pytest.raises(KeyboardInterrupt), LogWriter(path) as log:
        log.write_all(three.log)
        raise KeyboardInterrupt
    assert path.read_bytes() == before
    assert _leftovers(tmp_path) == ["hands.jsonl"]


def test_unwritable_destination_fails_before_writing(tmp_path: Path, three: Any) -> None:
    with pytest.raises(FileNotFoundError):
        write_log(tmp_path / "missing-dir" / "hands.jsonl", three.log)
    with pytest.raises(IsADirectoryError):
        write_log(tmp_path, three.log)
    assert _leftovers(tmp_path) == []


# ---------------------------------------------------------------------------------- corrupt


def _corrupt(tmp_path: Path, three: Any, line2: str | bytes) -> Path:
    path = tmp_path / "bad.jsonl"
    good = dumps_record(three.log[0]).encode() + b"\n"
    path.write_bytes(good + (line2 if isinstance(line2, bytes) else line2.encode()) + b"\n"
                     + good)
    return path


def _edit(record: dict[str, Any], **changes: Any) -> str:
    out = json.loads(json.dumps(record))
    for dotted, value in changes.items():
        target = out
        *head, last = dotted.split("__")
        for key in head:
            target = target[int(key)] if isinstance(target, list) else target[key]
        if value is KeyError:
            del target[last]
        else:
            target[last] = value
    return json.dumps(out)


@pytest.mark.parametrize(("make", "message"), [
    (lambda r: '{"game": 0, "hand": ', "not valid JSON"),
    (lambda r: "[1, 2, 3]", "expected a JSON object (one hand), got list"),
    (lambda r: '"a string"', "expected a JSON object"),
    (lambda r: _edit(r, result=KeyError), "missing key(s) 'result'"),
    (lambda r: _edit(r, deal__upcard="ZZ"), "'deal.upcard': invalid card 'ZZ'"),
    (lambda r: _edit(r, moves__0__move="fold"), "'moves[0].move' is 'fold'"),
    (lambda r: _edit(r, hand=-1), "'hand' is -1, not an integer 0..9223372036854775807"),
    (lambda r: _edit(r, scores=[1, 2]), "'scores' is [1, 2], not a list of 3 integers"),
    (lambda r: _edit(r, result__end="fold"), "'result.end' is 'fold'"),
    (lambda r: b"\xff\xfe garbage", "not UTF-8 text"),
])
def test_corrupt_line_names_file_line_and_problem(tmp_path: Path, three: Any, make: Any,
                                                  message: str) -> None:
    path = _corrupt(tmp_path, three, make(three.log[0]))
    with pytest.raises(ValueError) as info:
        read_log(path)
    text = str(info.value)
    assert text.startswith(f"{path}:2: ")
    assert message in text
    assert "\n" not in text


def test_blank_lines_are_skipped_and_missing_file_is_oserror(tmp_path: Path, three: Any) -> None:
    path = tmp_path / "gaps.jsonl"
    path.write_text("\n" + dumps_record(three.log[0]) + "\n\n", encoding="utf-8")
    assert read_log(path) == three.log[:1]
    with pytest.raises(FileNotFoundError):
        read_log(tmp_path / "nope.jsonl")


# ---------------------------------------------------------------------------------- frame


def test_frame_columns_and_values_match_records(three: Any) -> None:
    frame = log_to_frame(three.log)
    assert list(frame.columns) == [*FRAME_COLUMNS, "score_0", "score_1", "score_2", "game_over",
                                   "game_winner"]
    assert len(frame) == len(three.log)
    for row, rec in zip(frame.itertuples(index=False), three.log, strict=True):
        res = rec["result"]
        assert (row.game, row.hand, row.rules) == (rec["game"], rec["hand"], rec["rules"])
        assert (row.dealer, row.nondealer, row.sitter) == (rec["dealer"], rec["nondealer"],
                                                           rec["sitter"])
        assert row.upcard == rec["deal"]["upcard"] and row.end == res["end"]
        assert row.points == res["points"] and row.n_moves == len(rec["moves"])
        for col in ("knocker", "winner", "knocker_deadwood", "defender_deadwood"):
            value = getattr(row, col)
            assert (pd.isna(value) and res[col] is None) or value == res[col]
        assert [row.score_0, row.score_1, row.score_2] == rec["scores"]
        assert row.game_over == rec["game_over"]
        assert (pd.isna(row.game_winner) and rec["game_winner"] is None) or \
            row.game_winner == rec["game_winner"]
    assert frame["sitter"].dtype == "Int64" and frame["points"].dtype == "int64"


def test_frame_agrees_with_the_games_table(three: Any) -> None:
    frame = log_to_frame(three.log)
    per_game = frame.groupby("game").agg(hands=("hand", "size"), turns=("turns", "sum"))
    assert per_game["hands"].tolist() == three.games["hands"].tolist()
    assert per_game["turns"].tolist() == three.games["turns"].tolist()
    last = frame.groupby("game").tail(1)
    assert last["game_winner"].tolist() == three.games["winner"].tolist()
    assert last["game_over"].all() and not frame.groupby("game").head(-1)["game_over"].any()
    wins = frame[frame["end"].isin(["knock", "gin", "undercut"])]
    assert int(wins["points"].sum()) == int(three.games[["score_0", "score_1",
                                                         "score_2"]].to_numpy().sum())


def test_frame_two_player(two: Any) -> None:
    frame = log_to_frame(two.log)
    assert [c for c in frame.columns if c.startswith("score_")] == ["score_0", "score_1"]
    assert frame["sitter"].isna().all()
    assert set(frame["rules"]) == {"classic"}
    assert log_to_frame([]).columns.tolist()[: len(FRAME_COLUMNS)] == list(FRAME_COLUMNS)
