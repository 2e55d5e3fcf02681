"""Drags made at once after a move: the server's answer to the move before (a draw,
a lay-off) may come before the press, during the press, while the card is dragged or
only after it is let go. Whenever it comes, the card dragged onto a meld's arrow is
laid off there, and the discard pile takes a card dragged right after a draw.

The page's outgoing messages are recorded; the server's answer is the view a real
table would send after the move (the card moved from the hand onto the meld, the
drawn card into the hand), handed to the screen as the app hands it an `update`, at
a moment the test chooses."""

from __future__ import annotations

from typing import Any

from romme.engine.game import Game
from romme.engine.rules import Rules
from tests.web.conftest import shot
from tests.web.ui import login_guest, open_table, settle, wait_for

# The table's answer to the actions sent so far, kept until the test delivers it: the
# view after the move, as the server would send it (lay_off at either end, a draw from
# the stock), with the version counted on.
_FAKE_TABLE = """() => {
  const a = window.__romme;
  a.sent = []; a.pending = [];
  a.send = (m) => { a.sent.push(m); if (m.type === 'action' && m.action.type !== 'arrange') a.pending.push(m.action); return 'x'; };
  a.deliver = () => {
    const t = a.tables.get(a.tableId);
    for (const act of a.pending.splice(0)) {
      const v = structuredClone(t.view);
      const events = [];
      if (act.type === 'draw') {
        v.hand.push(v.stock_next); v.stock_count -= 1; v.phase = 'play';
        events.push({type: 'drew', seat: 0, source: 'stock', card: v.stock_next});
      } else if (act.type === 'lay_off') {
        v.hand.splice(v.hand.indexOf(act.card), 1);
        const meld = v.melds[act.meld];
        if (act.end === 'low') { meld.cards.unshift(act.card); meld.start -= 1; } else meld.cards.push(act.card);
        events.push({type: 'laid_off', seat: 0, card: act.card, meld: act.meld, end: act.end});
      } else if (act.type === 'discard') {
        v.hand.splice(v.hand.indexOf(act.card), 1); v.discard_top = act.card; v.discard_count += 1;
        v.phase = 'draw'; v.current = 1;
        events.push({type: 'discarded', seat: 0, card: act.card});
      } else continue;
      v.hand_counts[0] = v.hand.length;
      t.version += 1; t.view = v;
      window.__rommeTable.setTable(t, events);
    }
  };
}"""

# A point on the element that is really on top there, without waiting for cards to
# land; with `still`, only once no card of the hand is moving (a card of the hand
# pressed while the hand closes up behind the card played before would be another
# card by the time the press arrives).
_TOP_POINT = """(el, still) => {
  const moving = document.getAnimations().some((a) => a.playState === 'running'
    && a.effect?.target instanceof Element && a.effect.target.closest('#hand'));
  if (still && moving) return null;
  const r = el.getBoundingClientRect();
  for (const fy of [0.3, 0.5, 0.15]) for (const fx of [0.15, 0.3, 0.08, 0.5]) {
    const x = r.left + r.width * fx, y = r.top + r.height * fy;
    const top = document.elementFromPoint(x, y);
    if (top && (top === el || el.contains(top))) return [x, y];
  }
  return null;
}"""


def crafted_view(phase: str) -> dict[str, Any]:
    view: dict[str, Any] = (
        Game.start(Rules.classic(), seats=2, seed=bytes(32)).view_for(0).to_json()
    )
    hand = ["5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH", "3C", "4C", "8D"]
    view.update(
        {
            "phase": phase,
            "current": 0,
            "opened": [True, True],
            "hand": hand,
            "hand_counts": [len(hand), 9],
            "melds": [
                {"kind": "sequence", "cards": ["2H", "3H", "4H"], "start": 2},
                {"kind": "sequence", "cards": ["5C", "6C", "7C"], "start": 5},
            ],
            "meld_owners": [1, 0],
            "discard_top": "9S",
            "discard_count": 1,
            "stock_next": "2C",
        }
    )
    return view


_COVER = """(el) => {
  const r = el.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const top = document.elementFromPoint(x, y);
  const name = (e) => e ? `${e.tagName}#${e.id}.${[...e.classList].join('.')}` : 'nothing';
  return `${name(el)} at ${JSON.stringify(r)} in ${innerWidth}x${innerHeight}; on top: ${name(top)}, in ${name(top?.parentElement)}`;
}"""


def top_point(page: Any, selector: str, why: str = "", still: bool = False) -> tuple[float, float]:
    try:
        found = wait_for(
            page, lambda: page.eval_on_selector(selector, _TOP_POINT, still), 5, selector
        )
    except AssertionError:
        shot(page, "quick-drag-covered")
        where = page.eval_on_selector(selector, _COVER)
        raise AssertionError(f"{selector} is not on top anywhere{why}: {where}") from None
    return float(found[0]), float(found[1])


def quick_drag(page: Any, card: str, target: str, deliver: str) -> None:
    """Drag the hand's `card` onto `target` (a selector, looked up once the drag has
    started) with no pause, delivering the table's answer to the move before at
    `deliver`: "before" the press, "press" (pressed, not yet moved), "drag" (on the
    way), "after" it is let go."""
    if deliver == "before":
        page.evaluate("window.__romme.deliver()")
    sx, sy = top_point(page, f'#hand [data-card="{card}"]', still=True)
    page.mouse.move(sx, sy)
    page.mouse.down()
    if deliver == "press":
        page.evaluate("window.__romme.deliver()")
    page.mouse.move(sx + 8, sy - 12, steps=3)
    page.mouse.move(sx + 20, sy - 80, steps=3)
    if deliver == "drag":
        page.evaluate("window.__romme.deliver()")
    tx, ty = top_point(page, target, f" (dragging {card}, the answer {deliver})")
    page.mouse.move(tx, ty, steps=6)
    page.mouse.up()
    if deliver == "after":
        page.evaluate("window.__romme.deliver()")


def actions(page: Any) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = page.evaluate(
        "window.__romme.sent.filter((m) => m.type === 'action' && m.action.type !== 'arrange')"
        ".map((m) => m.action)"
    )
    return result


def test_lay_offs_at_once_after_the_one_before(server: str, new_context: Any) -> None:
    page = new_context("quick-lay-offs")
    login_guest(page, server, "Quinn")
    open_table(page, crafted_view("play"), ["Quinn", "casual"])
    page.evaluate(_FAKE_TABLE)
    cards = ["5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH"]
    timings = ["before", "press", "drag", "before", "press", "drag", "before", "press", "drag"]
    expected = []
    for card, timing in zip(cards, timings, strict=True):
        quick_drag(page, card, "#meld-0 .meld-arrow.high", timing)
        expected.append({"type": "lay_off", "card": card, "meld": 0, "end": "high"})
        assert actions(page) == expected, f"{card} with the answer {timing}"
    page.evaluate("window.__romme.deliver()")
    settle(page)
    assert page.eval_on_selector_all("#meld-0 .card", "els => els.map(e => e.dataset.card)") == [
        "2H",
        "3H",
        "4H",
        *cards,
    ]


def test_a_drag_at_once_after_the_draw(server: str, new_context: Any) -> None:
    """Draw, and at once drag a card onto a meld or the discard pile, the draw's answer
    coming while the card is pressed or dragged: the move is made."""
    page = new_context("quick-after-draw")
    login_guest(page, server, "Drew")
    for timing, card, target, move in [
        (
            "press",
            "5H",
            "#meld-0 .meld-arrow.high",
            {"type": "lay_off", "card": "5H", "meld": 0, "end": "high"},
        ),
        (
            "drag",
            "4C",
            "#meld-1 .meld-arrow.low",
            {"type": "lay_off", "card": "4C", "meld": 1, "end": "low"},
        ),
        ("drag", "8D", "#discard", {"type": "discard", "card": "8D"}),
        ("press", "8D", "#discard", {"type": "discard", "card": "8D"}),
    ]:
        open_table(page, crafted_view("draw"), ["Drew", "casual"])
        page.evaluate(_FAKE_TABLE)
        page.click("#stock")
        quick_drag(page, card, target, timing)
        assert actions(page) == [{"type": "draw", "source": "stock"}, move], timing
        page.evaluate("window.__romme.openLobby()")
        page.wait_for_selector("#new-game")
