"""Between rounds and after: a summary that survives a reload and counts down to the
next deal, results that can be reopened at any time, and a player who went over
the limit keeping the summary and Exit while the others play on."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.web.conftest import shot, start_server, stop_server
from tests.web.ui import login_guest, new_game, play_badly_until_round_over, view, wait_for


@pytest.fixture(scope="module")
def quick_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Computer opponents that move at once, so that a round ends quickly."""
    proc, base = start_server(tmp_path_factory.mktemp("quick"), "--bot-delay", "0")
    yield base
    stop_server(proc)


def countdown(page: Any) -> int:
    text = page.inner_text("#next-countdown")
    assert text.startswith("Next round in ") and text.endswith(" s"), text
    return int(text.removeprefix("Next round in ").removesuffix(" s"))


def test_summary_survives_a_reload_counts_down_and_can_be_reopened(
    quick_server: str, new_context: Any
) -> None:
    page = new_context("between-rounds")
    login_guest(page, quick_server, "Pausa")
    new_game(page, opponents=1, level="casual", limit="1000")
    v = play_badly_until_round_over(page)
    assert v["phase"] == "round_over" and v["round_no"] == 1
    page.wait_for_selector("#summary")
    # A reload at the summary shows it again: the round is not dealt meanwhile.
    page.reload()
    page.wait_for_selector("#summary")
    page.wait_for_timeout(500)
    v = view(page) or {}
    assert (v.get("phase"), v.get("round_no")) == ("round_over", 1)
    # The seconds left before the next deal (30 s), counting down.
    first = countdown(page)
    assert 0 < first <= 30
    wait_for(page, lambda: countdown(page) < first, 5, "the countdown to go on")
    page.click("#summary-next")
    wait_for(page, lambda: (view(page) or {}).get("round_no") == 2, 20, "the next deal")
    page.wait_for_selector("#summary", state="hidden")

    # In the next round the summary and the score sheet of all rounds can be reopened.
    page.click("#results")
    page.wait_for_selector("#summary")
    assert page.inner_text("#summary-title") == "Round 1 is over"
    page.click("#score-sheet > summary")
    rows = page.locator("#score-sheet tbody tr")
    assert rows.count() == 1
    result = (view(page) or {})["results"][0]
    assert rows.first.locator("td").all_inner_texts() == [str(p) for p in result["penalties"]]
    shot(page, "score-sheet")
    page.click("#summary-close")
    page.wait_for_selector("#summary", state="hidden")


# Samples, at every frame, of the round shown and whether Exit is on screen.
_SAMPLE_EXIT = """() => {
  window.__exitSamples = [];
  const sample = () => {
    const a = window.__romme, t = a.tables.get(a.tableId), exit = document.getElementById('summary-exit');
    if (t && t.view) window.__exitSamples.push({ round: t.view.round_no, phase: t.view.phase,
      exit: !!exit && exit.offsetParent !== null });
    requestAnimationFrame(sample);
  };
  sample();
}"""


# The summary's title and the player's red cross, read as Watch is clicked.
_READ_AND_WATCH = """() => {
  const watch = document.getElementById('summary-watch');
  const summary = {
    watched: !!watch,
    title: document.getElementById('summary-title')?.textContent ?? null,
    crosses: document.querySelectorAll('#summary tr.me .red-cross').length,
  };
  if (watch) watch.click();
  return summary;
}"""

# While watching: Exit in the status line once the summary is gone, or Back to
# the lobby if the game ended; whether either was clicked.
_LEAVE_WATCHING = """() => {
  const lobby = document.getElementById('summary-lobby');
  if (lobby) { lobby.click(); return true; }
  const exit = document.getElementById('status-exit');
  const summary = document.getElementById('summary');
  if (exit && exit.offsetParent !== null && (!summary || summary.offsetParent === null)) {
    exit.click();
    return true;
  }
  return false;
}"""


def test_an_eliminated_player_keeps_the_summary_and_exit(server: str, new_context: Any) -> None:
    page = new_context("eliminated")
    login_guest(page, server, "Raus")
    for _attempt in range(4):
        # Three computer opponents and a limit of 70: a player who never lays soon
        # goes over it while the others play on.
        new_game(page, opponents=3, level="casual", limit="70")
        page.evaluate(_SAMPLE_EXIT)
        while True:
            v = play_badly_until_round_over(page)
            if v["phase"] == "game_over" or not v["active"][v["seat"]]:
                break
            assert v["phase"] == "round_over"
            page.click("#summary-next")
            wait_for(
                page,
                lambda r=v["round_no"]: (view(page) or {}).get("round_no") == r + 1,
                40,
                "the next deal",
            )
        out_round = next(r["round_no"] for r in v["results"] if v["seat"] in r["eliminated"])

        def dealt_or_over(out: int = out_round) -> bool:
            now = view(page) or {}
            return now.get("phase") == "game_over" or (
                now.get("round_no", 0) > out and now.get("phase") in ("draw", "play")
            )

        wait_for(page, dealt_or_over, 40, "the next deal")
        page.wait_for_timeout(500)
        later = [
            x
            for x in page.evaluate("window.__exitSamples")
            if x["round"] > out_round and x["phase"] in ("draw", "play")
        ]
        if v["phase"] != "game_over" and later:
            break
        # Out in the game's last round, or the others finished at once: again.
        wait_for(page, lambda: (view(page) or {}).get("phase") == "game_over", 60, "the end")
        page.click("#summary-lobby")
        page.wait_for_selector("#new-game")
    else:
        raise AssertionError("the player never went over the limit while others played on")
    # The others play on, and all the while the summary of the round that put this
    # player out stays, with Exit.
    assert all(x["exit"] for x in later), later
    # The others may end the game at any moment, which turns the summary into the
    # game's: the summary is read, and Watch clicked, in one step in the page.
    summary = page.evaluate(_READ_AND_WATCH)
    if summary["watched"]:
        assert summary["title"] == f"Round {out_round} is over"
        assert summary["crosses"] == 1
        # Watching on: the table, with Exit in the status line (or, should the
        # game end meanwhile, the game's summary with Back to the lobby).
        wait_for(
            page,
            lambda: page.evaluate(_LEAVE_WATCHING),
            20,
            "Exit in the status line, or the game's end",
        )
    else:
        wait_for(page, lambda: (view(page) or {}).get("phase") == "game_over", 60, "the end")
        page.click("#summary-lobby")
    page.wait_for_selector("#new-game")
