"""Figure 1 (C1 invisibility, C2 visible): the sidecar's numbers against independent references —
the closed-form gauge map of SPEC §1, the closed-form initial loss, and the reduced ``(c, θ)``
solver of :mod:`gaugecli.core.reduced.planar` for the states at ``T_spec(+D)`` and the gap between
students — and every sidecar series drawn, every text at least 7 pt."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _quick_runs import QuickRuns

from gaugecli.core.reduced.planar import solve_reduced
from gaugecli.plots import fig1, style
from gaugecli.plots.venue import MIN_TEXT_PT, layout

C0, A_STAR, THETA0, D = 0.1, 1.0, math.pi / 2, fig1.STRENGTH
DELTAS = {"favorable": D, "balanced": 0.0, "unfavorable": -D}


def _g(phi: float) -> float:
    """``g(φ) = (sin φ + (π − φ) cos φ)/(2π)``, written out here (not imported) for the references."""
    return (math.sin(phi) + (math.pi - phi) * math.cos(phi)) / (2 * math.pi)


@pytest.fixture(scope="module")
def inputs(quick_runs: QuickRuns) -> Any:
    return quick_runs.inputs("fig1")[0]


def _build(inputs: Any, width: float | None = None) -> tuple[Any, dict[str, Any]]:
    sizes = layout(width=width)
    with style.context(sizes):
        fig, panels = fig1.build(inputs, sizes)
        fig.canvas.draw()
    json.dumps(panels, allow_nan=False)  # the sidecar is plain JSON
    return fig, panels


@pytest.fixture(scope="module")
def built(inputs: Any) -> tuple[Any, dict[str, Any]]:
    return _build(inputs)


@pytest.fixture(scope="module")
def reduced() -> dict[str, Any]:
    """The three runs again, through the reduced (c, θ) equations (an independent solver)."""
    return {g: solve_reduced(np.array([delta]), t_max=1e3) for g, delta in DELTAS.items()}


def test_paths_stay_on_their_level_sets_from_the_initial_to_the_target_curve(built: Any) -> None:
    _, panels = built
    for gauge, delta in DELTAS.items():
        path = panels["a"][gauge]
        w, a = np.array(path["x"]), np.array(path["y"])
        # C2 along the plotted path: a² − ‖w‖² = δ to the solver's tolerance (measured ≤ 2.4e-9 at rtol 1e-10)
        assert np.max(np.abs(a**2 - w**2 - delta)) <= 1e-8 * max(1.0, abs(delta))
        # start: the SPEC §1 gauge map of c0, ‖w‖² = (−δ + √(δ² + 4c0²))/2 (measured to 1e-16)
        w0 = math.sqrt((-delta + math.sqrt(delta**2 + 4 * C0**2)) / 2)
        assert w[0] == pytest.approx(w0, rel=1e-12) and a[0] == pytest.approx(math.sqrt(delta + w0**2), rel=1e-12)
        # end: on the target curve |a|‖w‖ = a* (the flow stops at ‖∇L‖ ≤ 1e-10; measured ≤ 1e-10)
        assert w[-1] * a[-1] == pytest.approx(A_STAR, abs=1e-8)
        assert path["delta_drift"] <= 1e-8
    # the paths move: +D mostly in ‖w‖ (×9.7), −D mostly in |a| (×9.7), mirror images in the diagonal
    plus, minus = panels["a"]["favorable"], panels["a"]["unfavorable"]
    assert plus["end"][0] / plus["start"][0] > 9 and plus["end"][1] / plus["start"][1] < 1.05
    assert minus["end"] == pytest.approx(plus["end"][::-1], rel=1e-8)


def test_initial_predictions_and_loss_are_the_same_in_every_gauge(built: Any) -> None:
    fig, panels = built
    c1 = panels["b"]["invisibility"]
    assert c1["initial_prediction_relative_spread"] <= 1e-12
    assert c1["initial_prediction_vs_closed_form"] <= 1e-12
    assert c1["initial_loss_relative_spread"] <= 1e-12
    # L(0) = ½ (c0²/2 − 2 c0 a* g(θ0) + a*²/2), closed form
    loss0 = 0.5 * (C0**2 / 2 - 2 * C0 * A_STAR * _g(THETA0) + A_STAR**2 / 2)
    for value in c1["initial_loss"].values():
        assert value == pytest.approx(loss0, rel=1e-12)
    # (b, top) draws each gauge's own t = 0 prediction: f0 = c0 relu(cos(φ − θ0)), whatever δ
    curves = []
    for gauge, delta in DELTAS.items():
        initial = panels["b"][f"initial-{gauge}"]
        assert initial["t"] == 0.0 and initial["delta"] == pytest.approx(
            delta, abs=1e-12
        )  # exact by construction: the run's first declared time
        phi, y = np.array(initial["x"]), np.array(initial["y"])
        assert y == pytest.approx(C0 * np.maximum(np.cos(phi - THETA0), 0.0), abs=1e-15)
        curves.append(y)
    # the printed spread is the largest difference between the drawn curves: round-off (2.8e-17)
    spread = c1["drawn_max_difference"]
    assert spread == float(np.max(np.ptp(np.array(curves), axis=0))) and spread <= 1e-15
    assert spread <= c1["initial_prediction_max_difference"]  # on a part of (−π, π]
    mantissa, exponent = f"{spread:.1e}".split("e")
    printed = rf"{mantissa}\times10^{{{int(exponent)}}}" if spread else "0"
    assert any(printed in t.get_text() for t in fig.findobj(match=lambda a: hasattr(a, "get_text")))
    # the three curves keep distinct dash patterns (and markers), so that all three show on top of each other
    assert len({str(dashes) for dashes in fig1.INITIAL_DASHES.values()}) == 3
    lines = [ln for ln in _axes_by_panel(fig)["b"][0].get_lines() if ln.get_color() != style.GUIDE]  # not v, u0
    assert len(lines) == 3 and len({(str(ln._unscaled_dash_pattern), ln.get_marker()) for ln in lines}) == 3


def _reference_gap(reduced: dict[str, Any], t: float) -> float:
    """``‖f₊ − f₋‖/‖y‖`` from the reduced flows (a converged run keeps its last state)."""
    plus, minus = reduced["favorable"], reduced["unfavorable"]
    (cp,), (tp,) = plus.dense(min(t, plus.t[-1]))
    (cm,), (tm,) = minus.dense(min(t, minus.t[-1]))
    return math.sqrt(max(cp**2 / 2 + cm**2 / 2 - 2 * cp * cm * _g(abs(tp - tm)), 0.0)) / (A_STAR / math.sqrt(2))


def test_gap_between_students_matches_the_reduced_flow(built: Any, reduced: dict[str, Any]) -> None:
    _, panels = built
    c = panels["c"]
    t, gap = np.array(c["gap"]["x"]), np.array(c["gap"]["y"], dtype=float)  # null (masked) → NaN
    for i in np.searchsorted(t, [0.01, 0.1, 1.0, 3.0, 10.0, 30.0, 100.0, 200.0]):
        dist = _reference_gap(reduced, t[i])
        if np.isfinite(gap[i]):
            # both runs' own states at a time both store (no interpolation): the two integrators
            # (rtol 1e-10 and 1e-12) agree to ~1e-9 (measured ≤ 1.3e-9)
            assert gap[i] == pytest.approx(dist, abs=1e-7)
        else:  # masked as round-off only where both students are the teacher
            assert dist < 1e-5
    # invisible at the start (t = 0.01: 1.1 % of ‖y‖, growing ∝ t), of the teacher's size in between
    assert gap[0] < 0.02 and c["peak"] > 0.9
    masked = np.flatnonzero(~np.isfinite(gap))
    assert masked.size and masked[-1] == gap.size - 1 and np.all(np.diff(masked) == 1)  # only a tail
    assert t[masked[0]] > c["t_spec"]["unfavorable"] and np.nanmin(gap) >= fig1.GAP_FLOOR
    assert c["t_spec"]["favorable"] < c["t_peak"] < c["t_spec"]["unfavorable"]


def test_window_ends_are_the_roots_of_the_gap(built: Any, reduced: dict[str, Any]) -> None:
    """(c)'s window: its ends are roots of gap − ½ (brentq on the reduced flow's dense output),
    checked against this file's own reduced solve and against the full runs, which store their
    states at exactly those times; the gap exceeds ½ inside and not outside."""
    _, panels = built
    c = panels["c"]
    lo, hi = c["window_above_half"]
    assert 0.41 < lo < c["t_spec"]["favorable"] < c["t_spec"]["balanced"] < hi < 29.0 < c["t_spec"]["unfavorable"]
    assert c["window"]["x"] == [lo, hi] and c["window"]["crossings"] == [lo, hi]  # two crossings only
    # ½ at the roots: the figure's reduced flow to round-off (brentq xtol 1e-14 in t, |gap'| ≤ 1),
    # this test's reduced flow (another convergence stop) and the full runs (rtol 1e-10; measured
    # 2e-11 and 6e-10) to the integrators' tolerance
    assert c["window"]["reduced_gap_at_ends"] == pytest.approx([0.5, 0.5], abs=1e-12)
    assert [_reference_gap(reduced, end) for end in (lo, hi)] == pytest.approx([0.5, 0.5], abs=1e-8)
    assert c["window"]["y"] == pytest.approx([0.5, 0.5], abs=1e-8)
    inside = np.geomspace(lo * (1 + 1e-4), hi * (1 - 1e-4), 41)
    assert all(_reference_gap(reduced, s) > 0.5 for s in inside)
    assert _reference_gap(reduced, lo * (1 - 1e-4)) < 0.5 and _reference_gap(reduced, hi * (1 + 1e-4)) < 0.5
    # the drawn (stored) gap agrees: above ½ strictly inside, below outside
    t, gap = np.array(c["gap"]["x"]), np.array(c["gap"]["y"], dtype=float)
    within = (t > lo) & (t < hi)
    assert np.all(gap[within] > 0.5) and np.all(np.nan_to_num(gap[(t < lo) | (t > hi)]) < 0.5)
    assert np.count_nonzero(t == lo) == 1 and np.count_nonzero(t == hi) == 1
    assert panels["key"]["window_above_half"] == [lo, hi] and panels["key"]["D"] == D


def _axes_by_panel(fig: Any) -> dict[str, list[Any]]:
    """Each panel's axes: (b) has two, the states at t = 0 (titled) and at T_spec(+D) (labelled)."""
    out: dict[str, list[Any]] = {}
    for ax in fig.axes:
        letter = ax.get_title(loc="left").strip("()") or ("b" if ax.get_label() == "b-at-t_mark" else "")
        out.setdefault(letter, []).append(ax)
    return out


def test_every_series_is_drawn_and_no_text_is_below_7pt(built: Any) -> None:
    from matplotlib.text import Text

    fig, panels = built
    axes = _axes_by_panel(fig)
    assert set(axes) == {"a", "b", "c"} and len(axes["b"]) == 2
    drawn = 0
    for letter in "abc":
        lines = [ln for ax in axes[letter] for ln in ax.get_lines() if len(ln.get_xdata()) > 0]
        for value in panels[letter].values():
            if isinstance(value, dict) and "x" in value and "y" in value:
                x, y = np.array(value["x"], float), np.array(value["y"], float)
                assert any(
                    np.shape(ln.get_xdata()) == x.shape
                    and np.allclose(ln.get_xdata(), x)
                    and np.allclose(ln.get_ydata(), y, equal_nan=True)
                    for ln in lines
                ), f"({letter}) does not draw {value.get('delta', '')} (n={x.size})"
                drawn += 1
    assert drawn == (2 + 5 + 3) + (3 + 1 + 2) + (1 + 1)  # curves, level sets, paths | f0 ×3, teacher, ±D | gap, window
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    assert len(texts) > 20
    assert min(t.get_fontsize() for t in texts) >= MIN_TEXT_PT
    assert fig.get_size_inches()[0] == pytest.approx(layout().width)


def test_one_legend_entry_per_object_and_D_stated(built: Any) -> None:
    fig, _ = built
    (legend,) = fig.legends
    labels = [t.get_text() for t in legend.get_texts()]
    assert len(labels) == len(set(labels)) == 6
    assert all(";" not in label for label in labels)  # no entry names two objects
    assert f"D={D:g}" in legend.get_title().get_text().replace(" ", "")


def test_narrow_width_stacks_the_panels_in_one_column(inputs: Any) -> None:
    from matplotlib.text import Text

    fig, _ = _build(inputs, width=3.4)
    boxes = {ax.get_title(loc="left"): ax.get_position() for ax in fig.axes}
    assert boxes["(a)"].y0 > boxes["(b)"].y1 and boxes["(b)"].y0 > boxes["(c)"].y1  # top to bottom
    # one column: every panel within (b)'s span (the equal-aspect map (a) is narrower, drawn inside it)
    span = boxes["(b)"]
    assert all(b.x0 >= span.x0 - 1e-3 and b.x1 <= span.x1 + 1e-3 for b in boxes.values())
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    assert min(t.get_fontsize() for t in texts) >= MIN_TEXT_PT
    assert fig.get_size_inches()[0] == pytest.approx(3.4)


def test_needs_are_the_shared_default_runs(tmp_path: Path) -> None:
    from gaugecli.experiments.simulate import SimulateConfig

    needs = fig1.needs(True)
    assert needs == fig1.needs(False)
    assert {n: (need.kind, need.config) for n, need in needs.items()} == {
        g: ("simulate", SimulateConfig(gauge=g, strengths=(4.0,))) for g in DELTAS
    }


def test_the_slice_is_ticked_in_angles_with_v_and_u0_named_by_guides(built: Any) -> None:
    """(b): tick labels are angles (−π/2, 0, π/2, π), not vectors; v and u0 are named beside the
    dotted guides at φ = 0 and φ = θ0 (π/2 for the SPEC defaults)."""
    fig, _ = built
    _, lower = _axes_by_panel(fig)["b"]
    labels = [t.get_text() for t in lower.get_xticklabels()]
    assert labels == [r"$-\pi/2$", "0", r"$\pi/2$", r"$\pi$"]
    guides = sorted(float(ln.get_xdata()[0]) for ln in lower.get_lines() if ln.get_color() == style.GUIDE)
    assert guides == pytest.approx([0.0, THETA0], abs=1e-15)
    assert {t.get_text() for t in lower.texts} >= {"$v$", "$u_0$"}
