"""``gaugecli phase``: every cell is its command's run (to the solver's tolerance), outcome classes
where the outcome is known (C6, C7), the kernel change and Kunin et al.'s cosine kernel distance
against an autograd Jacobian, the former metric name read with a deprecation, the fixed
chunk partition (resumed grids store what uninterrupted ones do, and recompute only missing
chunks), axis errors as one line, and the artifact against its schema.

Tiny grids at rtol = 1e-8 (T_spec to ~1e-9, as in test_experiments_simulate.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

import gaugecli
from gaugecli.cli.app import app
from gaugecli.core.analyses.tangent import kernel_change, kernel_distance_cos, kernel_measures, tangent_kernel
from gaugecli.core.model.metrics import clock_free_gap
from gaugecli.core.model.state import Network
from gaugecli.experiments import params as P
from gaugecli.experiments.config import DynamicsConfig, ModelConfig
from gaugecli.experiments.declare import ConfigError
from gaugecli.experiments.phase import (
    PRESETS,
    PhaseConfig,
    chunk_key,
    chunks,
    parse_axis,
    phase,
    preset_config,
    preset_configs,
)
from gaugecli.experiments.phase.axes import axis_specs
from gaugecli.experiments.phase.chunk import phase_chunk
from gaugecli.experiments.phase.config import CHUNK_CELLS
from gaugecli.experiments.phase.kernel import probes
from gaugecli.experiments.phase.metrics import EXCLUSIVE, GAP_FLOOR, LOST, OUTCOMES, SHARED, SYMMETRIC, UNPRUNED
from gaugecli.experiments.select import SelectConfig, select
from gaugecli.experiments.simulate import SimulateConfig, simulate
from gaugecli.pipeline import Pipeline
from gaugecli.run.executors import SerialExecutor
from gaugecli.run.sweep import make_runner, point_key
from gaugecli.store.artifacts import read_artifact
from gaugecli.store.codec import to_jsonable
from gaugecli.store.schemas import validate

RTOL = 1e-8
AGREE = 100 * RTOL
GAP_AGREE = 3e-3
"""The clock-free gap of a cell against its pair run alone: each reads α(ℓ) by linear interpolation
between 400 stored samples (the ensemble's on its own time grid), an error measured ≤ 1.2e-3 in the six
cells of ``_simulate_grid`` (against 4000 samples); two such errors, ≤ 2.4e-3, asserted ≤ 3e-3 — against
gaps of 0.21 and 0.61 (measured differences ≤ 9e-4)."""
"""A cell integrated in an ensemble shares the ensemble's step sequence: its T_spec agrees with the
same run alone to the solver's tolerance, measured ≤ 15 rtol (default rtol 1e-10, m = 1, D = 1 … 1024);
asserted ≤ 100 rtol."""
FLOW = DynamicsConfig(rtol=RTOL)


def _simulate_grid(metrics: tuple[str, ...] = ("t-spec", "ratio", "reaction-share", "gap")) -> PhaseConfig:
    return PhaseConfig(
        "simulate",
        parse_axis("gauge-strength=2:8:3:log", "simulate"),
        parse_axis("c0=0.05:0.2:2:log", "simulate", "y"),
        metrics,
        SimulateConfig(dynamics=FLOW),
    )


@pytest.fixture(scope="module")
def simulate_grid() -> tuple[PhaseConfig, Any]:
    config = _simulate_grid()
    return config, phase(config)


# -- axes --------------------------------------------------------------------------------------


def test_axis_names_are_the_numeric_options_of_the_declarations() -> None:
    for kind, own in (("simulate", P.Simulate), ("select", P.Select)):
        names = set(axis_specs(kind))
        for fields in (P.Model, P.Dynamics, own):
            for field, p in fields.params.items():
                numeric = p.type in (int, float) and not p.choices and "seed" not in field and field != "deltas"
                numeric &= field != "checkpoints"  # a list of steps or times, no coordinate
                numeric |= field == "gauge"  # a word or a signed number: as an axis, the explicit δ
                if field == "betas":  # Adam's pair: one axis per coordinate
                    assert {"beta1", "beta2"} <= names
                    continue
                assert (p.option.removeprefix("--") in names) == numeric, (kind, field)
    assert {
        "gauge-strength",
        "c0",
        "theta0",
        "eps",
        "weight-decay",
        "negative-slope",
        "eta",
        "n-samples",
        "gauge",
    } <= set(axis_specs("simulate"))
    assert {"owner-delta", "others-delta", "owner"} <= set(axis_specs("select"))
    assert "owner-delta" not in axis_specs("simulate") and "gauge" not in axis_specs("select")


def test_axis_values_are_exact_at_both_ends_and_in_decades() -> None:
    assert parse_axis("eps=1e-3:1:4:log", "simulate").values == (1e-3, 1e-2, 0.1, 1.0)
    assert parse_axis("theta0=0:1.5:4", "simulate").values == (0.0, 0.5, 1.0, 1.5)


@pytest.mark.parametrize(
    ("argv", "flag", "needle"),
    [
        (["--x", "foo=1:2:3", "--y", "c0=0.1:1:3"], "--x", "choose one of adam-eps, batch-size, beta1, beta2, c0"),
        (["--x", "c0=0.1:1", "--y", "theta0=0:1:3"], "--x", "NAME=START:STOP:NUM"),
        (["--x", "c0=0:1:3:log", "--y", "theta0=0:1:3"], "--x", "log axis"),
        (["--x", "c0=0.1:1:1", "--y", "theta0=0:1:3"], "--x", "NUM of c0"),
        (["--x", "c0=0.1:1:3:cubic", "--y", "theta0=0:1:3"], "--x", "scale"),
        (["--x", "c0=0.1:1:3", "--y", "theta0=0:4:3"], "--y", "theta0 must be in [0, π)"),
        (["--x", "c0=0.1:1:3", "--y", "c0=0.1:1:3"], "--y", "already"),
        (["--x", "m=1:4:3", "--y", "c0=0.1:1:3"], "--x", "integers"),
        (["--x", "eta=0.1:0.2:3", "--y", "c0=0.1:1:3"], "--eta", "no effect in --mode flow"),
        (["--x", "owner-delta=0:1:3", "--y", "c0=0.1:1:3"], "--x", "not an axis of simulate"),
        (["--x", "c0=0.1:1:3", "--y", "gauge=-1:1:3", "--metric", "ratio"], "--metric", "±D pair"),
        (["--kind", "select", "--x", "c0=0.1:1:3", "--y", "eps=0.1:1:3", "--metric", "gap"], "--metric", "simulate"),
        (
            ["--x", "c0=0.1:1:3", "--y", "theta0=0:1:3", "--mode", "gd", "--metric", "kernel-change"],
            "--metric",
            "flow",
        ),
        (["--x", "c0=0.1:1:3", "--y", "theta0=0:1:3", "--metric", "speed"], "--metric", "must be one of"),
        (
            ["--kind", "select", "--gauge", "unfavorable", "--x", "c0=0.1:1:3", "--y", "theta0=0:1:3"],
            "--gauge",
            "select",
        ),
    ],
)
def test_bad_axes_and_metrics_are_one_line_errors_naming_the_option(
    tmp_path: Path, argv: list[str], flag: str, needle: str
) -> None:
    result = CliRunner().invoke(
        app, ["phase", *argv, "--cache-dir", str(tmp_path / "runs"), "--out", str(tmp_path / "o.json")]
    )
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:"), result.output
    assert flag in lines[0] and needle in lines[0], lines[0]
    assert "Traceback" not in result.output
    assert not list(tmp_path.rglob("*.json"))  # nothing ran, nothing written


def test_every_cell_is_checked_before_anything_runs() -> None:
    """A rule between parameters (an option without effect in the mode) is refused when the config
    is built, naming the parameter, as the command refuses it."""
    with pytest.raises(ConfigError) as info:
        PhaseConfig("simulate", parse_axis("eta=0.1:1:3", "simulate"), parse_axis("c0=0.1:1:3", "simulate", "y"))
    assert info.value.param == "eta" and "no effect" in info.value.message
    with pytest.raises(ConfigError) as info:
        PhaseConfig(
            "simulate", parse_axis("c0=0.1:1:3", "simulate"), parse_axis("gauge-strength=0:4:3", "simulate", "y")
        )
    assert info.value.param == "y" and "gauge-strength must be in (0, 1e6]" in str(info.value)


# -- cells against their commands -------------------------------------------------------------------


def test_a_cell_is_simulate_run_alone_to_the_solver_tolerance(simulate_grid: tuple[PhaseConfig, Any]) -> None:
    config, result = simulate_grid
    assert result.chunk_cells == [3, 3]  # each row one ensemble (gauge-strength moves the start only)
    for iy, row in enumerate(config.cells()):
        for ix, cell in enumerate(row):
            (plus,) = simulate(cell)
            (minus,) = simulate(replace(cell, gauge="unfavorable"))
            assert result.horizon[iy, ix] == pytest.approx(plus.t[-1], rel=1e-14)  # t_max, or geomspace's end
            t_spec = result.map("t-spec")[iy, ix]
            assert abs(t_spec - plus.t_spec) <= AGREE * plus.t_spec
            ratio = minus.t_spec / plus.t_spec
            assert abs(result.map("ratio")[iy, ix] - ratio) <= 2 * AGREE * ratio
            share = plus.dissipated_reaction / (plus.dissipated_reaction + plus.dissipated_transport)
            assert abs(result.map("reaction-share")[iy, ix] - share) <= 1e-6
            # the clock-free gap of the same ±D pair, each run alone by its command, read by core.metrics
            reference = clock_free_gap(
                plus.loss, plus.alignment[:, 0], minus.loss, minus.alignment[:, 0], floor=GAP_FLOOR
            )
            assert abs(result.map("gap")[iy, ix] - reference) <= GAP_AGREE, (result.map("gap")[iy, ix], reference)


def test_favorable_runs_dissipate_through_reaction_and_the_gap_is_theta_one(
    simulate_grid: tuple[PhaseConfig, Any],
) -> None:
    """SPEC §6 (C3's reading) and C5 at c0 = 0.05: reaction share > 1/2 for +D, and Δ ≥ 0.3."""
    _, result = simulate_grid
    assert np.all(result.map("reaction-share") > 0.5)
    assert np.all(result.map("gap")[0] >= 0.3)
    assert np.all(np.diff(result.map("ratio"), axis=1) > 0)  # the ratio grows with D


def _select_grid(m: int, x: str, y: str) -> PhaseConfig:
    return PhaseConfig(
        "select",
        parse_axis(x, "select"),
        parse_axis(y, "select", "y"),
        ("outcome", "t-spec", "owner-share", "p-end"),
        SelectConfig(m=m, dynamics=FLOW),
    )


def test_outcome_classes_where_the_outcome_is_known() -> None:
    """C6: +D owner and −D others is exclusive; C7: others at δ > 0 co-align (shared, as prune's
    contrast (D, D/2, D/2)); a larger δ elsewhere: lost, whether one other leads or several equal
    others do (round-off picks which of them owns, not whether the designated neuron loses); equal δ
    everywhere: a tie, a symmetric start."""
    three = _select_grid(3, "owner-delta=-4:4:2", "others-delta=-4:2:2")
    result = phase(three)
    outcome = result.map("outcome")
    assert outcome[0, 1] == EXCLUSIVE  # owner +4, others −4
    assert outcome[1, 1] == SHARED  # owner +4, others +2
    assert outcome[0, 0] == SYMMETRIC  # every δ −4: a tie
    assert outcome[1, 0] == LOST  # two equal others lead: the designated neuron, distinct, lost
    assert result.map("p-end")[0, 1] <= 1e-6 < result.map("p-end")[1, 1]
    assert result.map("owner-share")[0, 1] == pytest.approx(1.0, abs=1e-6)
    for iy, ix in ((0, 1), (1, 1)):
        cell = three.cells()[iy][ix]
        alone = select(cell)
        assert alone.owner == 0
        assert abs(result.map("t-spec")[iy, ix] - alone.t_spec) <= AGREE * alone.t_spec
    two = phase(_select_grid(2, "owner-delta=-2:2:2", "others-delta=-2:2:2")).map("outcome")
    assert two[1, 0] == LOST  # owner −2, the other +2 owns
    assert two[0, 1] == EXCLUSIVE and two[0, 0] == SYMMETRIC and two[1, 1] == SYMMETRIC
    assert OUTCOMES[LOST] == "lost"


def test_a_visibly_perturbed_start_keeps_unaligned_function_past_the_horizon() -> None:
    """m = 5, D = 1: at ε = 1e-3 the others are pruned (exclusive); at ε = 0.1 they keep
    P ≈ 5e-4 at the horizon 400 without aligning (α_j < 0.1): unpruned, not shared."""
    config = PhaseConfig(
        "select",
        parse_axis("eps=1e-3:0.1:2:log", "select"),
        parse_axis("gauge-strength=1:2:2", "select", "y"),
        ("outcome", "p-end"),
        SelectConfig(dynamics=FLOW),
    )
    result = phase(config)
    assert result.map("outcome")[0, 0] == EXCLUSIVE
    assert result.map("outcome")[0, 1] == UNPRUNED
    assert 1e-4 < result.map("p-end")[0, 1] < 1e-2


# -- the tangent kernel: its change and Kunin et al.'s distance -----------------------------------


def test_tangent_kernel_is_j_jt_of_the_autograd_jacobian() -> None:
    rng = np.random.default_rng(3)
    m, d = 3, 5
    a, W = rng.standard_normal(m), rng.standard_normal((m, d))
    X = probes(d, 40)
    sigma = ModelConfig().sigma()

    def f(theta: torch.Tensor) -> torch.Tensor:
        at, Wt = theta[:m], theta[m:].reshape(m, d)
        return torch.relu(torch.as_tensor(X) @ Wt.T) @ at

    theta = torch.as_tensor(np.concatenate([a, W.ravel()]))
    J = torch.autograd.functional.jacobian(f, theta).numpy()
    assert np.allclose(tangent_kernel(Network(a, W), X, sigma), J @ J.T, rtol=1e-12, atol=1e-12)
    assert (
        kernel_change(Network(a, W), Network(a, W), X, sigma) == 0.0
    )  # exact by construction: K − K of one computed matrix: exactly 0
    a1 = a * 1.1
    K0, K1 = J @ J.T, tangent_kernel(Network(a1, W), X, sigma)
    assert kernel_change(Network(a, W), Network(a1, W), X, sigma) == pytest.approx(
        np.linalg.norm(K1 - K0) / np.linalg.norm(K0)
    )


def _autograd_ntk(a: np.ndarray, W: np.ndarray, X: np.ndarray) -> torch.Tensor:
    """The empirical NTK ``J Jᵀ`` of ``f(x) = Σ_j a_j relu(w_j·x)`` on ``X`` by torch autograd: one
    backward pass per input (a computation independent of the closed form)."""
    theta = torch.as_tensor(np.concatenate([a, W.ravel()])).requires_grad_(True)
    m, d = W.shape
    rows = []
    for x in torch.as_tensor(X):
        out = torch.relu(theta[m:].reshape(m, d) @ x) @ theta[:m]
        (grad,) = torch.autograd.grad(out, theta)
        rows.append(grad)
    J = torch.stack(rows)
    return J @ J.T


def test_kernel_distance_cos_is_kunins_s_of_the_autograd_ntk() -> None:
    """S = 1 − ⟨K₁, K₀⟩_F/(‖K₁‖‖K₀‖) against the same formula on the autograd NTK of a tiny net
    (m = 4, d = 3, 12 inputs) between two unrelated parameter points; rtol 1e-10: both kernels agree
    to ~1e-14 relative (float64 sums of a few terms) and S ~ 0.1 is not near cancellation."""
    rng = np.random.default_rng(11)
    m, d = 4, 3
    a0, W0 = rng.standard_normal(m), rng.standard_normal((m, d))
    a1, W1 = a0 + 0.5 * rng.standard_normal(m), W0 + 0.5 * rng.standard_normal((m, d))
    X = rng.standard_normal((12, d))
    K0, K1 = _autograd_ntk(a0, W0, X), _autograd_ntk(a1, W1, X)
    expected = 1.0 - float((K1 * K0).sum() / (torch.linalg.norm(K1) * torch.linalg.norm(K0)))
    sigma = ModelConfig().sigma()
    got = kernel_distance_cos(Network(a0, W0), Network(a1, W1), X, sigma)
    assert 1e-2 < expected < 1.0
    assert got == pytest.approx(expected, rel=1e-10)


def test_a_kernel_that_only_grows_has_kernel_change_but_no_cosine_distance() -> None:
    """ReLU is 1-homogeneous: θ → cθ multiplies K by c² exactly, so the kernel change is c² − 1 and
    S = 0 (to round-off: 1 − cos of two parallel 256 × 256 matrices, ≤ 1e-12 ≫ 256 ε)."""
    rng = np.random.default_rng(5)
    a, W = rng.standard_normal(3), rng.standard_normal((3, 4))
    X, sigma, c = probes(4), ModelConfig().sigma(), 3.0
    start, grown = Network(a, W), Network(c * a, c * W)
    assert kernel_change(start, grown, X, sigma) == pytest.approx(c**2 - 1, rel=1e-12)
    assert abs(kernel_distance_cos(start, grown, X, sigma)) < 1e-12


def test_kernel_measures_are_the_two_measures_from_one_pair_of_kernels() -> None:
    """One pair of kernels for both measures: the same arithmetic as the two functions, each of which
    builds its own pair (rel 1e-15: a few ε of the same sums in the same order; measured equal)."""
    rng = np.random.default_rng(7)
    a0, W0 = rng.standard_normal(3), rng.standard_normal((3, 4))
    a1, W1 = a0 + 0.3 * rng.standard_normal(3), W0 + 0.3 * rng.standard_normal((3, 4))
    X, sigma = probes(4, 64), ModelConfig().sigma()
    start, end = Network(a0, W0), Network(a1, W1)
    change, turn = kernel_measures(start, end, X, sigma)
    assert change == pytest.approx(kernel_change(start, end, X, sigma), rel=1e-15)
    assert turn == pytest.approx(kernel_distance_cos(start, end, X, sigma), rel=1e-15)


def test_a_map_measures_the_tangent_kernels_only_when_a_metric_asks() -> None:
    """A T_spec map leaves the kernels unmeasured (they were ~20 % of its cost) under another chunk key;
    a chunk that measures them keeps the key it had before the flag existed (the flag left out)."""
    base = SimulateConfig(dynamics=replace(FLOW, t_max=1.0))  # a short flow: only the kernels are asked about
    axes = (parse_axis("gauge=-0.5:0.5:2", "simulate"), parse_axis("c0=0.1:0.2:2", "simulate", "y"))
    plain = PhaseConfig("simulate", *axes, ("t-spec",), base)
    kernel = PhaseConfig("simulate", *axes, ("t-spec", "kernel-change"), base)
    job, measured = chunks(plain)[0][0], chunks(kernel)[0][0]
    assert not job.kernels and measured.kernels
    assert "kernels" not in to_jsonable(measured) and to_jsonable(job)["kernels"] is False
    assert all(c.kernel_change is None and c.kernel_distance_cos is None for c in phase_chunk(job).cells)
    assert all(c.kernel_change is not None and c.kernel_change > 0.0 for c in phase_chunk(measured).cells)


def test_kernel_metrics_are_zero_without_motion_and_of_the_final_parameters() -> None:
    config = PhaseConfig(
        "simulate",
        parse_axis("gauge=-0.5:0.5:2", "simulate"),
        parse_axis("t-max=1e-9:10:2:log", "simulate", "y"),
        ("kernel-change", "kernel-distance-cos"),
        SimulateConfig(dynamics=FLOW),
    )
    result = phase(config)
    change, turn = result.map("kernel-change"), result.map("kernel-distance-cos")
    assert np.all(change[0] < 1e-6) and np.all(turn[0] < 1e-6)  # t_max = 1e-9: nothing has moved
    assert np.all(change[1] > 1e-2) and np.all(turn[1] > 1e-4)
    assert np.all(turn[1] <= 1.0)


def test_the_former_metric_name_is_read_with_a_deprecation(tmp_path: Path) -> None:
    with pytest.warns(DeprecationWarning, match="kernel-distance is deprecated; use kernel-change"):
        config = PhaseConfig(metrics=("kernel-distance",))
    assert config.metrics == ("kernel-change",)
    argv = ["phase", "--x", "c0=0.1:1:3", "--y", "theta0=0:1:3", "--mode", "gd", "--metric", "kernel-distance"]
    result = CliRunner().invoke(app, [*argv, "--cache-dir", str(tmp_path / "runs")])
    assert result.exit_code == 2  # refused as kernel-change is (flow only): the old word was read as the new
    assert "Warning: --metric kernel-distance is deprecated; use kernel-change" in result.output
    assert "kernel-change needs the parameters at the horizon" in result.output


# -- chunks: fixed partition, cached, resumed ------------------------------------------------------


def test_the_partition_is_fixed_by_the_configuration() -> None:
    rows = _simulate_grid().partition()
    assert rows == [[(0, 0), (0, 1), (0, 2)], [(1, 0), (1, 1), (1, 2)]]
    columns = PhaseConfig(
        "simulate", parse_axis("weight-decay=0:0.1:2", "simulate"), parse_axis("c0=0.1:1:3", "simulate", "y")
    ).partition()
    assert columns == [[(0, 0), (1, 0), (2, 0)], [(0, 1), (1, 1), (2, 1)]]
    alone = PhaseConfig(
        "simulate",
        parse_axis("c0=0.1:1:2", "simulate"),
        parse_axis("theta0=0.5:1:2", "simulate", "y"),
        base=SimulateConfig(dynamics=DynamicsConfig(mode=P.Mode.gd)),
    ).partition()
    assert alone == [[(0, 0)], [(0, 1)], [(1, 0)], [(1, 1)]]
    long = PhaseConfig(
        "simulate", parse_axis("c0=0.1:1:100", "simulate"), parse_axis("theta0=0.5:1:2", "simulate", "y")
    )
    assert [len(c) for c in long.partition()] == [CHUNK_CELLS, 100 - CHUNK_CELLS] * 2


def test_chunk_key_is_the_sweep_runner_s_point_key() -> None:
    jobs, _ = chunks(_simulate_grid())
    assert chunk_key(jobs[0]) == point_key(phase_chunk, jobs[0])


class Counting(SerialExecutor):
    def __init__(self) -> None:
        super().__init__()
        self.tasks = 0

    def submit(self, fn: Any, *args: Any) -> Any:
        self.tasks += 1
        return super().submit(fn, *args)


def _pipeline(cache: Path, executor: SerialExecutor) -> Pipeline:
    pipe = Pipeline(cache)
    pipe.runner = make_runner(executor, pipe.cache)
    return pipe


def test_a_rerun_after_losing_chunks_computes_only_those_and_stores_the_same_numbers(
    tmp_path: Path, simulate_grid: tuple[PhaseConfig, Any]
) -> None:
    config, alone = simulate_grid
    first = Counting()
    outcome = _pipeline(tmp_path, first).ensure("phase", config)
    assert first.tasks == 2
    result = outcome.result
    for name in config.metrics:  # chunks in the cache or not, the same numbers as without one
        assert np.array_equal(result.map(name), alone.map(name), equal_nan=True)
    # an interruption: the map's artifact never written, one chunk of two lost
    outcome.path.unlink()
    (tmp_path / "point" / f"{result.chunk_hashes[1]}.json").unlink()
    again = Counting()
    rerun = _pipeline(tmp_path, again).ensure("phase", config)
    assert again.tasks == 1
    for name in config.metrics:
        assert np.array_equal(rerun.result.map(name), result.map(name), equal_nan=True)
    # a chunk keeps every metric of its runs: another choice of metrics reuses every chunk
    more = Counting()
    other = _pipeline(tmp_path, more).ensure("phase", replace(config, metrics=("ratio", "owner-share", "outcome")))
    assert more.tasks == 0 and np.array_equal(other.result.map("ratio"), result.map("ratio"))


def test_the_artifact_validates_and_holds_the_cells_hashes(
    tmp_path: Path, simulate_grid: tuple[PhaseConfig, Any]
) -> None:
    config, _ = simulate_grid
    outcome = Pipeline(tmp_path).ensure("phase", config)
    validate(outcome.artifact)
    artifact = read_artifact(outcome.path, "phase")
    assert artifact["schema"] == "gaugecli.phase/1"
    maps = artifact["result"]["maps"]
    assert set(maps) == set(config.metrics) and np.shape(maps["t-spec"]) == (2, 3)
    # the cell hash is the key its command caches the same run under
    simulated = Pipeline(tmp_path).ensure("simulate", config.cells()[1][2])
    assert artifact["result"]["cell_hashes"][1][2] == simulated.artifact["config_hash"]
    assert artifact["result"]["thresholds"]["pruned_level"] == 1e-6


# -- the command ---------------------------------------------------------------------------------


def test_phase_writes_its_artifact_and_figure_and_reuses_the_cache(tmp_path: Path) -> None:
    argv = [
        "phase", "--kind", "select", "--m", "2", "--x", "owner-delta=-1:1:2", "--y", "others-delta=-1:1:2",
        "--metric", "outcome", "--metric", "owner-share", "--rtol", "1e-8",
        "--cache-dir", str(tmp_path / "runs"), "--out", str(tmp_path / "map.json"), "--figure", str(tmp_path / "map.png"),
    ]  # fmt: skip
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 0, result.output
    assert "4 cells in 2 chunks (2 computed now)" in result.output
    assert "outcome (cells per class)" in result.output
    assert (tmp_path / "map.png").stat().st_size > 10_000
    validate(read_artifact(tmp_path / "map.json", "phase"))
    again = CliRunner().invoke(app, [*argv[:-2]])
    assert again.exit_code == 0 and "(0 computed now)" in again.output
    checked = CliRunner().invoke(app, ["validate", str(tmp_path / "map.json")])
    assert checked.exit_code == 0, checked.output


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_builds_its_grid(name: str) -> None:
    preset = PRESETS[name]
    maps = preset_configs(name)
    assert len(maps) == max(1, len(preset.variants))
    for _, config in maps:
        assert config.kind == preset.kind and config.metrics == preset.metrics
        runs = config.x.num * config.y.num * (1 + int(config.pair) + 2 * len(config.limits))
        assert str(runs) in preset.cost
        if config.run_base.dynamics.mode is P.Mode.flow:  # a row (or column) per ensemble
            assert len(config.partition()) <= max(config.x.num, config.y.num)
        else:  # a finite sample or a step: every cell alone, as its command runs it
            assert len(config.partition()) == config.x.num * config.y.num
    assert preset_config(name) == maps[0][1]


def test_the_kunin_preset_is_simulate_in_their_setting_cell_for_cell(tmp_path: Path) -> None:
    """``phase --preset kunin-quick`` (their setting, small): on their figure's axes (τ across, δ up),
    each cell the mean over its seeds of Kunin et al.'s S that ``simulate`` itself measures at the
    horizon; the Python API's ``preset`` keyword builds the same map."""
    argv = [
        "phase",
        "--preset",
        "kunin-quick",
        "--cache-dir",
        str(tmp_path / "runs"),
        "--out",
        str(tmp_path / "m.json"),
    ]
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 0, result.output
    maps = read_artifact(tmp_path / "m.json", "phase")["result"]["maps"]
    config = preset_config("kunin-quick")
    assert (config.x.name, config.y.name) == ("init-scale", "gauge") and config.seeds == (100, 101)
    cell = config.cells()[0][2]  # τ = 1, δ = −1
    assert (cell.init, cell.teacher, cell.inputs, cell.scale, cell.eta_per_scale) == (
        "paired",
        "random",
        "sphere",
        1.0,
        True,
    )
    S = [simulate(run)[0].kernel_distance[-1] for run in config.runs(cell)]  # type: ignore[index]
    # the same runs by the same code: equal up to the order of the mean's two additions
    assert maps["kernel-distance-cos"][0][2] == pytest.approx(np.mean(S), rel=1e-14)
    api = gaugecli.phase(preset="kunin-quick", cache_dir=str(tmp_path / "runs"))
    assert api.map("kernel-distance-cos") == pytest.approx(np.asarray(maps["kernel-distance-cos"]), rel=1e-14)


def test_the_robustness_preset_maps_the_random_and_the_adversarial_perturbation() -> None:
    (random, r), (adversarial, a) = preset_configs("robustness", seeds=(0, 1))
    assert (random, adversarial) == ("random", "adversarial")
    assert r.run_base.init == "duplicates" and a.run_base.init == "adversarial"
    assert r.seeds == (0, 1) and a.seeds is None  # the adversarial start is deterministic: no seeds
    assert [c.eps for c in a.cells()[0]] == list(a.x.values)


# -- C4's exponent and constant ---------------------------------------------------------------------


def test_exponent_and_constant_are_those_of_separate_simulate_runs_and_meet_the_d_limit() -> None:
    """Each cell's ``exponent`` and ``constant`` against an independent computation: the four runs
    ``±D`` at D = 16 and 64 by ``simulate``, each alone, with the local slope and the Richardson step
    ``(16 v₆₄ − v₁₆)/15`` of ``v = r/D²`` written out here. Each T_spec agrees to AGREE relative, so
    ``r`` to 2 AGREE, the slope to 4 AGREE / ln 4 < 3 AGREE and the extrapolation to
    (16 + 1)/15 · 2 AGREE < 3 AGREE relative. Against the D → ∞ limit of the reduced equations
    (``core.limits``: C = 4.92, 5.75, 24.6 at θ0 = π/4, π/2, 3π/4, c0 = 0.1): the extrapolation's
    remaining ``O(D^-4)`` term, ≤ 2e-6 relative here (measured 7e-7 at the defaults from fig3's
    sidecar), plus those 3 AGREE: asserted ≤ 1e-5."""
    from gaugecli.core.reduced.limits import favorable_limit, unfavorable_limit

    config = PhaseConfig(
        "simulate",
        parse_axis("c0=0.1:0.5:2:log", "simulate"),
        parse_axis(f"theta0={np.pi / 4!r}:{3 * np.pi / 4!r}:3", "simulate", "y"),
        ("exponent", "constant"),
        SimulateConfig(dynamics=FLOW),
    )
    result = phase(config)
    assert result.limit_strengths == [16.0, 64.0]
    exponent, constant = result.map("exponent"), result.map("constant")
    for iy, row in enumerate(config.cells()):
        for ix, cell in enumerate(row):
            t = {}
            for D in (16.0, 64.0):
                for g in ("favorable", "unfavorable"):
                    (run,) = simulate(replace(cell, strengths=(D,), gauge=g))
                    t[D, g] = run.t_spec
            r = {D: t[D, "unfavorable"] / t[D, "favorable"] for D in (16.0, 64.0)}
            slope = np.log(r[64.0] / r[16.0]) / np.log(4.0)
            extrapolated = (16.0 * r[64.0] / 64.0**2 - r[16.0] / 16.0**2) / 15.0
            assert abs(exponent[iy, ix] - slope) <= 3 * AGREE
            assert abs(constant[iy, ix] - extrapolated) <= 3 * AGREE * extrapolated
            assert abs(exponent[iy, ix] - 2.0) < 5e-3  # C4: 2, approached as 2 + O(1/D²)
            model = cell.model
            limit = unfavorable_limit(model.theta0, model.eps_align) / favorable_limit(
                model.c0, model.theta0, model.eps_align
            )
            assert abs(constant[iy, ix] / limit - 1.0) <= 1e-5, (model.c0, model.theta0)
    assert constant[:, 0] == pytest.approx([4.92, 5.75, 24.6], rel=2e-3)  # c0 = 0.1: the readings quoted


def test_exponent_and_constant_need_the_pair_and_increasing_strengths() -> None:
    with pytest.raises(ConfigError) as info:
        PhaseConfig(
            "simulate",
            parse_axis("c0=0.1:1:2", "simulate"),
            parse_axis("gauge-strength=1:4:2", "simulate", "y"),
            ("constant",),
        )
    assert info.value.param == "metric" and "its own D" in info.value.message
    with pytest.raises(ConfigError) as info:
        PhaseConfig(
            "simulate", parse_axis("c0=0.1:1:2", "simulate"), parse_axis("theta0=1:2:2", "simulate", "y"),
            ("exponent",), limit_strengths=(64.0, 16.0),
        )  # fmt: skip
    assert info.value.param == "limit_strengths" and "increase" in info.value.message


# -- the adversarial start -----------------------------------------------------------------------------


def test_an_adversarial_cell_is_select_from_perturb_s_adversarial_start() -> None:
    """``--init adversarial`` is perturb's start (``perturb.visible.perturbed_duplicates``, the
    favorable neuron turned to θ0 + ε with (c0/m)e^(−ε), the others to θ0 − ε): the cell's start is
    that array exactly, and its numbers are ``select`` run alone to AGREE."""
    from gaugecli.experiments.perturb.visible import perturbed_duplicates
    from gaugecli.experiments.phase.chunk import _start

    config = PhaseConfig(
        "select",
        parse_axis("eps=0.01:1:2:log", "select"),
        parse_axis("gauge-strength=0.25:4:2:log", "select", "y"),
        ("outcome", "t-spec", "owner-share"),
        SelectConfig(m=3, init="adversarial", eps=0.01, dynamics=FLOW),
    )
    result = phase(config)
    for iy, row in enumerate(config.cells()):
        for ix, cell in enumerate(row):
            a0, W0 = _start(cell)
            ref = perturbed_duplicates(cell.model, cell.imbalances(), cell.eps, adversarial=True)
            assert np.array_equal(a0[0], ref[0]) and np.array_equal(W0[0], ref[1])
            alone = select(cell)
            owns = result.map("outcome")[iy, ix] in (EXCLUSIVE, SHARED, UNPRUNED)
            assert owns == (alone.owner == 0)
            if alone.t_spec is not None:
                assert abs(result.map("t-spec")[iy, ix] - alone.t_spec) <= AGREE * alone.t_spec
    assert result.map("outcome")[0, 0] != LOST  # ε = 0.01 at D = 0.25 still selects


def test_an_adversarial_eps_must_stay_below_the_wall() -> None:
    with pytest.raises(ConfigError) as info:
        SelectConfig(init="adversarial", eps=0.9, model=ModelConfig(theta0=2.5))
    assert info.value.param == "eps" and "π − θ0" in info.value.message
    with pytest.raises(ConfigError) as info:
        SelectConfig(init="adversarial")
    assert info.value.param == "eps"


# -- seeds ---------------------------------------------------------------------------------------------


def _wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval, written out (independent of scipy's binomtest)."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def test_seeds_average_each_metric_over_the_cell_s_runs_with_a_wilson_interval() -> None:
    """Random ε perturbations, three seeds per cell in one ensemble: each metric is the mean over
    ``select`` runs alone with ``init_seed`` = each seed (to AGREE); the owner probability is the
    share of them whose neuron 0 owns, with the Wilson interval of the formula (to 1e-12)."""
    seeds = (0, 1, 2)
    config = PhaseConfig(
        "select",
        parse_axis("eps=0.05:0.5:2:log", "select"),
        parse_axis("gauge-strength=0.25:1:2:log", "select", "y"),
        ("outcome", "t-spec", "owner-share"),
        SelectConfig(m=3, dynamics=FLOW),
        seeds=seeds,
    )
    assert config.metrics[-1] == "owner-probability"
    result = phase(config)
    assert result.seeds == list(seeds) and result.chunk_cells == [2, 2]
    for iy, row in enumerate(config.cells()):
        for ix, cell in enumerate(row):
            runs = [select(replace(cell, init_seed=s)) for s in seeds]
            t_spec = np.mean([r.t_spec for r in runs])
            assert abs(result.map("t-spec")[iy, ix] - t_spec) <= AGREE * t_spec
            k = sum(r.owner == 0 for r in runs)
            assert result.map("owner-probability")[iy, ix] == pytest.approx(k / len(seeds), abs=1e-15)
            low, high = _wilson(k, len(seeds))
            assert result.map("owner-probability-low")[iy, ix] == pytest.approx(low, abs=1e-12)
            assert result.map("owner-probability-high")[iy, ix] == pytest.approx(high, abs=1e-12)


def test_seeds_need_a_random_draw() -> None:
    with pytest.raises(ConfigError) as info:
        PhaseConfig(
            "select", parse_axis("owner-delta=-1:1:2", "select"), parse_axis("others-delta=-1:1:2", "select", "y"),
            seeds=(0, 1),
        )  # fmt: skip
    assert info.value.param == "seeds" and "no effect" in info.value.message


# -- the rerun TOML ------------------------------------------------------------------------------------


def test_the_toml_beside_a_phase_artifact_reproduces_it(tmp_path: Path) -> None:
    """``runs/phase/<hash>.toml`` reruns the map: from the cache (the same hash, nothing computed),
    and without it (the same config hash and the same maps, bit for bit: the same chunks run)."""
    import json

    argv = [
        "phase", "--kind", "select", "--m", "2", "--x", f"eps={np.pi / 100!r}:0.3:2", "--y", "gauge-strength=1:2:2",
        "--init", "adversarial", "--metric", "outcome", "--metric", "t-spec", "--rtol", "1e-8",
        "--cache-dir", str(tmp_path / "runs"), "--json",
    ]  # fmt: skip
    first = CliRunner().invoke(app, argv)
    assert first.exit_code == 0, first.output
    (record,) = [json.loads(line) for line in first.output.splitlines() if line.startswith("{")]
    toml = Path(record["path"]).with_suffix(".toml")
    assert toml.parent.name == "phase" and "gaugecli phase --config" in toml.read_text()
    again = CliRunner().invoke(app, ["phase", "--config", str(toml), "--cache-dir", str(tmp_path / "runs"), "--json"])
    assert again.exit_code == 0, again.output
    (second,) = [json.loads(line) for line in again.output.splitlines() if line.startswith("{")]
    assert second["config_hash"] == record["config_hash"] and second["computed"] is False
    fresh = CliRunner().invoke(
        app,
        [
            "phase",
            "--config",
            str(toml),
            "--no-cache",
            "--cache-dir",
            str(tmp_path / "fresh"),
            "--out",
            str(tmp_path / "m.json"),
        ],
    )  # --no-cache still writes: into the test's own folder, not the working directory's runs/
    assert fresh.exit_code == 0, fresh.output
    original, rerun = read_artifact(Path(record["path"]), "phase"), read_artifact(tmp_path / "m.json", "phase")
    assert rerun["config_hash"] == original["config_hash"]
    assert rerun["result"]["maps"] == original["result"]["maps"]


# -- the tangent kernel against finite differences ---------------------------------------------------


def test_tangent_kernel_is_the_product_of_finite_difference_gradients() -> None:
    """``K(x, x') = ∇_θ f(x)·∇_θ f(x')`` with ``∇_θ f`` by central differences of the network
    function (step h = 1e-6 on θ = (a, W), away from ReLU's kinks: every |w_j·x| > 1e-3 here). The
    differences are exact in ``a`` and, off the kinks, f is linear in each w_j, so the differences in ``W``
    carry round-off ε‖f‖/h ≈ 1e-10 alone: asserted to 1e-8 relative."""
    rng = np.random.default_rng(11)
    m, d = 3, 4
    a, W = rng.standard_normal(m), rng.standard_normal((m, d))
    X = probes(d, 30)
    assert np.min(np.abs(X @ W.T)) > 1e-3
    sigma = ModelConfig().sigma()
    theta = np.concatenate([a, W.ravel()])

    def f(th: np.ndarray) -> np.ndarray:
        return np.maximum(X @ th[m:].reshape(m, d).T, 0.0) @ th[:m]

    h = 1e-6
    J = np.stack([(f(theta + h * e) - f(theta - h * e)) / (2 * h) for e in np.eye(theta.size)], axis=1)
    K = tangent_kernel(Network(a, W), X, sigma)
    assert np.max(np.abs(K - J @ J.T)) <= 1e-8 * np.max(np.abs(K))


def test_the_outcome_map_is_categorical_and_keys_only_classes_it_has() -> None:
    """The outcome classes have no order: a qualitative palette, distinct colours (CIEDE2000 ≥ 10
    apart, the layout check's rule), a colour-bar slot for each class some cell has and none for the
    others, and no tool name in the title."""
    from itertools import combinations

    from gaugecli.plots import layout_check, phase_map, style
    from gaugecli.plots.venue import layout

    config = _select_grid(3, "owner-delta=-4:4:2", "others-delta=-4:2:2")
    result = phase(config)
    sizes = layout()
    with style.context(sizes):
        fig, panels = phase_map.build(result, config, sizes)
        fig.draw_without_rendering()
    present = sorted({int(v) for v in np.asarray(result.map("outcome")).ravel()})
    names = [result.outcomes[k] for k in present]
    outcome = next(p for p in panels.values() if p["metric"] == "outcome")
    assert outcome["contours"]["classes_drawn"] == names
    bar = next(ax for ax in fig.axes if [t.get_text() for t in ax.get_yticklabels()] == names)
    assert len(bar.get_yticks()) == len(names) < len(result.outcomes)
    for a, b in combinations(phase_map.CLASS_COLORS.values(), 2):
        assert layout_check.colour_difference(a, b) >= layout_check.MIN_DELTA_E
    assert "gaugecli" not in fig.get_suptitle()


def test_the_rich_lazy_readings_of_the_howto_are_rendered_from_the_committed_json() -> None:
    """docs/howto/phase-maps.md's paragraph on the rich-lazy preset is tools/rich_lazy_readings.py's
    rendering of docs/data/rich-lazy.json (regenerate: python tools/rich_lazy_readings.py)."""
    import importlib.util
    import json

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("rich_lazy_readings", root / "tools" / "rich_lazy_readings.py")
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    data = json.loads((root / "docs" / "data" / "rich-lazy.json").read_text())
    page = (root / "docs" / "howto" / "phase-maps.md").read_text(encoding="utf-8")
    assert f"{tool.BEGIN}\n{tool.render(data)}\n{tool.END}" in page, "stale: python tools/rich_lazy_readings.py"
    assert len(data["delta"]) == len(data["c0"]) == 17  # the preset's grid, Kunin et al.'s
