"""The layers of ARCHITECTURE.md, checked on the source: which package may import which,
no import cycles (lazy imports inside functions count too), and no module beyond ~400 lines."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "gaugecli"

ALLOWED = {
    # layer: the layers it may import (besides itself)
    "core": set(),
    "experiments": {"core"},
    "store": set(),
    "run": {"store"},
    "pipeline": {"core", "experiments", "store"},
    "plots": {"core", "experiments", "store", "pipeline"},
    "verify": {"core", "experiments", "store", "pipeline", "plots"},
    "cli": {"core", "experiments", "store", "run", "pipeline", "plots", "verify"},
    "__init__": {"core", "experiments"},
    "__main__": {"cli"},
}
SHARED = {"gaugecli.core.types"}
"""Leaf modules of shared type names (importing nothing of ours) that every layer may import."""
MAX_LINES = 400


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every ``gaugecli`` module ``path`` imports, at any depth of the file."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("gaugecli")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("gaugecli"):
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
    return found


def _graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {}
    for name, path in files.items():
        targets = {t for t in _imports(path) if t in files and t != name}
        graph[name] = targets
    return graph


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_layers_import_only_what_they_may() -> None:
    wrong = []
    for module, targets in _graph().items():
        layer = _layer(module)
        for target in targets:
            other = _layer(target)
            if other != layer and other not in ALLOWED[layer] and other != "__init__" and target not in SHARED:
                wrong.append(f"{module} → {target}")
    assert not wrong, "imports against the layering:\n" + "\n".join(sorted(wrong))


def test_shared_modules_are_leaves() -> None:
    graph = _graph()
    assert all(not graph[name] for name in SHARED), {name: graph[name] for name in SHARED}


def test_import_graph_is_acyclic() -> None:
    graph = _graph()
    # package __init__ files re-export their children; an edge child → parent package is not a cycle
    graph = {m: {t for t in ts if not m.startswith(t + ".")} for m, ts in graph.items()}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt) :] + [nxt]
                pytest.fail("import cycle: " + " → ".join(cycle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)


def test_no_module_is_longer_than_the_limit() -> None:
    long = {
        str(p.relative_to(PACKAGE)): n
        for p in PACKAGE.rglob("*.py")
        if (n := len(p.read_text().splitlines())) > MAX_LINES
    }
    assert not long, f"modules over {MAX_LINES} lines: {long}"
