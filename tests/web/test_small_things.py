"""Smaller things a new player stumbles on: with a card picked up by keyboard, Tab goes
straight to the places it may go; the focus stays in the hand after L; logging out
leaves no screen's address behind; no icon depends on an emoji font."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.web.conftest import ROOT
from tests.web.test_targets import crafted_view, sent
from tests.web.ui import in_lobby, login_guest, open_table

WEB = ROOT / "romme" / "web"


def active(page: Any) -> str:
    result: str = page.evaluate(
        "() => { const a = document.activeElement; if (!a) return '';"
        " const meld = a.closest('.meld'); return (meld ? meld.id + ' ' : '') + (a.id || a.className); }"
    )
    return result


def test_tab_goes_to_the_targets_of_a_picked_card(server: str, new_context: Any) -> None:
    page = new_context("keys-targets")
    login_guest(page, server, "Tabby")
    open_table(page, crafted_view(), ["Tabby", "casual"], record_sent=True)
    # TD fits below JD QD KD: Space picks it up, one Tab reaches the blue arrow.
    page.focus("#hand-2")
    page.keyboard.press(" ")
    page.keyboard.press("Tab")
    assert active(page) == "meld-1 meld-arrow low", active(page)
    # Tab goes on to the discard pile, and round to the card again.
    page.keyboard.press("Tab")
    assert active(page) == "discard", active(page)
    page.keyboard.press("Tab")
    assert active(page).startswith("hand-2"), active(page)
    page.keyboard.press("Shift+Tab")
    assert active(page) == "discard", active(page)
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")
    assert [m["action"] for m in sent(page)] == [
        {"type": "lay_off", "card": "TD", "meld": 1, "end": "low"}
    ]


def test_the_focus_stays_in_the_hand_after_l(server: str, new_context: Any) -> None:
    page = new_context("keys-lay")
    login_guest(page, server, "Elle")
    view = crafted_view()
    view.update(
        {
            "opened": [False, True],
            "hand": ["7C", "7D", "7H", "QH", "KH", "AH", "2S", "5D"],
            "hand_counts": [8, 9],
        }
    )
    open_table(page, view, ["Elle", "casual"], record_sent=True)
    page.focus("#hand-1")
    page.keyboard.press("l")
    assert sent(page)[-1]["action"]["type"] == "lay"
    # The table's answer: the melds laid, two cards left in the hand.
    page.evaluate(
        """() => { const a = window.__romme; const t = a.tables.get(a.tableId);
        const v = structuredClone(t.view); v.hand = ['2S', '5D']; v.hand_counts[0] = 2;
        v.opened[0] = true;
        v.melds.push({kind: 'group', cards: ['7C', '7D', '7H'], start: 7},
                     {kind: 'sequence', cards: ['QH', 'KH', 'AH'], start: 12});
        v.meld_owners.push(0, 0); t.version += 1; t.view = v;
        window.__rommeTable.state.busy = false;
        window.__rommeTable.setTable(t, [{type: 'laid', seat: 0, melds: []}]); }"""
    )
    page.wait_for_function("() => document.querySelectorAll('#hand .hand-card').length === 2")
    assert active(page).startswith("hand-1"), active(page)
    page.keyboard.press("ArrowLeft")
    assert active(page).startswith("hand-0"), active(page)


def test_logging_out_leaves_no_address_behind(server: str, new_context: Any) -> None:
    page = new_context("logout-address")
    login_guest(page, server, "Byebye")
    in_lobby(page)
    assert page.evaluate("location.hash") == "#/lobby"
    page.evaluate("window.__romme.logout()")
    page.wait_for_selector("#entry-nick")
    assert page.evaluate("location.hash") == ""


def test_no_icon_needs_an_emoji_font() -> None:
    """Pictures beyond the basic planes' symbols (emoji such as 🏆) show as a box where
    no emoji font is installed: the page draws its icons instead."""
    files = [
        *WEB.rglob("*.js"),
        *WEB.glob("locales/*.json"),
        *WEB.glob("css/*.css"),
        WEB / "index.html",
    ]
    found = [
        f"{Path(p).relative_to(ROOT)}:{n}"
        for p in files
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if any(ord(c) >= 0x1F000 for c in line)
    ]
    assert found == []


def test_a_draw_held_by_the_knock_window_says_why(server: str, new_context: Any) -> None:
    """The player's turn comes while the others may still knock on the last discard:
    the status line says that the draw waits for the window, and how long."""
    page = new_context("knock-wait")
    login_guest(page, server, "Waiter")
    view = crafted_view()
    view.update({"phase": "draw", "current": 0, "knock_seats": [1]})
    open_table(page, view, ["Waiter", "casual"], record_sent=True)
    page.evaluate("""() => { const a = window.__romme; const t = a.tables.get(a.tableId);
        t.timer = {seat: 0, deadline: a.now() + 33000, start: a.now() + 3000, seconds: 30,
                   knock: {seats: [1], deadline: a.now() + 3000}};
        window.__rommeTable.setTable(t, []); }""")
    note = page.wait_for_selector("#knock-wait")
    assert "may still knock" in note.inner_text() and " s)" in note.inner_text()
    # Once the window has closed, the note goes.
    page.wait_for_selector("#knock-wait", state="detached", timeout=10000)
