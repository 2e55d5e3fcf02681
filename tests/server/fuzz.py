"""Fuzzing the server's inputs against a real running server.

The strategies are derived from the code that defines the protocol, not from a
copy of it: client messages from ``romme.server.protocol.MESSAGES`` (each type's
fields and their kinds), table settings from ``TableSettings``, engine actions
from the type hints of the action classes in ``romme.engine.actions``. Each field
gets a well-formed value, a hostile one (huge numbers, NUL, lone surrogates,
deep nesting, wrong types) or is left out. Besides messages, byte-level garbage:
mutated JSON, invalid UTF-8, binary frames, oversized and deeply nested frames.

:class:`WsFuzzer` sends the inputs over WebSocket and checks what the protocol
promises: every request with an id gets exactly one reply, the connection is
never closed without the documented code, and stays usable (a ``ping`` is still
answered). :class:`HttpFuzzer` sends requests to the HTTP endpoints and checks
that none answers 5xx. :func:`log_faults` finds tracebacks and errors in the
server's log. Used by ``tests/server/test_fuzz.py`` (bounded time) and
``bench/fuzz_protocol.py`` (as long as asked).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import re
import subprocess
import sys
import threading
import time
import types
import typing
import warnings
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from typing import Any, Literal
from urllib.parse import quote

import httpx
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from hypothesis.errors import HypothesisDeprecationWarning
from starlette.routing import Route

from romme.bots import LEVELS as BOT_LEVELS
from romme.engine.actions import Action
from romme.engine.cards import JOKER, Card, all_naturals
from romme.server.app import create_app
from romme.server.auth import COOKIE_NAME
from romme.server.protocol import MESSAGE_TYPES, MESSAGES
from romme.server.settings import TableSettings

from .helpers import Client, ServerProcess

Strategy = st.SearchStrategy[Any]

SERVER_OPTIONS = [
    "--rate-per-second",
    "10000",
    "--rate-burst",
    "10000",
    "--max-refused-per-minute",
    "0",
    "--max-waiting-tables",
    "3",
    "--accounts-per-hour",
    "0",
]
"""A fuzzed server takes messages as fast as they come, never closes a
connection for its refused messages and lets the fuzzer make as many guests as
it needs (those limits have their own tests)."""

NASTY_TEXT = [
    "\x00",
    "\ud800",
    "\udfff",
    "\ud83c",
    "\u202e",
    "\ufeff",
    "\x7f",
    "\n",
    "'; DROP TABLE players; --",
    "%00",
    "../../etc/passwd",
    "<script>",
    "🃏",
]

# ------------------------------------------------------------ hostile values

nasty_strings: Strategy = st.one_of(
    st.text(max_size=40),
    st.lists(st.sampled_from(NASTY_TEXT) | st.text(max_size=5), max_size=6).map("".join),
    st.text(st.characters(codec=None, exclude_categories=()), max_size=20),
    st.integers(0, 5000).map(lambda n: "x" * n),
)
huge_numbers: Strategy = (
    st.sampled_from([2**31 - 1, 2**31, -(2**31) - 1, 2**53, 2**63, 2**64, -1, 10**30, 2**1000])
    | st.integers()
)
scalars: Strategy = st.one_of(
    st.none(),
    st.booleans(),
    huge_numbers,
    st.floats(allow_nan=True, allow_infinity=True),
    nasty_strings,
)
hostile_values: Strategy = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(nasty_strings, inner, max_size=4),
    max_leaves=12,
)

# ---------------------------------------------------------- derived schemas

CARDS = [str(card) for card in all_naturals()] + [str(JOKER)]


def from_hint(hint: Any) -> Strategy:
    """Well-formed JSON for a type hint of an engine action's field."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is Card:
        return st.sampled_from(CARDS) | st.sampled_from(["10H", "7h", "ZZ", "", "XXX"])
    if hint is int:
        return st.integers(-2, 40)
    if origin is Literal:
        return st.sampled_from(args)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return st.lists(from_hint(args[0]), max_size=14)
    if origin in (typing.Union, types.UnionType):
        return st.one_of(*(st.none() if a is type(None) else from_hint(a) for a in args))
    raise TypeError(f"no strategy for {hint!r}")


def engine_actions() -> Strategy:
    """An action as a client sends it, for each action type of the engine (now and
    then with the ``seat`` the server must refuse)."""
    options = []
    for cls in typing.get_args(Action):
        hints = typing.get_type_hints(cls)
        fields = {
            f.name: from_hint(hints[f.name]) for f in dataclasses.fields(cls) if f.name != "seat"
        }
        options.append(
            st.fixed_dictionaries(
                {"type": st.just(cls.type)}, optional={**fields, "seat": st.integers(-1, 4)}
            )
        )
    return st.one_of(*options)


def table_settings() -> Strategy:
    """Settings for ``create_table``, field by field from ``TableSettings``."""
    by_default: dict[type, Callable[[Any], Strategy]] = {
        bool: lambda default: st.booleans(),
        int: lambda default: st.integers(-1, default * 2 + 5),
        str: lambda default: st.sampled_from(["classic", "three-rounds", "open", "invite"]),
        dict: lambda default: st.dictionaries(
            st.sampled_from(["0", "1", "2", "3", "x"]),
            st.sampled_from([*BOT_LEVELS, "god"]),
            max_size=3,
        ),
    }
    defaults = TableSettings()
    optional = {}
    for f in dataclasses.fields(TableSettings):
        value = getattr(defaults, f.name)
        optional[f.name] = by_default[type(value)](value) | (
            hostile_values if f.name == "seats" else st.nothing()
        )
    return st.fixed_dictionaries({}, optional=optional)


def field_values(kind: str, tables: list[int], nicknames: list[str]) -> Strategy:
    """Well-formed values for a field kind of ``MESSAGES``."""
    return {
        "id": st.sampled_from(tables) | st.integers(0, 2**31 - 1),
        "seat": st.integers(-1, 5),
        "version": st.none() | st.integers(0, 400),
        "name": st.sampled_from(nicknames) | nasty_strings,
        "chat": st.text(max_size=600) | nasty_strings,
        "flag": st.booleans(),
        "level": st.none() | st.sampled_from(BOT_LEVELS),
        "settings": table_settings(),
        "action": engine_actions(),
    }[kind]


def client_messages(tables: list[int], nicknames: list[str]) -> Strategy:
    """A client message built from ``MESSAGES``: each field well-formed, hostile or
    missing, sometimes an unknown field or type."""

    @st.composite
    def message(draw: Any) -> dict[str, Any]:
        kind = draw(st.sampled_from(MESSAGE_TYPES) | nasty_strings | scalars)
        data: dict[str, Any] = {"type": kind}
        entry = MESSAGES.get(kind) if isinstance(kind, str) else None
        for name, spec in (entry[1] if entry else {}).items():
            choice = draw(st.integers(0, 9))
            if choice == 0:
                continue
            data[name] = draw(
                hostile_values if choice == 1 else field_values(spec.kind, tables, nicknames)
            )
        if draw(st.integers(0, 9)) == 0:
            data[draw(nasty_strings)] = draw(hostile_values)
        return data

    return message()


# ------------------------------------------------------------------ frames


@dataclasses.dataclass(frozen=True)
class Frame:
    """One WebSocket frame to send; ``tracked``: it carries an id that must be
    answered exactly once."""

    payload: str | bytes
    text: bool = True
    tracked: str | None = None


def garbage_frames() -> Strategy:
    """Byte-level garbage: never a well-formed message."""
    return st.one_of(
        st.text(max_size=200).map(Frame),
        st.binary(max_size=200).map(lambda b: Frame(b, text=False)),
        st.integers(1, 20_000).map(lambda n: Frame("[" * n + "]" * n)),
        st.integers(1, 20_000).map(lambda n: Frame('{"a":' * n + "1" + "}" * n)),
        st.integers(4000, 9000).map(
            lambda n: Frame('{"type":"join_table","table":' + "9" * n + "}")
        ),
        st.integers(16 * 1024 - 40, 60_000).map(
            lambda n: Frame(json.dumps({"type": "lobby_chat", "text": "y" * n}))
        ),
        st.sampled_from(
            [
                '{"type":"ping","id":"\\ud800"}',
                '{"type":"ping"',
                "null",
                "1e999",
                '{"type":"ping","id":NaN}',
                '{"__proto__":{"x":1}}',
                '{"type":"ping","type":"lobby_chat"}',
            ]
        ).map(Frame),
    )


def batches(tables: list[int], nicknames: list[str]) -> Strategy:
    """A list of frames: tracked messages, hostile-id messages and garbage; the
    last may be invalid UTF-8 (the connection then closes with 1007)."""
    counter = iter(range(1, 1 << 62))

    def tracked(message: dict[str, Any], ascii_only: bool) -> Frame:
        msg_id = f"fz{next(counter)}"
        data = {**message, "id": msg_id}
        text = json.dumps(data, ensure_ascii=ascii_only)
        if not ascii_only and not _encodable(text):
            text = json.dumps(data)  # a lone surrogate goes as an escape
        return Frame(text, tracked=msg_id)

    def untracked(message: dict[str, Any], msg_id: Any) -> Frame:
        return Frame(json.dumps({**message, "id": msg_id}))

    def unparseable(kind: int, size: int, id_first: bool) -> Frame:
        """A frame the parser may refuse (nested ``size`` deep, a number of ``size``
        digits, cut short) with an id at its start or end: answered once, with it."""
        msg_id = f"fz{next(counter)}"
        inner = [
            "[" * size + "]" * size,
            '{"a":' * size + "1" + "}" * size,
            "9" * size,
            "[1," * size,
        ][kind]
        if id_first:
            text = f'{{"id":"{msg_id}","type":"ping","x":{inner}}}'
        else:
            text = f'{{"type":"ping","x":{inner},"id":"{msg_id}"}}'
        return Frame(text, tracked=msg_id)

    messages = client_messages(tables, nicknames)
    kinds = [
        st.builds(tracked, messages, st.booleans()),
        st.builds(untracked, messages, hostile_values),
        garbage_frames(),
        st.builds(unparseable, st.integers(0, 3), st.integers(1, 9000), st.booleans()),
    ]
    # Of twelve frames: six are messages with an id to follow, two carry a hostile
    # id, two are garbage (``one_of`` alone would weigh the garbage's many
    # branches), two are unparseable frames with an id to follow.
    frame = st.sampled_from([0] * 6 + [1] * 2 + [2] * 2 + [3] * 2).flatmap(lambda i: kinds[i])
    poison = st.binary(min_size=1, max_size=30).map(
        lambda b: Frame(b'{"type":"ping","x":"' + b + b'\xff"}', text=True)
    )

    @st.composite
    def batch(draw: Any) -> list[Frame]:
        frames = draw(st.lists(frame, min_size=1, max_size=12))
        if draw(st.integers(0, 15)) == 0:
            frames.append(draw(poison))
        return frames

    return batch()


# ------------------------------------------------------------------ running


@dataclasses.dataclass
class Tally:
    frames: int = 0
    tracked: int = 0
    closes_1007: int = 0
    http_requests: int = 0
    http_routes: dict[str, int] = dataclasses.field(default_factory=dict)
    """HTTP requests per POST route (``GET``: all the GETs)."""
    failures: list[str] = dataclasses.field(default_factory=list)


Enough = Callable[[], bool]
"""Whether a fuzzing run has sent as much as its test asks for."""


def _always() -> bool:
    return True


def _fuzz_until(round_: Callable[[], None], seconds: float, enough: Enough) -> None:
    """Run rounds for ``seconds``, then on while not ``enough`` was sent, for at
    most four times as long again: on a loaded machine fewer requests fit in the
    time, which is no fault of the server's (and a test asks for a minimum).
    Each round has a seed of its own: under a fixed seed (pytest-randomly sets
    one per test) Hypothesis would send the same examples every round."""
    first = random.getrandbits(32)
    started = time.monotonic()
    rounds = 0
    while time.monotonic() - started < seconds or (
        not enough() and time.monotonic() - started < 5 * seconds
    ):
        seed(first + rounds)(round_)()
        rounds += 1


class LoopThread:
    """An event loop in its own thread: the clients live there across Hypothesis
    examples, which run in the calling thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, Any], timeout: float = 120) -> Any:
        future: Future[Any] = asyncio.run_coroutine_threadsafe(coro, self.loop)
        return future.result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def answers(msg_id: object) -> Callable[[dict[str, Any]], bool]:
    """Whether a message is the answer to the request with this id."""
    return lambda message: bool(message.get("id") == msg_id)


class WsFuzzer:
    """Fuzzes one server over WebSocket as a seated player of a running game."""

    def __init__(self, server: ServerProcess, loop: LoopThread, tally: Tally) -> None:
        self.server = server
        self.loop = loop
        self.tally = tally
        self.player: Client | None = None
        self.others: list[Client] = []
        self.tables: list[int] = []
        self.nicknames: list[str] = []

    async def setup(self, prefix: str = "fz") -> None:
        stamp = f"{int(time.time() * 1000) % 10**7}"
        self.player = await (await Client(self.server, f"{prefix}a{stamp}").guest()).connect()
        other = await (await Client(self.server, f"{prefix}b{stamp}").guest()).connect()
        self.others.append(other)
        running = await self._table(
            self.player, {"seats": 3, "knock": True, "bots": {"1": "casual", "2": "casual"}}
        )
        await self.player.request({"type": "start_game", "table": running})
        waiting = await self._table(other, {"seats": 3, "access": "invite"})
        self.tables = [running, waiting]
        self.nicknames = [self.player.nickname, other.nickname, "Bot casual"]

    @staticmethod
    async def _table(client: Client, settings: dict[str, Any]) -> int:
        reply = await client.request({"type": "create_table", "settings": settings})
        return int(reply["table"]["id"])

    def strategy(self) -> Strategy:
        return batches(self.tables, self.nicknames)

    async def send_batch(self, frames: list[Frame]) -> None:
        client = self.player
        assert client is not None and client.ws is not None
        start = len(client.messages)
        poisoned = False
        for frame in frames:
            self.tally.frames += 1
            if frame.tracked:
                self.tally.tracked += 1
            if isinstance(frame.payload, bytes) and frame.text:
                poisoned = True
            await client.ws.send(frame.payload, text=frame.text)
        if poisoned:
            await self._expect_close(client, 1007)
            return
        await self._check_answers(client, frames, start)

    async def _check_answers(self, client: Client, frames: list[Frame], start: int) -> None:
        ids = [f.tracked for f in frames if f.tracked]
        for msg_id in ids:
            try:
                await client.expect(None, answers(msg_id), start=start, timeout=20)
            except AssertionError as exc:
                self._fail(
                    f"no reply to {msg_id}: {exc}; sent "
                    f"{_shown(next(f for f in frames if f.tracked == msg_id))}"
                )
                return
        pong = await client.request({"type": "ping"}, timeout=20)
        if pong.get("type") != "pong":
            self._fail(f"ping answered with {pong}")
        counts: dict[str, int] = {}
        for message in client.messages[start:]:
            if message.get("id") in ids:
                counts[message["id"]] = counts.get(message["id"], 0) + 1
        for msg_id, count in counts.items():
            if count != 1:
                sent = next(f for f in frames if f.tracked == msg_id)
                self._fail(f"{count} replies to {_shown(sent)}")

    async def _expect_close(self, client: Client, code: int) -> None:
        for _ in range(200):
            if client.closed is not None:
                break
            await asyncio.sleep(0.02)
        if client.closed != code:
            self._fail(f"invalid UTF-8: closed with {client.closed}, not {code}")
        self.tally.closes_1007 += 1
        await client.connect()

    def _fail(self, text: str) -> None:
        self.tally.failures.append(text)
        raise AssertionError(text)

    def run(self, seconds: float, examples: int = 20, enough: Enough = _always) -> None:
        """Run Hypothesis until ``seconds`` have passed and it did ``enough``
        (``examples`` per round; see :func:`_fuzz_until`)."""

        @settings(
            max_examples=examples,
            deadline=None,
            database=None,
            phases=[Phase.generate, Phase.shrink],
            suppress_health_check=list(HealthCheck),
        )
        @given(self.strategy())
        def one(frames: list[Frame]) -> None:
            self.loop.run(self.send_batch(frames))

        with warnings.catch_warnings():
            # The clients' event loop thread draws on ``random`` (keepalive pings)
            # while Hypothesis generates; that is no strategy of ours using it.
            warnings.filterwarnings(
                "ignore", "Do not use the `random` module", HypothesisDeprecationWarning
            )
            _fuzz_until(one, seconds, enough)

    def close(self) -> None:
        for client in [self.player, *self.others]:
            if client is not None:
                self.loop.run(client.close())


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _shown(frame: Frame) -> str:
    text = frame.payload if isinstance(frame.payload, str) else repr(frame.payload)
    return text[:300]


# ------------------------------------------------------------------- HTTP


def _path(piece: str) -> str:
    """A path segment, percent-encoded; a lone surrogate becomes bytes that are not
    UTF-8 (``%ED%A0%80``)."""
    return quote(piece, safe="", errors="surrogatepass")


BODY_FIELDS: dict[str, dict[str, str]] = {
    "/api/guest": {"nickname": "name"},
    "/api/register": {"nickname": "name", "password": "password"},
    "/api/login": {"nickname": "name", "password": "login_password"},
    "/api/logout": {"everywhere": "flag"},
    "/api/sessions/revoke": {"id": "int"},
    "/api/reports": {"nickname": "name", "reason": "reason", "text": "text"},
    "/api/moderation/resolve": {"report": "int", "note": "text"},
    "/api/moderation/mute": {"nickname": "name", "minutes": "number", "note": "text"},
    "/api/moderation/ban": {"nickname": "name", "minutes": "number", "note": "text"},
    "/api/moderation/lift": {"nickname": "name", "kind": "sanction", "note": "text"},
    "/api/games/{game_id}/analysis": {},
    "/api/account/password": {"old_password": "password", "new_password": "password"},
    "/api/account/delete": {"password": "password"},
    "/api/bonus": {},
    "/api/economy/void": {"game": "int", "note": "text"},
}
"""The fields of each POST route's JSON body and their kinds (see
:meth:`HttpFuzzer.body_values`); ``test_fuzz.py`` checks that every POST route of
the app is here, and a route that is not is fuzzed with hostile bodies all the
same (:func:`post_routes` finds them in the app)."""

SESSION_ENDING = frozenset(
    {"/api/guest", "/api/register", "/api/login", "/api/logout", "/api/sessions/revoke"}
)
"""Routes that may end the session they are sent with (a login replaces the
client's session): never sent as the fuzzer's moderator, whose session must last."""

FUZZ_PASSWORD = "fuzz horse battery staple"
"""The password of the fuzzer's accounts: sent only to ``/api/login``."""


def post_routes() -> list[str]:
    """Every path the app routes a POST to, read from the app itself
    (:func:`romme.server.app.create_app`, not started), so that a new route is
    fuzzed without anyone adding it here."""
    app = create_app("sqlite+aiosqlite:///fuzz-routes-never-opened.db")
    return sorted(
        {
            route.path
            for route in app.routes
            if isinstance(route, Route) and "POST" in (route.methods or ())
        }
    )


def _fill_path(route: str, piece: str) -> str:
    """``route`` with each ``{parameter}`` replaced by ``piece``, percent-encoded."""
    return re.sub(r"\{[^}]*\}", lambda _match: _path(piece), route)


@dataclasses.dataclass(frozen=True)
class HttpRequest:
    method: str
    path: str
    body: bytes | None
    headers: dict[str, str]
    identity: str = "anonymous"
    """Who sends it: ``anonymous``, ``guest`` (a guest of the fuzzer's, made anew
    after a route that may end its session) or ``moderator``."""
    route: str = "GET"
    """The POST route as the app names it (``{parameters}`` unfilled); ``GET``."""


def body_values(kind: str, nicknames: list[str]) -> Strategy:
    """Well-formed values for a field kind of :data:`BODY_FIELDS`."""
    return {
        "name": st.sampled_from(nicknames) | nasty_strings,
        "password": st.sampled_from(["wrong horse battery", "x" * 129, "short"]) | nasty_strings,
        "login_password": st.sampled_from([FUZZ_PASSWORD, "wrong horse battery"]) | nasty_strings,
        "flag": st.booleans(),
        "int": st.integers(-1, 50) | huge_numbers,
        "number": st.none() | st.integers(0, 10_000) | st.floats(-1, 1e6),
        "text": st.text(max_size=600) | nasty_strings,
        "reason": st.sampled_from(["abusive_chat", "cheating", "offensive_nickname", "other"])
        | nasty_strings,
        "sanction": st.sampled_from(["mute", "ban"]) | nasty_strings,
    }[kind]


def route_bodies(route: str, nicknames: list[str]) -> Strategy:
    """A JSON body for ``route``: each of its fields well-formed, hostile or left
    out, now and then with an extra hostile key."""
    fields = BODY_FIELDS.get(route, {})

    @st.composite
    def body(draw: Any) -> bytes:
        data: dict[Any, Any] = {}
        for name, kind in fields.items():
            choice = draw(st.integers(0, 9))
            if choice == 0:
                continue
            data[name] = draw(hostile_values if choice == 1 else body_values(kind, nicknames))
        if not fields or draw(st.integers(0, 5)) == 0:
            data[draw(nasty_strings)] = draw(hostile_values)
        return json.dumps(data).encode()

    return body()


def http_requests(routes: list[str], nicknames: list[str]) -> Strategy:
    """Requests to the HTTP endpoints that exist: GETs with hostile paths, and
    every POST route (``routes``) with its well-formed and hostile bodies and
    garbage, as each of the fuzzer's identities."""
    piece = nasty_strings | huge_numbers.map(str)
    paths: st.SearchStrategy[str] = st.one_of(
        piece.map(lambda p: f"/api/players/{_path(p)}"),
        piece.map(lambda p: f"/api/games/{_path(p)}"),
        piece.map(lambda p: f"/api/rankings?limit={_path(p)}"),
        piece.map(lambda p: f"/api/players/{_path(p)}/games"),
        piece.map(lambda p: f"/api/players/x/games?limit={_path(p)}&before={_path(p)}"),
        piece.map(lambda p: f"/api/games/{_path(p)}/replay"),
        piece.map(lambda p: f"/api/economy/games?days={_path(p)}&limit={_path(p)}"),
        piece.map(lambda p: f"/api/economy/signals?days={_path(p)}"),
        piece.map(lambda p: f"/api/moderation?queue_after={_path(p)}&before={_path(p)}"),
        st.sampled_from(["/api/me", "/api/tables", "/healthz", "/", "/index.html"]),
    )
    identities = st.sampled_from(["anonymous", "guest", "moderator"])
    gets = st.builds(HttpRequest, st.just("GET"), paths, st.none(), st.just({}), identities)
    garbage = st.one_of(
        hostile_values.map(lambda v: json.dumps(v).encode()),
        st.binary(max_size=300),
        st.integers(1, 40_000).map(lambda n: b"[" * n),
        st.integers(1, 9000).map(lambda n: b'{"report": ' + b"9" * n + b"}"),
    )
    content_types = st.fixed_dictionaries(
        {},
        optional={
            "content-type": st.sampled_from(
                [
                    "application/json",
                    "application/json",
                    "application/json",
                    "text/plain",
                    "multipart/form-data; boundary=x",
                    "application/x-www-form-urlencoded",
                ]
            )
        },
    )

    @st.composite
    def post(draw: Any) -> HttpRequest:
        route = draw(st.sampled_from(routes))
        path = _fill_path(route, draw(st.integers(0, 50).map(str) | piece))
        body = draw(route_bodies(route, nicknames) if draw(st.integers(0, 3)) else garbage)
        identity = draw(identities)
        if identity == "moderator" and route in SESSION_ENDING:
            identity = "guest"
        return HttpRequest("POST", path, body, draw(content_types), identity, route)

    return gets | post()


class HttpFuzzer:
    """Fuzzes the HTTP endpoints, every POST route with its bodies, anonymously, as
    a guest and as a moderator: no answer may be a server error."""

    def __init__(self, server: ServerProcess, tally: Tally) -> None:
        self.server = server
        self.tally = tally
        self.http = httpx.Client(base_url=server.base, timeout=20)
        self.routes = post_routes()
        self.cookies: dict[str, str] = {}
        self.nicknames: list[str] = []

    def setup(self, prefix: str = "fh") -> None:
        """A moderator (``romme admin grant-moderator``) and a registered player
        whose nicknames the bodies use, beside hostile ones."""
        stamp = f"{int(time.time() * 1000) % 10**7}"
        moderator, target = f"{prefix}m{stamp}", f"{prefix}t{stamp}"
        for name in (moderator, target):
            answer = self.http.post(
                "/api/register", json={"nickname": name, "password": FUZZ_PASSWORD}
            )
            if answer.status_code != 200:
                raise AssertionError(f"registering {name}: {answer.status_code} {answer.text}")
            if name == moderator:
                self.cookies["moderator"] = answer.cookies[COOKIE_NAME]
            self.http.cookies.clear()
        admin = [sys.executable, "-m", "romme", "admin", "--db", self.server.db_url]
        granted = subprocess.run(
            [*admin, "grant-moderator", moderator],
            capture_output=True,
            text=True,
            timeout=120,
        )
        if granted.returncode != 0:
            raise AssertionError(f"grant-moderator: {granted.stderr}")
        self.nicknames = [target, moderator, f"{prefix}g{stamp}"]

    def _cookie(self, identity: str) -> dict[str, str]:
        if identity == "anonymous":
            return {}
        if identity not in self.cookies:  # a new guest
            name = f"fg{self.tally.http_requests}x{int(time.time() * 1000) % 10**7}"
            answer = self.http.post("/api/guest", json={"nickname": name})
            self.http.cookies.clear()
            if answer.status_code != 200:
                return {}
            self.cookies[identity] = answer.cookies[COOKIE_NAME]
        return {"cookie": f"{COOKIE_NAME}={self.cookies[identity]}"}

    def send(self, request: HttpRequest) -> None:
        headers = {**request.headers, **self._cookie(request.identity)}
        self.tally.http_requests += 1
        self.tally.http_routes[request.route] = self.tally.http_routes.get(request.route, 0) + 1
        answer = self.http.request(
            request.method, request.path, content=request.body, headers=headers
        )
        self.http.cookies.clear()
        if request.route in SESSION_ENDING:
            self.cookies.pop(request.identity, None)  # its session may have ended
        if answer.status_code >= 500:
            text = (
                f"{request.method} {request.path} as {request.identity} "
                f"{request.body!r:.200} -> {answer.status_code} {answer.text[:200]}"
            )
            self.tally.failures.append(text)
            raise AssertionError(text)

    def run(self, seconds: float, examples: int = 50, enough: Enough = _always) -> None:
        """Run Hypothesis until ``seconds`` have passed and it did ``enough``."""
        if not self.nicknames:
            self.setup()

        @settings(
            max_examples=examples,
            deadline=None,
            database=None,
            phases=[Phase.generate, Phase.shrink],
            suppress_health_check=list(HealthCheck),
        )
        @given(st.lists(http_requests(self.routes, self.nicknames), min_size=1, max_size=10))
        def one(requests: list[HttpRequest]) -> None:
            for request in requests:
                self.send(request)

        _fuzz_until(one, seconds, enough)

    def close(self) -> None:
        self.http.close()


def log_faults(server: ServerProcess) -> list[str]:
    """Lines of the server's log with a traceback or at level error."""
    faults = []
    for line in server.logs().splitlines():
        if "Traceback" in line or '"level": "error"' in line or '"level": "critical"' in line:
            faults.append(line[:2000])
    return faults
