"""Hostile and broken hand logs: ``ginbox replay`` and ``ginbox review`` refuse them as bad
input (exit 2, one short line naming the file and line), read with bounded memory, and never
wrap a number; exit 1 stays "a record breaks the rules". Every file is made here, small: the
line limit is lowered for the long-line case instead of writing hundreds of megabytes."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from sim.cli import main
from sim.play.driver import play_games
from sim.records import limits
from sim.records.log import dumps_record, read_log
from sim.review import review

INT_RANGE = "-9223372036854775808..9223372036854775807"


@pytest.fixture(scope="module")
def hands() -> list[dict[str, Any]]:
    """Game 0 of a two-player log (its hands in order), as ``ginbox play --log`` writes it."""
    records = play_games("simple,simple", "eaai", games=1, seed=5, log=True).log
    assert records is not None and len(records) >= 2
    return records


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _edited(record: dict[str, Any], **changes: Any) -> str:
    return json.dumps({**json.loads(json.dumps(record)), **changes})


def _call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(params=["replay", "review"])
def command(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _refused(capsys: pytest.CaptureFixture[str], command: str, path: Path, message: str
             ) -> None:
    """``command`` on ``path`` exits 2 with exactly ``message`` and writes nothing."""
    out_dir = path.parent / "review-out"
    extra = ["--out", str(out_dir), "--judge", "mc:samples=4"] if command == "review" else []
    code, out, err = _call(capsys, command, str(path), *extra)
    assert (code, out, err) == (2, "", f"ginbox: error: {message}\n")
    assert not out_dir.exists()


def test_a_line_nested_100000_deep_is_malformed_input(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], hands: list[dict[str, Any]],
        command: str) -> None:
    path = _write(tmp_path / "deep.jsonl",
                  [dumps_record(hands[0]), '{"game": ' + "[" * 100_000 + "]" * 100_000 + "}"])
    _refused(capsys, command, path, f"{path}:2: not a hand record: its values are nested "
             "deeper than a JSON reader follows (a hand record nests 4 levels)")


def test_a_5000_digit_integer_names_the_file_and_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], hands: list[dict[str, Any]],
        command: str) -> None:
    path = _write(tmp_path / "digits.jsonl", ['{"game": ' + "7" * 5000 + "}"])
    _refused(capsys, command, path, f"{path}:1: the integer 7777777777...7777777777 (5,000 "
             f"digits) is out of range: a hand log's integers are {INT_RANGE}")


def test_game_number_2_to_the_63_is_refused_not_wrapped(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], hands: list[dict[str, Any]],
        command: str) -> None:
    path = _write(tmp_path / "g63.jsonl", [_edited(hands[0], game=2**63)])
    _refused(capsys, command, path, f"{path}:1: the integer 9223372036854775808 (19 digits) "
             f"is out of range: a hand log's integers are {INT_RANGE}")


def test_a_record_given_from_python_is_bounded_too(hands: list[dict[str, Any]]) -> None:
    record = json.loads(_edited(hands[0], game=2**63))
    with pytest.raises(ValueError) as info:
        review([record], judge="mc:samples=4", quiet=True)
    assert str(info.value) == (f"game {2**63} hand 0: 'game' is {2**63}, not an integer "
                               f"0..{2**63 - 1}")


def test_huge_values_are_cut_in_the_message(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], hands: list[dict[str, Any]],
        command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # short relative names: a path of over 80 characters is itself cut in the message (a
    # pytest-xdist worker's temporary directory is that long)
    monkeypatch.chdir(tmp_path)
    tmp_path = Path()
    path = _write(tmp_path / "rules.jsonl", [_edited(hands[0], rules=list(range(300_000)))])
    _refused(capsys, command, path, f"{path}:1: 'rules' is [0, 1, 2, 3, 4, 5, ...], not a "
             "preset name")
    config = dict(hands[0]["rules_config"], gin_bonus=list(range(300_000)))
    path = _write(tmp_path / "config.jsonl", [_edited(hands[0], rules_config=config)])
    code, out, err = _call(capsys, command, str(path))
    assert (code, out) == (2, "")
    assert err.startswith(f"ginbox: error: {path}:1: gin_bonus=[0, 1, 2, 3, ")
    assert err.endswith(", 299999] is not valid: expected an integer 0..1000\n")
    assert " characters, the middle left out) ... " in err
    assert len(err) <= limits.MESSAGE_CHARS + len("ginbox: error: \n")
    card = dict(hands[0]["deal"], upcard="Q" * 1_000_000)
    path = _write(tmp_path / "card.jsonl", [_edited(hands[0], deal=card)])
    _refused(capsys, command, path, f"{path}:1: 'deal.upcard': invalid card '{'Q' * 37}..."
             f"{'Q' * 36}': expected rank A23456789TJQK (or 10) then suit SHDC, e.g. 'AS', "
             "'TD', '10h'")


def test_a_line_longer_than_the_limit_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], hands: list[dict[str, Any]],
        monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    monkeypatch.setattr(limits, "MAX_LINE_BYTES", 4096)
    line = dumps_record(hands[0])
    assert len(line) < 4096
    path = _write(tmp_path / "long.jsonl", [line, '{"game": [' + "1," * 5000 + "1]}"])
    _refused(capsys, command, path, f"{path}:2: the line is longer than 4,096 bytes, the most "
             "a hand log's line holds: is this a hand log?")


def test_the_reader_never_holds_more_than_the_limit_of_a_line() -> None:
    class Counting(io.BytesIO):
        asked: list[int] = []

        def readline(self, size: int | None = -1) -> bytes:
            self.asked.append(-1 if size is None else size)
            return super().readline(size)

    data = b"x" * 1000 + b"\n" + b"y" * 5_000_000 + b"\n"
    source = Counting(data)
    lines = limits.bounded_lines(source, 1000)
    assert next(lines) == b"x" * 1000 + b"\n"  # exactly the limit passes
    with pytest.raises(limits.LineError, match="longer than 1,000 bytes"):
        next(lines)
    assert source.asked == [1002, 1002] and source.tell() == 1001 + 1002


def test_review_refuses_an_empty_log_as_replay_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str) -> None:
    path = _write(tmp_path / "empty.jsonl", [])
    _refused(capsys, command, path, f"the log {path} holds no hands")


def test_review_seats_outside_the_log_name_its_seats(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], hands: list[dict[str, Any]]
        ) -> None:
    path = _write(tmp_path / "two.jsonl", [dumps_record(r) for r in hands])
    code, out, err = _call(capsys, "review", str(path), "--seats", "5")
    assert (code, out, err) == (2, "", "ginbox: error: seat 5 is not a seat of this log: its "
                                       "games seat 2 players, seats 0, 1\n")
    code, out, err = _call(capsys, "review", str(path), "--seats=-1")
    assert (code, out, err) == (2, "", "ginbox: error: seats [-1] are not valid: expected "
                                       "seat numbers of the log, from 0 (0, 1 two-handed; 0, "
                                       "1, 2 three-handed)\n")


def test_a_malformed_line_of_a_game_is_named_by_file_and_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], hands: list[dict[str, Any]],
        command: str) -> None:
    path = _write(tmp_path / "roles.jsonl", [dumps_record(hands[0]), "",
                                             _edited(hands[1], sitter=5)])
    _refused(capsys, command, path, f"{path}:3: roles dealer={hands[1]['dealer']}, nondealer="
             f"{hands[1]['nondealer']}, sitter=5 are not valid: expected dealer and nondealer "
             "seats 0 and 1 and sitter null")


def test_replay_names_the_file_of_a_game_out_of_order(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], hands: list[dict[str, Any]]
        ) -> None:
    path = _write(tmp_path / "order.jsonl", [dumps_record(hands[1]), dumps_record(hands[0])])
    code, out, err = _call(capsys, "replay", str(path), "--all")
    assert (code, out, err) == (2, "", f"ginbox: error: {path}: game 0: expected its hands 0, "
                                       "1, 2, ... in order, got hands 1, 0\n")


def test_the_last_game_number_is_kept_whole_in_the_review_files(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], hands: list[dict[str, Any]]
        ) -> None:
    last = 2**63 - 1
    path = _write(tmp_path / "last.jsonl", [_edited(hands[0], game=last)])
    assert read_log(path)[0]["game"] == last
    code, _, err = _call(capsys, "replay", str(path))
    assert (code, err) == (0, "")
    out_dir = tmp_path / "review"
    code, _, err = _call(capsys, "review", str(path), "--judge", "mc:samples=4", "--out",
                         str(out_dir), "--quiet")
    assert (code, err) == (0, "")
    table = pd.read_csv(out_dir / "decisions.csv", dtype={"game": str})
    assert set(table["game"]) == {str(last)}
    assert (out_dir / f"winprob-game-{last}.png").is_file()
