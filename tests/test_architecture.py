"""The layers of ARCHITECTURE.md, checked on the source: which package may import which,
no import cycles (lazy imports inside functions count too), one concept per module (stated in the
first line of its docstring), and ARCHITECTURE.md's module list generated from those docstrings."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "gaugecli"
TOOL = PACKAGE.parent / "tools" / "architecture.py"

ALLOWED = {
    # layer: the layers it may import (besides itself)
    "core": set(),
    "experiments": {"core"},
    "store": set(),
    "run": {"store"},
    "pipeline": {"core", "experiments", "store"},
    "api": {"core", "experiments", "store", "pipeline", "verify"},
    "plots": {"core", "experiments", "store", "pipeline"},
    "verify": {"core", "experiments", "store", "pipeline", "plots"},
    "cli": {"core", "experiments", "store", "run", "pipeline", "plots", "verify", "api"},
    "__init__": {"core", "experiments"},
    "__main__": {"cli"},
}
SHARED = {"gaugecli.core.types", "gaugecli._version"}
"""Leaf modules (importing nothing of ours) that every layer may import: shared type names, the version."""


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


def test_every_module_states_its_concept_in_its_docstring() -> None:
    undocumented = []
    for path in sorted(PACKAGE.rglob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
        if not doc or not doc.splitlines()[0].strip():
            undocumented.append(str(path.relative_to(PACKAGE.parent)))
    assert not undocumented, "modules without a docstring whose first line is its one concept:\n" + "\n".join(
        undocumented
    )


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("architecture", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_architecture_module_list_is_current() -> None:
    """Regenerate with ``make docs`` (``python tools/architecture.py --write``) when this fails."""
    tool = _tool()
    text = tool.DOC.read_text(encoding="utf-8")
    assert tool.replaced(text, tool.block()) == text, "ARCHITECTURE.md's module list is stale: run `make docs`"


FILE_METHODS = {"open", "read_text", "write_text", "read_bytes", "write_bytes", "mkdir", "unlink", "rmdir", "touch"}
FILE_METHODS |= {"exists", "is_file", "is_dir", "iterdir", "glob", "rglob", "resolve", "expanduser", "cwd", "home"}
"""Path (and file object) methods that touch the file system; ``replace``/``rename`` are left out
(``str.replace`` and ``dataclasses.replace`` are everywhere and touch nothing)."""
SYSTEM_MODULES = {"os", "io", "shutil", "tempfile", "subprocess", "glob", "resource", "platform"}
"""Modules whose use is files, processes or the machine's state."""


def _system_reads(path: Path) -> list[str]:
    """Where ``path`` opens a file, reads the environment, uses a path's file I/O or imports a
    module of the operating system (the ``line: what`` of each)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "open":
            found.append(f"{line}: open(")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in FILE_METHODS:
            found.append(f"{line}: .{node.func.attr}(")
        elif isinstance(node, ast.Attribute) and node.attr in {"environ", "getenv", "putenv", "environb"}:
            found.append(f"{line}: .{node.attr}")
        elif isinstance(node, ast.Import):
            found += [f"{line}: import {a.name}" for a in node.names if a.name.split(".")[0] in SYSTEM_MODULES]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in SYSTEM_MODULES:
            found.append(f"{line}: from {node.module} import")
    return found


def test_core_touches_no_files_or_environment() -> None:
    """The core computes from its arguments: no file opened, no path's file I/O, no environment
    variable, no module of the operating system (the memory readings and the arithmetic route's
    GAUGECLI_FUSED are read by the layers above, which pass the choice down)."""
    found = {
        str(path.relative_to(PACKAGE.parent)): reads
        for path in sorted((PACKAGE / "core").rglob("*.py"))
        if (reads := _system_reads(path))
    }
    assert not found, found


def test_the_system_check_sees_what_it_forbids(tmp_path: Path) -> None:
    """The check above on a module that does each forbidden thing once (so its silence means something)."""
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import os\nfrom pathlib import Path\nx = open('f')\ny = os.environ['A']\nz = os.getenv('B')\n"
        "t = Path('p').read_text()\n",
        encoding="utf-8",
    )
    assert sorted(_system_reads(bad)) == ["1: import os", "3: open(", "4: .environ", "5: .getenv", "6: .read_text("]
