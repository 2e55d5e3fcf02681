"""``romme tournament``: seat-rotated games between levels, figures per level."""

from __future__ import annotations

import pytest

from romme.cli import main


def test_tournament_prints_each_level(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "tournament",
                "--seats",
                "casual,beginner",
                "--games",
                "6",
                "--limit",
                "1",
                "--seed",
                "3",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "6 games (3 deals, seats rotated)" in out
    lines = {line.split()[0]: line for line in out.splitlines()[2:]}
    assert set(lines) == {"casual", "beginner"}
    assert "%" in lines["casual"] and "[" in lines["casual"]
    # The same seed plays the same games.
    assert (
        main(
            [
                "tournament",
                "--seats",
                "casual,beginner",
                "--games",
                "6",
                "--limit",
                "1",
                "--seed",
                "3",
            ]
        )
        == 0
    )
    again = capsys.readouterr().out
    assert [line.split()[:4] for line in again.splitlines()[2:]] == [
        line.split()[:4] for line in out.splitlines()[2:]
    ]


def test_tournament_with_knock_and_three_rounds(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "tournament",
                "--seats",
                "strong,casual,beginner",
                "--knock",
                "--games",
                "3",
                "--limit",
                "50",
            ]
        )
        == 0
    )
    assert "with knock" in capsys.readouterr().out
    assert (
        main(
            [
                "tournament",
                "--rules",
                "three-rounds",
                "--seats",
                "casual,casual,beginner,strong",
                "--games",
                "4",
                "--jobs",
                "2",
            ]
        )
        == 0
    )
    assert "three-rounds" in capsys.readouterr().out


@pytest.mark.parametrize(
    "arguments",
    [
        ["--seats", "casual"],
        ["--seats", "casual,wizard"],
        ["--seats", "casual,casual,casual,casual,casual"],
        ["--seats", "casual,beginner", "--games", "0"],
        ["--seats", "casual,beginner", "--knock"],
        ["--seats", "casual,beginner", "--rules", "three-rounds", "--limit", "50"],
    ],
)
def test_tournament_refuses_bad_options(
    arguments: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tournament", *arguments]) == 2
    assert "romme tournament:" in capsys.readouterr().err
