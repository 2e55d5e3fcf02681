"""The screens at a phone's and two desktops' sizes (360x740, 1366x800, 1920x1080):
the lobby, a table with twelve melds, the round summary and the settings dialog.
Each is photographed into docs/img/ (the README shows them) and checked: no table
element lies outside the window or under another element a player can press, the
melds need no scrolling, and axe-core (from npm, node_modules/axe-core) finds no
serious or critical accessibility violation. On a phone (360x740, and the table held
sideways at 740x360) the piles and the actions lie within the thumb's reach and no
toast covers a card, pile or action; at 360x740 nothing lies under the system bars'
insets either. It also makes the README's picture of a drag (docs/img/table.jpg).

The table is a real position: a four-player round the engine played until twelve
melds lay on the table, shown from seat 0 with a full hand (the screen renders any
view the server could send, as tests/web/test_summary.py does)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from romme.engine.game import Game, Phase
from romme.engine.reference import reference_action
from romme.engine.rules import Rules
from tests.web.conftest import ROOT, PageErrors
from tests.web.test_summary import round_over_view, show
from tests.web.ui import login_guest, open_table, point, settle

pytestmark = pytest.mark.slow

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
IMG = ROOT / "docs" / "img"
SIZES = {
    "phone": {"width": 360, "height": 740},
    "laptop": {"width": 1366, "height": 800},
    "desktop": {"width": 1920, "height": 1080},
}
# A hand of fourteen with two melds in it (the blue lines), as after a draw; its 9D
# fits the high end of the table's 6D 7D XX.
HAND = ["7C", "7D", "7H", "2S", "5H", "6H", "7H", "8H", "XX", "KD", "QC", "9S", "9D", "4C"]

# Every element a player can press that is shown: inside the window, and on top at
# its centre (under an open dialog or the round summary: those in it; the fan's cards overlap on purpose and are checked for the window only).
# The table's parts (seats, piles, melds, cards) lie inside the window too, and the
# meld area does not scroll.
_FIT = """() => {
  const W = document.documentElement.clientWidth, H = document.documentElement.clientHeight;
  const found = [];
  const name = (el) => el ? `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}${el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : ''}` : 'nothing';
  const shown = (el) => { const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && el.checkVisibility({ visibilityProperty: true, opacityProperty: true }); };
  const outside = (r) => r.left < -1 || r.top < -1 || r.right > W + 1 || r.bottom > H + 1;
  const press = 'button, a[href], input, select, textarea, summary, [tabindex]:not([tabindex="-1"])';
  // With a dialog or the round summary open, what lies under it is out of play.
  const layers = [...document.querySelectorAll('.backdrop, .overlay')].filter(shown);
  const scope = layers.length ? layers[layers.length - 1] : document;
  for (const el of scope.querySelectorAll(press)) {
    if (!shown(el)) continue;
    const r = el.getBoundingClientRect();
    if (outside(r)) { found.push(`${name(el)} outside the window`); continue; }
    if (el.closest('.hand, .chat-log') || el.matches('.toast *')) continue;
    const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!top || !(top === el || el.contains(top))) found.push(`${name(el)} under ${name(top)}`);
  }
  for (const el of document.querySelectorAll('.table-screen :is(.seat, .pile, .meld, .hand-card, .me-label)')) {
    if (shown(el) && outside(el.getBoundingClientRect())) found.push(`${name(el)} outside the window`);
  }
  const center = document.querySelector('.table-screen .center');
  if (center && shown(center) && center.scrollHeight > center.clientHeight + 1)
    found.push(`the melds need scrolling: ${center.scrollHeight} px in ${center.clientHeight} px`);
  const plate = document.querySelector('#me-label');
  if (plate && shown(plate)) {
    const p = plate.getBoundingClientRect();
    for (const card of document.querySelectorAll('#hand .hand-card')) {
      const c = card.getBoundingClientRect();
      if (c.bottom > p.top + 1 && c.top < p.bottom && c.right > p.left && c.left < p.right) { found.push(`#me-label overlaps ${name(card)}`); break; }
    }
  }
  return found;
}"""

# A toast covers no opponent's name or points and no meld.
_TOAST_CLEAR = """() => {
  const found = [];
  const toasts = [...document.querySelectorAll('.toast')].map((el) => el.getBoundingClientRect());
  for (const el of document.querySelectorAll('.table-screen :is(.seat-name, .seat-stats, .meld)')) {
    const r = el.getBoundingClientRect();
    if (!r.width) continue;
    for (const tr of toasts) {
      if (tr.right > r.left && tr.left < r.right && tr.bottom > r.top && tr.top < r.bottom) found.push(el.id || el.className);
    }
  }
  return found;
}"""

# On a phone the table is played with the thumb: the piles' centres and the actions
# lie in the lower half of the window, each action at least 44 px high (the blue
# arrows at the melds' ends too), and a toast covers no card, pile or action.
_THUMB_REACH = """() => {
  const H = document.documentElement.clientHeight;
  const found = [];
  const box = (el) => el.getBoundingClientRect();
  const actions = ['#stock', '#discard', '#lay-cards', '#hint', '#sort-suit', '#sort-rank'];
  for (const sel of actions) {
    const r = box(document.querySelector(sel));
    if (r.top + r.height / 2 < H / 2) found.push(`${sel} in the upper half (centre at ${Math.round(r.top + r.height / 2)} of ${H})`);
    if (r.height < 44) found.push(`${sel} only ${Math.round(r.height)} px high`);
  }
  const arrow = parseFloat(getComputedStyle(document.querySelector('.meld-arrow')).height);
  if (arrow < 44) found.push(`a meld's arrow only ${arrow} px high`);
  const toasts = [...document.querySelectorAll('.toast')].filter((el) => el.checkVisibility()).map(box);
  if (!toasts.length) found.push('no toast shown');
  for (const el of document.querySelectorAll(`#hand .hand-card, ${actions.join(', ')}`)) {
    const r = box(el);
    for (const t of toasts) {
      if (t.right > r.left && t.left < r.right && t.bottom > r.top && t.top < r.bottom) found.push(`a toast covers ${el.id || el.className}`);
    }
  }
  return found;
}"""

# The system's bars: with insets of 24 px at the top and 20 px at the bottom (set
# through the variables the stylesheet takes from env(safe-area-inset-*), which only a
# real phone fills in), nothing of the table lies under them.
_SAFE_AREA = """() => {
  const found = [];
  const sheets = [...document.styleSheets].flatMap((s) => [...s.cssRules].map((r) => r.cssText)).join(' ');
  for (const side of ['top', 'right', 'bottom', 'left'])
    if (!sheets.includes(`env(safe-area-inset-${side}`)) found.push(`the stylesheet ignores safe-area-inset-${side}`);
  if (!document.querySelector('meta[name=viewport]').content.includes('viewport-fit=cover'))
    found.push('the page does not extend under the system bars (viewport-fit=cover)');
  const H = document.documentElement.clientHeight;
  const parts = '.table-screen :is(button, input, .seat, .pile, .meld, .hand-card, .me-label, .turn-status), .toast';
  for (const el of document.querySelectorAll(parts)) {
    const r = el.getBoundingClientRect();
    if (!r.width || !el.checkVisibility({ visibilityProperty: true })) continue;
    if (r.top < 24 - 0.5 || r.bottom > H - 20 + 0.5) found.push(`${el.id || el.className} under a system bar (${Math.round(r.top)}..${Math.round(r.bottom)} of ${H})`);
  }
  return found;
}"""

_AXE_RUN = """async () => {
  const result = await window.axe.run(document, { resultTypes: ['violations'] });
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(" ") + " " + n.failureSummary + " " + n.html.slice(0, 300)).join(", ")}`);
}"""


def twelve_melds_view() -> dict[str, Any]:
    """Seat 0 in its play phase with at least twelve melds laid, given a full hand."""
    game = Game.start(Rules.classic(point_limit=500), seats=4, seed=bytes([2]) * 32)
    while game.phase in (Phase.DRAW, Phase.PLAY):
        if len(game.melds) >= 12 and game.current == 0 and game.phase is Phase.PLAY:
            view: dict[str, Any] = game.view_for(0).to_json()
            view["hand"] = list(HAND)
            view["hand_counts"][0] = len(HAND)
            return view
        action = reference_action(game.view_for(game.current))
        assert action is not None
        game.apply(action)
    raise AssertionError("the round ended before twelve melds were laid")


def show_table(page: Any, view: dict[str, Any], table_id: int, me: str = "Lena") -> None:
    """The twelve melds' table, seat 0 (the page's player, `me`) against three computer
    opponents."""
    players = [me, "casual", "strong", "expert"]
    open_table(page, view, players, table_id, point_limit=500, wait="#melds .meld")


def photograph(page: Any, name: str) -> Path:
    """A PNG of the window into docs/img/, half the window's pixels (small files)."""
    settle(page)
    IMG.mkdir(exist_ok=True)
    path = IMG / f"{name}.png"
    page.screenshot(path=str(path), scale="device", animations="disabled", caret="hide")
    return path


def check(page: Any, what: str, fit: bool = True, covered: tuple[str, ...] = ()) -> None:
    """The screen passes axe and fits the window (the lobby is a page that scrolls);
    `covered` are the table's parts a toast lay on."""
    problems = [f"{what}: a toast covers {c}" for c in covered]
    problems += [f"{what}: {p}" for p in page.evaluate(_FIT)] if fit else []
    problems += [f"{what}: axe: {p}" for p in page.evaluate(_AXE_RUN)]
    assert problems == [], "\n".join(problems)


def check_safe_area(page: Any) -> None:
    """The table with the system bars' insets a phone would report: nothing under them,
    everything else still fits."""
    page.evaluate(
        "() => { const s = document.documentElement.style;"
        " s.setProperty('--safe-top', '24px'); s.setProperty('--safe-bottom', '20px'); }"
    )
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 50)))")
    problems = page.evaluate(_SAFE_AREA) + page.evaluate(_FIT)
    page.evaluate(
        "() => { const s = document.documentElement.style;"
        " s.removeProperty('--safe-top'); s.removeProperty('--safe-bottom'); }"
    )
    assert problems == [], "\n".join(problems)


def open_settings(page: Any) -> None:
    """The gear: in the side panel, which is a menu on a phone."""
    if not page.locator("#settings-open").is_visible():
        page.click("#side-toggle")
    page.click("#settings-open")
    page.wait_for_selector(".prefs #pref-cards")


@pytest.fixture(scope="module")
def errors() -> Iterator[PageErrors]:
    watcher = PageErrors()
    yield watcher
    assert watcher.errors == [], "console errors:\n" + "\n".join(watcher.errors)


@pytest.fixture(scope="module")
def guest(browser: Any, server: str, errors: PageErrors) -> Iterator[Any]:
    """One page, logged in as a guest, with axe-core loaded into every document."""
    assert AXE.exists(), "axe-core is missing: run `npm ci` (make test does)"
    ctx = browser.new_context(viewport=SIZES["laptop"], locale="en-US", device_scale_factor=0.5)
    ctx.add_init_script(path=str(AXE))
    page = errors.watch(ctx.new_page(), "screens")
    page.set_default_timeout(30000)
    login_guest(page, server, "Lena")
    yield page
    ctx.close()


def test_every_screen_fits_and_passes_axe(guest: Any) -> None:
    page = guest
    table_view = twelve_melds_view()
    summary_view = round_over_view()
    for n, (size_name, size) in enumerate(SIZES.items()):
        page.set_viewport_size(size)
        page.evaluate("window.__romme.openLobby()")
        page.wait_for_selector("#new-game")
        photograph(page, f"lobby-{size_name}")
        check(page, f"lobby {size_name}", fit=False)

        show_table(page, table_view, 9100 + n)
        assert page.locator("#melds .meld").count() >= 12
        page.evaluate(
            "async () => { const ui = await import('./js/ui.js');"
            " ui.toast('A hint: lay the hearts', 'hint', 60000); ui.toast('Not your turn', 'error', 60000); }"
        )
        page.wait_for_selector(".toast.error.show")
        photograph(page, f"table-{size_name}")
        covered = page.evaluate(_TOAST_CLEAR)
        if size_name == "phone":
            assert page.evaluate(_THUMB_REACH) == []
            check_safe_area(page)
        page.evaluate("document.querySelectorAll('.toast').forEach((t) => t.remove())")
        check(page, f"table {size_name}", covered=covered)

        open_settings(page)
        photograph(page, f"settings-{size_name}")
        check(page, f"settings {size_name}")
        page.keyboard.press("Escape")
        page.wait_for_selector(".prefs", state="detached")
        page.evaluate("window.__rommeTable.toggleSide(false)")

        page.evaluate("window.__romme.openLobby()")
        page.wait_for_selector("#new-game")
        show(page, summary_view, 9200 + n)
        photograph(page, f"summary-{size_name}")
        check(page, f"summary {size_name}")

    # A phone held sideways (740 x 360): the tray beside the hand, still within the thumb's
    # reach, nothing under a toast, everything in the window.
    page.set_viewport_size({"width": 740, "height": 360})
    page.evaluate("window.__romme.openLobby()")
    page.wait_for_selector("#new-game")
    show_table(page, table_view, 9250)
    page.evaluate("async () => (await import('./js/ui.js')).toast('Not your turn', 'error', 60000)")
    page.wait_for_selector(".toast.error.show")
    assert page.evaluate(_THUMB_REACH) == []
    covered = page.evaluate(_TOAST_CLEAR)
    page.evaluate("document.querySelectorAll('.toast').forEach((t) => t.remove())")
    check(page, "table, phone sideways", covered=covered)


def test_readme_picture_of_a_drag(browser: Any, server: str, errors: PageErrors) -> None:
    """The README's picture of the table (docs/img/table.jpg, full size): the 9D dragged
    towards the blue arrow at the high end of the 6D 7D XX it fits."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
    page = errors.watch(ctx.new_page(), "drag picture")
    login_guest(page, server, "Dora")
    show_table(page, twelve_melds_view(), 9600, me="Dora")
    page.mouse.move(*point(page, "#hand-12"))
    page.mouse.down()
    page.mouse.move(640, 400, steps=4)
    arrows = page.locator(".meld-arrow:visible")
    assert arrows.count() == 1
    box = page.locator("#meld-10 .meld-arrow.high").bounding_box()
    assert box is not None
    # Short of the arrow, so that the card shows whole below it.
    page.mouse.move(box["x"] - 20, box["y"] + 140, steps=6)
    settle(page)
    page.screenshot(
        path=str(IMG / "table.jpg"), type="jpeg", quality=80, animations="disabled", caret="hide"
    )
    page.mouse.up()
    ctx.close()


def test_settings_apply_at_once_and_stay(guest: Any) -> None:
    page = guest
    page.set_viewport_size(SIZES["laptop"])
    show_table(page, twelve_melds_view(), 9300)
    width = page.eval_on_selector("#hand .hand-card", "el => el.getBoundingClientRect().width")
    open_settings(page)
    page.select_option("#pref-cards", "large")
    page.check("#pref-four-colour")
    page.select_option("#pref-felt", "light")
    page.select_option("#pref-speed", "off")
    page.uncheck("#pref-sound")
    page.keyboard.press("Escape")
    assert page.locator("#sound").get_attribute("aria-pressed") == "false"
    page.wait_for_function(
        "(w) => document.querySelector('#hand .hand-card').getBoundingClientRect().width > w * 1.1",
        arg=width,
    )
    # A diamond is drawn blue now.
    fill = page.evaluate(
        "() => getComputedStyle(document.querySelector('#card-7D g[fill], #card-3D g[fill]')).fill"
    )
    assert fill == "rgb(29, 78, 216)"
    check(page, "table with large cards, four colours, light felt")

    page.evaluate("window.__romme.openLobby()")
    page.wait_for_selector("#new-game")
    page.reload()
    page.wait_for_selector("#new-game")
    assert page.evaluate("({...document.documentElement.dataset})") == {
        "cards": "large",
        "back": "blue",
        "felt": "light",
        "fourColour": "",
    }
    assert page.evaluate("import('./js/settings.js').then((m) => m.motionFactor())") == 0
    page.evaluate(
        "localStorage.removeItem('romme.settings'); localStorage.removeItem('romme.sound')"
    )


def sent_lays(page: Any) -> list[list[list[str]]]:
    return page.evaluate("window.__sentLays")


def test_lay_cards_lays_the_melds_the_player_keeps_marked(guest: Any) -> None:
    """A press on a meld's blue line leaves it out of "Lay cards", a second puts it
    back; the client sends only the melds still marked (the `lay` of the protocol)."""
    page = guest
    page.set_viewport_size(SIZES["laptop"])
    show_table(page, twelve_melds_view(), 9400)
    # The moves the screen sends, read where it hands them to the connection.
    page.evaluate(
        """() => { window.__sentLays = []; const app = window.__romme; const send = app.send.bind(app);
             app.send = (msg) => { if (msg.action?.type === 'lay') window.__sentLays.push(msg.action.melds);
                                   return send(msg); }; }"""
    )
    assert page.locator("#hand .meld-line").count() == 8  # 7C 7D 7H and 5H 6H 7H 8H XX
    line = "#hand-5 .meld-line"  # the sequence's second card: its strip shows
    page.mouse.click(*point(page, line))
    assert page.locator("#hand .meld-line.out").count() == 5
    page.click("#lay-cards")
    page.wait_for_function("() => window.__sentLays.length === 1")
    assert sent_lays(page) == [[["7C", "7D", "7H"]]]
    page.evaluate("window.__rommeTable.state.busy = false")

    page.mouse.click(*point(page, line))
    assert page.locator("#hand .meld-line.out").count() == 0
    page.click("#lay-cards")
    page.wait_for_function("() => window.__sentLays.length === 2")
    assert sent_lays(page)[1] == [["7C", "7D", "7H"], ["5H", "6H", "7H", "8H", "XX"]]
    # By keyboard: M on a card of a meld leaves that meld out, again puts it back.
    page.focus("#hand-1")
    page.keyboard.press("m")
    assert page.locator("#hand .meld-line.out").count() == 3
    page.keyboard.press("m")
    assert page.locator("#hand .meld-line.out").count() == 0
    # Leaving every meld out leaves nothing to lay.
    page.mouse.click(*point(page, "#hand-0 .meld-line"))
    assert page.locator("#hand .meld-line.out").count() == 3
    page.mouse.click(*point(page, line))
    assert page.locator("#hand .meld-line.out").count() == 8
    assert page.locator("#lay-cards").is_disabled()
    page.evaluate("window.__romme.openLobby()")


# An opponent (seat 1) draws from the stock, then seat 2 lays a meld: what moves,
# and for how long.
_OPPONENT_MOVES = """() => {
  const app = window.__romme;
  const screen = window.__rommeTable;
  const moving = (sel) => document.getAnimations().filter((a) => a.effect.target?.matches(sel))
    .map((a) => Math.round(a.effect.getTiming().duration));
  const table = structuredClone(app.tables.get(app.tableId));
  table.view.hand_counts[1] += 1;
  table.view.stock_count -= 1;
  screen.setTable(table, [{ type: 'drew', seat: 1, source: 'stock' }]);
  const drawn = moving('.card.flying');
  const next = structuredClone(table);
  next.view.melds.push(structuredClone(next.view.melds[0]));
  next.view.meld_owners.push(2);
  screen.setTable(next, [{ type: 'laid', seat: 2 }]);
  const laid = moving(`#meld-${next.view.melds.length - 1} .card`);
  return { drawn, laid };
}"""


def test_opponents_moves_are_animated_at_the_speed_set(guest: Any) -> None:
    page = guest
    page.set_viewport_size(SIZES["laptop"])
    cards = len(twelve_melds_view()["melds"][0]["cards"])
    for speed, factor in (("slow", 1.7), ("off", 0.0)):
        page.evaluate(
            "(s) => localStorage.setItem('romme.settings', JSON.stringify({speed: s}))", speed
        )
        show_table(page, twelve_melds_view(), 9500)
        moves = page.evaluate(_OPPONENT_MOVES)
        if factor:
            assert moves["drawn"] == [round(420 * factor)], speed
            assert moves["laid"] == [round(320 * factor)] * cards, speed
        else:
            assert moves == {"drawn": [], "laid": []}
        page.evaluate("window.__romme.openLobby()")
    page.evaluate("localStorage.removeItem('romme.settings')")
