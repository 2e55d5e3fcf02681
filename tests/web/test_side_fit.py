"""The table's side panel fits the window in every language, on a desktop (1366x800)
and a phone (360x740, where it is a drawer): the chat's input and Send lie inside the
window without scrolling, the chat's log keeps room for a few lines, and whatever does
not fit scrolls inside the panel (never below the window, out of reach)."""

from __future__ import annotations

from typing import Any

import pytest

from romme.engine.game import Game
from romme.engine.rules import Rules
from tests.web.conftest import shot
from tests.web.test_i18n import LANGS, switch
from tests.web.ui import login_guest, open_table

# Where the chat's input, Send and log lie, and whether the panel can scroll.
_MEASURE = """() => {
  const side = document.getElementById('side');
  const input = document.getElementById('table-chat-input');
  const send = input.form ? input.form.querySelector('button') : input.nextElementSibling;
  const log = document.getElementById('table-chat-log');
  const r = (el) => el.getBoundingClientRect();
  return {height: window.innerHeight, width: window.innerWidth,
    input: r(input).bottom, inputTop: r(input).top, send: r(send).bottom, sendRight: r(send).right,
    log: r(log).height, scrollable: side.scrollHeight <= side.clientHeight + 1 || getComputedStyle(side).overflowY !== 'visible'};
}"""


def crafted_view() -> dict[str, Any]:
    view: dict[str, Any] = (
        Game.start(Rules.classic(), seats=4, seed=bytes(32)).view_for(0).to_json()
    )
    view.update({"phase": "play", "current": 0})
    return view


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_side_panel_fits_in_every_language(server: str, new_context: Any, size: str) -> None:
    viewport = (
        {"width": 1366, "height": 800} if size == "desktop" else {"width": 360, "height": 740}
    )
    page = new_context(f"side-{size}", viewport=viewport)
    login_guest(page, server, f"Seite{size[0]}")
    # A staked game at a knock table: the most the panel lists (settings, the pot).
    settings = {
        "preset": "classic",
        "point_limit": 100,
        "seats": 4,
        "turn_seconds": 30,
        "knock": True,
        "hand_rummy": True,
        "stake": 1000,
    }
    open_table(
        page,
        crafted_view(),
        [f"Seite{size[0]}", "beginner", "casual", "strong"],
        extra={"settings": settings},
    )
    found = []
    for lang in LANGS:
        switch(page, lang)
        if size == "phone":
            page.click("#side-toggle")
            page.wait_for_function(
                "() => { const r = document.getElementById('side').getBoundingClientRect();"
                " return r.right <= window.innerWidth + 1 && r.left >= 0; }"
            )
        m = page.evaluate(_MEASURE)
        if not (m["inputTop"] >= 0 and m["input"] <= m["height"] and m["send"] <= m["height"]):
            found.append(f"{lang}: the chat's input ends at {m['input']:.0f} of {m['height']} px")
        if m["sendRight"] > m["width"] + 1:
            found.append(f"{lang}: Send ends at {m['sendRight']:.0f} of {m['width']} px")
        if m["log"] < 60:
            found.append(f"{lang}: the chat's log is {m['log']:.0f} px high")
        if not m["scrollable"]:
            found.append(f"{lang}: the side panel is cut off and does not scroll")
        shot(page, f"side-{size}-{lang}")
        if size == "phone":
            page.click(".side-close")
    assert found == []
