"""Figure 9 (beyond the paper: weight decay) on the quick profile (D ∈ {4, 16}, λ ∈ {0, 1e-3, 1e-2,
1e-1}): the law δ(0)e^{−2λt} along the drawn runs, the λ = 0 ratio as the paper's, the collapse of the
separation on λ·T_spec(−D), GD's per-step identity, and selection without pruning under decay, with its
exclusivity boundary checked by an independent run at the located λ*."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _quick_runs import QuickRuns

from gaugecli.experiments.simulate import SimulateConfig, simulate
from gaugecli.plots import fig9, render, style
from gaugecli.plots.venue import MIN_TEXT_PT, layout


@pytest.fixture(scope="module")
def built(quick_runs: QuickRuns) -> Any:
    with quick_runs.locked("fig9") as pipeline:
        inputs, _ = render.resolve(fig9.needs(True), pipeline)
    venue = layout()
    with style.context(venue):
        fig, panels = fig9.build(inputs, venue)
        fig.canvas.draw()
        yield fig, panels
    fig.clear()


def test_at_zero_decay_the_runs_are_the_papers(built: Any) -> None:
    """λ = 0 is the default model: the same configuration (and cache key) as fig3's runs."""
    _, panels = built
    for D in fig9.STRENGTHS[True]:
        plus, minus = (simulate(SimulateConfig(gauge=g, strengths=(D,)))[0].t_spec for g in fig9.GAUGES)
        assert panels["key"]["ratio_at_zero"][f"D{D:g}"] == pytest.approx(minus / plus, rel=1e-12)


def test_the_drawn_imbalance_follows_its_law(built: Any) -> None:
    """(c): δ(t)/δ(0) against e^{−2λt} at every drawn time, to the 1e-8 of C2 (relative to max(1, |δ(0)|),
    i.e. 1e-8·max(1, D)/D in the ratio)."""
    _, panels = built
    c = panels["c"]
    for g in fig9.GAUGES:
        t, y = np.array(c[g]["x"]), np.array(c[g]["y"])
        law = np.exp(-2.0 * fig9.LAW_DECAY * t)
        assert np.max(np.abs(y - law)) <= 1e-8
        assert c[g]["drift"] <= 1e-8


def test_decay_removes_the_separation_once_lambda_t0_is_of_order_one(built: Any) -> None:
    """(a, b): the ratio falls with λ for every D; it keeps ≥ 80 % of its λ = 0 value while
    λ·T₀(−D) ≤ 0.2 and has lost more than half once λ·T₀(−D) ≥ 4 (measured on the quick grid: 0.87 at 0.16, 0.37 at 4.2)."""
    _, panels = built
    for D in fig9.STRENGTHS[True]:
        a = np.array(panels["a"][f"D{D:g}"]["y"])
        assert np.all(np.diff(a) < 0) and a[0] < panels["a"][f"D{D:g}"]["at_zero"]
        x, y = np.array(panels["b"][f"D{D:g}"]["x"]), np.array(panels["b"][f"D{D:g}"]["y"])
        assert np.all(y[x <= 0.2] >= 0.8)
        assert np.all(y[x >= 4.0] < 0.5)
        assert np.any(x >= 4.0)


def test_selection_holds_under_decay_but_pruning_stops(built: Any) -> None:
    """(e, f): the owner takes the feature in every cell (non-owners' share < 1 %); P_end ≤ 1e-6 at
    λ = 0, and decay holds the non-owners at a level ∝ λ as λ → 0 — linear response, whose relative
    correction is O(λ): the log–log slope between λ = 1e-7 and 1e-6 is 1 within 5 %."""
    _, panels = built
    grid = panels["e"]["grid"]
    decays, P = np.array(grid["weight_decay"]), np.array(grid["P_end"], float)
    assert np.all(np.array(grid["selected"])) and panels["key"]["largest_nonowner_share"] < 0.01
    assert np.all(P[:, decays == 0] <= fig9.PRUNED)
    assert np.all(P[:, decays > 0] > 1e3 * P[:, decays == 0])
    i, j = list(decays).index(1e-7), list(decays).index(1e-6)
    slope = np.log(P[:, j] / P[:, i]) / np.log(decays[j] / decays[i])
    assert np.all(np.abs(slope - 1.0) < 0.05), slope


def test_the_exclusivity_boundary_is_where_an_independent_run_has_p_end_at_the_level(built: Any) -> None:
    """λ*(D), located by log–log interpolation on the grid, is where a `select` run of its own ends at
    P_end = 1e-6: within 10 %, the interpolation's error where ln P is linear in ln λ to ~5 % of a decade."""
    from gaugecli.experiments.config import ModelConfig
    from gaugecli.experiments.select import SelectConfig, select

    _, panels = built
    b = panels["e"]["boundary"]
    for D, lam_star in zip(b["x"], b["y"], strict=True):
        run = select(SelectConfig(model=ModelConfig(weight_decay=lam_star), strength=D)).runs[0]
        assert float(run.nonowner_norm[-1]) == pytest.approx(fig9.PRUNED, rel=0.1), (D, lam_star)


def test_gradient_descent_departs_from_the_law_by_its_per_step_identity_only(built: Any) -> None:
    """(d): the identity's δ and GD's differ by accumulated round-off (16 ε per step, relative to
    max(a², ‖w‖²)/|δ(0)| ≤ 2); GD's departure from the flow's law is ≥ 10⁶ times larger."""
    _, panels = built
    for g in fig9.GAUGES:
        d = panels["d"][g]
        steps = fig9.STEP_HORIZON / d["eta"]
        residual = np.array(d["residual"], float)
        assert np.max(residual) <= 16 * np.finfo(float).eps * steps * 2.0
        assert np.max(np.array(d["y"], float)) >= 1e6 * np.max(residual)
        np.testing.assert_allclose(d["predicted"], d["y"], rtol=1e-6, atol=1e-12)


def test_text_is_at_least_seven_points(built: Any) -> None:
    fig, _ = built
    sizes = [t.get_fontsize() for t in fig.findobj(lambda o: hasattr(o, "get_fontsize")) if t.get_text()]
    assert min(sizes) >= MIN_TEXT_PT - 1e-9
