"""Figure ``lockin`` (quick profile): the sidecar's key numbers against independent expectations — the
closed-form separation rate of a −D pair, ln(1/ε_machine), the exact rank one of aligned duplicates,
d-independence of the flow in span(v, u0), Tian's duplicates closed form — every sidecar series drawn on
its panel, and every text at least 7 pt."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest
from matplotlib.text import Text

from gaugecli.pipeline import Pipeline
from gaugecli.plots import FIGURES, lockin, style
from gaugecli.plots.render import resolve
from gaugecli.plots.venue import MIN_TEXT_PT, layout

CONFIG = lockin.needs(True)["lockin"].config
D = CONFIG.strengths[0]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, dict[str, Any]]:
    """The quick profile computed once (≈ 4 s on one core: 5 flows, 2 ReLU and 2 x² finite-sample runs, tiny scans)."""
    inputs, _ = resolve(lockin.needs(True), Pipeline(tmp_path_factory.mktemp("lockin-cache")))
    sizes = layout()
    with style.context(sizes):
        fig, panels = lockin.build(inputs, sizes)
        fig.canvas.draw()
    return fig, json.loads(json.dumps(panels, allow_nan=False))


def test_registered() -> None:
    assert "lockin" in FIGURES and lockin.CLAIM


def test_minus_pair_separation_rate_and_round_off_exponent(built: Any) -> None:
    panels = built[1]["f"]
    minus = panels[f"flow_relu_all-minus_D{D:g}"]
    # λ_anti(0) of a −D pair → ‖(c0/2 − 1/2π) u0 − v/4‖ (u0 ⊥ v, unit) with relative error ≈ 0.0098/D (measured D = 1…64)
    c0 = CONFIG.model.c0
    limit = math.hypot(c0 / 2 - 1 / (2 * math.pi), 0.25)
    assert abs(minus["lambda_anti_0"] - limit) / limit <= 0.02 / D
    # all −D duplicates separate past ln(1/ε_machine): round-off decides them; select's −D pair is pruned first
    assert minus["Lambda_total"] > -math.log(np.finfo(float).eps) > 36.0
    assert panels[f"flow_relu_select_D{D:g}"]["Lambda_total"] < 0.2


def test_rank2_share_collapses_as_one_over_D_and_peaks_near_t_spec(built: Any) -> None:
    a, b = built[1]["a"], built[1]["b"]
    scan = b["flow_scan"]
    assert b["D_times_peak_spread"] <= 0.01  # measured 0.25 % over D = 2…32
    assert all(0.9 <= t <= 1.1 for t in scan["t_peak"])  # peak within 10 % of T_spec (measured 1.05–1.06)
    flow = a[f"flow_relu_select_D{D:g}"]["D_times_peak"]
    assert np.median(scan["y"]) == pytest.approx(flow, rel=0.01)
    # finite sample (n = 1000): the same peak within 10 % (measured 2 %)
    assert b["sample_select"]["y"][0] == pytest.approx(flow, rel=0.1)
    # aligned duplicates stay equal: the update has rank one, σ2 is exactly zero in the flow
    assert max(b["flow_control"]["y"]) <= 1e-14
    assert max(b["sample_control"]["y"]) < 0.1 * flow


def test_xu_detector_round_off_and_the_x2_positive(built: Any) -> None:
    c, d = built[1]["c"], built[1]["d"]
    # the aligned control flow's updates have rank one: λ3 (and λ2) are round-off in every window
    assert f"flow_relu_control_D{D:g}" in c["in_band_throughout"]
    assert c[f"flow_relu_control_D{D:g}"]["roundoff_fraction"] == 1.0
    # σ = x²: the floored detector fires in the select run and not in its aligned control (Xu's positive)
    assert d["x² select"]["detector_fire_floored_count"] == 1
    assert d["x² control"]["detector_fire_floored_count"] == 0
    assert d["flow control"]["detector_fire_floored_count"] == 0


def test_tian_b_and_the_perturbation_scan(built: Any) -> None:
    g, h = built[1]["g"], built[1]["h"]
    # duplicates have identical columns: B_jl = −g/(η(η + k g)) < 0 for every similar pair, so the rate is 1
    assert g["informative_rate_min"] == 1.0
    assert g["sign_identity_residual_max"] < 1e-11  # f̃_jᵀP_ηf̃_l = −η²B_jl to round-off
    # perturbing the duplicates by ε (1e-16, 1e-8): select's T_spec does not move; all −D's does, by
    # ~ln(ε)/λ_anti (measured 0.98 at ε = 1e-16, 0.60 at 1e-8 of the unperturbed value)
    assert np.allclose(style.as_array(h["select"]["y"]), 1.0, atol=1e-6)
    moved = style.as_array(h["all-minus"]["y"])
    assert moved[-1] < 0.8 and moved[-1] < moved[0]


def _series(node: Any, path: str = "") -> list[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        if "x" in node and "y" in node:
            return [(path, node)]
        return [item for k, v in node.items() for item in _series(v, f"{path}/{k}")]
    return []


def test_every_sidecar_series_is_drawn(built: Any) -> None:
    fig, panels = built
    for ax, letter in zip(fig.axes, "abcdefgh", strict=True):
        lines = [(np.asarray(ln.get_xdata(), float), np.asarray(ln.get_ydata(), float)) for ln in ax.get_lines()]
        found = _series(panels[letter])
        assert found, letter
        for name, s in found:
            x, y = style.as_array(s["x"]), style.as_array(s["y"])
            assert any(
                lx.shape == x.shape and np.allclose(lx, x, equal_nan=True) and np.allclose(ly, y, equal_nan=True)
                for lx, ly in lines
            ), f"panel {letter}: series {name} is not drawn"


def test_text_is_at_least_7_pt(built: Any) -> None:
    fig, _ = built
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    assert texts and min(t.get_fontsize() for t in texts) >= MIN_TEXT_PT
