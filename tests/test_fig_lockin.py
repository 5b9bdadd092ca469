"""Figure ``lockin`` (quick profile): what of Xu's and Tian's study transfers — the sidecar's key numbers
against independent expectations (the closed-form separation rate of a −D pair, ln(1/ε_machine), the exact
rank one of aligned duplicates, the 1/D law of the rank-2 peak) and equal to the lockin result's; every
sidecar series drawn on its panel, every text at least 7 pt, legends clear of the data, squares only for
the −D gauge, and the figure at most 4.5 in tall. Its nulls are ``lockin_nulls`` (test_fig_lockin_nulls.py)."""

from __future__ import annotations

import json
import math
from typing import Any

import _figure_checks as checks
import numpy as np
import pytest
from _quick_runs import QuickRuns

from gaugecli.plots import FIGURES, lockin, style
from gaugecli.plots.render import resolve
from gaugecli.plots.venue import layout

CONFIG = lockin.needs(True)["lockin"].config
D = CONFIG.strengths[0]
MAX_HEIGHT_IN = 4.5


@pytest.fixture(scope="module")
def built(quick_runs: QuickRuns) -> tuple[Any, dict[str, Any], Any]:
    """The quick profile computed once (≈ 4 s on one core: 5 flows, 2 ReLU and 2 x² finite-sample runs, tiny scans)."""
    with quick_runs.locked("lockin") as pipeline:
        inputs, _ = resolve(lockin.needs(True), pipeline)
    sizes = layout()
    with style.context(sizes):
        fig, panels = lockin.build(inputs, sizes)
        fig.canvas.draw()
    return fig, json.loads(json.dumps(panels, allow_nan=False)), inputs["lockin"]


def _runs(result: Any, **where: Any) -> list[Any]:
    return [r for r in result.runs if all(getattr(r, k) == v for k, v in where.items())]


def test_registered() -> None:
    assert "lockin" in FIGURES and lockin.CLAIM
    assert set(lockin.TITLES) == set("abcd")


def test_minus_pair_separation_rate_and_round_off_exponent(built: Any) -> None:
    panels, result = built[1]["c"], built[2]
    minus = panels[f"flow_relu_all-minus_D{D:g}"]
    # λ_anti(0) of a −D pair → ‖(c0/2 − 1/2π) u0 − v/4‖ (u0 ⊥ v, unit) with relative error ≈ 0.0098/D (measured D = 1…64)
    c0 = CONFIG.model.c0
    limit = math.hypot(c0 / 2 - 1 / (2 * math.pi), 0.25)
    assert abs(minus["lambda_anti_0"] - limit) / limit <= 0.02 / D
    # all −D duplicates separate past ln(1/ε_machine): round-off decides them; select's −D pair is pruned first
    assert minus["Lambda_total"] > -math.log(np.finfo(float).eps) > 36.0
    assert panels[f"flow_relu_select_D{D:g}"]["Lambda_total"] < 0.2
    # the numbers are the result's
    for run in _runs(result, mode="flow", control=False, D=D):
        entry = panels[f"flow_relu_{run.assign}_D{D:g}"]
        assert entry["Lambda_total"] == run.Lambda_total
        assert entry["Lambda_over_mD"] == pytest.approx(run.Lambda_total / (CONFIG.m * D), rel=1e-15)


def test_rank2_share_collapses_as_one_over_D_and_peaks_near_t_spec(built: Any) -> None:
    a, b = built[1]["a"], built[1]["b"]
    result = built[2]
    scan = b["flow_scan"]
    assert b["D_times_peak_spread"] <= 0.01  # measured 0.25 % over D = 2…32
    assert all(0.9 <= t <= 1.1 for t in scan["t_peak"])  # peak within 10 % of T_spec (measured 1.05–1.06)
    flow = a[f"flow_relu_select_D{D:g}"]["D_times_peak"]
    assert np.median(scan["y"]) == pytest.approx(flow, rel=0.01)
    # independently: the spread is the scan's own, and the scan is the result's
    assert b["D_times_peak_spread"] == pytest.approx(max(scan["y"]) / min(scan["y"]) - 1.0, rel=1e-12)
    assert scan["y"] == [row["D_times_peak"] for row in result.rank2_collapse]
    # finite sample (n = 1000): the same peak within 10 % (measured 2 %)
    assert b["sample_select"]["y"][0] == pytest.approx(flow, rel=0.1)
    sample = _runs(result, mode="sample", activation="relu", control=False)
    assert b["sample_select"]["y"] == [r.D * r.rank2_peak for r in sample]
    # aligned duplicates stay equal: the update has rank one, σ2 is exactly zero in the flow
    assert max(b["flow_control"]["y"]) <= 1e-14
    assert max(b["sample_control"]["y"]) < 0.1 * flow


def test_the_perturbation_scan(built: Any) -> None:
    d, result = built[1]["d"], built[2]
    # perturbing the duplicates by ε (1e-16, 1e-8): select's T_spec does not move; all −D's does, by
    # ~ln(ε)/λ_anti (measured 0.98 at ε = 1e-16, 0.60 at 1e-8 of the unperturbed value)
    assert np.allclose(style.as_array(d["select"]["y"]), 1.0, atol=1e-6)
    moved = style.as_array(d["all-minus"]["y"])
    assert moved[-1] < 0.8 and moved[-1] < moved[0]
    assert d["select"]["x"] == [row["eps"] for row in result.tspec_vs_eps]
    reference = d["all-minus"]["reference_t_spec"]
    assert moved * reference == pytest.approx([row["all-minus"] for row in result.tspec_vs_eps], rel=1e-14)


def test_the_nulls_are_not_here(built: Any) -> None:
    """Xu's detector and Tian's sign rule moved to lockin_nulls; no flat identity panel remains."""
    fig, panels, _ = built
    assert set(panels) == {"a", "b", "c", "d", "legend", "key"}  # key: the quoted ranges (READINGS)
    for ax in checks.panel_axes(fig).values():
        for line in ax.get_lines():
            y = np.asarray(line.get_ydata(), float)
            assert not (y.size > 3 and line.get_marker() == "v" and np.allclose(y, 1.0)), "the sign rate is drawn"


# ------------------------------------------------------------------------------------------
# conventions, shared with test_fig_lockin_nulls.py (copied there: tests import no test module)


def test_every_sidecar_series_is_drawn(built: Any) -> None:
    fig, panels, _ = built
    checks.assert_every_series_drawn(fig, panels, "abcd")


def test_text_is_at_least_7_pt_and_the_figure_at_most_4_5_in_tall(built: Any) -> None:
    checks.assert_text_and_height(built[0], MAX_HEIGHT_IN)


def test_legends_are_clear_of_the_data_and_squares_mean_minus_D(built: Any) -> None:
    fig, _, _ = built
    for letter, ax in checks.panel_axes(fig).items():
        legend = ax.get_legend()
        if legend is not None:
            box = legend.get_window_extent()
            assert checks.covers(box, checks.data_points(ax)) == 0, f"panel {letter}: the legend covers data"
        for line in ax.get_lines():
            if line.get_marker() == "s":
                assert line.get_color() == style.MINUS, f"panel {letter}: a square that is not the −D gauge"


def test_every_tolerance_rule_names_a_sidecar_number(built: Any) -> None:
    """The rules moved with their series: each still matches a number this figure writes."""
    checks.assert_rules_name_sidecar_numbers(built[1], lockin.SIDECAR_TOLERANCES)
