"""The protocol layer's errors: a stable code and a message for the player.

Every code is listed in ``docs/protocol.md`` and has a text in each catalogue of
the web client (``romme/web/locales``); the engine's and the store's codes come
through unchanged.
"""

from __future__ import annotations

from romme.store.store import CHAT_MAX

__all__ = ["CHAT_MAX", "ERROR_CODES", "ProtocolError"]


ERROR_CODES = {
    "bad_json": "the message is not a JSON object",
    "too_large": "the message is too large",
    "unknown_type": "unknown message type",
    "bad_message": "a field is missing or malformed",
    "rate_limited": "too many messages",
    "not_authenticated": "log in first",
    "no_such_table": "there is no such table",
    "no_such_player": "there is no such player",
    "not_seated": "you do not sit at this table",
    "table_full": "the table has no free seat",
    "not_host": "only the host may do that",
    "already_started": "the game has started",
    "not_started": "the game has not started",
    "seats_not_filled": "every seat must be taken",
    "invite_only": "only invited players may sit at this table",
    "no_such_invitation": "there is no such invitation",
    "invitation_expired": "the invitation has expired",
    "cannot_invite": "this player cannot be invited",
    "chat_empty": "say something",
    "chat_too_long": f"at most {CHAT_MAX} characters",
    "bad_settings": "these settings are not possible",
    "knock_closed": "the knock window has closed",
    "nothing_to_do": "there is nothing to do now",
    "not_finished": "the game is not over yet",
    "rematch_closed": "the rematch was declined or has expired",
    "server_busy": "the server could not store the move; try again",
    "shutting_down": "the server is restarting",
    "server_error": "something went wrong on the server; try again",
    "too_many_connections": "too many connections",
    "too_many_tables": "you have as many waiting tables as you may open",
    "already_invited": "this player already has an open invitation to this table",
    "too_many_invitations": "too many invitations; wait a little",
    "draw_pending": "your draw already waits for the knock window to close",
    "account_required": "register to do this",
    "cannot_befriend": "this player cannot be your friend",
    "no_friend_request": "there is no such friend request",
    "too_many_friends": "you have as many friends and requests as you may",
    "cannot_block": "this player cannot be blocked",
    "blocked": "the host of this table has blocked you",
    "muted": "a moderator has muted your chat",
    "banned": "this account is banned",
    "not_moderator": "only moderators may do that",
    "insufficient_chips": "you do not have enough chips for this table's stake",
    "player_deleted": "a player at this table has deleted the account",
    "stake_limit": "the stake is above what this account may play for",
    "same_address": "two players from one address cannot sit at one staked table",
    "stake_pair_limit": "these two players have played enough staked games together today",
    "already_void": "this game is void already",
    "house_low": "the house cannot pay this back",
    "bonus_not_due": "the next bonus is not due yet",
    "bonus_not_needed": "the bonus is only for low balances",
    "not_your_ledger": "only the player can see their chip history",
}
"""Every error code of the protocol layer with a default message (engine codes
come through unchanged)."""


class ProtocolError(Exception):
    """A bad client message: a stable code and a message for the player."""

    def __init__(self, code: str, message: str | None = None) -> None:
        super().__init__(message or ERROR_CODES.get(code, code))
        self.code = code

    @property
    def message(self) -> str:
        return str(self.args[0])
