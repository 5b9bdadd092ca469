"""The experiment specs are the one registry of commands: a toy command added to a temporary
registry is at once a subcommand in ``gaugecli --help``, a pipeline kind, a Python API function and a
package export, and its rerun file reruns it; and a registered name is spelled nowhere else."""

from __future__ import annotations

import ast
import inspect
import json
import math
import sys
import textwrap
from collections import defaultdict
from collections.abc import Iterator
from importlib import import_module
from pathlib import Path

import pytest
from typer.testing import CliRunner

import gaugecli
from gaugecli import api, pipeline
from gaugecli.cli import rerun
from gaugecli.cli.app import COMMANDS, TOOLS, app
from gaugecli.experiments import spec as registry
from gaugecli.experiments.declare import ConfigError
from gaugecli.store import schemas

PACKAGE = Path(gaugecli.__file__).parent

TOY = {
    "__init__.py": "",
    # the experiment: its declarations, config, result and compute, and its spec
    "experiment.py": '''
        """A toy experiment: the powers base**k, k < n."""

        from __future__ import annotations

        import copy
        from dataclasses import dataclass
        from typing import ClassVar

        from gaugecli.core.frames import Labelled, View
        from gaugecli.experiments.declare import Fields, Param
        from gaugecli.store.schemas import load_schema

        class Toy(Fields):
            n = Param("n", "Number of powers", "Experiment", 3, type=int, low=1, high=50)
            base = Param("base", "Base of the powers", "Experiment", 2.0, low=0.0, open_low=True, high=10.0)

        @dataclass(frozen=True)
        class ToyConfig:
            n: int = Toy.n.default
            base: float = Toy.base.default

            def __post_init__(self) -> None:
                Toy.check(self)

        @dataclass
        class ToyResult(Labelled):
            VIEW: ClassVar[View] = View(dims={"power": ("k",)})
            power: list[float]
            total: float

        def powers(config: ToyConfig, progress: object = None) -> ToyResult:
            power = [config.base**k for k in range(config.n)]
            return ToyResult(power, sum(power))

        SCHEMA = copy.deepcopy(load_schema("reln"))
        SCHEMA["title"] = "gaugecli toy artifact"
        SCHEMA["properties"]["schema"] = {"const": "gaugecli.toy/1"}
        SCHEMA["properties"]["result"] = {"type": "object", "required": ["power", "total"]}
    ''',
    "spec.py": '''
        """The toy's spec (stdlib only)."""

        from gaugecli.experiments.spec import Experiment, no_seed

        SPECS = (
            Experiment(
                name="toy",
                help="Powers of a base: a toy command.",
                config="toy_gauge.experiment:ToyConfig",
                result="toy_gauge.experiment:ToyResult",
                compute="toy_gauge.experiment:powers",
                seed=no_seed,
                cli="toy_gauge.cli",
                fields=((None, "toy_gauge.experiment:Toy"),),
                summary="toy_gauge.cli:summary",
                schema="toy_gauge.experiment:SCHEMA",
                api_doc="``gaugecli toy``: the powers of a base.",
                api_returns="ToyResult",
            ),
            # a run only figures read: a pipeline kind, but no command, no rerun file, no API function
            Experiment(
                name="toy-part",
                help="The toy's powers, for a figure.",
                config="toy_gauge.experiment:ToyConfig",
                result="toy_gauge.experiment:ToyResult",
                compute="toy_gauge.experiment:powers",
                command="",
                fields=((None, "toy_gauge.experiment:Toy"),),
                api=None,
            ),
        )
    ''',
    # its command line
    "cli.py": '''
        """``gaugecli toy``."""

        from __future__ import annotations

        from typing import Any

        import typer

        from gaugecli.cli import options as opt
        from gaugecli.cli import session, signature
        from gaugecli.cli.errors import errors
        from gaugecli.experiments.spec import experiment, resolve
        from toy_gauge.experiment import Toy

        app = opt.command_app()

        @app.command(cls=opt.PanelCommand)
        @signature.with_outputs(sweeps=False)
        @signature.with_params(Toy)  # its options, from the declarations alone
        def toy(ctx: typer.Context, params: Any = None, outputs: session.Outputs = session.Outputs()) -> None:
            """Powers of a base: a toy command."""
            with errors():
                from gaugecli.experiments.keywords import build
                from toy_gauge.experiment import ToyConfig

                config = build(ToyConfig, "toy", params)
                outcomes, paths = session.execute(ctx, "toy", [config], outputs)
            session.summarize(outcomes, paths, resolve(experiment("toy").summary), outputs.json)

        def summary(outcome: Any, path: Any) -> None:
            print(f"total {outcome.result.total}")
    ''',
}


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The toy command in a temporary registry; the cache it writes to."""
    package = tmp_path / "src" / "toy_gauge"
    package.mkdir(parents=True)
    for name, text in TOY.items():
        (package / name).write_text(textwrap.dedent(text), encoding="utf-8")
    monkeypatch.syspath_prepend(str(package.parent))
    monkeypatch.setattr(registry, "MODULES", [*registry.MODULES, "toy_gauge.spec"])
    monkeypatch.setattr(schemas, "_REGISTERED", {})
    rerun._parameters_by_flag.cache_clear()
    yield tmp_path / "runs"
    rerun._parameters_by_flag.cache_clear()
    for module in [m for m in sys.modules if m == "toy_gauge" or m.startswith("toy_gauge.")]:
        monkeypatch.delitem(sys.modules, module)


def test_a_toy_command_is_registered_by_its_spec_alone(toy: Path) -> None:
    runner = CliRunner()
    helped = runner.invoke(app, ["--help"])
    assert helped.exit_code == 0 and "toy" in helped.output and "Powers of a base: a toy command." in helped.output

    out = toy.parent / "toy.json"
    ran = runner.invoke(app, ["toy", "--n", "4", "--base", "3", "--cache-dir", str(toy), "--out", str(out), "--json"])
    assert ran.exit_code == 0, ran.output
    (record,) = [json.loads(line) for line in ran.output.splitlines() if line.startswith("{")]
    assert record["kind"] == "toy" and record["computed"] is True
    artifact = json.loads(out.read_text(encoding="utf-8"))
    assert artifact["schema"] == "gaugecli.toy/1" and artifact["config"] == {"n": 4, "base": 3.0}
    # the geometric sum (3**4 - 1) / 2 against the powers' sum: four terms, each addition rounding by
    # at most ε/2 relative
    tolerance = 4 * sys.float_info.epsilon
    assert math.isclose(artifact["result"]["total"], (3**4 - 1) / 2, rel_tol=tolerance)
    assert math.isclose(record["result"]["total"], (3**4 - 1) / 2, rel_tol=tolerance)

    assert "toy" in pipeline.KINDS and pipeline.kind("toy").config_type.__name__ == "ToyConfig"
    from_api = api.toy(n=4, base=3.0, cache_dir=toy)  # the run the command cached, read back
    assert math.isclose(from_api.total, (3**4 - 1) / 2, rel_tol=tolerance)
    assert from_api.config_hash == record["config_hash"]
    assert gaugecli.toy is api.toy and api.toy.__doc__.startswith("``gaugecli toy``: the powers of a base.")
    assert [p.default for p in inspect.signature(api.toy).parameters.values()][-2:] == [3, 2.0]  # n, base
    with pytest.raises(ConfigError, match="n"):  # the declaration's check, through the API's keywords
        api.toy(n=0)

    recipe = Path(record["path"]).with_suffix(".toml")
    assert "n = 4" in recipe.read_text(encoding="utf-8").splitlines()
    again = runner.invoke(app, ["toy", "--config", str(recipe), "--cache-dir", str(toy), "--json"])
    assert again.exit_code == 0, again.output
    (second,) = [json.loads(line) for line in again.output.splitlines() if line.startswith("{")]
    assert second["config_hash"] == record["config_hash"] and second["computed"] is False

    assert "toy-part" in pipeline.KINDS and "toy-part" not in COMMANDS and "toy-part" not in rerun.COMMANDS
    assert "toy-part" not in api.run_functions() and pipeline.kind("toy-part").compute is not None

    loaded = gaugecli.load(out)
    assert type(loaded.result).__name__ == "ToyResult" and math.isclose(
        loaded.result.power[-1], 3**3, rel_tol=tolerance
    )


def test_the_toy_leaves_the_registry_as_it_was() -> None:
    assert "toy" not in COMMANDS and "toy" not in pipeline.KINDS and "toy" not in schemas.kinds()
    with pytest.raises(AttributeError):
        api.toy  # noqa: B018


# -- a registered name is spelled once ----------------------------------------------------------

GENERATED = {
    "gaugecli/cli/app.py",
    "gaugecli/cli/rerun.py",
    "gaugecli/pipeline.py",
    "gaugecli/api.py",
    "gaugecli/__init__.py",
    "gaugecli/core/frames.py",
    "gaugecli/plots/overview.py",
}
"""The modules that once listed every command by name and are now generated from the specs."""

STILL_SPELLED = {
    # module → the registered names it still spells, each for a reason of its own: these may only go
    "gaugecli/cli/report/runs.py": {"simulate", "select"},
    "gaugecli/cli/report/studies.py": {"select"},
    "gaugecli/cli/phase.py": {"simulate", "select"},
    "gaugecli/core/reduced/reln.py": {"reln"},
    "gaugecli/experiments/params/lockin.py": {"select"},
    "gaugecli/experiments/params/phase.py": {"simulate", "select"},
    "gaugecli/experiments/phase_spec.py": {"simulate"},
    "gaugecli/experiments/phase/__init__.py": {"simulate"},
    "gaugecli/experiments/phase/axes.py": {"simulate"},
    "gaugecli/experiments/phase/config.py": {"simulate"},
    "gaugecli/experiments/phase/presets.py": {"simulate", "select"},
    "gaugecli/experiments/lockin/__init__.py": {"select"},
    "gaugecli/experiments/lockin/config.py": {"select"},
    "gaugecli/experiments/lockin/quadratic.py": {"select"},
    "gaugecli/experiments/lockin/result.py": {"select"},
    "gaugecli/experiments/lockin/runs.py": {"select"},
    "gaugecli/experiments/lockin/scans.py": {"select"},
    "gaugecli/experiments/lockin_task/gauge_check.py": {"select"},
}
"""Known spellings outside a command's own modules, module by module (a ratchet: the test fails on
a new one, and on one listed here that is gone, so that the list only shrinks). Figures (plots/) and
the claims (verify/) name the kinds of the runs they read, e.g. ``Need("simulate", config)``, and
phase and lockin run simulate and select as their parts: uses of a kind, not registrations of it."""


def _path(module: str) -> str:
    """A module's file, relative to the repository (a package's ``__init__.py``)."""
    path = Path(*module.split("."))
    return str(path / "__init__.py") if (PACKAGE.parent / path).is_dir() else f"{path}.py"


def _own(module: str, name: str) -> bool:
    """Whether ``module`` is one of ``name``'s own: its experiment (module or package), its spec, its
    command line."""
    spec = registry.experiment(name)
    assert spec is not None
    command = spec.command_name
    stems = {name.replace("-", "_"), command}
    own = {f"gaugecli/cli/{command}.py"}
    # the module that declares the spec, and the one that holds its config (a figure's run such as
    # ``limit-paths`` lives in experiments/limits.py, declared in figure_runs_spec.py)
    declared = next(m for m in registry.MODULES if spec in import_module(m).SPECS)
    own |= {_path(declared), _path(spec.config.partition(":")[0])}
    for stem in stems:
        own |= {f"gaugecli/experiments/{stem}.py", f"gaugecli/experiments/{stem}_spec.py"}
    return module in own or any(module.startswith(f"gaugecli/experiments/{stem}/") for stem in stems)


def _spellings() -> dict[str, set[str]]:
    """Module → the registered names it spells as a string constant (docstrings aside)."""
    names = {spec.name for spec in registry.experiments()}
    found: dict[str, set[str]] = defaultdict(set)
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE.parent).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in names and id(node) not in docstrings:
                if not _own(module, node.value):
                    found[module].add(node.value)
    return found


def test_the_generated_registrations_spell_no_command() -> None:
    spelled = _spellings()
    assert not {module: spelled[module] for module in GENERATED if spelled.get(module)}


def test_a_registered_name_is_spelled_nowhere_new() -> None:
    spelled = {
        m: names for m, names in _spellings().items() if not m.startswith(("gaugecli/plots/", "gaugecli/verify/"))
    }
    new = {m: names - STILL_SPELLED.get(m, set()) for m, names in spelled.items()}
    assert not {m: n for m, n in new.items() if n}, "a registered name spelled outside its own modules"
    gone = {m: names - spelled.get(m, set()) for m, names in STILL_SPELLED.items()}
    assert not {m: n for m, n in gone.items() if n}, "no longer spelled there: drop it from STILL_SPELLED"


def test_every_command_is_a_spec_or_a_tool() -> None:
    commands = [spec.name for spec in registry.experiments() if spec.is_command]
    assert list(COMMANDS) == [*commands, *TOOLS] and not set(commands) & set(TOOLS)
    for spec in registry.experiments():
        if not spec.is_command and spec.command_name:  # a kind another command writes
            assert spec.command_name in commands, spec.name
