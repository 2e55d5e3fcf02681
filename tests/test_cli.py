"""The ``romme`` command line, run as a real process the way a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest


def romme(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "romme", *args],
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )


def meld_json(*args: str) -> tuple[int, dict[str, Any]]:
    result = romme("meld", "--json", *args)
    return result.returncode, json.loads(result.stdout)


def no_traceback(result: subprocess.CompletedProcess[str]) -> bool:
    return "Traceback" not in result.stderr and "Traceback" not in result.stdout


# ---------------------------------------------------------------- romme meld


@pytest.mark.parametrize(
    ("cards", "kind", "points"),
    [
        ("QH KH AH", "sequence", 31),
        ("AH 2H 3H", "sequence", 6),
        ("AH KH QH", "sequence", 31),  # high to low is accepted for a sequence
        ("7C 7D 7H", "group", 21),
        ("AC AD AH AS", "group", 44),
        ("XX 2H 3H", "sequence", 6),
        ("5H XX 7H XX", "sequence", 26),
        ("7H 7S XX", "group", 21),
    ],
)
def test_valid_melds_name_their_kind_and_points(cards: str, kind: str, points: int) -> None:
    result = romme("meld", *cards.split())
    assert result.returncode == 0, result.stderr
    assert f"{kind}, {points} points" in result.stdout
    code, data = meld_json(*cards.split())
    assert code == 0
    assert data == {"valid": True, "kind": kind, "points": points, "reason": None}


def test_a_joker_says_what_it_stands_for() -> None:
    result = romme("meld", "XX", "2H", "3H")
    assert result.returncode == 0
    assert "XX=AH" in result.stdout


def test_an_open_suit_joker_names_the_missing_suits() -> None:
    result = romme("meld", "7H", "7S", "XX")
    assert "XX=7C/7D" in result.stdout


def test_cards_may_be_separated_by_commas_and_use_suit_symbols() -> None:
    result = romme("meld", "♥Q,♥K,♥A")
    assert result.returncode == 0, result.stderr
    assert "QH KH AH" in result.stdout
    assert "sequence, 31 points" in result.stdout
    assert romme("meld", "7c,", "10d", "ts").returncode == 1  # read, but no meld


@pytest.mark.parametrize(
    ("cards", "reason_part"),
    [
        ("TD TC TD", "TD twice"),
        ("KH AH 2H", "K-A-2"),
        ("AS XX XX", "at least 2 natural cards"),
        ("7H XX XX", "at least 2 natural cards"),
        ("7H 8H", "at least 3 cards"),
        ("7H 8S 9H", "one suit"),
        ("7H 9H TH", "consecutive"),
    ],
)
def test_invalid_melds_exit_1_and_say_why(cards: str, reason_part: str) -> None:
    result = romme("meld", *cards.split())
    assert result.returncode == 1
    assert "not a meld" in result.stdout
    assert reason_part in result.stdout
    code, data = meld_json(*cards.split())
    assert code == 1
    assert data["valid"] is False
    assert data["kind"] is None
    assert data["points"] is None
    assert reason_part in data["reason"]


def test_an_unreadable_card_exits_2_and_names_the_token() -> None:
    result = romme("meld", "7H", "1Z", "9H")
    assert result.returncode == 2
    assert "'1Z'" in result.stderr
    assert result.stdout == ""
    assert no_traceback(result)


def test_an_unreadable_card_in_json_is_an_answer_with_the_reason() -> None:
    code, data = meld_json("7H", "1Z", "9H")
    assert code == 2
    assert data["valid"] is False
    assert data["kind"] is None
    assert data["points"] is None
    assert "'1Z'" in data["reason"]


def test_three_rounds_allows_one_joker_per_meld() -> None:
    assert romme("meld", "5H", "XX", "7H", "XX").returncode == 0
    result = romme("meld", "--rules", "three-rounds", "5H", "XX", "7H", "XX")
    assert result.returncode == 1
    assert "joker" in result.stdout
    assert romme("meld", "--rules", "three-rounds", "5H", "XX", "7H").returncode == 0


def test_one_natural_card_is_no_meld_in_either_preset() -> None:
    for preset in ("classic", "three-rounds"):
        assert romme("meld", "--rules", preset, "7H", "XX", "XX").returncode == 1


def test_an_unknown_preset_is_a_usage_error() -> None:
    result = romme("meld", "--rules", "poker", "7C", "7D", "7H")
    assert result.returncode == 2
    assert no_traceback(result)


# ------------------------------------------------------- romme meld from stdin


def test_stdin_answers_one_line_per_meld_and_skips_blank_lines() -> None:
    result = romme("meld", stdin="7C 7D 7H\n\nQH KH AH\n   \nXX 2H 3H\n")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert len(lines) == 3
    assert "group, 21 points" in lines[0]
    assert "sequence, 31 points" in lines[1]
    assert "XX=AH" in lines[2]


def test_stdin_with_an_invalid_meld_exits_1() -> None:
    result = romme("meld", stdin="7C 7D 7H\nKH AH 2H\nQH KH AH\n")
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert len(lines) == 3
    assert "not a meld" in lines[1]


def test_stdin_with_bad_input_exits_2_and_still_answers_every_line() -> None:
    result = romme("meld", stdin="7C 7D 7H\n7H 1Z 9H\nKH AH 2H\n")
    assert result.returncode == 2
    lines = result.stdout.splitlines()
    assert len(lines) == 3
    assert "'1Z'" in lines[1]
    assert "not a meld" in lines[2]
    assert no_traceback(result)


def test_stdin_json_is_one_object_per_line() -> None:
    result = romme("meld", "--json", stdin="7C 7D 7H\nTD TC TD\n7H 1Z 9H\n")
    assert result.returncode == 2
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert answers[0] == {"valid": True, "kind": "group", "points": 21, "reason": None}
    assert answers[1]["valid"] is False
    assert "TD twice" in answers[1]["reason"]
    assert answers[2]["valid"] is False
    assert "'1Z'" in answers[2]["reason"]
    for answer in answers:
        assert set(answer) == {"valid", "kind", "points", "reason"}


def test_empty_stdin_is_no_question_and_no_failure() -> None:
    assert romme("meld", stdin="").returncode == 0


# ---------------------------------------------------------------- romme solve


def solve_json(*args: str) -> dict[str, Any]:
    result = romme("solve", "--json", *args)
    assert result.returncode == 0, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def as_multiset(melds: list[list[str]]) -> list[list[str]]:
    return sorted(sorted(meld) for meld in melds)


def test_solve_json_has_melds_left_penalty_and_points() -> None:
    data = solve_json("7C", "7D", "7H", "QH", "KH", "AH", "2S")
    assert set(data) == {"melds", "left", "penalty", "points"}
    assert as_multiset(data["melds"]) == as_multiset([["7C", "7D", "7H"], ["QH", "KH", "AH"]])
    assert data["left"] == ["2S"]
    assert data["penalty"] == 2
    assert data["points"] == 21 + 31


def test_solve_a_hand_without_melds_leaves_everything() -> None:
    data = solve_json("2C", "9D", "KS")
    assert data["melds"] == []
    assert sorted(data["left"]) == ["2C", "9D", "KS"]
    assert data["penalty"] == 2 + 9 + 10
    assert data["points"] == 0


def test_solve_uses_a_joker_rather_than_keep_it() -> None:
    data = solve_json("XX", "2H", "3H", "9S")
    assert as_multiset(data["melds"]) == [["2H", "3H", "XX"]]
    assert data["left"] == ["9S"]
    assert data["penalty"] == 9


def test_solve_follows_the_preset() -> None:
    classic = solve_json("5H", "XX", "7H", "XX")
    assert classic["penalty"] == 0
    assert classic["left"] == []
    three_rounds = solve_json("--rules", "three-rounds", "5H", "XX", "7H", "XX")
    assert three_rounds["left"] == ["XX"]
    assert three_rounds["penalty"] == 20  # a joker costs 20 in three-rounds


def test_solve_text_lists_melds_left_cards_penalty_and_points() -> None:
    result = romme("solve", "7C,7D,7H", "QH", "KH", "AH", "2S")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "7C 7D 7H" in out
    assert "QH KH AH" in out
    assert "left: 2S" in out
    assert "penalty: 2" in out
    assert "points: 52" in out


def test_solve_reads_the_hand_from_stdin() -> None:
    result = romme("solve", "--json", stdin="7C 7D 7H\n2S\n")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["left"] == ["2S"]


def test_solve_refuses_more_copies_than_the_shoe_holds() -> None:
    result = romme("solve", "7H", "7H", "7H", "8H")
    assert result.returncode == 2
    assert "7H 3 times" in result.stderr
    assert no_traceback(result)
    result = romme("solve", *["XX"] * 7)
    assert result.returncode == 2
    assert "XX 7 times (the shoe holds 6)" in result.stderr
    assert romme("solve", *["XX"] * 6).returncode == 0


def test_solve_refuses_more_cards_than_the_shoe() -> None:
    result = romme("solve", *["7H"] * 111)
    assert result.returncode == 2
    assert "111 cards" in result.stderr
    assert no_traceback(result)


def test_solve_refuses_an_unreadable_card() -> None:
    result = romme("solve", "7H", "8H", "Q")
    assert result.returncode == 2
    assert "'Q'" in result.stderr
    assert no_traceback(result)


def test_solve_refuses_an_empty_hand() -> None:
    result = romme("solve", stdin="")
    assert result.returncode == 2
    assert "no cards" in result.stderr


# ------------------------------------------------------------- the rest


def test_version() -> None:
    result = romme("--version")
    assert result.returncode == 0
    assert result.stdout.startswith("romme ")


def test_play_prints_a_seeded_match_to_its_end() -> None:
    first = romme("play", "--seed", "1", "--seats", "3", "--limit", "50")
    again = romme("play", "--seed", "1", "--seats", "3", "--limit", "50")
    other = romme("play", "--seed", "2", "--seats", "3", "--limit", "50")
    assert first.returncode == 0, first.stderr
    assert first.stdout == again.stdout != other.stdout
    assert "== round 1:" in first.stdout and "== winner: seat" in first.stdout
    assert "shuffle seed" in first.stdout


def test_play_refuses_bad_options() -> None:
    assert romme("play", "--seats", "5").returncode == 2
    assert romme("play", "--limit", "0").returncode == 2


def test_play_seats_four_for_three_rounds_and_two_for_classic_by_default() -> None:
    three = romme("play", "--rules", "three-rounds", "--seed", "1")
    assert three.returncode == 0, three.stderr
    assert three.stdout.startswith("romme: three-rounds, 4 players, 3 rounds")
    assert "seat 3" in three.stdout
    classic = romme("play", "--seed", "1", "--limit", "1")
    assert classic.stdout.startswith("romme: classic, 2 players, point limit 1")
    two = romme("play", "--rules", "three-rounds", "--seats", "2", "--seed", "1")
    assert two.stdout.startswith("romme: three-rounds, 2 players")


def test_play_refuses_the_knock_in_three_rounds() -> None:
    result = romme("play", "--rules", "three-rounds", "--knock", "--seats", "3")
    assert result.returncode == 2
    assert "three-rounds is played without the knock" in result.stderr
    assert result.stdout == "" and no_traceback(result)


def test_no_subcommand_is_a_usage_error() -> None:
    result = romme()
    assert result.returncode == 2
    assert "usage:" in result.stderr


def test_a_bad_option_is_a_usage_error() -> None:
    result = romme("play", "--seats", "many")
    assert result.returncode == 2
    assert no_traceback(result)
