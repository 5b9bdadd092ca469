"""The typed, self-describing API: the run functions' signatures come from the parameter
declarations (help() and the committed stub mypy reads agree with a fresh generation), a user's
script type-checks under ``mypy --strict`` and a misspelt keyword or name fails it, every keyword
listed is one the function accepts with the config's own default, and results describe themselves
(a short repr naming the config and D, the config in ``to_xarray()``'s attributes, integer labels,
``progress=True``)."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import os
import pydoc
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import gaugecli
from gaugecli import api, signatures
from gaugecli.experiments import params as P
from gaugecli.experiments.spec import resolve

ROOT = Path(__file__).resolve().parents[1]


def test_the_committed_stubs_are_a_fresh_generation() -> None:
    fix = "run `python -m gaugecli.signatures` and commit gaugecli/*.pyi"
    assert (ROOT / signatures.STUB_PATH).read_text(encoding="utf-8") == signatures.stub(), fix
    assert (ROOT / signatures.EXPORTS_STUB_PATH).read_text(encoding="utf-8") == signatures.exports_stub(), fix


def test_type_checkers_see_every_lazy_export_and_run_function() -> None:
    """The exports stub re-exports exactly the package's lazy exports (``name as name``), the run
    functions' stub declares exactly the run functions, and both modules star-import their stub
    under ``TYPE_CHECKING`` (with their ``__getattr__`` hidden from type checkers)."""
    exports = ast.parse((ROOT / signatures.EXPORTS_STUB_PATH).read_text(encoding="utf-8"))
    reexported = {
        a.name for node in exports.body if isinstance(node, ast.ImportFrom) for a in node.names if a.asname == a.name
    }
    assert reexported == set(gaugecli.__all__)
    functions = ast.parse((ROOT / signatures.STUB_PATH).read_text(encoding="utf-8"))
    declared = {node.name for node in functions.body if isinstance(node, ast.FunctionDef)}
    assert declared == set(signatures.run_specs())
    assert declared == {"simulate", "select", "prune", "perturb", "reln", "lockin", "phase", "predict", "laws", "deep"}
    for module, stub in (("__init__.py", "gaugecli._exports"), ("api.py", "gaugecli._run_functions")):
        text = (ROOT / "gaugecli" / module).read_text(encoding="utf-8")
        assert "if TYPE_CHECKING:" in text and f"    from {stub} import *" in text, module


USER_SCRIPT = """\
import gaugecli
from gaugecli import RunObservables, SelectConfig

runs: list[RunObservables] = gaugecli.simulate(gauge="unfavorable", gauge_strength=16, d=8, mode="flow")
owner: int | None = runs[0].owner
chosen: int | None = gaugecli.select(SelectConfig(m=3), cache_dir="runs", progress=True).owner
sweep: list[int] = gaugecli.select(sweep=True, ms=(2, 3), d=4).ms
pruned = gaugecli.prune(gauge_strength=(1.0, 4.0), ms=(2,))
artifact = gaugecli.load("runs/select/0.json")
print(owner, chosen, sweep, pruned.path, artifact.kind)
"""


PUBLIC_SURFACE = ("gaugecli", "gaugecli._exports", "gaugecli._run_functions", "gaugecli.api")
"""The modules a user's ``import gaugecli`` reaches for its names: what they export, explicitly."""


def _strict_config(folder: Path, modules: tuple[str, ...]) -> Path:
    """A mypy config: the project's own options (``[tool.mypy]``, as ``make lint`` checks the package,
    so that lint's cache serves every module of the package and of numpy, scipy, torch …), with
    every flag ``--strict`` sets — read from mypy itself, not listed here — on ``modules``, and
    the explicit re-exports ``--strict`` asks of the public surface. The user's modules see the package
    as under ``--strict``: the other flags of ``--strict`` only report errors inside the package, and
    those an installed package's user is not shown (``--follow-imports=silent``; lint finds none)."""
    import tomllib

    from mypy.main import process_options
    from mypy.options import PER_MODULE_OPTIONS

    bare = folder / "bare.ini"
    bare.write_text("[mypy]\n", encoding="utf-8")
    _, strict = process_options(["--strict", "--config-file", str(bare), "user.py"])
    _, plain = process_options(["--config-file", str(bare), "user.py"])
    names = [k for k in PER_MODULE_OPTIONS | {"warn_redundant_casts", "warn_unused_configs"} if hasattr(strict, k)]
    flags = {k: getattr(strict, k) for k in sorted(names) if getattr(strict, k) != getattr(plain, k)}
    assert {"disallow_untyped_defs", "implicit_reexport", "strict_equality"} <= set(flags), flags
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    overall = {k: v for k, v in project.items() if k != "files"}
    overall |= {k: v for k, v in flags.items() if k not in PER_MODULE_OPTIONS}  # global-only flags
    lines = ["[mypy]", *(f"{k} = {v}" for k, v in overall.items())]
    lines += [f"[mypy-{','.join(PUBLIC_SURFACE)}]", "implicit_reexport = False"]
    lines += [f"[mypy-{','.join(modules)}]", *(f"{k} = {v}" for k, v in flags.items() if k in PER_MODULE_OPTIONS)]
    config = folder / "mypy.ini"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return config


@pytest.mark.slow
def test_a_user_script_passes_mypy_strict_and_typos_fail_it(tmp_path: Path) -> None:
    """The issue's check: ten lines of API use pass ``mypy --strict``; the same with a misspelt
    keyword, a misspelt function and a wrong word for a choice fail it, each on its line. The
    package is found as an installed one is (the editable install's import hook is invisible to mypy,
    hence ``MYPYPATH``). ``--strict``'s flags hold on the user's modules and its explicit re-exports
    on the public surface (:func:`_strict_config`), so that the cache of ``make lint``'s mypy run (CI
    runs it first) serves the rest: ~1 s instead of ~20 s of analysing numpy, scipy and torch again;
    without that cache (a copy: the test never writes it) mypy starts cold, to the same verdict."""
    pytest.importorskip("mypy", reason="mypy is in the dev extra")
    import shutil

    (tmp_path / "user.py").write_text(USER_SCRIPT, encoding="utf-8")
    typo = (
        USER_SCRIPT.replace("gauge_strength=16", "gauge_strenght=16")
        .replace("gaugecli.load(", "gaugecli.loadd(")
        .replace('mode="flow"', 'mode="flwo"')
    )
    (tmp_path / "typo.py").write_text(typo, encoding="utf-8")
    config = _strict_config(tmp_path, ("user", "typo"))
    lint_cache = Path(os.environ.get("MYPY_CACHE_DIR", ROOT / ".mypy_cache"))
    if lint_cache.is_dir():
        shutil.copytree(lint_cache, tmp_path / "cache")
    env = {**os.environ, "MYPYPATH": str(ROOT)}
    env.pop("MYPY_CACHE_DIR", None)
    command = [sys.executable, "-m", "mypy", "--config-file", str(config), "--cache-dir", str(tmp_path / "cache")]
    done = subprocess.run(
        [*command, "user.py", "typo.py"], cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert not [e for e in errors if e.startswith("user.py")], done.stdout
    assert any(e.startswith("typo.py:4:") and "gauge_strenght" in e for e in errors), done.stdout
    assert any(e.startswith("typo.py:4:") and "'flwo'" in e for e in errors), done.stdout
    assert any(e.startswith("typo.py:9:") and "loadd" in e for e in errors), done.stdout
    assert len(errors) == 3, done.stdout


def test_help_lists_every_keyword_with_the_configs_default() -> None:
    """``help(gaugecli.simulate)``: each declared parameter of simulate, the model and the dynamics
    under its keyword, with the default a bare ``SimulateConfig()`` holds (the reference is the
    config dataclass, not the signature generator)."""
    from gaugecli import SimulateConfig

    text = pydoc.render_doc(gaugecli.simulate, renderer=pydoc.plaintext)
    config = SimulateConfig()
    expected = {p.name: getattr(config, field) for field, p in P.Simulate.params.items()}
    expected |= {name: getattr(config.model, name) for name in P.Model.params}
    expected |= {name: getattr(config.dynamics, name) for name in P.Dynamics.params}
    parameters = inspect.signature(gaugecli.simulate).parameters
    for name, default in expected.items():
        assert f"{name}: " in text, name
        assert parameters[name].default == default, name
    assert "gauge_strength: float | Sequence[float] = (4.0,)" in text


def _built(name: str, params: dict[str, Any]) -> Any:
    """The config the run function ``name`` builds from ``params`` (without running it)."""
    spec = signatures.run_specs()[name]
    if spec.api_configs is not None:
        _, configs, _ = spec.api_configs(None, dict(params), api._config)
        return configs
    return [api._config(None, resolve(spec.config), name, params)]


@pytest.mark.parametrize("name", sorted(signatures.run_specs()))
def test_every_keyword_listed_is_accepted_and_its_default_changes_nothing(name: str) -> None:
    """Each keyword of the signature, given its listed default, builds the config the function
    builds with no keyword (for a keyword of another kind of the same command — ``select``'s sweep,
    a ``phase`` of select — beside the keyword that picks that kind); a misspelt one is refused."""
    picks = {"sweep": True, "kind": "select", "task": "modular-addition"}
    for k in signatures.keywords(signatures.run_specs()[name]):
        try:
            given, plain = _built(name, {k.name: k.default}), _built(name, {})
        except TypeError:
            pick = next(p for p in picks if p in {x.name for x in signatures.keywords(signatures.run_specs()[name])})
            given, plain = _built(name, {pick: picks[pick], k.name: k.default}), _built(name, {pick: picks[pick]})
        if name == "phase":  # a keyword of the base run makes the base explicit: compare the run it makes
            given, plain = [c.run_base for c in given], [c.run_base for c in plain]
        assert given == plain, (name, k.name)
    with pytest.raises(TypeError, match="unknown parameter 'gauge_strenght'"):
        _built(name, {"gauge_strenght": 4.0})


# -- results that describe themselves ---------------------------------------------------------------


@pytest.fixture(scope="module")
def runs() -> list[Any]:
    return gaugecli.simulate(gauge="unfavorable", gauge_strength=(4, 16), m=2, d=4, rtol=1e-8, eps=0.1)


def test_a_runs_repr_is_short_and_names_its_config_and_d(runs: list[Any]) -> None:
    text = repr(runs[1])
    assert len(text) < 400, text  # the dataclass's own repr of a run: ~10⁵ characters
    assert text.startswith(f"RunObservables(owner={runs[1].owner!r}, specialized={runs[1].specialized!r}")
    assert "strengths=(16.0,)" in text and "gauge='unfavorable'" in text and "model.d=4" in text
    assert "strengths=(4.0,)" in repr(runs[0])
    assert runs[1].config.strengths == (16.0,) and runs[1].path is None


def test_to_xarray_carries_the_config_and_labels_stay_integers(runs: list[Any]) -> None:
    pytest.importorskip("xarray")
    pd = pytest.importorskip("pandas")
    ds = runs[1].to_xarray()
    assert ds.attrs["config.strengths"].tolist() == [16.0] and ds.attrs["config.model.d"] == 4
    assert ds.attrs["config.gauge"] == "unfavorable"
    frame = runs[1].to_dataframe()
    assert frame["neuron"].dtype == pd.Int64Dtype()
    assert sorted(frame["neuron"].dropna().unique().tolist()) == [0, 1]
    assert frame.loc[frame["variable"] == "loss", "neuron"].isna().all()


def test_progress_true_reports_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    gaugecli.simulate(gauge="unfavorable", gauge_strength=4, m=2, d=4, rtol=1e-6, eps=0.1, progress=True)
    err = capsys.readouterr().err
    assert err.endswith("simulate: 100%\n"), err[-80:]
    shown = [int(part.split(":")[1].strip(" %\n")) for part in err.split("\r") if part]
    assert shown == sorted(shown) and len(shown) == len(set(shown))  # each percent once, never backwards
    with pytest.raises(TypeError, match="progress=True"):
        gaugecli.simulate(progress="yes")  # type: ignore[arg-type]


def test_repr_of_every_result_type_is_its_headline() -> None:
    """Every result type is a ``Labelled`` whose repr is the mixin's (no dataclass field dump)."""
    from gaugecli.core.frames import Labelled

    for spec in signatures.run_specs().values():
        result_type = resolve(spec.result)
        assert issubclass(result_type, Labelled) and result_type.__repr__ is Labelled.__repr__, spec.name
        assert dataclasses.is_dataclass(result_type)
