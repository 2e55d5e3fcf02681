"""Chat in the lobby and at the tables, kept as plain text."""

from __future__ import annotations

import unicodedata
from typing import Any

from sqlalchemy import select

from romme.store.core import StoreCore, bad, is_id, is_int, ms
from romme.store.errors import StoreError
from romme.store.models import ChatMessage, Player

__all__ = ["CHAT_MAX", "ChatStore"]

CHAT_MAX = 500
"""The longest chat message, in characters (after cleaning)."""
_CHAT_RAW_MAX = 4 * CHAT_MAX
"""The longest text looked at: anything longer is refused before it is cleaned."""


class ChatStore(StoreCore):
    """The store's chat (see :class:`romme.store.Store`)."""

    async def add_chat(
        self, table_id: int | None, player_id: int, text: str, epoch: int | None = None
    ) -> dict[str, Any]:
        """Store a chat message (lobby when ``table_id`` is ``None``) and return it as
        ``ChatMessage``. The text is kept as plain text, as given, less control
        characters other than newlines. With ``epoch``, the writer's lease of the
        table must still hold (``lease_lost`` otherwise)."""
        cleaned = _clean_chat(text)
        async with self._write() as session:
            if table_id is not None:
                await self._require_table(session, table_id, epoch=epoch)
            player = await self._require_player(session, player_id)
            message = ChatMessage(
                table_id=table_id, player_id=player_id, text=cleaned, created_at=self._now()
            )
            session.add(message)
            await session.flush()
            return _chat_json(message, player.nickname)

    async def recent_chat(self, table_id: int | None, limit: int = 50) -> list[dict[str, Any]]:
        """The last ``limit`` messages of the lobby or a table, oldest first."""
        if not is_int(limit) or limit < 0:
            raise bad("limit must be a non-negative integer")
        if table_id is not None and not is_id(table_id):
            return []
        where = (
            ChatMessage.table_id.is_(None) if table_id is None else ChatMessage.table_id == table_id
        )
        async with self._read() as session:
            rows = (
                await session.execute(
                    select(ChatMessage, Player.nickname)
                    .join(Player, Player.id == ChatMessage.player_id)
                    .where(where)
                    .order_by(ChatMessage.id.desc())
                    .limit(min(limit, 1000))
                )
            ).all()
        return [_chat_json(message, nickname) for message, nickname in reversed(rows)]


def _clean_chat(text: object) -> str:
    """Chat text without control characters (newlines stay), or raise."""
    if not isinstance(text, str):
        raise StoreError("chat_empty", "a chat message is text")
    if len(text) > _CHAT_RAW_MAX:
        raise StoreError("chat_too_long", f"a chat message has at most {CHAT_MAX} characters")
    cleaned = "".join(
        char for char in text if char == "\n" or unicodedata.category(char) not in ("Cc", "Cs")
    )
    if not cleaned.strip():
        raise StoreError("chat_empty", "the message is empty")
    if len(cleaned) > CHAT_MAX:
        raise StoreError("chat_too_long", f"a chat message has at most {CHAT_MAX} characters")
    return cleaned


def _chat_json(message: ChatMessage, nickname: str) -> dict[str, Any]:
    return {
        "id": message.id,
        "from": nickname,
        "text": message.text,
        "at": ms(message.created_at),
        "player_id": message.player_id,
    }
