"""Driving the web client the way a person does: clicks, drags with the mouse,
keys. The tests read the page's state (the server's view the page holds) to
decide what to do, but act only through the page."""

from __future__ import annotations

import time
from typing import Any

from romme.engine.actions import Discard, Draw, ExchangeJoker, Knock, Lay, LayOff
from romme.engine.reference import cheapest_discard, reference_action
from romme.engine.scoring import card_penalty
from romme.engine.view import SeatView

# A point inside an element that is really on top there (cards overlap in the fan).
_VISIBLE_POINT = """(el) => {
  const r = el.getBoundingClientRect();
  for (const fy of [0.3, 0.5, 0.15, 0.7]) {
    for (const fx of [0.15, 0.3, 0.08, 0.5, 0.7, 0.9]) {
      const x = r.left + r.width * fx, y = r.top + r.height * fy;
      const top = document.elementFromPoint(x, y);
      if (top && (top === el || el.contains(top))) return [x, y];
    }
  }
  return [r.left + r.width / 2, r.top + r.height / 2];
}"""


BOT_LEVELS = ("beginner", "casual", "strong", "expert")


def open_table(
    page: Any,
    view: dict[str, Any] | None,
    players: list[str],
    table_id: int = 9100,
    point_limit: int = 100,
    record_sent: bool = False,
    wait: str = "#hand .hand-card",
    extra: dict[str, Any] | None = None,
) -> None:
    """The table screen with `view`, as if the server had sent the `table` message: the
    screen renders any view the server could send. ``players`` sit in seats 0, 1, ...
    (a nickname, or a computer opponent's level); the page's player is seat 0. With
    ``record_sent`` the page's outgoing messages are kept in ``window.__romme.sent``
    instead of reaching the server. ``extra`` adds to (or replaces) the table's fields."""
    seats = [
        {
            "seat": i,
            "nickname": None if who in BOT_LEVELS else who,
            "bot": who if who in BOT_LEVELS else None,
            "connected": True,
            "away": False,
        }
        for i, who in enumerate(players)
    ]
    table = {
        "id": table_id,
        "host": players[0],
        "status": "playing",
        "my_seat": 0,
        "version": 5,
        "settings": {
            "preset": "classic",
            "point_limit": point_limit,
            "seats": len(players),
            "turn_seconds": 30,
        },
        "seats": seats,
        "view": view,
        "timer": None,
        "next_round": None,
        "chat": [],
        **(extra or {}),
    }
    page.evaluate(
        """([t, record]) => { const a = window.__romme;
        if (record) { a.sent = []; a.send = (m) => { a.sent.push(m); return 'x'; }; }
        a.tables.set(t.id, t); a.openTable(t.id); }""",
        [table, record_sent],
    )
    page.wait_for_selector(wait)
    settle(page)


def in_lobby(page: Any) -> None:
    """Wait for the lobby and the panels it loads over HTTP (marked aria-busy until
    then), so that no request of the lobby is still on its way when a test goes on:
    ending the session under it would make the browser log a refused request."""
    page.wait_for_selector("#new-game")
    page.wait_for_function("() => !document.querySelector('[aria-busy=\"true\"]')")


def login_guest(page: Any, base: str, nickname: str) -> None:
    page.goto(base)
    page.fill("#entry-nick", nickname)
    page.click("#entry-submit")
    in_lobby(page)


def open_own_info(page: Any, nickname: str) -> None:
    """Open the lobby's info dialog of ``nickname`` (the page's own player) and wait
    for its statistics. Not the list's first player: on a server that earlier tests
    shared, that may be a guest who has just left, and whose name is released."""
    page.click(f"#player-list .player-link:has-text('{nickname}')")
    page.wait_for_selector(".info-stats, .player-info .form-error")
    assert page.locator(".player-info .form-error").count() == 0, page.inner_text(".player-info")


def enter(page: Any, tab: str, nickname: str, password: str) -> None:
    """Fill and send the entry form's ``tab`` ("login" or "register")."""
    page.click(f"#entry-tab-{tab}")
    page.fill("#entry-nick", nickname)
    page.fill("#entry-pass", password)
    page.click("#entry-submit")


def register(page: Any, base: str, nickname: str, password: str) -> None:
    page.goto(base)
    enter(page, "register", nickname, password)
    in_lobby(page)


def login(page: Any, base: str, nickname: str, password: str) -> None:
    page.goto(base)
    enter(page, "login", nickname, password)
    in_lobby(page)


def view(page: Any) -> dict[str, Any] | None:
    return page.evaluate(
        "() => { const a = window.__romme; const t = a.tables.get(a.tableId); return t ? t.view : null; }"
    )


def table_state(page: Any) -> dict[str, Any] | None:
    return page.evaluate(
        "() => { const a = window.__romme; const t = a.tables.get(a.tableId);"
        " return t ? {version: t.version, status: t.status, my_seat: t.my_seat} : null; }"
    )


def hand_in_dom(page: Any) -> list[str]:
    return page.eval_on_selector_all("#hand .hand-card", "els => els.map(e => e.dataset.card)")


def wait_for(page: Any, predicate: Any, timeout: float = 15.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        page.wait_for_timeout(40)
    raise AssertionError(f"timed out waiting for {what}")


def settle(page: Any) -> None:
    """Wait until no card is flying (finite animations and transitions done)."""
    page.wait_for_function(
        "() => document.getAnimations().every(a => a.playState !== 'running'"
        " || a.effect.getComputedTiming().iterations === Infinity)",
        timeout=5000,
    )


def point(page: Any, selector: str) -> tuple[float, float]:
    settle(page)
    x, y = page.eval_on_selector(selector, _VISIBLE_POINT)
    return float(x), float(y)


def drag_to_point(page: Any, source: str, target: Any) -> None:
    """Press on `source`, move in steps to `target` (a selector, evaluated once
    the drag has started, or a callable giving a point), release."""
    for _ in range(5):
        sx, sy = point(page, source)
        page.mouse.move(sx, sy)
        # The table may have changed under the pointer meanwhile (an opponent moved).
        if page.evaluate(
            "([x, y, sel]) => !!document.elementFromPoint(x, y)?.closest(sel)", [sx, sy, source]
        ):
            break
    page.mouse.down()
    page.mouse.move(sx + 8, sy - 12, steps=3)
    page.wait_for_timeout(30)
    tx, ty = target() if callable(target) else point(page, target)
    page.mouse.move(tx, ty, steps=8)
    page.wait_for_timeout(40)
    page.mouse.up()


def card_index(page: Any, card: str, start: int = 0) -> int:
    hand = hand_in_dom(page)
    for i in range(start, len(hand)):
        if hand[i] == card:
            return i
    raise AssertionError(f"{card} is not in the hand {hand}")


def reorder(page: Any, src: int, dst: int) -> None:
    """Drag the card at `src` to place `dst` in the fan."""

    def landing() -> tuple[float, float]:
        x, y = page.evaluate(
            """(k) => { const f = window.__rommeTable.state.fan;
                 const r = document.getElementById('hand').getBoundingClientRect();
                 return [r.left + f.left0 + f.cw / 2 + k * f.step, r.top + r.height * 0.55]; }""",
            dst,
        )
        return float(x), float(y)

    before = hand_in_dom(page)
    drag_to_point(page, f"#hand-{src}", landing)
    expected = list(before)
    expected.insert(dst, expected.pop(src))
    wait_for(page, lambda: hand_in_dom(page) == expected, 5, f"hand order {expected}")


def arrange(page: Any, order: list[str]) -> None:
    """Bring the hand into `order` (a prefix of the hand) by dragging cards."""
    for k, card in enumerate(order):
        j = card_index(page, card, k)
        if j != k:
            reorder(page, j, k)


class Tally:
    """How each kind of move was made, for the assertions at the end."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def add(self, what: str) -> None:
        self.counts[what] = self.counts.get(what, 0) + 1

    def __getitem__(self, what: str) -> int:
        return self.counts.get(what, 0)


def play_my_move(page: Any, v: dict[str, Any], tally: Tally) -> None:
    """One action of the reference player, made through the page."""
    seat_view = SeatView.from_json(v)
    action = reference_action(seat_view)
    before = signature(v)
    if action is None:
        return
    if isinstance(action, Draw):
        page.click("#stock" if action.source == "stock" else "#discard")
        tally.add(f"draw_{action.source}")
    elif isinstance(action, Knock):
        page.click("#knock")
        tally.add("knock")
    elif isinstance(action, Lay):
        cards = [str(c) for meld in action.melds for c in meld]
        arrange(page, cards)
        lay = page.locator("#lay-cards")
        try:
            wait_for(page, lambda: lay.is_enabled(), 3, "Lay cards to be enabled")
        except AssertionError:
            # The page marks melds among neighbouring cards its own way; if it
            # does not offer these, play on: discard, and try again next turn.
            tally.add("lay_not_offered")
            i = card_index(page, str(cheapest_discard(seat_view)))
            drag_to_point(page, f"#hand-{i}", "#discard")
        else:
            lay.click()
            tally.add("lay")
    elif isinstance(action, LayOff):
        card = str(action.card)
        i = card_index(page, card)
        end = "high" if action.end in (None, "high") else "low"
        drag_to_point(page, f"#hand-{i}", f"#meld-{action.meld} .meld-arrow.{end}")
        tally.add("lay_off")
    elif isinstance(action, ExchangeJoker):
        i = card_index(page, str(action.card))
        drag_to_point(page, f"#hand-{i}", f'#meld-{action.meld} [data-pos="{action.index}"]')
        tally.add("exchange")
    elif isinstance(action, Discard):
        i = card_index(page, str(action.card))
        drag_to_point(page, f"#hand-{i}", "#discard")
        tally.add("discard_drag")
    wait_for(
        page, lambda: signature(view(page) or {}) != before, 10, f"the server to take {action}"
    )


def signature(v: dict[str, Any]) -> Any:
    """What a move changes (the hand's order aside, which sorting changes)."""
    return (
        sorted(v.get("hand", [])),
        v.get("phase"),
        v.get("current"),
        str(v.get("melds")),
        v.get("discard_count"),
        v.get("round_no"),
    )


def new_game(
    page: Any,
    opponents: int = 1,
    level: str | None = None,
    turn: int = 120,
    limit: str | None = None,
    knock: bool = False,
    started: bool = True,
) -> None:
    """Start a game against computer opponents from the lobby's "New game" dialog
    (``limit``: "1", "50", "100" or a number for "Other"; ``level`` "human": seats
    for people, and the table waits for them: ``started=False``)."""
    page.click("#new-game")
    page.select_option("#ng-opponents", str(opponents))
    for i in range(1, opponents + 1):
        if level is not None:
            page.select_option(f"#ng-seat-{i}", level)
    if limit in ("1", "50", "100"):
        page.check(f"#new-game-form input[name=limit][value='{limit}']")
    elif limit is not None:
        page.fill("#ng-custom-limit", limit)
    if knock:
        page.check("#ng-knock")
    page.select_option("#ng-turn", str(turn))
    page.click("#ng-create")
    page.wait_for_selector("#hand .hand-card" if started else "#start-game")


def draw_and_discard(page: Any, choose: Any = None) -> None:
    """One whole turn by keyboard: S draws from the stock, Enter on a card discards
    it (``choose(view)`` picks the card; by default the first one that is no joker)."""
    page.locator("body").focus()
    page.keyboard.press("s")
    # Drawn, and the screen shows it and takes the next move: the hand on the screen
    # is the view's, and the draw's answer has come (the screen takes one move at a time).
    wait_for(
        page,
        lambda: (
            (view(page) or {}).get("phase") == "play"
            and sorted(hand_in_dom(page)) == sorted((view(page) or {}).get("hand") or [])
            and not page.evaluate("window.__rommeTable.state.busy")
        ),
        what="the draw",
    )
    v = view(page) or {}
    hand = hand_in_dom(page)
    card = choose(v) if choose else next(c for c in hand if c != "XX")
    page.focus(f"#hand-{hand.index(card)}")
    page.keyboard.press("Enter")
    try:
        wait_for(
            page,
            lambda: (
                (view(page) or {}).get("phase") != "play"
                or (view(page) or {}).get("current") != v.get("seat")
            ),
            what="the discard",
        )
    except AssertionError as exc:
        raise AssertionError(f"{exc} of {card}: {page.evaluate(_DISCARD_STATE)}") from None


# What the screen was doing when a discard did not happen.
_DISCARD_STATE = """() => {
  const s = window.__rommeTable.state, a = document.activeElement;
  return {busy: s.busy, myTurn: s.myTurn, phase: s.view && s.view.phase,
          focused: a ? a.id || a.className : null,
          backdrop: !!document.querySelector('.backdrop'),
          toasts: [...document.querySelectorAll('.toast')].map((t) => t.textContent)};
}"""


def cheapest_card(v: dict[str, Any]) -> str:
    """The card of the hand that costs least as a penalty (never a joker): a player who
    throws these away and never lays collects penalty points."""
    seat_view = SeatView.from_json(v)
    return str(
        min(
            (c for c in seat_view.hand if not c.is_joker),
            key=lambda c: card_penalty(c, seat_view.rules),
        )
    )


def play_badly_until_round_over(page: Any, limit: float = 300) -> dict[str, Any]:
    """Play every turn with :func:`cheapest_card` until a round (or the game) is over,
    or the seat is out of the game."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        v = view(page) or {}
        if v.get("phase") in ("round_over", "game_over") or (
            v.get("active") and not v["active"][v["seat"]]
        ):
            return v
        if v.get("phase") == "draw" and v.get("current") == v.get("seat"):
            draw_and_discard(page, cheapest_card)
        else:
            page.wait_for_timeout(40)
    v = view(page) or {}
    raise AssertionError(
        f"the round did not end in time: {v.get('phase')} {v.get('current')} "
        f"{v.get('seat')} {v.get('round_no')} {v.get('hand_counts')}"
    )
