"""The compiled momentum loop (:mod:`gaugecli.core.integrate.momentum_loop`) against the package's momentum
GD, and tools/momentum_exponent.py's table against its JSON (docs/howto/optimizers.md)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from gaugecli.core.integrate.momentum_loop import momentum_crossing_steps
from gaugecli.core.model.gauge import duplicate_initial_condition
from gaugecli.core.model.model import standard_model
from gaugecli.experiments.config import DynamicsConfig, ModelConfig
from gaugecli.experiments.simulate import SimulateConfig, simulate

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("gauge", ["favorable", "unfavorable"])
def test_the_loop_crosses_where_the_packages_momentum_does(gauge: str) -> None:
    """T_spec(±4)/η of the loop in the teacher's plane (d = 2) against ``simulate --mode gd --optimizer
    momentum`` in d = 16 (its own basis, numpy's sums) at η = h², β = 1 − 2h, h = 0.04: the same iterates
    summed in another order, so the crossing agrees to round-off — within 1e-6 steps (the iterates differ
    by ~k·ε relative over k ≤ 2200 steps, and α moves ≥ 1e-4 a step near the crossing)."""
    h, D = 0.04, 4.0
    delta = D if gauge == "favorable" else -D
    a0, W0 = duplicate_initial_condition(standard_model(2), np.array([delta]), 0.1, np.pi / 2)
    steps = momentum_crossing_steps(a0, W0, np.array([1.0, 0.0]), 1.0, 1.0 - 2.0 * h, h * h, 0.01, 10**6)
    dynamics = DynamicsConfig(
        mode="gd", optimizer="momentum", eta=h * h, momentum=1.0 - 2.0 * h, t_max=1.3 * steps * h * h
    )  # type: ignore[arg-type]
    run = simulate(SimulateConfig(model=ModelConfig(eps_align=0.01), dynamics=dynamics, gauge=gauge, strengths=(D,)))[0]
    assert run.t_spec is not None
    assert abs(run.t_spec / (h * h) - steps) <= 1e-6, (run.t_spec / (h * h), steps)


def test_the_loop_reports_no_crossing_within_its_budget() -> None:
    """A −4 neuron needs ~2150 steps at h = 0.04: within 100 there is none (NaN)."""
    a0, W0 = duplicate_initial_condition(standard_model(2), np.array([-4.0]), 0.1, np.pi / 2)
    assert np.isnan(momentum_crossing_steps(a0, W0, np.array([1.0, 0.0]), 1.0, 0.92, 0.0016, 0.01, 100))


def test_the_howtos_table_is_the_jsons() -> None:
    """docs/howto/optimizers.md shows tools/momentum_exponent.json as ``--render`` prints it, and the resolved
    series agree with the heavy-ball flow's local slopes within 0.01 (the scheme's O(h) error: the two h₀
    differ by ≤ 0.002) at every D — the finding the page states."""
    spec = importlib.util.spec_from_file_location("momentum_exponent", ROOT / "tools" / "momentum_exponent.py")
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    data = json.loads(tool.JSON.read_text(encoding="utf-8"))
    block = f"{tool.BEGIN}\n{tool.render(data)}\n{tool.END}"
    assert block in tool.DOC.read_text(encoding="utf-8"), "stale: python tools/momentum_exponent.py --write"
    flow = np.asarray(data["heavy_ball_flow"]["local_slopes"])
    for series in data["series"][:-1]:
        assert np.all(np.abs(np.asarray(series["local_slopes"]) - flow) <= 0.01), series["name"]
