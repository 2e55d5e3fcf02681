"""Plurals: every text that counts something is an object of plural forms with every
form the language's plural rules have, and the page's own i18n.js, run in Chromium,
renders it right for 0, 1, 2 and 5 (and a list of winners with the verb that agrees)."""

from __future__ import annotations

import re
from typing import Any

from romme.engine.actions import Discard, Draw
from romme.engine.game import Game, Phase
from romme.engine.reference import reference_action
from romme.engine.rules import Rules
from tests.web.test_i18n import LANGS, catalog, placeholders
from tests.web.test_summary import round_over_view, show
from tests.web.ui import login_guest

# The placeholders that hold a count (a number, or a list whose items are counted).
COUNTING = {"n", "need", "names"}
# Keys with such a placeholder that count nothing a word must agree with.
NOT_COUNTS = {
    "newgame.opponent_n": "which opponent (Opponent 2)",
    "table.seat_n": "which seat",
    "table.bot_name": "which seat (Expert 3)",
    "table.meld_label": "which meld",
    "hint.lay_off": "which meld",
    "hint.exchange": "which meld",
    "summary.title": "which round",
    "settings.seconds_n": "the unit symbol s, the same for any number",
    "summary.next_in": "the unit symbol s",
    "table.knock_window": "the unit symbol s",
    "summary.waiting_for": "a list of names that no word agrees with",
    "chips.claim_bonus": "an amount in brackets, (+1,000), that no word agrees with",
    "chips.game_n": "which game",
    "settings.stake_n": "an amount after a colon-like label (Stake 100)",
    "mod.fair_turn": "which move",
    "mod.fair_missed": "a count after a colon (held back from going out: 2)",
    "mod.fair_pair_games": "a count after a colon",
    "mod.fair_pair_void": "a count after a colon",
    "mod.fair_pair_given_up": "a count after a colon",
}
COUNTS = [0, 1, 2, 5]
NAMES = ["Ana", "Bruno", "Carla", "Dirk", "Eva"]


def forms_of(value: Any) -> list[str]:
    return list(value.values()) if isinstance(value, dict) else [value]


def count_keys() -> list[str]:
    return sorted(
        key
        for key, value in catalog("en").items()
        if key not in NOT_COUNTS and any(placeholders(text) & COUNTING for text in forms_of(value))
    )


def test_every_count_bearing_text_is_a_plural_object() -> None:
    keys = count_keys()
    # A list that lost its keys would prove nothing.
    for known in ("lobby.free_seats", "table.cards_n", "table.seconds_left", "summary.game_over"):
        assert known in keys
    for lang in LANGS:
        texts = catalog(lang)
        assert [k for k in keys if not isinstance(texts[k], dict)] == [], lang
        plural = sorted(k for k, v in texts.items() if isinstance(v, dict))
        assert plural == keys, f"{lang}: plural forms on a text that counts nothing"
        for key in keys:
            assert set(texts[key]) <= {"zero", "one", "two", "few", "many", "other"} | {
                f for f in texts[key] if re.fullmatch(r"=\d+", f)
            }, f"{lang}: {key}"


_RENDER = """async ({ langs, keys, counts, names }) => {
  const WRITTEN = ['0', '1', '−12'];
  const i18n = await import('/js/i18n.js');
  const out = {};
  for (const lang of langs) {
    await i18n.setLanguage(lang, { save: false });
    const texts = {};
    for (const key of keys) {
      for (const n of counts) {
        const list = names.slice(0, n);
        texts[`${key}|${n}`] = i18n.t(key, { n, need: n, have: 7, name: 'Ana', names: list });
        texts[`${key}|${n}|list`] = list.length ? new Intl.ListFormat(lang, { type: 'conjunction' }).format(list) : '';
      }
    }
    texts['summary.game_over|joined'] = i18n.t('summary.game_over', { names: 'Ana' });
    for (const written of WRITTEN) texts[`table.points_n|${written}`] = i18n.t('table.points_n', { n: written });
    out[lang] = { categories: new Intl.PluralRules(lang).resolvedOptions().pluralCategories, texts };
  }
  await i18n.setLanguage('en', { save: false });
  return out;
}"""


def fill(text: str, n: int, names: str) -> str:
    values = {"n": str(n), "need": str(n), "have": "7", "name": "Ana", "names": names}
    return re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], text)


def test_plural_forms_render_right_for_0_1_2_and_5(server: str, new_context: Any) -> None:
    page = new_context("plurals")
    page.goto(server)
    page.wait_for_selector("#entry-submit")
    keys = count_keys()
    rendered = page.evaluate(
        _RENDER, {"langs": LANGS, "keys": keys, "counts": COUNTS, "names": NAMES}
    )
    for lang in LANGS:
        texts, got = catalog(lang), rendered[lang]["texts"]
        needed = set(rendered[lang]["categories"])
        assert "one" in needed and "other" in needed
        for key in keys:
            forms = texts[key]
            assert needed <= set(forms), f"{lang}: {key} lacks {sorted(needed - set(forms))}"
            for n in COUNTS:
                if key == "summary.game_over" and n == 0:
                    continue  # a game always has a winner
                # In all five languages one is singular and 0, 2 and 5 are plural; an
                # exact form ("=0") wins. Portuguese rules call 0 singular ("0 carta"),
                # so its catalog gives "=0" wherever a word agrees with the count.
                form = forms.get(f"={n}") or forms["one" if n == 1 else "other"]
                expected = fill(form, n, got[f"{key}|{n}|list"])
                assert got[f"{key}|{n}"] == expected, f"{lang}: {key} for {n}"
        # The winners' names as one string (no list): one winner.
        assert got["summary.game_over|joined"] == fill(texts["summary.game_over"]["one"], 1, "Ana")
        # A score comes written out ("−12"): its number chooses the form all the same.
        points = texts["table.points_n"]
        for written, form in (("0", points.get("=0", points["other"])), ("1", points["one"])):
            assert got[f"table.points_n|{written}"] == form.replace("{n}", written), lang
        assert got["table.points_n|−12"] == points["other"].replace("{n}", "−12"), lang
        # A list of winners reads as the language writes a list ("Ana e Bruno").
        assert got["summary.game_over|2|list"] not in ("", "Ana,Bruno")


def test_a_plural_verb_for_several_winners() -> None:
    """Where the verb agrees with the number of winners, the forms differ."""
    for lang in ("de", "es", "nl", "pt"):
        forms = catalog(lang)["summary.game_over"]
        assert forms["one"] != forms["other"], lang


# As each language writes them: the title over a game that Ana and Bruno won together
# and over one that Bruno won alone (the verb agrees with the number of winners, the
# names are joined as the language joins a list), and the line under "Next" while
# the table waits for both.
GAME_OVER = {
    "en": ("Game over: Ana and Bruno won.", "Game over: Bruno won."),
    "de": ("Spiel vorbei: Ana und Bruno haben gewonnen.", "Spiel vorbei: Bruno hat gewonnen."),
    "es": ("Fin de la partida: han ganado Ana y Bruno.", "Fin de la partida: ha ganado Bruno."),
    "nl": ("Spel voorbij: Ana en Bruno hebben gewonnen.", "Spel voorbij: Bruno heeft gewonnen."),
    "pt": ("Fim do jogo: Ana e Bruno ganharam.", "Fim do jogo: Bruno ganhou."),
}
WAITING_FOR = {
    "en": "Waiting for Ana and Bruno…",
    "de": "Warten auf Ana und Bruno …",
    "es": "Esperando a Ana y Bruno…",
    "nl": "Wachten op Ana en Bruno…",
    "pt": "Aguardando Ana e Bruno…",
}


def game_over_view(stall: bool) -> dict[str, Any]:
    """A real game over between Ana (seat 0) and Bruno (seat 1), as a spectator sees it.

    One round of three-rounds decides the game. When it stalls (nobody draws from the
    stock) nobody scores and both win; else the reference player plays it out and
    one of them goes out.
    """
    rules = Rules.three_rounds(rounds=1, stall_turns=1 if stall else 40)
    game = Game.start(rules, seats=2, seed=bytes(32))
    while game.phase in (Phase.DRAW, Phase.PLAY):
        seat = game.current
        if stall:
            game.apply(Draw(seat, "discard"))
            game.apply(Discard(seat, game.hands[seat][0]))
            continue
        action = reference_action(game.view_for(seat))
        assert action is not None
        game.apply(action)
    assert game.phase is Phase.GAME_OVER
    view: dict[str, Any] = game.view_for(None).to_json()
    return view


# The table draws itself anew in the language before setLanguage returns.
_SWITCH = "async (lang) => (await import('/js/i18n.js')).setLanguage(lang, { save: false })"


def seated(seat: int, nickname: str) -> dict[str, Any]:
    return {"seat": seat, "nickname": nickname, "bot": None, "connected": True, "away": False}


def test_lists_of_names_read_as_the_language_writes_them(server: str, new_context: Any) -> None:
    page = new_context("names-listed")
    login_guest(page, server, "Watcher")
    # Between rounds: this player (seat 0) has said "Next", the table waits for the others.
    seats = [seated(0, "Watcher"), seated(1, "Ana"), seated(2, "Bruno")]
    show(page, round_over_view(), 9100, seats=seats, waiting_for=(1, 2))
    for lang in LANGS:
        page.evaluate(_SWITCH, lang)
        assert page.inner_text("#summary .summary-buttons p.muted") == WAITING_FOR[lang]
    # The end of a game between Ana and Bruno, watched by this player.
    seats = [seated(0, "Ana"), seated(1, "Bruno")]
    settings = {"preset": "three-rounds", "seats": 2, "turn_seconds": 30}
    for stall, winners, table_id in ((True, [0, 1], 9101), (False, [1], 9102)):
        view = game_over_view(stall)
        assert view["winners"] == winners
        page.evaluate("window.__romme.openLobby()")
        page.wait_for_selector("#new-game")
        show(page, view, table_id, settings=settings, seats=seats, my_seat=None)
        for lang in LANGS:
            page.evaluate(_SWITCH, lang)
            title = page.inner_text("#summary-title")
            assert title == GAME_OVER[lang][len(winners) == 1], f"{lang}: winners {winners}"
    page.evaluate(_SWITCH, "en")


_INHERITED = """async () => {
  const i18n = await import('/js/i18n.js');
  await i18n.setLanguage('constructor', { save: false });
  const shown = document.documentElement.lang;
  const text = i18n.t('constructor');
  const known = i18n.hasKey('toString');
  await i18n.setLanguage('en', { save: false });
  return { shown, text, known };
}"""


def test_a_name_of_an_object_property_is_no_language_and_no_key(
    server: str, new_context: Any
) -> None:
    """Catalogs and the language list are plain objects: "constructor" or "toString"
    must not pass for a language or a text (they once did, through the prototype)."""
    page = new_context("inherited")
    page.goto(server)
    page.wait_for_selector("#entry-submit")
    got = page.evaluate(_INHERITED)
    assert got == {"shown": "en", "text": "constructor", "known": False}
