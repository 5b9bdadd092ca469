"""The command line threads no declared parameter by hand: its options are generated from the
``Fields`` declarations (:func:`gaugecli.cli.signature.with_params`) and its configs built by
:func:`gaugecli.experiments.keywords.build`, the Python API's one construction path."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gaugecli.cli import app, session
from gaugecli.experiments import params as P
from gaugecli.experiments.declare import Fields

CLI = Path(__file__).resolve().parents[1] / "gaugecli" / "cli"


def _declared_names() -> set[str]:
    """Every declared field and parameter name (``strengths``, ``gauge_strength``, ``quadratic``, ``x2``, …)."""
    names: set[str] = set()
    stack: list[type[Fields]] = list(Fields.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        names.update(cls.params)
        names.update(p.name for p in cls.params.values())
    return names


def _threadings(path: Path, declared: set[str]) -> list[str]:
    """``x=x`` keywords naming a declared parameter, ``= S.x.default`` parameter defaults and
    ``Annotated[…, option(…)]`` parameters in the functions of ``path``: each a hand-threaded option."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                value = keyword.value
                if keyword.arg in declared and isinstance(value, ast.Name) and value.id == keyword.arg:
                    found.append(f"{path.name}:{node.lineno}: {keyword.arg}={value.id}")
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = node.args.args + node.args.kwonlyargs
            for default in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
                if isinstance(default, ast.Attribute) and default.attr == "default":
                    found.append(f"{path.name}:{default.lineno}: a default read from a declaration")
            for argument in arguments:
                calls = (
                    [n for n in ast.walk(argument.annotation) if isinstance(n, ast.Call)] if argument.annotation else []
                )
                if any(getattr(c.func, "attr", getattr(c.func, "id", None)) == "option" for c in calls):
                    found.append(f"{path.name}:{argument.annotation.lineno}: {argument.arg} declared in the signature")
    return found


def test_no_cli_module_threads_a_declared_parameter_by_hand() -> None:
    declared = _declared_names()
    assert {"strengths", "gauge_strength", "quadratic", "x2", "d", "mode"} <= declared  # the walk sees them all
    found = [line for path in sorted(CLI.glob("*.py")) for line in _threadings(path, declared)]
    assert not found, "\n".join(found)


def test_the_check_finds_each_kind_of_threading(tmp_path: Path) -> None:
    """The walk above is not vacuous: each pattern it forbids, written out, is found."""
    source = tmp_path / "old.py"
    source.write_text(
        "def lockin(m: Annotated[int, opt.option(S.m)] = S.m.default, per: int = 2):\n"
        "    return LockinConfig(m=m, per=per, span=3.0)\n",
        encoding="utf-8",
    )
    found = _threadings(source, {"m", "per", "span"})
    assert len(found) == 4, found  # m=m, per=per, the default, the option in the signature


def _configs(monkeypatch: pytest.MonkeyPatch, *args: str) -> list[Any]:
    """The configs ``gaugecli *args`` would run (nothing computed)."""
    seen: list[Any] = []

    def execute(ctx: Any, kind: str, configs: list[Any], outputs: Any, **_: Any) -> tuple[list[Any], list[Any]]:
        seen.extend(configs)
        return [], []

    monkeypatch.setattr(session, "execute", execute)
    monkeypatch.setattr(session, "summarize", lambda *a, **k: None)
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return seen


def test_the_command_line_builds_the_config_written_out_by_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    """An independent reference: each command's config from flags equals the dataclass written out
    field by field (equality of the frozen dataclasses: every field, floats compared as given)."""
    from gaugecli.experiments.config import DynamicsConfig, ModelConfig
    from gaugecli.experiments.lockin import LockinConfig
    from gaugecli.experiments.perturb import PerturbConfig
    from gaugecli.experiments.simulate import SimulateConfig

    (lockin,) = _configs(monkeypatch, "lockin", "-D", "4", "-D", "16", "--x2-step-fraction", "0.3", "--d", "8")
    assert lockin == LockinConfig(
        model=ModelConfig(d=8), dynamics=DynamicsConfig(), strengths=(4.0, 16.0), quadratic_step_fraction=0.3
    )
    (perturb,) = _configs(monkeypatch, "perturb", "--kind", "random", "--seeds", "1,2", "--m", "3")
    assert perturb == PerturbConfig(adversarial=False, seeds=(1, 2), m=3)
    runs = _configs(monkeypatch, "simulate", "--gauge", "favorable", "--gauge", "unfavorable", "--mode", "gd")
    gd = DynamicsConfig(mode=P.Mode.gd)
    assert runs == [SimulateConfig(dynamics=gd, gauge="favorable"), SimulateConfig(dynamics=gd, gauge="unfavorable")]


def test_the_command_line_and_the_python_api_build_one_config(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same parameters as flags and as keywords give the same config (one construction path)."""
    from gaugecli.experiments.keywords import build
    from gaugecli.experiments.prune import PruneConfig
    from gaugecli.experiments.select import SelectConfig

    (prune,) = _configs(monkeypatch, "prune", "-D", "2,8", "--ms", "2,3", "--no-sample", "--rtol", "1e-8")
    assert prune == build(PruneConfig, "prune", {"gauge_strength": (2, 8), "ms": (2, 3), "sample": False, "rtol": 1e-8})
    (select,) = _configs(monkeypatch, "select", "--m", "3", "--mode", "sample", "--seeds", "4", "--n-samples", "50")
    keywords = {"m": 3, "mode": "sample", "seeds": 4, "n_samples": 50}
    assert select == build(SelectConfig, "select", keywords)
    assert dataclasses.asdict(select)["dynamics"]["mode"] is P.Mode.sample  # the word became its Enum


def test_help_and_refusals_answer_before_numerics_are_imported() -> None:
    """Every command's ``--help`` and a refused value come from the declarations alone (stdlib-only
    modules): numpy, scipy and torch are still unimported after them, in a fresh interpreter."""
    import subprocess
    import sys

    lines = [
        ["--help"],
        *[[command, "--help"] for command in ("simulate", "select", "prune", "perturb", "lockin", "reln", "phase")],
        ["predict", "--help"],
        ["simulate", "--m", "0"],
        ["select", "--mode", "nope"],
        ["lockin", "--m", "1"],
        ["phase", "--metric", "nope"],
        ["predict", "--runs", "1"],
        ["plot", "fig1", "--workers", "0"],
    ]
    code = (
        "import sys\n"
        "from gaugecli.cli import main\n"
        f"for line in {lines!r}:\n"
        "    sys.argv = ['gaugecli', *line]\n"
        "    try:\n"
        "        main()\n"
        "    except SystemExit as exit:\n"
        "        assert exit.code in (0, 2), (line, exit.code)\n"
        "loaded = sorted({'numpy', 'scipy', 'torch'} & set(sys.modules))\n"
        "assert not loaded, loaded\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Error: Invalid value for '--workers': must be an integer ≥ 1 (got 0)" in result.stderr  # the declared check


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--mode", "sample", "--n-samples", "1e12"], "'--n-samples': must be an integer ≥ 1 (got '1e12')"),
        (["--m", "2.5"], "'--m': must be an integer ≥ 1 (got '2.5')"),
        (["--c0", "abc"], "'--c0': must be a number in [1e-6, 1e6] (got 'abc')"),
    ],
)
def test_a_value_that_does_not_parse_is_refused_with_its_range(args: list[str], expected: str) -> None:
    """Typer's own message for ``--n-samples 1e12`` names the type only; the declared range is the answer."""
    result = CliRunner().invoke(app, ["simulate", *args])
    assert result.exit_code == 2
    assert expected in " ".join(result.output.split())
