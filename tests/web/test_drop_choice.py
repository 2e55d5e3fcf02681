"""A card dropped on a meld that holds a joker: a drop that can mean two things (lay
the card off, or exchange it for the joker) asks which; an exchange is never made
unasked. The arrows lay off and the joker itself exchanges, directly. In classic and
in three rounds (where the exchanged joker must go into a new meld) alike. The page's
outgoing messages are recorded instead of reaching a table."""

from __future__ import annotations

from typing import Any

import pytest

from romme.engine.game import Game
from romme.engine.rules import Rules
from tests.web.conftest import shot
from tests.web.test_targets import reset, sent
from tests.web.ui import drag_to_point, login_guest, open_table


def crafted_view(rules: Rules) -> dict[str, Any]:
    view: dict[str, Any] = Game.start(rules, seats=2, seed=bytes(32)).view_for(0).to_json()
    view.update(
        {
            "phase": "play",
            "current": 0,
            "opened": [True, True],
            "hand": ["QH", "9H", "KS", "4C", "8D"],
            "hand_counts": [5, 9],
            "melds": [
                {"kind": "sequence", "cards": ["TH", "JH", "XX", "KH"], "start": 10},
                {"kind": "group", "cards": ["KC", "KH", "XX"], "start": 13},
            ],
            "meld_owners": [1, 1],
        }
    )
    return view


def body(meld: int) -> Any:
    """A point on the meld's first card (its body, not an arrow and not the joker)."""
    return f"#meld-{meld} [data-pos='0']"


@pytest.mark.parametrize("preset", ["classic", "three-rounds"])
def test_a_drop_that_can_mean_two_things_asks(server: str, new_context: Any, preset: str) -> None:
    page = new_context(f"drop-choice-{preset}")
    login_guest(page, server, f"Jo{preset[:5]}")
    rules = Rules.preset(preset)
    open_table(page, crafted_view(rules), [f"Jo{preset[:5]}", "casual"], record_sent=True)

    # QH only replaces the joker of TH JH XX KH: dropped on the meld's body, it asks
    # (exchange or cancel); Cancel sends nothing and keeps the card.
    drag_to_point(page, "#hand-0", body(0))
    page.wait_for_selector(".drop-choice-dialog")
    assert page.locator(".drop-choice-dialog [data-choice]").count() == 1
    note = "hand" if preset == "classic" else "new meld"
    assert note in page.inner_text(".drop-choice-dialog")
    page.click(".drop-choice-dialog button:has-text('Cancel')")
    page.wait_for_selector(".drop-choice-dialog", state="detached")
    assert sent(page) == []
    drag_to_point(page, "#hand-0", body(0))
    page.click(".drop-choice-dialog [data-choice='exchange']")
    assert [m["action"] for m in sent(page)] == [
        {"type": "exchange_joker", "card": "QH", "meld": 0, "index": 2}
    ]
    reset(page)

    # 9H fits only the low end: dropped on the body it is laid off there, unasked.
    drag_to_point(page, "#hand-1", body(0))
    assert page.locator(".drop-choice-dialog").count() == 0
    assert [m["action"] for m in sent(page)] == [
        {"type": "lay_off", "card": "9H", "meld": 0, "end": "low"}
    ]
    reset(page)

    # KS both completes the kings and replaces their joker: on the body and on the
    # joker alike the player chooses; Escape chooses nothing.
    for where in (body(1), "#meld-1 [data-pos='2']"):
        drag_to_point(page, "#hand-2", where)
        page.wait_for_selector(".drop-choice-dialog")
        choices = page.eval_on_selector_all(
            ".drop-choice-dialog [data-choice]", "els => els.map(e => e.dataset.choice)"
        )
        assert choices == ["lay_off:", "exchange"], where
        page.keyboard.press("Escape")
        page.wait_for_selector(".drop-choice-dialog", state="detached")
        assert sent(page) == []
    drag_to_point(page, "#hand-2", body(1))
    shot(page, f"drop-choice-{preset}")
    page.click(".drop-choice-dialog [data-choice='lay_off:']")
    assert [m["action"] for m in sent(page)] == [
        {"type": "lay_off", "card": "KS", "meld": 1, "end": None}
    ]
    reset(page)

    # QH dropped on the joker itself exchanges it directly: the player aimed at it.
    drag_to_point(page, "#hand-0", "#meld-0 [data-pos='2']")
    assert page.locator(".drop-choice-dialog").count() == 0
    assert [m["action"] for m in sent(page)] == [
        {"type": "exchange_joker", "card": "QH", "meld": 0, "index": 2}
    ]
