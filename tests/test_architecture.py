"""The layers of ARCHITECTURE.md, checked on the source: which package may import which,
no import cycles (lazy imports inside functions count too), one concept per module (stated in the
first line of its docstring), and ARCHITECTURE.md's module list generated from those docstrings."""

from __future__ import annotations

import ast
import functools
import importlib.util
import math
import re
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
    "signatures": {"experiments"},  # the run functions' keywords, from the declarations
    "api": {"core", "experiments", "store", "pipeline", "verify", "signatures"},
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


@functools.cache
def _syntax(source: str) -> ast.Module:
    """``source`` parsed, once per test process for each text (the checks below read the package's
    ≈ 280 files each: parsing them anew for every check was most of this file's time); keyed by the
    text itself, so a file written or edited since is parsed again. Read, never modified."""
    return ast.parse(source)


def _tree(path: Path) -> ast.Module:
    return _syntax(path.read_text(encoding="utf-8"))


def _imports(path: Path) -> set[str]:
    """Every ``gaugecli`` module ``path`` imports, at any depth of the file."""
    return set(_imports_in(path.read_text(encoding="utf-8")))


@functools.cache
def _imports_in(source: str) -> frozenset[str]:
    found = set()
    for node in ast.walk(_syntax(source)):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("gaugecli")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("gaugecli"):
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
    return frozenset(found)


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
        doc = ast.get_docstring(_tree(path))
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
    for node in ast.walk(_tree(path)):
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


ATOL_RULE = re.compile(r"(?:1e-0?3|0\.001)\s*\*\s*[\w.]*rtol|rtol\w*(?:\(\))?\s*\*\s*(?:1e-0?3|0\.001)", re.IGNORECASE)
"""``atol = 1e-3 · rtol`` spelled out as arithmetic (either order, any rtol name)."""


def test_the_atol_rule_is_written_once() -> None:
    """The tolerance policy is one object: ``core/integrate/tolerance.Tolerance.atol`` is the only place the
    absolute tolerance is derived from the relative one, and only that module names its factor."""
    spelled, factor = [], []
    for path in sorted(PACKAGE.rglob("*.py")):
        name, text = str(path.relative_to(PACKAGE.parent)), path.read_text(encoding="utf-8")
        if ATOL_RULE.search(text):
            spelled.append(name)
        if "ATOL_FACTOR" in text or "atol_factor" in text:
            factor.append(name)
    assert not spelled, f"atol = 1e-3·rtol written outside core/integrate/tolerance.py: {spelled}"
    assert factor == ["gaugecli/core/integrate/tolerance.py"], factor
    text = (PACKAGE / "core" / "integrate" / "tolerance.py").read_text(encoding="utf-8")
    assert text.count("self.atol_factor * self.rtol") == 1
    assert ATOL_RULE.search("atol=dynamics.solver_rtol * 1e-3") and ATOL_RULE.search("atol=1e-3 * SLOPE_RTOL")


MODEL_DEFAULTS = {"c0": 0.1, "eps_align": 0.01, "theta0": math.pi / 2}
"""The model's defaults, which ``core/defaults.py`` alone may write as numbers."""


def _number(node: ast.expr | None) -> float | None:
    """The value of a literal ``0.1`` or ``np.pi / 2`` (``math.pi / 2``), else ``None``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, float):
        return node.value
    if (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Div)
        and isinstance(node.left, ast.Attribute)
        and node.left.attr == "pi"
        and isinstance(node.right, ast.Constant)
    ):
        return math.pi / node.right.value
    return None


def _restated_defaults(path: Path) -> list[str]:
    """Where ``path`` gives c0, ε_align or θ0 its default as a number: a parameter's default, a
    field's, or a keyword argument (``line: name = value``)."""
    found = []

    def check(name: str, value: ast.expr | None, line: int) -> None:
        if name in MODEL_DEFAULTS and _number(value) == MODEL_DEFAULTS[name]:
            found.append(f"{line}: {name} = {ast.unparse(value) if value is not None else ''}")

    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.FunctionDef):
            args = node.args
            positional = args.posonlyargs + args.args
            for arg, default in zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True):
                check(arg.arg, default, node.lineno)
            for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
                check(arg.arg, kw_default, node.lineno)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            check(node.target.id, node.value, node.lineno)
        elif isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg is not None:
                    check(keyword.arg, keyword.value, node.lineno)
    return found


def test_the_model_defaults_are_declared_once(tmp_path: Path) -> None:
    """``c0 = 0.1``, ``ε_align = 0.01``, ``θ0 = π/2`` are written in ``core/defaults.py`` alone:
    every default of the core and of the experiments (their parameters' declarations) refers to it."""
    restated = {
        str(path.relative_to(PACKAGE.parent)): found
        for layer in ("core", "experiments")
        for path in sorted((PACKAGE / layer).rglob("*.py"))
        if path.name != "defaults.py" and (found := _restated_defaults(path))
    }
    assert not restated, restated
    sample = tmp_path / "restates.py"
    sample.write_text(
        "import numpy as np\ndef f(c0: float = 0.1, *, theta0=np.pi / 2): pass\ng(eps_align=0.01)\n", encoding="utf-8"
    )
    assert [r.split(": ")[1] for r in _restated_defaults(sample)] == [
        "c0 = 0.1",
        "theta0 = np.pi / 2",
        "eps_align = 0.01",
    ]


def test_the_network_flows_have_one_integrator() -> None:
    """The network's flows (on an objective's gradient) are solved by one call,
    ``core/integrate/saveat.integrate``: no other module of the core both calls ``solve_ivp`` and takes the
    network's gradient (the reduced and limit equations of ``reduced``/``limits``/``separation`` are
    other ODEs; the twin this replaced, ``flow_grid``, took ``population_gradient`` into its own solve)."""
    gradients = ("population_gradient", "population_hessian", "population_gradient_packed")
    network = {f"gaugecli.core.population.dynamics.{name}" for name in gradients} | {
        "gaugecli.core.population.objective",
        "gaugecli.core.population.fused",
    }
    twins = []
    for path in sorted((PACKAGE / "core").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if path.name != "saveat.py" and "solve_ivp(" in text and any(m in _imports(path) for m in network):
            twins.append(str(path.relative_to(PACKAGE.parent)))
    assert not twins, twins


MAX_LINES = 450
"""A module longer than this holds more than one concept: split it by concept (issue 45)."""


def test_no_module_is_over_450_lines() -> None:
    lengths = {
        str(path.relative_to(PACKAGE.parent)): len(path.read_text(encoding="utf-8").splitlines())
        for path in sorted(PACKAGE.rglob("*.py"))
    }
    over = {name: n for name, n in lengths.items() if n > MAX_LINES}
    assert not over, f"modules over {MAX_LINES} lines (split them by concept): {over}"


ACTIVATION_NAMES_ALLOWED = {
    "gaugecli/experiments/phase/metrics.py": (
        {"relu"},
        "CORRECTION_ORDER: the order of the corrections of T_spec(−D)/T_spec(+D) that fig3 measures for relu, "
        "a fact of that analysis, not a property of σ the registry holds",
    ),
    "gaugecli/experiments/lockin/diagnose.py": (
        {"relu"},
        "lockin's run labels ('relu', 'x2') name its conditions; 'x2' is no registry name",
    ),
    "gaugecli/plots/lockin_nulls.py": ({"relu"}, "lockin's run label (see experiments/lockin/diagnose.py)"),
    "gaugecli/verify/findings.py": ({"relu"}, "lockin's run label (see experiments/lockin/diagnose.py)"),
    "gaugecli/plots/fig8.py": (
        {"relu", "linear", "erf"},
        "its curves' labels (ACTIVATIONS' first column: relu drawn wide, where each law's note sits), which are "
        "the registry's names where a curve is an activation at its defaults; its degrees are asked of the registry",
    ),
    "gaugecli/core/population/dynamics.py": (
        {"relu"},
        "the family tag of Activation.parts() (the closed-form cross kernels' families), not a registry name",
    ),
    "gaugecli/core/samples/empirical.py": (
        {"relu"},
        "the family tag of Activation.parts() (the compiled L_n gradient's family), not a registry name",
    ),
    "gaugecli/core/integrate/absorption.py": ({"relu"}, "the absorption closed form is ReLU's: an analysis of one σ"),
    "gaugecli/core/samples/moments.py": ({"square"}, "the quadratic moments are σ = z²'s: an analysis of one σ"),
}
"""Modules that may compare with (or key a table by) an activation's name, each with the names and why."""


def _activation_name_uses(path: Path, names: set[str]) -> list[tuple[int, str, str]]:
    """Where ``path`` branches on an activation's name (a comparison ``==``/``!=``/``in`` with a name of
    the registry spelled as a string, alone or in a tuple, list or set) or keys a table by them (a dict
    literal whose keys are all registry names): ``(line, name, what)``. Naming an activation to *use*
    it (``activation="relu"``, a figure's list of what it draws) is neither."""

    def spelled(node: ast.expr) -> list[str]:
        if isinstance(node, ast.Constant) and node.value in names:
            return [node.value]
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return [e.value for e in node.elts if isinstance(e, ast.Constant) and e.value in names]
        return []

    found = []
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                found += [(node.lineno, name, "compared") for name in spelled(operand)]
        elif isinstance(node, ast.Dict) and node.keys:
            keys = [k.value if isinstance(k, ast.Constant) else None for k in node.keys]
            if all(k in names for k in keys):
                found += [(node.lineno, str(k), "a table keyed by activation") for k in keys]
    return found


def test_activation_names_are_asked_of_the_registry(tmp_path: Path) -> None:
    """A fact of an activation (its degree, its parameters, σ itself) is asked of
    :mod:`gaugecli.core.activations`, never restated against its name outside it (fig8's ``DEGREE`` table
    duplicated ``Activation.degree``; the configs and the summaries tested ``== "leaky-relu"`` for β)."""
    from gaugecli.core.activations import REGISTRY

    names = set(REGISTRY)
    leaks = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = str(path.relative_to(PACKAGE.parent))
        if name.startswith("gaugecli/core/activations/"):
            continue
        allowed = ACTIVATION_NAMES_ALLOWED.get(name, (set(), ""))[0]
        if found := [
            f"{line}: {what} {n!r}" for line, n, what in _activation_name_uses(path, names) if n not in allowed
        ]:
            leaks[name] = found
    assert not leaks, leaks
    unused = sorted(
        name
        for name, (allowed, _) in ACTIVATION_NAMES_ALLOWED.items()
        if not {n for _, n, _ in _activation_name_uses(PACKAGE.parent / name, names)} & allowed
    )
    assert not unused, f"exceptions no longer needed: {unused}"
    sample = tmp_path / "leaks.py"
    sample.write_text(
        'a = x == "relu"\nb = "leaky-relu" in (y, z)\nc = y in ("erf", "other")\nD = {"relu": 1, "erf": None}\n'
        'ok = f(activation="relu")\nL = {"relu": 1, "relu-0.3": 2}\n',
        encoding="utf-8",
    )
    assert [(line, n) for line, n, _ in _activation_name_uses(sample, names)] == [
        (1, "relu"),
        (2, "leaky-relu"),
        (3, "erf"),
        (4, "relu"),
        (4, "erf"),
    ]


INTEGRATORS = {
    "gaugecli.core.integrate",
    "gaugecli.core.reduced.planar.solve_reduced",
    "gaugecli.core.reduced.planar.reduced_specialization_time",
    "gaugecli.core.reduced.limits.favorable_limit",
    "gaugecli.core.reduced.limits.unfavorable_limit",
    "gaugecli.core.reduced.limits.favorable_limit_path",
    "gaugecli.core.reduced.limits.unfavorable_limit_path",
    "gaugecli.core.reduced.limits.limit_clock_free_gap",
    "gaugecli.core.reduced.limits.favorable_limit_dissipation",
    "gaugecli.core.reduced.limits.unfavorable_limit_dissipation",
    "gaugecli.core.analyses.separation.paired_speed_ratio",
    "scipy.integrate",
}
"""What solves an ODE or a quadrature: the network's flows and descent (the whole ``integrate`` folder) and the
reduced and ``D → ∞`` equations' solvers (by name: their modules' closed forms — ``planar_loss``,
``fitted_order``, ``richardson_limit``, ``local_slopes`` — stay open to the figures). Importing a
whole module that holds one (``from gaugecli.core.reduced import limits``) counts as importing it."""
INTEGRATING_MODULES = {name.rsplit(".", 1)[0] for name in INTEGRATORS if name.count(".") == 4}
"""The modules of the core that hold a solver by name (``gaugecli.core.reduced.planar``, …)."""


def _imported(path: Path) -> set[str]:
    """Every module ``path`` imports whole and every name it imports from one (``scipy`` as well as
    ours; ``from m import x`` is ``m.x``, not ``m``), at any depth of the file."""
    found = set()
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found |= {f"{node.module}.{a.name}" for a in node.names}
    return frozenset(found)


def _integrators(path: Path) -> set[str]:
    """The solvers of :data:`INTEGRATORS` that ``path`` imports, or whose whole module it imports."""
    imported = _imported(path)
    direct = {name for name in imported for solver in INTEGRATORS if name == solver or name.startswith(solver + ".")}
    return direct | (imported & INTEGRATING_MODULES)


def test_no_figure_module_integrates() -> None:
    """A figure module only draws: every ODE a figure shows is a cached run of an experiment kind
    (``pipeline.KINDS``), read through its needs, so ``plot all`` regenerates from the cache alone
    (``tests/test_figure_runs.py`` renders fig1–fig3, fig6 and fig8 with the solvers made to raise)."""
    found = {
        _module_name(path): sorted(solvers)
        for path in sorted((PACKAGE / "plots").rglob("*.py"))
        if (solvers := _integrators(path))
    }
    assert not found, found


def test_the_integrator_check_sees_what_it_forbids(tmp_path: Path) -> None:
    """The rule above on a module that imports each kind of solver once, and the closed forms it allows."""
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from scipy import integrate\nfrom gaugecli.core.reduced import limits\nimport gaugecli.core.integrate.flow\n"
        "from gaugecli.core.reduced.planar import planar_loss, solve_reduced\n"
        "from gaugecli.core.reduced.limits import fitted_order\n",
        encoding="utf-8",
    )
    assert sorted(_integrators(bad)) == [
        "gaugecli.core.integrate.flow",
        "gaugecli.core.reduced.limits",
        "gaugecli.core.reduced.planar.solve_reduced",
        "scipy.integrate",
    ]


CORE_FLOORS = (
    ("kernels",),
    ("activations",),
    ("model",),
    ("population",),
    ("samples",),
    ("integrate",),
    ("reduced",),
    ("analyses",),
    ("tasks",),
)
"""The folders of ``core/``, each a floor of the numerics, lowest first (ARCHITECTURE.md draws them):
a floor imports only the floors below it and the shared leaves at core's top."""
CORE_PARTS = {part for floor in CORE_FLOORS for part in floor}


def test_the_core_shows_its_parts_as_folders() -> None:
    """At most a dozen modules at ``core/``'s top: its parts are folders (a package each, with a
    docstring saying what the part holds), and beside them only the leaves every part shares
    (types, defaults), the labelled views and the one-line descriptions of results."""
    core = PACKAGE / "core"
    folders = {p.name for p in core.iterdir() if p.is_dir() and p.name != "__pycache__"}
    top = {p.stem for p in core.glob("*.py")} - {"__init__"}
    assert folders == CORE_PARTS
    assert len(folders) + len(top) <= 13 and top <= {"types", "defaults", "frames", "describe"}, top
    for part in folders:
        init = core / part / "__init__.py"
        assert init.is_file() and ast.get_docstring(_tree(init)), part


def test_the_core_floors_import_only_downward() -> None:
    """No module of a core floor imports a floor above it (a part depends on the parts below, never the
    reverse): the folders are the layering, not just a filing."""
    height = {part: i for i, floor in enumerate(CORE_FLOORS) for part in floor}
    upward = []
    for module, targets in _graph().items():
        parts = module.split(".")
        if parts[:2] != ["gaugecli", "core"] or len(parts) < 4:
            continue
        for target in targets:
            other = target.split(".")
            if other[:2] == ["gaugecli", "core"] and len(other) > 3 and other[2] != parts[2]:
                if height[other[2]] > height[parts[2]]:
                    upward.append(f"{module} → {target}")
    assert not upward, "imports up the core's floors:\n" + "\n".join(sorted(upward))
