"""``gaugecli laws``: the count of conservation laws against the known closed forms (ReLU, leaky
ReLU: one balance per hidden neuron, a bias counted in the incoming norm; linear: n_i(n_i+1)/2 per
hidden layer), the laws found against the known laws' gradients, their drift along a gradient flow,
and the budget's refusal."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

from gaugecli.cli import app
from gaugecli.core.analyses.conservation import RANK_RTOL, Architecture, known_angle, known_rank, law_drift, lie_trace
from gaugecli.experiments.declare import ConfigError
from gaugecli.experiments.laws import DRIFT_FACTOR, FLOW_RTOL, LawsConfig, laws

GAP = 1e3 / RANK_RTOL
"""The count is decided by RANK_RTOL; a gap σ_r/σ_{r+1} ≥ 1e3/RANK_RTOL puts σ_r ≥ 1e3 × and
σ_{r+1} ≤ 1e-3 × the tolerance when σ_r ≤ σ_max, so that the count does not hang on it."""
ANGLE = 1e-10
"""The known laws' gradients lie in the complement of the trace to round-off: the sine of the
principal angle is k·ε times the trace's condition (~1e4 here), measured at 1e-14."""


def _hidden(widths: tuple[int, ...]) -> list[int]:
    return list(widths[1:-1])


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("widths", [(2, 3, 1), (3, 2, 2), (3, 4, 3, 1), (2, 3, 2, 2)])
def test_relu_count_is_one_balance_per_hidden_neuron(widths: tuple[int, ...], bias: bool) -> None:
    arch = Architecture(widths, bias=bias)
    trace = lie_trace(arch)
    assert trace.laws == sum(_hidden(widths))
    assert trace.gap >= GAP
    # and the laws found are the balances ‖incoming (with bias)‖² − ‖outgoing‖²
    independent, _ = known_rank(arch, trace.points[0])
    assert independent == trace.laws
    assert known_angle(arch, trace.points[0], trace.null) <= ANGLE


@pytest.mark.parametrize(
    ("widths", "bias"), [((2, 2, 2), False), ((3, 2, 3), False), ((3, 2, 2, 3), False), ((2, 2, 2), True)]
)
def test_linear_count_is_n_n_plus_1_over_2_per_hidden_layer(widths: tuple[int, ...], bias: bool) -> None:
    arch = Architecture(widths, bias=bias, linear=True)
    trace = lie_trace(arch)
    assert trace.laws == sum(n * (n + 1) // 2 for n in _hidden(widths))
    assert trace.gap >= GAP
    assert known_angle(arch, trace.points[0], trace.null) <= ANGLE


def test_count_does_not_depend_on_the_points() -> None:
    """Other random points (another seed, more of them) give the same count."""
    arch = Architecture((3, 4, 3, 1), bias=True)
    assert lie_trace(arch, n_points=3, seed=1).laws == lie_trace(arch, n_points=6, seed=2).laws == 7


@pytest.mark.parametrize(("activation", "linear"), [(torch.relu, False), (lambda z: z, True)])
def test_known_laws_hold_along_the_flow_while_theta_moves(
    activation: Callable[[torch.Tensor], torch.Tensor], linear: bool
) -> None:
    arch = Architecture((3, 4, 3, 1), bias=True, linear=linear)
    flow = law_drift(arch, activation, n_samples=64, t_max=2.0, rtol=FLOW_RTOL)
    # basis: the solver keeps θ's error at rtol·‖θ‖ per step; a quadratic law's error is ≲ 2‖θ‖ times it
    assert np.all(flow.drift <= DRIFT_FACTOR * FLOW_RTOL * flow.scale)
    assert flow.t[-1] > 0.0 and flow.moved > 0.0 and flow.loss[1] < flow.loss[0]
    # an independent reference: ‖θ‖², a quadratic that is not conserved, moves on the same flow by
    # far more than the tolerance
    assert flow.norm_change >= 1e3 * DRIFT_FACTOR * FLOW_RTOL * flow.scale


def test_the_experiment_reports_leaky_relu_like_relu_and_exact() -> None:
    result = laws(LawsConfig(layer_widths=(2, 3, 2, 1), activation="leaky-relu", bias=True))
    assert result.n_laws == 5 and result.others == 0 and result.exact
    assert result.n_known == result.known_independent == 5
    assert result.holds and result.max_relative_drift <= DRIFT_FACTOR * FLOW_RTOL


def test_budget_refusal_names_the_flag_and_the_allowed_size(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="layer_widths"):
        LawsConfig(layer_widths=(3, 40, 40, 1))
    result = CliRunner().invoke(app, ["laws", "--layer-widths", "3,40,40,1", "--cache-dir", str(tmp_path)])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "'--layer-widths'" in lines[0] and "at most 60 parameters" in lines[0], result.output
    assert not any(tmp_path.iterdir())


def test_cli_json_prints_n_laws(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["laws", "--layer-widths", "3,2,2,3", "--activation", "linear", "--json", "--cache-dir", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    record = json.loads(result.output.strip().splitlines()[-1])
    assert record["result"]["n_laws"] == 6 and record["result"]["others"] == 0
