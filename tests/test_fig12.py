"""Figure 12 (beyond the paper: the gauge under momentum, Adam and AdamW) on the quick profile.

The plotted Adam ratios against ``torch.optim.Adam`` stepped by hand on a torch version of the closed-form
population loss; the heavy-ball pair against small-step momentum (``η = h²``, ``β = 1 − γh``) by Richardson
extrapolation in h; the separation laws' local slopes against their exponents 2 and 3/2; the selection
map's boundary against the sidecar's own classes. Layout and readings: tests/test_layout.py and
tests/test_readings.py cover every registered figure."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest
import torch
from _quick_runs import QuickRuns

from gaugecli.plots import _fig12_runs as runs
from gaugecli.plots import render


@pytest.fixture(scope="module")
def sidecar(tmp_path_factory: pytest.TempPathFactory, quick_runs: QuickRuns) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("fig12")
    with quick_runs.locked("fig12") as pipeline:
        render.render("fig12", pipeline, out, formats=("png",), quick=True)
    return json.loads((out / "fig12.json").read_text())["result"]["panels"]


def _torch_adam_steps(delta: float, lr: float, d: int = 16, c0: float = 0.1, limit: int = 10**5) -> int:
    """The first step k at which ``α = w·v/‖w‖ ≥ 1 − ε_align`` under ``torch.optim.Adam`` (torch's defaults)
    on ``L = ½ E[(a relu(w·x) − relu(v·x))²]``, x ~ N(0, I_d), v = e1, from ``w ∝ e2`` with ``a‖w‖ = c0``
    and ``a² − ‖w‖² = δ`` — the arc-cosine kernel written out in torch, not the package's code."""
    w0 = math.sqrt((-delta + math.sqrt(delta**2 + 4 * c0**2)) / 2)
    a = torch.tensor(c0 / w0, dtype=torch.float64, requires_grad=True)
    w = torch.zeros(d, dtype=torch.float64)
    w[1] = w0
    w.requires_grad_(True)
    v = torch.zeros(d, dtype=torch.float64)
    v[0] = 1.0
    opt = torch.optim.Adam([a, w], lr=lr)
    for k in range(1, limit + 1):
        opt.zero_grad()
        nw = torch.linalg.norm(w)
        cos = torch.clamp(w @ v / nw, -1.0, 1.0)
        theta = torch.arccos(cos)
        cross = nw * (torch.sin(theta) + (math.pi - theta) * cos) / (2 * math.pi)
        loss = 0.5 * (0.5 + a**2 * 0.5 * nw**2 - 2 * a * cross)
        loss.backward()
        opt.step()
        with torch.no_grad():
            if float(w[0] / torch.linalg.norm(w)) >= 1.0 - runs.EPS_ALIGN:
                return k
    raise AssertionError("torch's Adam did not align")


@pytest.mark.parametrize("D", [4.0, 64.0])
def test_the_plotted_adam_times_are_torchs_step_counts(sidecar: dict[str, Any], D: float) -> None:
    """T_spec(±D)/η of the figure's Adam runs lies in torch's step bracket (k − 1, k]: the package locates
    the crossing between the steps that straddle it. The bracket is exact; 1e-9 steps of slack cover the
    round-off of two differently ordered sums over ~1600 steps (k·ε·scale ≈ 1e-12)."""
    key = sidecar["key"]
    i = key["strengths"]["adam"].index(D)
    for delta, t in ((D, key["t_plus"]["adam"][i]), (-D, key["t_minus"]["adam"][i])):
        k = _torch_adam_steps(delta, runs.ADAM_LR)
        steps = t / runs.ADAM_LR
        assert k - 1 - 1e-9 < steps <= k + 1e-9, (delta, steps, k)


def test_the_heavy_ball_pair_is_the_limit_of_small_step_momentum(sidecar: dict[str, Any]) -> None:
    """The heavy-ball T_spec(±4) against the package's momentum GD at η = h², β = 1 − γh (t = kh, a
    first-order scheme; the momentum rule itself is checked against torch.optim in test_optimizers.py):
    the errors at h = 0.04 and 0.02 fall by 2 ± 0.2 (order 1), and Richardson's 2T(h/2) − T(h) is within
    a quarter of the h = 0.02 error (the remainder is O(h²), ~h × the first-order term; measured 0.04)."""
    from gaugecli.experiments.config import DynamicsConfig, ModelConfig
    from gaugecli.experiments.simulate import SimulateConfig, simulate

    key = sidecar["key"]
    i = key["strengths"]["heavy-ball"].index(4.0)
    for gauge, reference in (
        ("favorable", key["t_plus"]["heavy-ball"][i]),
        ("unfavorable", key["t_minus"]["heavy-ball"][i]),
    ):
        times = []
        for h in (0.04, 0.02):
            dynamics = DynamicsConfig(
                mode="gd",  # type: ignore[arg-type]
                optimizer="momentum",
                eta=h * h,
                momentum=1.0 - runs.FRICTION * h,
                t_max=1.3 * reference * h,
                max_steps=10**7,
            )
            model = ModelConfig(eps_align=runs.EPS_ALIGN)
            run = simulate(SimulateConfig(model=model, dynamics=dynamics, gauge=gauge, strengths=(4.0,)))[0]
            times.append(run.t_spec / h)
        coarse, fine = (abs(t - reference) for t in times)
        assert coarse / fine == pytest.approx(2.0, abs=0.2), (gauge, times, reference)
        assert abs(2 * times[1] - times[0] - reference) <= 0.25 * fine, (gauge, times, reference)


def test_the_laws_local_slopes(sidecar: dict[str, Any]) -> None:
    """At the quick profile's largest D: the flow's slope within 0.01 of C4's 2 (its O(1/D²) correction,
    measured 2e-3 at 16 → 64), the heavy ball's within 0.1 of 3/2 (the +D neuron's escape-time log moves
    it by ~1/ln D; measured 0.03 at 4 → 16, test_optimizers.py bounds the same law), Adam's between the
    flow's and 1/2 below the sign-like 1 — rising (finite-η: T(+D) shrinks towards a few steps)."""
    slopes = sidecar["key"]["slopes"]
    assert slopes["flow"][-1] == pytest.approx(2.0, abs=0.01)
    assert slopes["heavy-ball"][-1] == pytest.approx(1.5, abs=0.1)
    adam = np.asarray(slopes["adam"])
    assert np.all(np.diff(adam) > 0) and 0.5 < adam[-1] <= 1.0, adam


def test_the_selection_boundary_is_read_off_the_classes(sidecar: dict[str, Any]) -> None:
    """(d)'s largest exclusive η per D is the top exclusive row of the plotted class map (class 0), and
    at the quick map's D ≥ 4 selection under Adam is exclusive at its smallest η (the how-to's finding:
    the owner is sole survivor at η ≤ 1e-2)."""
    d = sidecar["d"]
    Z = np.asarray(d["values"], float)
    for ix, D in enumerate(d["strengths"]):
        rows = np.flatnonzero(Z[:, ix] == 0)
        expected = d["etas"][rows.max()] if rows.size else None
        assert d["exclusive_eta_max"][f"D{D:.4g}"] == expected
        if D >= 4:
            assert Z[0, ix] == 0, (D, Z[:, ix])


@pytest.mark.parametrize("letter", ["e", "f"])
def test_the_beta_maps_bounds_are_read_off_the_classes(sidecar: dict[str, Any], letter: str) -> None:
    """(e, f)'s least and largest exclusive β per D are the lowest and the top exclusive rows of the plotted
    class map (class 0); at D ≥ 4 momentum's map is exclusive on every row of the quick map (the heavy-ball
    flow's separation still grows like D^{3/2}: the figure's finding, read here off the quick map)."""
    panel = sidecar[letter]
    Z = np.asarray(panel["values"], float)
    for ix, D in enumerate(panel["strengths"]):
        rows = np.flatnonzero(Z[:, ix] == 0)
        assert panel["exclusive_min"][f"D{D:.4g}"] == (panel["rows"][rows.min()] if rows.size else None)
        assert panel["exclusive_max"][f"D{D:.4g}"] == (panel["rows"][rows.max()] if rows.size else None)
        if letter == "e" and D >= 4:
            assert np.all(Z[:, ix] == 0), (D, Z[:, ix])


def test_the_momentum_maps_beta_zero_row_is_plain_gd(sidecar: dict[str, Any]) -> None:
    """(e)'s β = 0 row against ``select`` under the plain GD rule (``optimizer="sgd"``, another class than
    the heavy ball's) at the same η and horizon: torch's momentum at β = 0 is ``θ ← θ − ηg``, so in every
    cell the +D neuron owns and the cell is exclusive exactly when GD's non-owner norm P(t_h) is at most the
    pruning level (its quick values sit decades from 1e-6: ~1e-10 pruned, ~1e-4 at D = 1/4)."""
    from gaugecli.experiments.config import DynamicsConfig
    from gaugecli.experiments.prune import PRUNED_LEVEL
    from gaugecli.experiments.select import SelectConfig, select

    panel = sidecar["e"]
    assert panel["rows"][0] == 0.0  # the map's first row is the axis' declared start β = 0: exact
    dynamics = DynamicsConfig(mode="gd", optimizer="sgd", eta=runs.BETA_STEP, t_max=runs.MOMENTUM_SELECT_HORIZON)  # type: ignore[arg-type]
    for ix, D in enumerate(panel["strengths"]):
        run = select(SelectConfig(dynamics=dynamics, strength=D)).runs[0]
        assert run.owner == 0 and run.specialized, (D, run.owner)
        exclusive = float(run.nonowner_norm[-1]) <= PRUNED_LEVEL
        assert (panel["values"][0][ix] == 0) == exclusive, (D, run.nonowner_norm[-1], panel["values"][0][ix])
