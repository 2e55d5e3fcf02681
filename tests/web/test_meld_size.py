"""The table's melds take the largest size at which they fit the felt, at once after a
lay and after every change (an opponent's lay, the own hand getting shorter), at 2, 3
and 4 seats, on a desktop (1366x800) and a phone (360x740). Measured on the layout:
at the size shown every meld lies inside the meld area, and 2 px more would not fit
(or the size is the largest the table allows)."""

from __future__ import annotations

from typing import Any

import pytest

from romme.engine.game import Game
from romme.engine.rules import Rules
from tests.web.conftest import shot
from tests.web.ui import BOT_LEVELS, login_guest, open_table, settle

# The meld cards' width now, whether the melds fit at that width, and whether they
# would fit at 2 px more (each measured on the layout, which transforms leave alone).
_MEASURE = """() => {
  const center = document.querySelector('.center'), melds = document.getElementById('melds');
  const card = melds.querySelector('.meld-cards .card');
  const cs = getComputedStyle(center);
  const room = center.clientHeight - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom);
  const fits = () => melds.offsetHeight <= room + 1
    && [...melds.children].every((m) => m.offsetLeft - melds.offsetLeft >= -1 && m.offsetLeft - melds.offsetLeft + m.offsetWidth <= melds.clientWidth + 1);
  const shown = melds.style.getPropertyValue('--mcw');
  const width = card ? card.offsetWidth : 0;
  const fitsNow = fits();
  melds.style.setProperty('--mcw', `${width + 2}px`);
  const fitsMore = fits();
  melds.style.setProperty('--mcw', shown);
  return {width, fitsNow, fitsMore, count: melds.children.length,
          max: Math.min(110, center.clientWidth / 5)};
}"""

SEQUENCES = [
    ["2S", "3S", "4S"],
    ["5D", "6D", "7D", "8D"],
    ["9C", "TC", "JC"],
    ["QH", "KH", "AH"],
    ["3C", "4C", "5C"],
    ["6S", "7S", "8S", "9S"],
    ["TD", "JD", "QD"],
    ["4H", "5H", "6H"],
]


def crafted_view(seats: int, melds: int) -> dict[str, Any]:
    view: dict[str, Any] = (
        Game.start(Rules.classic(), seats=seats, seed=bytes(32)).view_for(0).to_json()
    )
    hand = ["7H", "8H", "9H", "2C", "KC", "KD", "KS", "3D", "8C"]
    laid = [
        {"kind": "sequence", "cards": cards, "start": "A23456789TJQK".index(cards[0][0]) + 1}
        for cards in SEQUENCES[:melds]
    ]
    view.update(
        {
            "phase": "play",
            "current": 0,
            "opened": [False] + [True] * (seats - 1),
            "hand": hand,
            "hand_counts": [len(hand)] + [8] * (seats - 1),
            "melds": laid,
            "meld_owners": [1 + i % (seats - 1) for i in range(melds)],
        }
    )
    return view


def deliver(page: Any, view: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    """Hand the screen the table's next view, as the app does with an `update`, and
    measure the melds two frames later, while the cards still fly."""
    at_once: dict[str, Any] = page.evaluate(
        "([v, events]) => { const a = window.__romme; const t = a.tables.get(a.tableId);"
        " t.version += 1; t.view = v; window.__rommeTable.setTable(t, events);"
        " return new Promise((done) => requestAnimationFrame(() => requestAnimationFrame("
        f" () => done(({_MEASURE})())))); }}",
        [view, events],
    )
    return at_once


def check(m: dict[str, Any], what: str) -> None:
    assert m["fitsNow"], f"{what}: the melds do not fit at {m['width']} px"
    assert m["width"] >= m["max"] - 2 or not m["fitsMore"], (
        f"{what}: the melds are {m['width']} px wide but fit larger ({m})"
    )


@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_melds_take_the_largest_size_that_fits(
    server: str, new_context: Any, seats: int, size: str
) -> None:
    viewport = (
        {"width": 1366, "height": 800} if size == "desktop" else {"width": 360, "height": 740}
    )
    page = new_context(f"melds-{seats}-{size}", viewport=viewport)
    name = f"Mia{seats}{size[0]}"
    login_guest(page, server, name)
    view = crafted_view(seats, 5)
    open_table(page, view, [name, *BOT_LEVELS[: seats - 1]], record_sent=True)
    check(page.evaluate(_MEASURE), "opened")

    # The player lays two melds: the hand gets shorter, the melds more.
    view["hand"] = ["2C", "3D", "8C"]
    view["hand_counts"][0] = 3
    view["opened"][0] = True
    view["melds"] += [
        {"kind": "sequence", "cards": ["7H", "8H", "9H"], "start": 7},
        {"kind": "group", "cards": ["KC", "KD", "KS"], "start": 13},
    ]
    view["meld_owners"] += [0, 0]
    lay = [{"type": "laid", "seat": 0, "melds": [["7H", "8H", "9H"], ["KC", "KD", "KS"]]}]
    check(deliver(page, view, lay), "at once after the own lay")
    settle(page)
    check(page.evaluate(_MEASURE), "after the own lay")

    # An opponent lays two more and lays off one.
    view["melds"] += [
        {"kind": "sequence", "cards": SEQUENCES[5], "start": 6},
        {"kind": "sequence", "cards": SEQUENCES[6], "start": 10},
    ]
    view["melds"][0]["cards"] = [*view["melds"][0]["cards"], "5S"]
    view["meld_owners"] += [1, 1]
    view["hand_counts"][1] = 1
    events = [{"type": "laid", "seat": 1, "melds": [SEQUENCES[5], SEQUENCES[6]]}]
    check(deliver(page, view, events), "at once after an opponent's lay")
    settle(page)
    final = page.evaluate(_MEASURE)
    check(final, "after an opponent's lay")
    shot(page, f"melds-{seats}-{size}")
