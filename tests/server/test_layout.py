"""The server's modules import one another without a circle (TYPE_CHECKING imports
included), and none is longer than the project's limit for a Python file."""

from __future__ import annotations

import ast
from pathlib import Path

import romme.server
from romme.server.dispatch import HANDLERS
from romme.server.protocol import MESSAGES

SERVER = Path(romme.server.__file__).parent
MAX_LINES = 600


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SERVER.parent.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def server_imports() -> dict[str, set[str]]:
    """Each module of ``romme.server`` and the modules of ``romme.server`` it imports."""
    modules = {_module_name(p): p for p in SERVER.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(
                        [*package.split(".")[: len(package.split(".")) - node.level + 1], base]
                    ).strip(".")
                targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
            else:
                continue
            found.update(t for t in targets if t in modules and t != name)
        graph[name] = found
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A circle of imports, or ``None``. A package's ``__init__`` that re-exports its
    own modules is no circle: those modules never import the package itself."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(name: str) -> list[str] | None:
        state[name] = 1
        path.append(name)
        for target in sorted(graph[name]):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state:
                cycle = visit(target)
                if cycle is not None:
                    return cycle
        path.pop()
        state[name] = 2
        return None

    for name in sorted(graph):
        if name not in state:
            cycle = visit(name)
            if cycle is not None:
                return cycle
    return None


def test_the_server_has_no_import_circle() -> None:
    graph = server_imports()
    assert "romme.server.table" in graph["romme.server.hub"]
    assert "romme.server.table.actor" in graph["romme.server.table"]
    assert find_cycle(graph) is None, find_cycle(graph)


def test_the_cycle_finder_finds_a_circle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_the_table_does_not_know_the_hub() -> None:
    graph = server_imports()
    table = [name for name in graph if name.startswith("romme.server.table")]
    outside = {"romme.server.hub", "romme.server.lobby", "romme.server.connection"}
    for name in table:
        assert not graph[name] & outside, (name, graph[name] & outside)


def test_no_server_file_is_too_long() -> None:
    lengths = {p.name: len(p.read_text().splitlines()) for p in SERVER.rglob("*.py")}
    assert max(lengths.values()) <= MAX_LINES, sorted(lengths.items(), key=lambda i: -i[1])[:3]


def test_every_client_message_has_a_handler() -> None:
    assert set(HANDLERS) == {cls for cls, _ in MESSAGES.values()}
