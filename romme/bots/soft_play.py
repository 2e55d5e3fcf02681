"""Soft play in a finished game: turns where a seat could have gone out and did not.

Players who collude let one of them win: the others hold cards that would end
the round. The clearest trace such a seat leaves is a turn on which it could
have gone out and played on instead. Whether it could is asked of the casual
computer opponent, which goes out whenever it sees how (it opens as soon as it
can, lays everything it can and lays off what fits): from the seat's own
position right after its draw, the casual level plays the turn on a copy of the
game; if that turn ends the round with the seat out of cards, going out was
there. The casual level does not find every way out (a joker exchange first,
say), so a missed out it reports is certain, and one it does not report may
still have been there: the signal errs on the side of the player.

Turns the server played for a seat (``by``: its time ran out, or a stand-in
played after it left) are not the player's choice and are not looked at.

>>> from romme.bots.analysis import bot_game
>>> from romme.engine.rules import Rules
>>> log = bot_game(Rules.classic(point_limit=1), ("casual", "casual"), seed=5)
>>> missed_outs(log)   # the casual level never misses a way out it sees itself
{}
"""

from __future__ import annotations

from romme.bots.analysis import AnalysisInput
from romme.bots.casual import CasualBot
from romme.engine.actions import Action, Draw, action_from_json
from romme.engine.game import Game, Phase
from romme.engine.rules import Rules

__all__ = ["TURN_STEPS", "missed_outs"]

TURN_STEPS = 40
"""The most actions the casual level may take in one turn of the check (a turn
is a handful of lays, lay-offs and one discard; the bound only keeps a rules
corner from looping)."""

_ENDED = (Phase.ROUND_OVER, Phase.GAME_OVER)


def missed_outs(log: AnalysisInput) -> dict[int, list[int]]:
    """For each seat that missed a way out: the indices (in ``log.actions``) of
    the draws that began those turns. Replays the game once."""
    game = Game(Rules.from_json(log.rules), log.seats, bytes.fromhex(log.match_seed))
    missed: dict[int, list[int]] = {}
    watching: tuple[int, int] | None = None
    """(seat, index of its draw) while that seat's turn could have ended the round."""
    for index, data in enumerate(log.actions):
        action = action_from_json(data)
        game.apply(action)
        if watching is not None:
            seat, drawn_at = watching
            if game.phase in _ENDED:
                if game.hands[seat]:
                    missed.setdefault(seat, []).append(drawn_at)
                watching = None
            elif game.current != seat or game.phase is not Phase.PLAY:
                missed.setdefault(seat, []).append(drawn_at)
                watching = None
        if isinstance(action, Draw) and "by" not in data and _could_go_out(game, action.seat):
            watching = (action.seat, index)
    return missed


def _could_go_out(game: Game, seat: int) -> bool:
    """Whether the casual level, in ``seat``'s place right after its draw, goes out
    this turn."""
    trial = game.clone()
    bot = CasualBot(seed=0)
    for _ in range(TURN_STEPS):
        if trial.phase in _ENDED:
            return not trial.hands[seat]
        if trial.current != seat or trial.phase is not Phase.PLAY:
            return False
        action: Action | None = bot.decide(trial.view_for(seat))
        if action is None:
            return False
        trial.apply(action)
    return False
