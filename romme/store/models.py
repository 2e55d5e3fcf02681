"""The database schema as typed SQLAlchemy models.

The Alembic migrations in ``romme/store/migrations/versions`` create exactly this
schema (a test compares them); change both together. Times are stored in UTC and
always come back timezone-aware, on SQLite too.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    false,
    true,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

__all__ = [
    "Base",
    "Block",
    "BrowserMark",
    "ChatMessage",
    "ChipAccount",
    "ChipMovement",
    "Friendship",
    "GameAnalysis",
    "GameResult",
    "GameSeat",
    "GameTable",
    "Invitation",
    "LoginSession",
    "ModerationEntry",
    "Moderator",
    "Player",
    "PlayerStatistics",
    "RateCounter",
    "Report",
    "Sanction",
    "SanctionLink",
    "TableAction",
    "UTCDateTime",
]

# Stable constraint names, so that migrations can refer to them on every backend.
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp in UTC. PostgreSQL keeps the zone (``timestamptz``); SQLite keeps
    naive UTC text, which comes back marked as UTC."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given; the store keeps times in UTC")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {
        datetime: UTCDateTime(),
        dict[str, Any]: JSON(),
        list[Any]: JSON(),
        bytes: LargeBinary(),
    }


class Player(Base):
    """A person (guest or registered) or a computer opponent's persistent account."""

    __tablename__ = "players"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    nickname: Mapped[str] = mapped_column(String(80))
    nickname_key: Mapped[str] = mapped_column(String(80), unique=True)
    """NFC, case-folded: nicknames are unique without regard to case."""
    nickname_skeleton: Mapped[str] = mapped_column(String(160), index=True)
    """What the nickname looks like (``romme.store.lookalikes.skeleton``): no two
    players may look alike (checked on creation, not a constraint, for names
    created before the check may)."""
    password_hash: Mapped[str | None] = mapped_column(String(255))
    guest: Mapped[bool] = mapped_column(Boolean)
    is_bot: Mapped[bool] = mapped_column(Boolean, default=False)
    bot_level: Mapped[str | None] = mapped_column(String(20), unique=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    rating: Mapped[float] = mapped_column(Float, index=True)
    """The ordinal ``mu - 3 sigma``, kept for ordering the rankings."""
    games_played: Mapped[int] = mapped_column(Integer, default=0)
    games_won: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime]
    registered_at: Mapped[datetime | None]
    xp: Mapped[int] = mapped_column(Integer, default=0, server_default="0", index=True)
    """Experience points over every finished game (``romme.store.levels``)."""


class GameTable(Base):
    """A table and its one game. Its action log (:class:`TableAction`) is the truth."""

    __tablename__ = "game_tables"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    host_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    settings: Mapped[dict[str, Any]]
    rules: Mapped[dict[str, Any]]
    seats: Mapped[list[Any]]
    match_seed: Mapped[bytes]
    status: Mapped[str] = mapped_column(String(16), index=True)
    created_at: Mapped[datetime]
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    # The ownership lease (romme.store.leases): which server node runs the table,
    # until when, and the fencing token that every append of its log must carry.
    owner_node: Mapped[str | None] = mapped_column(String(64), index=True)
    owner_epoch: Mapped[int] = mapped_column(Integer, server_default="0")
    lease_until: Mapped[datetime | None]


class TableAction(Base):
    """One accepted action of a table's game, numbered by ``version``."""

    __tablename__ = "table_actions"
    __table_args__ = (UniqueConstraint("table_id", "version"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer)
    action: Mapped[dict[str, Any]]
    created_at: Mapped[datetime]


class GameResult(Base):
    """How a finished game ended; written once, by ``Store.finish_game``."""

    __tablename__ = "game_results"

    table_id: Mapped[int] = mapped_column(
        ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True
    )
    winners: Mapped[list[Any]]
    totals: Mapped[list[Any]]
    seat_players: Mapped[list[Any]]
    results: Mapped[list[Any]]
    rating_changes: Mapped[dict[str, Any]]
    finished_at: Mapped[datetime]
    void: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Nothing of the game counts: a person left too early (``romme.store.outcome``)."""
    rated: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    """The ratings moved: not void, and no two of its people had played the
    daily number of rated games together already."""
    ranked: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """It counts in the ranking by chips: rated, between distinct established
    people only, no computer opponent (docs/chips.md)."""
    soft_play: Mapped[dict[str, Any] | None] = mapped_column(default=None)
    """``{"<seat>": [index of the draw, ...]}``: the turns on which a seat could
    have gone out and did not (``romme.bots.soft_play``); ``{}`` for none, null
    until the game is checked (moderators' signals, docs/chips.md)."""


class GameSeat(Base):
    """One seat of a finished game: who sat there, the place, the rating change."""

    __tablename__ = "game_seats"
    __table_args__ = (Index("ix_game_seats_player_id_finished_at", "player_id", "finished_at"),)

    table_id: Mapped[int] = mapped_column(
        ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    place: Mapped[int] = mapped_column(Integer)
    won: Mapped[bool] = mapped_column(Boolean)
    players: Mapped[int] = mapped_column(Integer)
    rated: Mapped[bool] = mapped_column(Boolean)
    """Whether the player's rating is kept (registered players and bots)."""
    rating_before: Mapped[float | None] = mapped_column(Float)
    rating_after: Mapped[float | None] = mapped_column(Float)
    finished_at: Mapped[datetime]


class ChatMessage(Base):
    """A chat line in the lobby (``table_id`` null) or at a table. Plain text."""

    __tablename__ = "chat_messages"
    __table_args__ = (Index("ix_chat_messages_table_id_id", "table_id", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int | None] = mapped_column(ForeignKey("game_tables.id", ondelete="CASCADE"))
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime]


class Invitation(Base):
    """An invitation to a table. ``status`` is open, accepted or declined; an open
    invitation past ``expires_at_ms`` is reported as expired."""

    __tablename__ = "invitations"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(
        ForeignKey("game_tables.id", ondelete="CASCADE"), index=True
    )
    from_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    to_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    status: Mapped[str] = mapped_column(String(16))
    expires_at_ms: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime]
    answered_at: Mapped[datetime | None]


class LoginSession(Base):
    """A session: what a session cookie stands for, so that it can be listed and
    revoked. The cookie carries a random token; only its SHA-256 is stored."""

    __tablename__ = "sessions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    address: Mapped[str] = mapped_column(String(64))
    """The client's address (an IPv6 address as its /64 network)."""
    user_agent: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime]
    last_seen_at: Mapped[datetime]
    expires_at: Mapped[datetime] = mapped_column(index=True)
    revoked_at: Mapped[datetime | None]


class RateCounter(Base):
    """A counter of one limit (failed logins of an account or an address, accounts
    created from an address), kept in the database so that it survives restarts
    and is shared by every server on the database."""

    __tablename__ = "rate_counters"

    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    count: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[datetime]
    updated_at: Mapped[datetime] = mapped_column(index=True)
    blocked_until: Mapped[datetime | None]


class Friendship(Base):
    """A friend request from ``from_id`` to ``to_id`` (``pending``) or, once
    accepted, a friendship (``accepted``): one row per pair of players.

    ``hidden``: the request reached its addressee while the addressee blocked its
    sender; it is never shown to the addressee (its sender still sees it pending,
    so that a block is not given away)."""

    __tablename__ = "friendships"
    __table_args__ = (UniqueConstraint("from_id", "to_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    from_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    to_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    status: Mapped[str] = mapped_column(String(16))
    hidden: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime]
    accepted_at: Mapped[datetime | None]


class Block(Base):
    """``blocker_id`` gets nothing from ``blocked_id``: no invitation, chat line or
    friend request."""

    __tablename__ = "blocks"

    blocker_id: Mapped[int] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    blocked_id: Mapped[int] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    created_at: Mapped[datetime]


class Report(Base):
    """A player's report of another. ``table_id`` and ``chat`` (the reported
    player's recent lines there, a copy that outlives the table) are attached by the
    server. ``status`` is open or resolved."""

    __tablename__ = "reports"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    reporter_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    reported_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    reason: Mapped[str] = mapped_column(String(32))
    text: Mapped[str] = mapped_column(Text)
    table_id: Mapped[int | None] = mapped_column(Integer)
    chat: Mapped[list[Any]]
    status: Mapped[str] = mapped_column(String(16), index=True)
    created_at: Mapped[datetime]
    resolved_at: Mapped[datetime | None]
    resolved_by: Mapped[str | None] = mapped_column(String(80))
    note: Mapped[str | None] = mapped_column(Text)
    address_key: Mapped[str | None] = mapped_column(String(64), index=True)
    """A hash of the reporter's address (for the per-address limit; ``None`` for
    reports filed before it was kept)."""


class Moderator(Base):
    """A player who may see reports, mute and ban (``romme admin grant-moderator``)."""

    __tablename__ = "moderators"

    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), primary_key=True)
    granted_at: Mapped[datetime]


class Sanction(Base):
    """A mute (no chat) or a ban (no login) of a player, until ``until`` (a ban
    without ``until`` lasts until lifted). One that followed the person to a new
    account names the sanction it came from (``source_id``)."""

    __tablename__ = "sanctions"
    __table_args__ = (Index("ix_sanctions_player_id_kind", "player_id", "kind"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    kind: Mapped[str] = mapped_column(String(8))
    until: Mapped[datetime | None]
    created_at: Mapped[datetime]
    lifted_at: Mapped[datetime | None]
    nickname: Mapped[str | None] = mapped_column(String(80))
    """The player's nickname when sanctioned (a snapshot: the name may change)."""
    source_id: Mapped[int | None] = mapped_column(Integer, index=True)
    """The sanction this one followed from (sanctions are never deleted)."""


class SanctionLink(Base):
    """What a sanction follows the person by: a hash of one of their addresses or
    browser marks, until ``until`` (``None``: as long as the sanction)."""

    __tablename__ = "sanction_links"
    __table_args__ = (UniqueConstraint("sanction_id", "kind", "value_hash"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    sanction_id: Mapped[int] = mapped_column(ForeignKey("sanctions.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(8))
    """``address`` or ``browser``."""
    value_hash: Mapped[str] = mapped_column(String(64), index=True)
    until: Mapped[datetime | None]


class BrowserMark(Base):
    """A browser (the hash of its ``romme_browser`` cookie) a player signed in from."""

    __tablename__ = "browser_marks"

    mark_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    player_id: Mapped[int] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    last_seen_at: Mapped[datetime]


class ModerationEntry(Base):
    """One line of the moderation log: who did what to whom, when and why.
    ``actor`` is a moderator's nickname, or ``shell`` for ``romme admin``; the
    players are kept by id (``actor_id``, ``target_id``), the nicknames as they were
    then."""

    __tablename__ = "moderation_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    actor: Mapped[str] = mapped_column(String(80))
    action: Mapped[str] = mapped_column(String(32))
    target: Mapped[str | None] = mapped_column(String(80))
    report_id: Mapped[int | None] = mapped_column(Integer)
    note: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(index=True)
    actor_id: Mapped[int | None] = mapped_column(Integer)
    target_id: Mapped[int | None] = mapped_column(Integer, index=True)


class GameAnalysis(Base):
    """The analysis of a finished game's human decisions (see
    :mod:`romme.bots.analysis`): requested by one of its players, computed once."""

    __tablename__ = "game_analyses"

    table_id: Mapped[int] = mapped_column(
        ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True
    )
    status: Mapped[str] = mapped_column(String(16))
    """``pending`` or ``done``."""
    requested_by: Mapped[int] = mapped_column(ForeignKey("players.id"))
    requested_at: Mapped[datetime]
    finished_at: Mapped[datetime | None]
    result: Mapped[dict[str, Any] | None]
    """``{"seats", "decisions", "marks"}`` once done."""


class PlayerStatistics(Base):
    """A player's statistics, experience and card luck over the finished games of
    one preset (``classic`` or ``three-rounds``), kept up to date by
    ``Store.finish_game`` in the same transaction as the result (see
    :mod:`romme.store.statistics`)."""

    __tablename__ = "player_statistics"

    player_id: Mapped[int] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    preset: Mapped[str] = mapped_column(String(20), primary_key=True)
    games: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    rounds_played: Mapped[int] = mapped_column(Integer, default=0)
    rounds_won: Mapped[int] = mapped_column(Integer, default=0)
    hand_rummies: Mapped[int] = mapped_column(Integer, default=0)
    knocks: Mapped[int] = mapped_column(Integer, default=0)
    penalty_points: Mapped[int] = mapped_column(Integer, default=0)
    biggest_win: Mapped[int] = mapped_column(Integer, default=0)
    """The most penalty points the others took in one round this player won."""
    xp: Mapped[int] = mapped_column(Integer, default=0)
    best_rating: Mapped[int | None] = mapped_column(Integer)
    """The best shown rating after a game of this preset (kept ratings only)."""
    hands: Mapped[int] = mapped_column(Integer, default=0)
    jokers: Mapped[int] = mapped_column(Integer, default=0)
    jokers_mean: Mapped[float] = mapped_column(Float, default=0.0)
    jokers_variance: Mapped[float] = mapped_column(Float, default=0.0)
    tabled_hands: Mapped[int] = mapped_column(Integer, default=0)
    """Hands dealt under meld rules with known meld-ready odds."""
    meld_ready: Mapped[int] = mapped_column(Integer, default=0)
    meld_ready_mean: Mapped[float] = mapped_column(Float, default=0.0)
    meld_ready_variance: Mapped[float] = mapped_column(Float, default=0.0)


class ChipAccount(Base):
    """An account of the play-money ledger (:mod:`romme.store.ledger`): a player's
    (``player_id``), the house's, or a game's escrow (``table_id``), which holds the
    stakes from the start of the game until it is settled."""

    __tablename__ = "chip_accounts"
    __table_args__ = (CheckConstraint("balance >= 0", name="balance_not_negative"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    """``player``, ``house`` or ``escrow``."""
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), unique=True)
    table_id: Mapped[int | None] = mapped_column(ForeignKey("game_tables.id"), unique=True)
    balance: Mapped[int] = mapped_column(BigInteger)
    cost_percent: Mapped[int | None] = mapped_column(Integer)
    """An escrow's operating cost, fixed when the game starts."""
    created_at: Mapped[datetime]


class ChipMovement(Base):
    """One movement of chips from one account to another (a grant or a bonus comes
    from no account: only they change the sum over all accounts). One movement per
    game, reason and pair of accounts: settling twice cannot pay twice."""

    __tablename__ = "chip_movements"
    __table_args__ = (
        UniqueConstraint("table_id", "reason", "from_account", "to_account"),
        CheckConstraint("amount > 0", name="amount_positive"),
        Index("ix_chip_movements_to_account_id", "to_account", "id"),
        Index("ix_chip_movements_from_account_id", "from_account", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    from_account: Mapped[int | None] = mapped_column(ForeignKey("chip_accounts.id"))
    to_account: Mapped[int] = mapped_column(ForeignKey("chip_accounts.id"))
    amount: Mapped[int] = mapped_column(BigInteger)
    reason: Mapped[str] = mapped_column(String(16))
    """``grant``, ``bonus``, ``stake``, ``payout``, ``operating_cost`` or ``odd_chip``."""
    table_id: Mapped[int | None] = mapped_column(ForeignKey("game_tables.id"))
    created_at: Mapped[datetime] = mapped_column(index=True)
