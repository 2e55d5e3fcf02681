"""The match state machine: every rule of docs/rules.md, for both presets."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from romme.engine.actions import (
    Action,
    Arrange,
    Discard,
    Draw,
    ExchangeJoker,
    Knock,
    Lay,
    LayOff,
    NextRound,
    action_from_json,
)
from romme.engine.cards import JOKER, shoe
from romme.engine.errors import EngineError, IllegalAction, InvalidMeld, NotationError
from romme.engine.events import (
    Drew,
    Event,
    GameEnded,
    HandDealt,
    Knocked,
    RoundEnded,
    event_from_json,
)
from romme.engine.fairness import commitment_of, verify_deal
from romme.engine.game import Game, Phase
from romme.engine.legal import discardable_cards
from romme.engine.reference import timeout_action
from romme.engine.rules import Rules

from .helpers import SEED, arranged, card, cards

CLASSIC = Rules.classic()
THREE = Rules.three_rounds()
BOTH = pytest.mark.parametrize("rules", [CLASSIC, THREE], ids=["classic", "three-rounds"])


def rejected(game: Game, action: object, code: str) -> EngineError:
    """Apply an illegal action; check its code and that nothing changed."""
    before = json.dumps(game.to_json())
    with pytest.raises((IllegalAction, InvalidMeld)) as info:
        game.apply(action)  # type: ignore[arg-type]
    assert info.value.code == code, info.value
    assert json.dumps(game.to_json()) == before
    return info.value


# ------------------------------------------------------------------ deal


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_deal_gives_thirteen_each_an_upcard_and_the_stock(seats: int) -> None:
    game = Game.start(CLASSIC, seats, SEED)
    assert [len(h) for h in game.hands] == [13] * seats
    assert len(game.discard) == 1
    assert len(game.stock) == 110 - 13 * seats - 1
    assert game.card_count() == Counter(shoe())
    assert game.dealer == seats - 1 and game.current == 0


def test_dealer_rotates_and_the_next_player_starts() -> None:
    game = Game.start(CLASSIC.replace(point_limit=500), 3, SEED)
    dealers = [game.dealer]
    for _ in range(3):
        game._end_round(winner=None, hand_rummy=False)
        game.apply(NextRound())
        dealers.append(game.dealer)
        assert game.current == (game.dealer + 1) % 3
    assert dealers == [2, 0, 1, 2]


def test_the_deal_is_verifiable_from_the_revealed_seed() -> None:
    game = Game.start(CLASSIC, 3, SEED)
    dealt = [tuple(game.hands[s]) for s in (0, 1, 2)]  # turn order: seat 0 first
    upcard = game.discard[-1]
    commitment = game.commitment
    assert commitment == commitment_of(game.round_seed)
    game._end_round(winner=None, hand_rummy=False)
    revealed = game.results[-1].seed
    assert verify_deal(revealed, commitment, dealt, upcard)
    assert not verify_deal(revealed, commitment, [dealt[1], dealt[0], dealt[2]], upcard)
    assert not verify_deal(bytes(32), commitment, dealt, upcard)


def test_different_seeds_deal_differently_and_the_same_seed_the_same() -> None:
    a = Game.start(CLASSIC, 2, SEED)
    b = Game.start(CLASSIC, 2, SEED)
    c = Game.start(CLASSIC, 2, bytes(range(1, 33)))
    assert a.hands == b.hands and a.stock == b.stock
    assert a.hands != c.hands


# ------------------------------------------------------------------ turns


def test_draw_then_discard_passes_the_turn() -> None:
    game = arranged(CLASSIC, ["2H 5C 9D", "3H 6C TD"], stock="KS")
    events = game.apply(Draw(0, "stock"))
    assert isinstance(events[0], Drew) and events[0].card == card("KS")
    assert events[0].for_seat(1).card is None
    assert game.phase is Phase.PLAY
    game.apply(Discard(0, card("KS")))
    assert game.current == 1 and game.phase is Phase.DRAW
    assert game.discard[-1] == card("KS")


def test_turn_order_and_phases_are_enforced() -> None:
    game = arranged(CLASSIC, ["2H 5C 9D", "3H 6C TD"], stock="KS")
    rejected(game, Draw(1, "stock"), "not_your_turn")
    rejected(game, Discard(0, card("2H")), "must_draw")
    rejected(game, Draw(7, "stock"), "bad_seat")
    game.apply(Draw(0, "discard"))
    rejected(game, Draw(0, "stock"), "already_drew")
    rejected(game, Discard(0, card("AS")), "card_not_in_hand")


def test_may_not_return_the_card_taken_from_the_discard_pile() -> None:
    game = arranged(CLASSIC, ["2H 5C 9D", "3H 6C TD"], upcard="KS")
    game.apply(Draw(0, "discard"))
    rejected(game, Discard(0, card("KS")), "cannot_return_discard")
    game.apply(Discard(0, card("2H")))
    option = arranged(CLASSIC.replace(may_return_discard=True), ["2H 5C", "3H 6C"], upcard="KS")
    option.apply(Draw(0, "discard"))
    option.apply(Discard(0, card("KS")))
    assert option.discard[-1] == card("KS")


def test_the_card_from_the_discard_pile_may_go_as_the_last_card() -> None:
    game = arranged(CLASSIC, ["7C 7D 7H 7S", "3H 6C TD"], upcard="KS", opened=[0])
    game.apply(Draw(0, "discard"))
    game.apply(Lay(0, (cards("7C 7D 7H 7S"),)))
    game.apply(Discard(0, card("KS")))
    assert game.results[-1].winner == 0


# ---------------------------------------------------------------- opening


@BOTH
def test_three_sevens_cannot_open(rules: Rules) -> None:
    game = arranged(rules, ["7C 7D 7H 2S 9D", "3H 6C TD"], drawn=True)
    error = rejected(game, Lay(0, (cards("7C 7D 7H"),)), "opening_too_low")
    assert "21" in error.message


@BOTH
def test_several_melds_in_one_turn_open_together(rules: Rules) -> None:
    game = arranged(rules, ["7C 7D 7H 2S 3S 4S 9D", "3H 6C TD"], drawn=True)
    events = game.apply(Lay(0, (cards("7C 7D 7H"), cards("2S 3S 4S"))))
    assert game.opened[0] and len(game.melds) == 2
    assert events[0].opened  # type: ignore[union-attr]
    assert game.hands[0] == [card("9D")]


def test_opening_single_meld_option() -> None:
    rules = CLASSIC.replace(opening_single_meld=True)
    game = arranged(rules, ["7C 7D 7H 2S 3S 4S TD JD QD 9D", "3H 6C TD"], drawn=True)
    rejected(game, Lay(0, (cards("7C 7D 7H"), cards("2S 3S 4S"))), "opening_too_low")
    game.apply(Lay(0, (cards("TD JD QD"), cards("7C 7D 7H"))))
    assert game.opened[0]


def test_opening_points_option() -> None:
    rules = CLASSIC.replace(opening_points=40)
    game = arranged(rules, ["TD JD QD 2S", "3H 6C TD"], drawn=True)
    rejected(game, Lay(0, (cards("TD JD QD"),)), "opening_too_low")


@BOTH
def test_no_lay_off_or_exchange_before_opening(rules: Rules) -> None:
    game = arranged(
        rules,
        ["TC 6H 2S 9D", "3H 6C TD"],
        melds=[(1, "7C 8C 9C"), (1, "5H XX 7H")],
        opened=[1],
        drawn=True,
    )
    rejected(game, LayOff(0, card("TC"), 0, "high"), "not_opened")
    rejected(game, ExchangeJoker(0, card("6H"), 1, 1), "not_opened")


@BOTH
def test_lay_off_after_opening_in_the_same_turn(rules: Rules) -> None:
    game = arranged(
        rules, ["TD JD QD TC 2S", "3H 6C TD"], melds=[(1, "7C 8C 9C")], opened=[1], drawn=True
    )
    game.apply(Lay(0, (cards("TD JD QD"),)))
    game.apply(LayOff(0, card("TC"), 0, "high"))
    assert str(game.melds[0]) == "7C 8C 9C TC"
    rejected(game, LayOff(0, card("2S"), 0, None), "does_not_fit")
    rejected(game, LayOff(0, card("2S"), 5, None), "no_such_meld")


def test_invalid_meld_is_rejected_with_its_reason() -> None:
    game = arranged(CLASSIC, ["TD TC TD JD QD KD", "3H 6C 9D"], drawn=True)
    error = rejected(game, Lay(0, (cards("TD TC TD"),)), "invalid_meld")
    assert "TD twice" in error.message
    rejected(game, Lay(0, (cards("AS AC AD"),)), "card_not_in_hand")


# ---------------------------------------------------------------- jokers


def test_classic_joker_exchange_takes_the_joker_to_hand() -> None:
    game = arranged(
        CLASSIC, ["6H 2S 9D", "3H 6C TD"], melds=[(1, "5H XX 7H")], opened=[0, 1], drawn=True
    )
    events = game.apply(ExchangeJoker(0, card("6H"), 0, 1))
    assert str(game.melds[0]) == "5H 6H 7H"
    assert JOKER in game.hands[0] and card("6H") not in game.hands[0]
    assert events[0].index == 1  # type: ignore[union-attr]
    game.apply(Discard(0, card("2S")))  # the joker may stay in hand
    assert JOKER in game.hands[0]


def test_exchange_needs_the_card_the_joker_stands_for() -> None:
    game = arranged(
        CLASSIC,
        ["6S 7C 2S", "3H 6C TD"],
        melds=[(1, "5H XX 7H"), (1, "7H 7S XX")],
        opened=[0, 1],
        drawn=True,
    )
    rejected(game, ExchangeJoker(0, card("6S"), 0, 1), "no_joker_there")
    rejected(game, ExchangeJoker(0, card("6S"), 0, 0), "no_joker_there")
    game.apply(ExchangeJoker(0, card("7C"), 1, None))  # any suit missing from the group
    assert str(game.melds[1]) == "7H 7S 7C"


def test_three_rounds_exchanged_joker_must_be_laid_in_a_new_meld_or_discarded() -> None:
    game = arranged(
        THREE,
        ["6H TC JC 2S 9D", "3H 6C TD"],
        melds=[(1, "5H XX 7H"), (1, "8S 9S TS")],
        opened=[0, 1],
        drawn=True,
    )
    game.apply(ExchangeJoker(0, card("6H"), 0, 1))
    assert game.turn.pending_jokers == 1
    rejected(game, Discard(0, card("2S")), "joker_must_be_played")
    rejected(game, LayOff(0, JOKER, 1, "high"), "joker_must_be_played")
    rejected(game, LayOff(0, JOKER, 0, "high"), "joker_must_be_played")  # not back
    game.apply(Lay(0, (cards("TC JC XX"),)))
    assert game.turn.pending_jokers == 0
    game.apply(Discard(0, card("2S")))


def test_three_rounds_exchanged_joker_may_be_discarded() -> None:
    game = arranged(
        THREE, ["6H 2S 9D", "3H 6C TD"], melds=[(1, "5H XX 7H")], opened=[0, 1], drawn=True
    )
    game.apply(ExchangeJoker(0, card("6H"), 0, 1))
    game.apply(Discard(0, JOKER))
    assert game.discard[-1] == JOKER


def test_three_rounds_exchanged_joker_may_be_discarded_after_laying_a_joker_from_the_pile() -> None:
    """A joker taken from the discard pile and laid, then a joker exchanged: the joker in
    hand is the exchanged one, so it may go back to the pile (cards are values, so the rule
    against returning the card taken from the pile must not catch it)."""
    game = arranged(
        THREE, ["TC JC 6H 2S 9D", "3H 6C TD"], upcard="XX", melds=[(1, "5H XX 7H")], opened=[0, 1]
    )
    game.apply(Draw(0, "discard"))
    game.apply(Lay(0, (cards("TC JC XX"),)))
    game.apply(ExchangeJoker(0, card("6H"), 0, 1))
    assert game.hands[0] == list(cards("2S 9D XX")) and game.turn.pending_jokers == 1
    rejected(game, Discard(0, card("2S")), "joker_must_be_played")
    legal = game.legal_actions(0)
    assert legal == [Discard(0, JOKER)]
    timeout = timeout_action(game.view_for(0))
    assert timeout == Discard(0, JOKER)
    game.apply(timeout)
    assert game.discard[-1] == JOKER and game.current == 1


def test_timeout_action_meets_an_obligation_that_blocks_every_discard() -> None:
    """Should an obligation of the turn ever block every discard (two exchanged jokers
    pending: each discard leaves one), the timeout move is still a legal action: here
    a joker laid in a new meld, after which a discard is allowed."""
    game = arranged(THREE, ["TC JC 2S 9D XX XX", "3H 6C TD"], opened=[0, 1], drawn=True)
    game.turn.pending_jokers = 2
    assert not discardable_cards(game.view_for(0))
    action = timeout_action(game.view_for(0))
    assert isinstance(action, Lay) and action in game.legal_actions(0)
    game.apply(action)
    assert timeout_action(game.view_for(0)) == Discard(0, JOKER)


# ---------------------------------------------------------------- going out


def test_classic_goes_out_by_laying_the_last_card() -> None:
    game = arranged(
        CLASSIC, ["TC", "3H 6C TD AS XX"], melds=[(0, "7C 8C 9C")], opened=[0], drawn=True
    )
    game.apply(LayOff(0, card("TC"), 0, "high"))
    result = game.results[-1]
    assert result.winner == 0 and not result.hand_rummy
    assert result.penalties == (0, 3 + 6 + 10 + 15 + 30)
    assert game.phase is Phase.ROUND_OVER  # 58 is within the default limit of 100


def test_classic_goes_out_by_discarding_the_last_card() -> None:
    rules = CLASSIC.replace(point_limit=500)
    game = arranged(rules, ["TC 4D", "3H 6C"], melds=[(0, "7C 8C 9C")], opened=[0], drawn=True)
    game.apply(LayOff(0, card("TC"), 0, "high"))
    game.apply(Discard(0, card("4D")))
    assert game.results[-1].winner == 0
    assert game.phase is Phase.ROUND_OVER
    assert game.totals == [0, 9]


def test_three_rounds_must_discard_to_go_out() -> None:
    game = arranged(THREE, ["TC", "3H 6C"], melds=[(0, "7C 8C 9C")], opened=[0], drawn=True)
    rejected(game, LayOff(0, card("TC"), 0, "high"), "must_keep_discard")
    game = arranged(THREE, ["TC JC QC", "3H 6C"], opened=[0], drawn=True)
    rejected(game, Lay(0, (cards("TC JC QC"),)), "must_keep_discard")
    game = arranged(THREE, ["TC JC QC 4D", "3H 6C"], opened=[0], drawn=True)
    game.apply(Lay(0, (cards("TC JC QC"),)))
    game.apply(Discard(0, card("4D")))
    assert game.results[-1].winner == 0


@BOTH
def test_hand_rummy_doubles_the_penalties(rules: Rules) -> None:
    rules = rules.replace(point_limit=500)
    game = arranged(rules, ["TC JC QC 7H 7S 7D 4D", "3H XX"], drawn=True)
    game.apply(Lay(0, (cards("TC JC QC"), cards("7H 7S 7D"))))
    game.apply(Discard(0, card("4D")))
    result = game.results[-1]
    assert result.hand_rummy
    assert result.penalties[1] == 2 * (3 + rules.joker_penalty)


def test_no_hand_rummy_after_an_earlier_lay_down() -> None:
    rules = CLASSIC.replace(point_limit=500)
    game = arranged(rules, ["TC JC QC 4D", "3H XX"], opened=[0], drawn=True)
    game.apply(Lay(0, (cards("TC JC QC"),)))
    game.apply(Discard(0, card("4D")))
    assert not game.results[-1].hand_rummy
    assert game.results[-1].penalties[1] == 33


def test_hand_rummy_can_be_switched_off_in_classic() -> None:
    rules = CLASSIC.replace(point_limit=500, hand_rummy=False)
    game = arranged(rules, ["TC JC QC 7H 7S 7D 4D", "3H XX"], drawn=True)
    game.apply(Lay(0, (cards("TC JC QC"), cards("7H 7S 7D"))))
    game.apply(Discard(0, card("4D")))
    assert not game.results[-1].hand_rummy and game.results[-1].penalties[1] == 33


# ---------------------------------------------------------------- knock


def knock_table() -> Game:
    rules = CLASSIC.replace(knock=True)
    game = arranged(
        rules,
        ["2H 5C 9D KS", "3H 6C TD", "4S 8S 8D", "QH QD 4C"],
        stock="JS 2D 3D 4D 5D",
        current=0,
    )
    game.apply(Draw(0, "stock"))
    game.apply(Discard(0, card("KS")))
    return game


def test_knock_window_opens_for_all_but_discarder_and_next() -> None:
    game = knock_table()
    assert game.knock_seats() == (2, 3)
    assert game.view_for(2).knock_seats == (2, 3)
    rejected(game, Knock(0), "may_not_knock")
    rejected(game, Knock(1), "may_not_knock")


def test_first_knock_takes_the_discard_and_two_stock_cards_and_plays_at_once() -> None:
    game = knock_table()
    events = game.apply(Knock(3))
    knocked = events[0]
    assert isinstance(knocked, Knocked)
    assert knocked.card == card("KS") and knocked.skipped == (1, 2)
    assert knocked.for_seat(2).drawn is None
    assert knocked.drawn == (card("2D"), card("3D"))
    assert game.current == 3 and game.phase is Phase.PLAY
    assert Counter(game.hands[3]) == Counter(cards("QH QD 4C KS 2D 3D"))
    rejected(game, Knock(2), "no_knock_window")  # the race is decided once
    rejected(game, Draw(3, "stock"), "already_drew")
    game.apply(Discard(3, card("4C")))
    assert game.current == 0  # play goes on from the knocker's left


def test_the_next_players_draw_closes_the_knock_window() -> None:
    game = knock_table()
    game.apply(Draw(1, "stock"))
    assert game.knock_seats() == ()
    rejected(game, Knock(2), "no_knock_window")


def test_no_knock_without_the_option_or_with_two_players() -> None:
    game = arranged(CLASSIC, ["2H 5C 9D KS", "3H 6C TD", "4S 8S 8D"], stock="JS")
    game.apply(Draw(0, "stock"))
    game.apply(Discard(0, card("KS")))
    rejected(game, Knock(2), "no_knock_window")
    two = arranged(CLASSIC.replace(knock=True), ["2H 5C 9D KS", "3H 6C TD"], stock="JS")
    two.apply(Draw(0, "stock"))
    two.apply(Discard(0, card("KS")))
    assert two.knock_seats() == ()


# ---------------------------------------------------------------- stock


def test_empty_stock_is_rebuilt_from_the_discard_pile_except_its_top() -> None:
    game = arranged(CLASSIC, ["2H 5C 9D", "3H 6C TD"])
    moved = game.stock[:-1]
    game.discard = [*moved, *game.discard]
    game.stock = game.stock[-1:]
    game.apply(Draw(0, "stock"))
    drawn = game.hands[0][-1]
    events = game.apply(Discard(0, drawn))
    assert game.restocks == 1
    assert game.discard == [drawn]
    assert Counter(game.stock) == Counter(moved) + Counter(cards("2C"))
    assert any(e.type == "restocked" for e in events)
    assert game.card_count() == Counter(shoe())


def test_after_max_restocks_the_round_ends_without_a_winner() -> None:
    game = arranged(CLASSIC.replace(max_restocks=0), ["2H 5C 9D", "3H 6C TD"])
    game.discard = [*game.stock[:-1], *game.discard]
    game.stock = game.stock[-1:]
    game.apply(Draw(0, "stock"))
    events = game.apply(Discard(0, card("2H")))
    ended = [e for e in events if isinstance(e, RoundEnded)]
    assert ended and ended[0].result.winner is None
    assert game.totals == [0, 0] and game.phase is Phase.ROUND_OVER
    game.apply(NextRound())
    assert game.round_no == 2


def _take_discard_and_throw_another(game: Game) -> list[object]:
    """One turn of the current player: take the discard, throw another card."""
    seat = game.current
    events: list[object] = list(game.apply(Draw(seat, "discard")))
    taken = game.turn.drew_from_discard
    throw = next(c for c in game.hands[seat] if c != taken)
    events += game.apply(Discard(seat, throw))
    return events


def test_a_round_where_nobody_draws_from_the_stock_ends_without_a_winner() -> None:
    game = arranged(CLASSIC.replace(stall_turns=6), ["2H 5C 9D", "3H 6C TD"])
    stock = len(game.stock)
    events: list[object] = []
    for _ in range(5):
        events = _take_discard_and_throw_another(game)
        assert game.in_round and game.stall == len(game.history) // 2
    assert not any(isinstance(e, RoundEnded) for e in events)
    events = _take_discard_and_throw_another(game)
    ended = [e for e in events if isinstance(e, RoundEnded)]
    assert ended and ended[0].result.winner is None and ended[0].result.ended == "stall"
    assert game.totals == [0, 0] and game.phase is Phase.ROUND_OVER
    assert len(game.stock) == stock
    assert event_from_json(ended[0].to_json()) == ended[0]


def test_a_stock_draw_or_a_knock_starts_the_stall_count_again() -> None:
    game = arranged(CLASSIC.replace(stall_turns=3), ["2H 5C 9D", "3H 6C TD"])
    _take_discard_and_throw_another(game)
    _take_discard_and_throw_another(game)
    assert game.stall == 2
    restored = Game.from_json(json.loads(json.dumps(game.to_json())))
    assert restored.stall == 2 and restored.clone().stall == 2
    game.apply(Draw(game.current, "stock"))
    assert game.stall == 0
    game.apply(Discard(game.current, game.hands[game.current][0]))
    for _ in range(2):
        _take_discard_and_throw_another(game)
    assert game.in_round and game.stall == 2
    knocking = arranged(
        CLASSIC.replace(knock=True, stall_turns=3), ["2H 5C 9D", "3H 6C TD", "4S 7S 8D"]
    )
    _take_discard_and_throw_another(knocking)
    assert knocking.stall == 1
    knocking.apply(Knock(2))
    assert knocking.stall == 0


def test_without_a_stall_limit_the_discard_may_go_round_for_ever() -> None:
    game = arranged(CLASSIC.replace(stall_turns=0), ["2H 5C 9D", "3H 6C TD"])
    for _ in range(200):
        _take_discard_and_throw_another(game)
    assert game.in_round and game.stall == 200


def test_stall_turns_must_not_be_negative() -> None:
    with pytest.raises(ValueError, match="stall_turns"):
        CLASSIC.replace(stall_turns=-1)
    assert Rules.from_json({**CLASSIC.to_json(), "stall_turns": 12}).stall_turns == 12


THREE_ROUNDS_AS_STORED = {
    "name": "three-rounds",
    "hand_size": 13,
    "opening_points": 30,
    "opening_single_meld": False,
    "min_natural_cards": 2,
    "max_jokers_per_meld": 1,
    "joker_penalty": 20,
    "ace_penalty": 15,
    "hand_rummy": True,
    "hand_rummy_multiplier": 2,
    "knock": False,
    "knock_window_seconds": 3.0,
    "joker_exchange_to_hand": False,
    "must_discard_to_go_out": True,
    "may_return_discard": False,
    "max_restocks": 2,
    "stall_turns": 40,
    "scoring": "rounds",
    "point_limit": 100,
    "rounds": 3,
    "turn_seconds": 45,
    "timeouts_before_away": 3,
    "min_seats": 2,
    "max_seats": 4,
}
"""``Rules.three_rounds(turn_seconds=45).to_json()`` as tables have stored it."""


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"knock": True}, "three-rounds is played without the knock"),
        ({"hand_rummy": False}, "three-rounds always plays with hand rummy"),
    ],
)
def test_three_rounds_refuses_the_options_its_rules_rule_out(
    options: dict[str, bool], reason: str
) -> None:
    with pytest.raises(ValueError, match=reason):
        Rules.three_rounds(**options)
    with pytest.raises(ValueError, match=reason):
        Rules.preset("three-rounds", **options)
    with pytest.raises(ValueError, match=reason):
        THREE.replace(**options)
    with pytest.raises(NotationError, match=reason):
        Rules.from_json({**THREE_ROUNDS_AS_STORED, **options})
    assert getattr(CLASSIC.replace(**options), next(iter(options))) is next(
        iter(options.values())
    )  # classic allows both


def test_stored_three_rounds_rules_and_games_still_load() -> None:
    rules = Rules.from_json(THREE_ROUNDS_AS_STORED)
    assert rules == Rules.three_rounds(turn_seconds=45)
    game = Game.start(rules, 4, SEED)
    assert Game.from_json(json.loads(json.dumps(game.to_json()))).to_json() == game.to_json()


# ---------------------------------------------------------------- scoring


def win_round(game: Game, winner: int) -> None:
    """End the current round with ``winner`` going out (via the engine's own path)."""
    game._end_round(winner=winner, hand_rummy=False)


def test_two_players_the_game_ends_when_one_goes_over_the_limit() -> None:
    rules = CLASSIC.replace(point_limit=50)
    game = arranged(
        rules, ["TC", "KH KD KS QH QD QC"], melds=[(0, "7C 8C 9C")], opened=[0], drawn=True
    )
    events = game.apply(LayOff(0, card("TC"), 0, "high"))
    assert game.totals == [0, 60]
    assert game.phase is Phase.GAME_OVER and game.winners == (0,)
    assert isinstance(events[-1], GameEnded)
    rejected(game, NextRound(), "game_over")
    rejected(game, Draw(0, "stock"), "game_over")


def test_limit_one_is_a_single_round() -> None:
    rules = CLASSIC.replace(point_limit=1)
    game = arranged(rules, ["TC", "2H", "3H"], melds=[(0, "7C 8C 9C")], opened=[0], drawn=True)
    game.apply(LayOff(0, card("TC"), 0, "high"))
    assert game.phase is Phase.GAME_OVER and game.winners == (0,)


def test_three_players_the_others_play_on_and_the_last_one_left_wins() -> None:
    rules = CLASSIC.replace(point_limit=50)
    game = arranged(
        rules, ["TC", "KH KD KS QH QD QC", "2H"], melds=[(0, "7C 8C 9C")], opened=[0], drawn=True
    )
    game.apply(LayOff(0, card("TC"), 0, "high"))
    assert game.results[-1].eliminated == (1,)
    assert game.phase is Phase.ROUND_OVER and game.active == [True, False, True]
    game.apply(NextRound())
    assert game.hands[1] == [] and [len(h) for h in game.hands] == [13, 0, 13]
    assert game.dealer == 0 and game.current == 2  # seat 1 is skipped
    rejected(game, Draw(1, "stock"), "eliminated")
    game.totals[2] = 45
    game.hands[2] = list(cards("KH KD")) + game.hands[2][2:]
    win_round(game, 0)
    assert game.winners == (0,) and game.phase is Phase.GAME_OVER


def test_if_all_remaining_go_over_together_the_lowest_total_wins() -> None:
    rules = CLASSIC.replace(point_limit=50)
    game = Game.start(rules, 3, SEED)
    game.totals = [45, 49, 45]
    game.hands = [list(cards("KH")), list(cards("KD")), list(cards("KS"))]
    # Nobody went out, but all three are charged: the state the rule speaks of.
    game._end_round(winner=None, hand_rummy=False)
    assert game.phase is Phase.ROUND_OVER  # nobody scores without a winner
    game.apply(NextRound())
    game.totals = [55, 58, 55]
    game._end_round(winner=None, hand_rummy=False)
    assert game.winners == (0, 2)  # equal lowest totals share the win


def test_three_rounds_play_exactly_three_rounds_and_the_highest_score_wins() -> None:
    game = arranged(THREE, ["TC JC QC 4D", "3H XX", "AS 2D", "5S"], opened=[0], drawn=True)
    game.apply(Lay(0, (cards("TC JC QC"),)))
    game.apply(Discard(0, card("4D")))
    assert game.totals == [0, 23, 17, 5] and game.scores() == (0, -23, -17, -5)
    assert game.phase is Phase.ROUND_OVER
    game.apply(NextRound())
    win_round(game, 3)
    game.apply(NextRound())
    assert game.round_no == 3
    game.totals = [100, 100, 150, 200]
    game.hands = [[], [], [], []]
    win_round(game, 0)
    assert game.phase is Phase.GAME_OVER and game.winners == (0, 1)


# --------------------------------------------------------- arrange, JSON


def test_arranging_the_hand_is_allowed_any_time_during_a_round() -> None:
    game = arranged(CLASSIC, ["2H 5C 9D", "3H 6C TD"])
    events = game.apply(Arrange(1, cards("TD 3H 6C")))
    assert game.hands[1] == list(cards("TD 3H 6C"))
    assert events[0].for_seat(0) is None and events[0].for_seat(1) is not None
    rejected(game, Arrange(1, cards("TD 3H 6C 6C")), "not_your_hand")
    rejected(game, Arrange(1, cards("TD 3H")), "not_your_hand")


def test_actions_and_events_round_trip_through_json() -> None:
    actions: list[Action] = [
        Draw(0, "discard"),
        Lay(0, (cards("7C 7D 7H"), cards("2S 3S 4S"))),
        LayOff(1, card("TC"), 2, "low"),
        ExchangeJoker(2, card("6H"), 0, None),
        Discard(3, card("XX")),
        Knock(2),
        Arrange(0, cards("2H XX")),
        NextRound(),
    ]
    for action in actions:
        assert action_from_json(json.loads(json.dumps(action.to_json()))) == action
    game = Game(CLASSIC.replace(knock=True), 4, SEED)
    from romme.engine.reference import play_game

    events: list[Event] = []
    original = game.apply

    def recording(action: Action) -> list[Event]:
        result = original(action)
        events.extend(result)
        return result

    game.apply = recording  # type: ignore[method-assign]
    play_game(game)
    assert len({e.type for e in events}) >= 8
    for event in events:
        assert event_from_json(json.loads(json.dumps(event.to_json()))) == event
    for seat in range(4):
        view = game.view_for(seat)
        assert type(view).from_json(json.loads(json.dumps(view.to_json()))) == view


@pytest.mark.parametrize(
    "data",
    [
        None,
        [],
        {},
        {"type": "fly"},
        {"type": "draw"},
        {"type": "draw", "seat": "0"},
        {"type": "draw", "seat": 0, "source": "sky"},
        {"type": "discard", "seat": 0, "card": "1Z"},
        {"type": "discard", "seat": 0, "card": 7},
        {"type": "lay", "seat": 0, "melds": []},
        {"type": "lay", "seat": 0, "melds": [["7H"] * 200]},
        {"type": "draw", "seat": True},
        {"type": "lay_off", "seat": 0, "card": "7H", "meld": 0, "end": "middle"},
    ],
)
def test_malformed_actions_get_a_notation_error(data: object) -> None:
    with pytest.raises(NotationError):
        action_from_json(data)


def test_malformed_views_get_a_notation_error() -> None:
    """A client decodes the views it is sent; whatever is wrong in one is named,
    however deep (the decoders are made once per type and kept)."""
    game = knock_table()
    view = game.view_for(0)
    good = json.loads(json.dumps(view.to_json()))
    for _ in range(2):  # the decoders made by the first pass are the ones reused
        assert type(view).from_json(good) == view
        changes: list[dict[str, object]] = [
            {"hand": "7H"},
            {"hand": [["7H"]]},
            {"hand": ["1Z"]},
            {"hand": [7]},
            {"seat": "0"},
            {"seat": True},
            {"opened": {"0": True}},
            {"hand_counts": [1.5]},
            {"history": [{"type": "fly"}]},
            {"rules": []},
        ]
        for change in changes:
            with pytest.raises(NotationError):
                type(view).from_json({**good, **change})
        missing = dict(good)
        del missing["hand"]
        with pytest.raises(NotationError, match="missing 'hand'"):
            type(view).from_json(missing)


def test_state_round_trips_through_json_and_bad_states_are_refused() -> None:
    game = knock_table()
    copy = Game.from_json(json.loads(json.dumps(game.to_json())))
    assert copy.to_json() == game.to_json()
    broken = game.to_json()
    broken["stock"] = broken["stock"][:-1]
    with pytest.raises(NotationError, match="add up"):
        Game.from_json(broken)
    with pytest.raises(NotationError):
        Game.from_json({"rules": {}})


def test_private_events_reach_only_their_seat() -> None:
    game = Game(CLASSIC, 3, SEED)
    events = game.apply(NextRound())
    dealt = [e for e in events if isinstance(e, HandDealt)]
    assert len(dealt) == 3
    for event in dealt:
        assert event.for_seat(event.seat) == event
        assert all(event.for_seat(s) is None for s in (None, 0, 1, 2) if s != event.seat)
