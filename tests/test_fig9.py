"""Figure 9 (beyond the paper: weight decay) on the quick profile (D ∈ {4, 16}, λ ∈ {0, 1e-3, 1e-2,
1e-1}): the law δ(0)e^{−2λt} along the drawn runs, the λ = 0 ratio as the paper's, the collapse of the
separation on λ·T_spec(−D), and selection without pruning under decay."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gaugecli.experiments.simulate import SimulateConfig, simulate
from gaugecli.pipeline import Pipeline
from gaugecli.plots import fig9, render, style
from gaugecli.plots.venue import MIN_TEXT_PT, layout


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Any:
    pipeline = Pipeline(Path(tmp_path_factory.mktemp("fig9-cache")))
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
    """(d): the owner takes the feature at every λ (share > 0.99), P_end ≤ 1e-6 only without decay."""
    _, panels = built
    for series in panels["d"].values():
        assert all(series["selected"]) and min(series["owner_share"]) > 0.99
        for lam, P in zip(series["weight_decay"], series["y"], strict=True):
            assert (P <= fig9.PRUNED) == (lam == 0.0), (lam, P)


def test_text_is_at_least_seven_points(built: Any) -> None:
    fig, _ = built
    sizes = [t.get_fontsize() for t in fig.findobj(lambda o: hasattr(o, "get_fontsize")) if t.get_text()]
    assert min(sizes) >= MIN_TEXT_PT - 1e-9
