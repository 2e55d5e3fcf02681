"""The package's layers and shape, read from the source with :mod:`ast`.

- ``romme.engine`` (the rules) imports nothing but the standard library: any program
  can embed it, and the bots can run it in a worker process.
- ``romme.bots`` imports the engine and the standard library only: a bot sees what
  a seat may see, through the engine's views, and nothing of the server.
- ``romme.store`` never imports the server or the web client: the server uses the
  store, not the other way round.
- No two modules of ``romme`` import each other, directly or around a circle. Every
  import counts: at the top, inside a function (a late import hides a circle, it
  does not remove it) and under ``TYPE_CHECKING`` (the types circle all the same).
- No Python file in ``romme`` is longer than 600 lines, no JavaScript file of the
  web client longer than 500: one concern per file.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "romme"
PYTHON_MAX_LINES = 600
JAVASCRIPT_MAX_LINES = 500
STANDARD_LIBRARY = frozenset(sys.stdlib_module_names) | {"__future__"}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its ``__init__``)."""
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imported_names(name: str, path: Path) -> Iterator[str]:
    """The dotted names that the module ``name`` imports, anywhere in its source
    (``from package import name`` gives ``package.name``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                origin = ".".join([*base, *([node.module] if node.module else [])])
            else:
                origin = node.module or ""
            yield from (f"{origin}.{alias.name}" for alias in node.names)


def imports(name: str) -> set[str]:
    """What the module ``name`` imports: outside ``romme`` by top-level name, in
    ``romme`` the module named (``romme.store.accounts``) or, for a name defined in
    a module (``romme.store.Store``), that module."""
    found: set[str] = set()
    for imported in imported_names(name, modules()[name]):
        parts = imported.split(".")
        if parts[0] != "romme":
            found.add(parts[0])
            continue
        while ".".join(parts) not in modules():
            parts.pop()
        found.add(".".join(parts))
    found.discard(name)
    return found


def import_graph() -> dict[str, set[str]]:
    """Each module of ``romme`` and the modules of ``romme`` it imports."""
    return {
        name: {other for other in imports(name) if other.startswith("romme")} for name in modules()
    }


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The shortest circle through each module that is on one, each circle once:
    the modules of a group that reach each other (Tarjan's strongly connected
    components; a group of one is no circle)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    found: list[list[str]] = []
    for group in groups:
        for member in group:
            circle = circle_through(graph, member, set(group))
            if not any(is_rotation(circle, other) for other in found):
                found.append(circle)
    return found


def is_rotation(circle: list[str], other: list[str]) -> bool:
    """Whether two circles (first module repeated at the end) are the same one."""
    ring, other_ring = circle[:-1], other[:-1]
    return len(ring) == len(other_ring) and any(
        ring == other_ring[shift:] + other_ring[:shift] for shift in range(len(other_ring))
    )


def circle_through(graph: dict[str, set[str]], start: str, group: set[str]) -> list[str]:
    """A shortest circle from ``start`` back to itself inside its group (breadth
    first), as the list of modules along it."""
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for other in sorted(graph[node] & group):
                if other == start:
                    return [*paths[node], start]
                if other not in paths:
                    paths[other] = [*paths[node], other]
                    following.append(other)
        frontier = following
    raise AssertionError(f"{sorted(group)} is no circle")


def in_layer(name: str, layer: str) -> bool:
    return name == layer or name.startswith(layer + ".")


def modules_of(layer: str) -> list[str]:
    return [name for name in modules() if in_layer(name, layer)]


# ------------------------------------------------------------------- layers


@pytest.mark.parametrize("name", modules_of("romme.engine"))
def test_the_engine_imports_only_the_standard_library(name: str) -> None:
    outside = {
        imported
        for imported in imports(name)
        if imported not in STANDARD_LIBRARY and not in_layer(imported, "romme.engine")
    }
    assert not outside, f"{name} imports {sorted(outside)}"


@pytest.mark.parametrize("name", modules_of("romme.bots"))
def test_the_bots_import_only_the_engine_and_the_standard_library(name: str) -> None:
    outside = {
        imported
        for imported in imports(name)
        if imported not in STANDARD_LIBRARY
        and not in_layer(imported, "romme.engine")
        and not in_layer(imported, "romme.bots")
    }
    assert not outside, f"{name} imports {sorted(outside)}"


@pytest.mark.parametrize("name", modules_of("romme.store"))
def test_the_store_never_imports_the_server_or_the_web_client(name: str) -> None:
    above = {
        imported
        for imported in imports(name)
        if in_layer(imported, "romme.server") or in_layer(imported, "romme.web")
    }
    assert not above, f"{name} imports {sorted(above)}"


def test_no_import_circle() -> None:
    found = circles(import_graph())
    assert not found, "import circles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_the_circle_finder_finds_circles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e", "d"}}
    assert circles(graph) == [["a", "b", "c", "a"]]
    two = {"a": {"b", "c"}, "b": {"a"}, "c": {"a"}}
    assert circles(two) == [["a", "b", "a"], ["c", "a", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_import_reader_sees_every_kind_of_import(tmp_path: Path) -> None:
    source = tmp_path / "lobby.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "import romme.engine.cards as cards\n"
        "from . import seats\n"
        "from .table import Table\n"
        "if TYPE_CHECKING:\n"
        "    from romme.server.hub import Hub\n"
        "def late():\n"
        "    from ..store import Store\n"
    )
    assert set(imported_names("romme.server.lobby", source)) == {
        "typing.TYPE_CHECKING",
        "romme.engine.cards",
        "romme.server.seats",
        "romme.server.table.Table",
        "romme.server.hub.Hub",
        "romme.store.Store",
    }
    assert imports("romme.store.core") >= {"romme.store.accounts", "romme.store.errors", "json"}
    assert "romme.store" not in imports("romme.store.core")  # only its submodules


# -------------------------------------------------------------------- sizes


def long_files(pattern: str, root: Path, limit: int) -> list[str]:
    lengths = {
        path.relative_to(PACKAGE.parent).as_posix(): len(path.read_text("utf-8").splitlines())
        for path in sorted(root.rglob(pattern))
    }
    return [f"{name}: {lines} lines" for name, lines in lengths.items() if lines > limit]


def test_python_files_are_at_most_600_lines() -> None:
    too_long = long_files("*.py", PACKAGE, PYTHON_MAX_LINES)
    assert not too_long, "longer than 600 lines:\n" + "\n".join(too_long)


def test_javascript_files_are_at_most_500_lines() -> None:
    too_long = long_files("*.js", PACKAGE / "web", JAVASCRIPT_MAX_LINES)
    assert not too_long, "longer than 500 lines:\n" + "\n".join(too_long)
