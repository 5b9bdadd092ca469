"""End-to-end tests of the ``gaugecli`` command line (SPEC §5): every subcommand runs with
small options, writes an artifact that honours the contract, and prints its summary."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gaugecli.cli import app
from gaugecli.experiments.simulate import SimulateConfig
from gaugecli.store.artifacts import config_hash, read_artifact
from gaugecli.store.codec import from_jsonable

RUN_KEYS = ("t", "loss", "alignment", "coefficient", "imbalance", "reaction", "transport", "nonowner_norm")
PROVENANCE_KEYS = ("gaugecli", "git_commit", "python", "numpy", "scipy", "torch", "platform", "seed", "timestamps")
# Small but not toy: the population dynamics do not depend on d (the kernel sees only angles),
# so d = 3 or 4 reproduces the paper's numbers at a fraction of the cost.
FAST = ["--d", "3", "--rtol", "1e-8"]


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Invoke the app in a fresh working directory; fail loudly on tracebacks."""
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()

    def invoke(*args: str, code: int = 0):
        result = runner.invoke(app, list(args))
        assert "Traceback" not in result.output
        assert result.exit_code == code, f"exit {result.exit_code} for {args}: {result.output!r} {result.exception!r}"
        return result

    return invoke


@pytest.fixture
def one_thread():
    """Finite-sample GD multiplies tiny matrices; with several torch threads on a busy
    2-core machine each product can wait a whole scheduler slice. Keep it to one thread."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _check_run(result: dict, m: int) -> None:
    """The per-run result contract of SPEC §5."""
    for key in RUN_KEYS:
        assert key in result, key
    n = len(result["t"])
    assert n >= 3
    assert result["t"][0] == 0.0  # exact by construction: the declared grid's first time, written, not computed
    assert all(b > a for a, b in zip(result["t"], result["t"][1:], strict=False))
    for key in ("alignment", "coefficient", "imbalance"):
        assert len(result[key]) == n and all(len(row) == m for row in result[key]), key
    for key in ("loss", "reaction", "transport", "nonowner_norm"):
        assert len(result[key]) == n, key
    assert isinstance(result["owner"], int) and not isinstance(result["owner"], bool)
    assert 0 <= result["owner"] < m
    assert result["t_spec"] is None or (
        isinstance(result["t_spec"], float) and math.isfinite(result["t_spec"]) and result["t_spec"] > 0
    )


# ------------------------------------------------------------------------------------------
# simulate


def test_simulate_without_options_writes_a_complete_artifact(cli, tmp_path: Path) -> None:
    out = cli("simulate").output
    (path,) = (tmp_path / "runs" / "simulate").glob("*.json")
    assert str(path.relative_to(tmp_path)) in out
    assert "T_spec" in out
    artifact = read_artifact(path)
    assert artifact["schema"] == "gaugecli.simulate/1"
    assert read_artifact(path, "simulate") == artifact

    config = artifact["config"]
    assert config["model"] == {
        "d": 16,
        "k": 1,
        "activation": "relu",
        "teacher_activation": None,
        "negative_slope": None,
        "weight_decay": 0.0,
        "a_star": 1.0,
        "c0": 0.1,
        "theta0": math.pi / 2,
        "eps_align": 0.01,
    }
    for key in ("mode", "eta", "n_samples", "t_max", "rtol"):
        assert key in config["dynamics"], key
    assert config["dynamics"]["mode"] == "flow"
    assert (config["gauge"], config["strengths"], config["m"], config["deltas"], config["seed"]) == (
        "favorable",
        [4.0],
        1,
        None,
        None,  # the population flow takes no seed
    )
    # enough to rerun: the stored config rebuilds the same configuration (same cache key)
    assert config_hash(from_jsonable(SimulateConfig, config)) == artifact["config_hash"]

    prov = artifact["provenance"]
    for key in PROVENANCE_KEYS:
        assert key in prov, key
    assert prov["gaugecli"] == metadata.version("gaugecli")
    assert set(prov["timestamps"]) >= {"started", "finished"}
    assert prov["timestamps"]["started"] <= prov["timestamps"]["finished"]

    result = artifact["result"]
    _check_run(result, m=1)
    assert isinstance(result["t_spec"], float)
    assert result["owner"] == 0
    assert result["specialized"] is True
    # favorable gauge, D = 4: fast specialization, loss → 0
    assert 0.3 < result["t_spec"] < 0.6
    assert result["loss"][-1] < 1e-10


@pytest.fixture(scope="module")
def strength_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[float, dict]]:
    """``simulate -D 4 -D 8 --out x.json`` for both gauges (one artifact per D)."""
    folder = tmp_path_factory.mktemp("strengths")
    runner = CliRunner()
    runs: dict[str, dict[float, dict]] = {}
    for gauge in ("favorable", "unfavorable"):
        out = folder / f"{gauge}.json"
        result = runner.invoke(app, ["simulate", "--gauge", gauge, "-D", "4", "-D", "8", "--d", "4", "--out", str(out)])
        assert result.exit_code == 0, result.output
        files = sorted(p.name for p in folder.glob(f"{gauge}*.json"))
        assert files == [f"{gauge}-D4.json", f"{gauge}-D8.json"], files
        assert not out.exists()
        for D in (4, 8):
            path = folder / f"{gauge}-D{D}.json"
            assert str(path) in result.output
            runs.setdefault(gauge, {})[float(D)] = read_artifact(path, "simulate")
    return runs


def test_several_strengths_write_one_artifact_each(strength_runs) -> None:
    sign = {"favorable": 1.0, "unfavorable": -1.0}
    for gauge, by_D in strength_runs.items():
        for D, artifact in by_D.items():
            assert artifact["config"]["strengths"] == [D]
            assert artifact["config"]["gauge"] == gauge
            _check_run(artifact["result"], m=1)
            assert artifact["result"]["imbalance"][0] == [pytest.approx(sign[gauge] * D)]
        assert by_D[4.0]["config_hash"] != by_D[8.0]["config_hash"]


def test_nearby_strengths_do_not_overwrite_each_other(cli, tmp_path: Path) -> None:
    """Two strengths a millionth apart are two runs: two cache entries and two --out files."""
    cli("simulate", *FAST, "-D", "4", "-D", "4.000001", "--out", "x.json", "--cache-dir", "C")
    artifacts = [read_artifact(p) for p in sorted(tmp_path.glob("x*.json"))]
    assert sorted(a["config"]["strengths"][0] for a in artifacts) == [4.0, 4.000001]
    assert len(list((tmp_path / "C" / "simulate").glob("*.json"))) == 2
    t_spec = sorted(a["result"]["t_spec"] for a in artifacts)
    assert t_spec[0] < t_spec[1]  # T_spec(+D) ∝ 1/D: the stronger gauge is (slightly) faster


def test_unfavorable_gauge_slows_specialization_like_D_squared(strength_runs) -> None:
    t = {(g, D): a["result"]["t_spec"] for g, by_D in strength_runs.items() for D, a in by_D.items()}
    for D in (4.0, 8.0):
        assert t[("unfavorable", D)] > 10 * t[("favorable", D)]
    ratio = {D: t[("unfavorable", D)] / t[("favorable", D)] for D in (4.0, 8.0)}
    # T_spec(−D)/T_spec(+D) ≈ C D²: doubling D multiplies it by ≈ 4
    assert ratio[8.0] / ratio[4.0] == pytest.approx(4.0, rel=0.15)
    # T_spec(+D) ∝ 1/D and T_spec(−D) ∝ D, roughly
    assert t[("favorable", 4.0)] / t[("favorable", 8.0)] == pytest.approx(2.0, rel=0.15)
    assert t[("unfavorable", 8.0)] / t[("unfavorable", 4.0)] == pytest.approx(2.0, rel=0.15)


def test_deltas_fix_m_and_the_owner_is_argmax_delta(cli, tmp_path: Path) -> None:
    out = cli("simulate", "--deltas", "-1,2,0.5", "--d", "4", "--out", "deltas.json").output
    assert "deltas.json" in out
    artifact = read_artifact(tmp_path / "deltas.json", "simulate")
    assert artifact["config"]["m"] == 3
    assert artifact["config"]["deltas"] == [-1.0, 2.0, 0.5]
    result = artifact["result"]
    _check_run(result, m=3)
    assert result["imbalance"][0] == pytest.approx([-1.0, 2.0, 0.5])
    assert result["owner"] == 1
    assert isinstance(result["t_spec"], float)


def test_gd_mode_runs_with_the_given_step(cli, tmp_path: Path) -> None:
    cli("simulate", "--mode", "gd", "--eta", "0.01", "--d", "4", "--t-max", "2", "--out", "gd.json")
    artifact = read_artifact(tmp_path / "gd.json", "simulate")
    assert artifact["config"]["dynamics"]["mode"] == "gd"
    assert artifact["config"]["dynamics"]["eta"] == 0.01
    result = artifact["result"]
    _check_run(result, m=1)
    assert result["stats"]["step"] == 0.01
    assert result["t"][-1] == pytest.approx(2.0)
    assert result["t"][1] == pytest.approx(0.01)  # iterate k sits at t = k η


def test_sample_mode_runs_on_n_samples(cli, tmp_path: Path, one_thread) -> None:
    cli("simulate", "--mode", "sample", "--n-samples", "500", "--d", "4", "--t-max", "2", "--out", "s.json")
    artifact = read_artifact(tmp_path / "s.json", "simulate")
    assert artifact["config"]["dynamics"]["n_samples"] == 500
    assert artifact["provenance"]["seed"] == 0
    result = artifact["result"]
    _check_run(result, m=1)
    emp = result["empirical_loss"]
    assert emp is not None and len(emp) == len(result["t"])
    # the sample loss is not the population loss
    assert emp[0] != pytest.approx(result["loss"][0], rel=1e-6)


# ------------------------------------------------------------------------------------------
# select, prune, perturb


def test_select_prints_the_designated_owner(cli, tmp_path: Path) -> None:
    out = cli("select", *FAST, "--m", "3", "--owner", "2", "--out", "sel.json").output
    assert "designated owner 2" in out
    assert "yes" in out and "sel.json" in out
    artifact = read_artifact(tmp_path / "sel.json", "select")
    assert artifact["result"]["owner"] == 2
    assert artifact["result"]["designated"] == 2
    assert artifact["result"]["success"] == [True]
    assert isinstance(artifact["result"]["t_spec"], float)
    (run,) = artifact["result"]["runs"]
    _check_run(run, m=3)
    assert run["nonowner_norm"][-1] < 1e-6


def test_select_with_a_tie_at_the_largest_delta_names_no_designated_owner(cli) -> None:
    out = cli("select", *FAST, "--deltas", "1,1").output
    assert "no predicted owner (the largest δ is shared)" in out and "designated owner" not in out


def test_select_sweep_prints_the_success_matrix(cli, tmp_path: Path) -> None:
    out = cli("select", "--sweep", "--ms", "2,3", *FAST, "--cache-dir", "P", "--out", "sweep.json").output
    assert "5/5 runs selected the designated neuron" in out
    artifact = read_artifact(tmp_path / "sweep.json", "select-sweep")
    assert artifact["result"]["success_matrix"] == [[1.0, 1.0], [1.0, 1.0, 1.0]]
    assert len(list((tmp_path / "P" / "point").rglob("*.json"))) == 2  # one stored point per m


def test_select_sweep_resumes_from_finished_points(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gaugecli.experiments.select as sel

    calls = []
    original = sel.run_ensemble

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(sel, "run_ensemble", counting)
    args = ("select", "--sweep", "--ms", "2,3", *FAST, "--cache-dir", "P")
    cli(*args, "--out", "first.json")
    assert len(calls) == 2
    points = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in (tmp_path / "P" / "point").rglob("*.json")}
    assert len(points) == 2

    cli(*args, "--out", "second.json")
    assert len(calls) == 2, "the rerun recomputed finished points"
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in (tmp_path / "P" / "point").rglob("*.json")} == points
    first = read_artifact(tmp_path / "first.json")
    second = read_artifact(tmp_path / "second.json")
    assert json.dumps(first["result"], sort_keys=True) == json.dumps(second["result"], sort_keys=True)

    cli(*args, "--no-cache", "--out", "third.json")
    assert len(calls) == 4, "--no-cache must recompute every point"
    third = read_artifact(tmp_path / "third.json")
    assert json.dumps(third["result"], sort_keys=True) == json.dumps(first["result"], sort_keys=True)


def test_parallel_workers_give_the_serial_result(cli, tmp_path: Path) -> None:
    args = ("select", "--sweep", "--ms", "2,3", *FAST)
    cli(*args, "--cache-dir", "serial", "--out", "serial.json")
    cli(*args, "--workers", "2", "--cache-dir", "parallel", "--out", "parallel.json")
    serial = read_artifact(tmp_path / "serial.json")["result"]
    parallel = read_artifact(tmp_path / "parallel.json")["result"]
    assert json.dumps(serial, sort_keys=True) == json.dumps(parallel, sort_keys=True)


def test_prune_prints_pruning_and_the_coalignment_contrast(cli, tmp_path: Path) -> None:
    out = cli("prune", "-D", "4", "--ms", "2", "--no-sample", *FAST, "--cache-dir", "P", "--out", "prune.json").output
    assert "(pruned)" in out and "co-aligned" in out
    artifact = read_artifact(tmp_path / "prune.json", "prune")
    (point,) = artifact["result"]["points"]
    assert (point["strength"], point["m"], point["mode"], point["owner"]) == (4.0, 2, "flow", 0)
    assert point["final"] < 1e-6 and point["time_below"] is not None


def test_perturb_prints_its_three_sweeps(cli, tmp_path: Path, one_thread) -> None:
    out = cli(
        "perturb",
        "--eps",
        "0,0.2,1.56",
        "-D",
        "4",
        "--step-fractions",
        "0.01,0.02,0.04",
        "--stability-fractions",
        "0.3,1.5",
        "--n-samples",
        "200,400,800",
        "--sample-seeds",
        "0,1",
        "--success-n-samples",
        "16,64",
        "--success-seeds",
        "0,1",
        *FAST,
        "--cache-dir",
        "P",
        "--out",
        "perturb.json",
    ).output
    assert "ε*(D)" in out
    assert "GD step (D=4)" in out and "finite-sample flow (D=4" in out and "selection from a finite sample" in out
    artifact = read_artifact(tmp_path / "perturb.json", "perturb")
    result = artifact["result"]
    assert result["visible"]["probability"] == [[1.0, 1.0, 0.0]]
    assert result["step"]["success"] == [True, False] and result["step"]["diverged"] == [False, True]
    assert result["samples"]["ns"] == [200, 400, 800]
    assert result["selection"]["ns"] == [16, 64]


# ------------------------------------------------------------------------------------------
# validate, version, help


@pytest.fixture
def small_artifact(cli, tmp_path: Path) -> Path:
    cli("simulate", "--mode", "gd", "--eta", "0.05", "--d", "4", "--t-max", "1", "--out", "good.json")
    return tmp_path / "good.json"


def test_validate_accepts_a_good_artifact(cli, small_artifact: Path) -> None:
    out = cli("validate", str(small_artifact)).output
    assert out.startswith("valid")
    assert "simulate artifact" in out and "schema version 1" in out


def test_validate_rejects_a_corrupt_artifact(cli, small_artifact: Path, tmp_path: Path) -> None:
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text(small_artifact.read_text()[:-200])
    out = cli("validate", str(small_artifact), str(corrupt), code=1).output
    lines = out.splitlines()
    assert lines[0].startswith("valid") and "good.json" in lines[0]
    assert lines[1].startswith("INVALID") and "corrupt.json" in lines[1] and "not valid JSON" in lines[1]
    assert "1 of 2" in out


def test_version(cli) -> None:
    out = cli("--version").output
    assert out.strip() == f"gaugecli {metadata.version('gaugecli')}"


@pytest.mark.parametrize("command", ["", "simulate", "numbers", "plot", "export", "validate"])
def test_dash_h_is_help_too(cli, command: str, tmp_path: Path) -> None:
    """``-h`` prints what ``--help`` prints (it was 'No such option: -h', exit 2), writing nothing."""
    args = [command] if command else []
    assert cli(*args, "-h").output == cli(*args, "--help").output
    assert "-h, --help" in cli(*args, "-h").output
    assert list(tmp_path.iterdir()) == []


def test_python_dash_m_help(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "gaugecli", "--help"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    for command in ("simulate", "select", "prune", "perturb", "plot", "validate"):
        assert command in proc.stdout
    assert proc.stderr == ""
    assert list(tmp_path.iterdir()) == []


def test_several_gauges_in_one_command(cli, tmp_path: Path) -> None:
    """``--gauge`` repeats: every gauge × every D, one batched ensemble per gauge, one artifact each."""
    out = cli("simulate", "--gauge", "favorable", "--gauge", "unfavorable", "-D", "4", "-D", "8", *FAST).output
    artifacts = [read_artifact(p) for p in (tmp_path / "runs" / "simulate").glob("*.json")]
    runs = {(a["config"]["gauge"], a["config"]["strengths"][0]): a["result"]["t_spec"] for a in artifacts}
    assert set(runs) == {("favorable", 4.0), ("favorable", 8.0), ("unfavorable", 4.0), ("unfavorable", 8.0)}
    assert runs["unfavorable", 8.0] / runs["favorable", 8.0] > runs["unfavorable", 4.0] / runs["favorable", 4.0]
    assert out.count("computed: ") == 4


def test_shell_completion_offers_the_declared_words() -> None:
    """`gaugecli --install-completion` installs Typer's completion; a word option completes its choices."""
    import os
    import subprocess
    import sys

    script = Path(sys.executable).with_name("gaugecli")  # the completion is keyed by the program's name
    words = {"COMP_WORDS": "gaugecli simulate --activation re", "COMP_CWORD": "3"}
    env = {**os.environ, "_GAUGECLI_COMPLETE": "complete_bash", **words}
    out = subprocess.run([str(script)], env=env, capture_output=True, text=True, check=False)
    assert out.stdout.split() == ["relu", "relu2"]
