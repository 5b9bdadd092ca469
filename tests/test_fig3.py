"""Figure 3 (claim C4) on the quick profile (D ∈ {1, 4, 16, 64}, ±D, m = 1): the sidecar's key
numbers against independent references — the reduced equations' D → ∞ limits and their
T_spec at large D, closed forms (mobility ratio, slow manifold c = 2a*g(θ)), the exponents
−1, +1, 2 — every sidecar series drawn on its panel, and no text below 7 pt."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from _quick_runs import QuickRuns

from gaugecli.core.reduced import limits
from gaugecli.core.reduced import planar as reduced
from gaugecli.plots import fig3, style
from gaugecli.plots.venue import MIN_TEXT_PT, layout

C0, THETA_EPS = 0.1, math.acos(0.99)  # SPEC defaults: c0 and the angle at α = 1 − ε_align


@pytest.fixture(scope="module")
def built(quick_runs: QuickRuns) -> Any:
    inputs, _ = quick_runs.inputs("fig3")  # needs, then (d)'s speed-ratio followups
    venue = layout()
    with style.context(venue):
        fig, panels = fig3.build(inputs, venue)
        fig.canvas.draw()
        yield fig, panels
    fig.clear()


def _y(series: dict[str, Any]) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in series["y"]], dtype=float)


def test_needs_are_the_default_single_neuron_runs() -> None:
    quick, full = fig3.needs(True), fig3.needs(False)
    flows = {name: need for name, need in full.items() if need.kind == "simulate"}
    assert (
        len([n for n in quick.values() if n.kind == "simulate"]) == 8 and len(flows) == 22
    )  # ±D × {1, 4, 16, 64}, × 2^0…2^10
    for need in flows.values():
        config = need.config
        assert config.m == 1 and config.model.c0 == C0 and len(config.strengths) == 1
    # and the reduced equations' runs of (c) and (f): the figure's own setting and two more per parameter
    reduced = {name: need.kind for name, need in full.items() if need.kind != "simulate"}
    assert reduced == {
        f"{run}-{s}": kind
        for run, kind in (("limits", "limit-constants"), ("slope", "ratio-slope"))
        for s in ("base", "c0-0", "c0-2", "theta0-0", "theta0-2", "eps_align-0", "eps_align-2")
    }


def test_reduced_limits_are_the_known_constants_and_the_large_D_reduced_times() -> None:
    """The asymptotes drawn in (c): the two limit equations against the constants quoted in the
    revision and against the reduced flow itself at D = 10⁴ (a different ODE: the corrections
    there are O(1/D²) ≈ 1e-8)."""
    F, U = limits.favorable_limit(), limits.unfavorable_limit()
    assert F == pytest.approx(1.753922567501, abs=2e-12)
    assert U == pytest.approx(10.080931302690, abs=2e-12)
    assert U / F == pytest.approx(5.747649, abs=1e-6)
    D = 1e4
    assert D * reduced.reduced_specialization_time(D) == pytest.approx(F, rel=1e-7)
    assert reduced.reduced_specialization_time(-D) / D == pytest.approx(U, rel=1e-7)


def test_compensated_times_converge_to_the_reduced_limits_at_order_two(built: Any) -> None:
    _, panels = built
    c = panels["c"]
    expected = {"favorable": limits.favorable_limit(), "unfavorable": limits.unfavorable_limit()}
    expected["ratio"] = expected["unfavorable"] / expected["favorable"]
    D = np.array(c["ratio"]["x"])
    np.testing.assert_array_equal(D, [1.0, 4.0, 16.0, 64.0])
    for key, limit in expected.items():
        assert c[f"{key}-limit"]["value"] == pytest.approx(limit, rel=1e-12)
        y = _y(c[key])
        # measured corrections are 0.08/D² (+D), 0.86/D² (−D), 0.96/D² (ratio): bound 1.5/D²
        assert np.all(np.abs(y[1:] / limit - 1.0) <= 1.5 / D[1:] ** 2), key
        assert c[f"{key}-correction-order"] == pytest.approx(2.0, abs=0.05), key
    # the direction of approach: D·T(+D) from below, T(−D)/D and ratio/D² from above
    assert np.all(_y(c["favorable"]) < expected["favorable"])
    assert np.all(_y(c["unfavorable"]) > expected["unfavorable"])


def test_slopes_are_minus_one_plus_one_and_two(built: Any) -> None:
    _, panels = built
    a, b, e = panels["a"], panels["b"], panels["e"]
    for key, expected in (("favorable", -1.0), ("unfavorable", 1.0)):
        fit = a[f"{key}-fit"]
        assert fit["fit_min"] == 4.0 and fit["n"] == 3 and "stderr" not in fit
        assert abs(fit["slope"] - expected) <= 0.05  # SPEC C4 tolerance for the window slope
        asym = a[f"{key}-asymptotic-slope"]
        assert abs(asym["value"] - expected) <= asym["error"]  # the stated uncertainty covers it
    fit = b["fit"]
    assert abs(fit["slope"] - 2.0) <= 0.05 and "stderr" not in fit  # SPEC: 2 ± 0.05 over D ≥ 4
    asym = b["asymptotic-slope"]
    assert abs(asym["value"] - 2.0) <= asym["error"] < 0.05
    # (e): the local slopes are Δ ln y / Δ ln D of the plotted times, recomputed here
    D = np.array(a["favorable"]["x"])
    data = {"favorable": _y(a["favorable"]), "unfavorable": _y(a["unfavorable"])}
    data["ratio"] = data["unfavorable"] / data["favorable"]
    for key, exponent in (("favorable", -1.0), ("unfavorable", 1.0), ("ratio", 2.0)):
        local = e[f"{key}-local-slope"]
        np.testing.assert_allclose(local["x"], np.sqrt(D[1:] * D[:-1]), rtol=1e-15)
        np.testing.assert_allclose(_y(local), np.diff(np.log(data[key])) / np.diff(np.log(D)), rtol=0, atol=1e-13)
        assert local["exponent"] == exponent and local["last"] == _y(local)[-1]
        # they approach the exponent monotonically (corrections O(1/D²) of one sign; measured 16 → 64:
        # −0.99978, +0.99769, 1.99748 — within 1/D² = 1/256 of it)
        distance = np.abs(_y(local) - exponent)
        assert np.all(np.diff(distance) < 0) and distance[-1] < 1 / 16**2, key
    local = _y(e["ratio-local-slope"])
    assert np.all(local < 2.0)
    assert panels["key"]["fit_slope"]["ratio"] == fit["slope"]
    assert panels["key"]["last_local_slope"]["ratio"] == local[-1]


def test_fits_are_drawn_apart_from_the_data(built: Any) -> None:
    """(a), (b): the least-squares lines are drawn at a third of the fit, under every point they
    span (the data stay visible); no standard error is printed anywhere."""
    from matplotlib.text import Text

    fig, panels = built
    for entry, data in (
        (panels["a"]["favorable-fit"], panels["a"]["favorable"]),
        (panels["a"]["unfavorable-fit"], panels["a"]["unfavorable"]),
        (panels["b"]["fit"], panels["b"]["ratio"]),
    ):
        assert entry["offset"] == pytest.approx(1 / 3, rel=1e-15)
        x, y = np.array(entry["x"]), _y(entry)
        np.testing.assert_allclose(y, np.exp(entry["intercept"]) * x ** entry["slope"] / 3, rtol=1e-12)
        at = np.isin(np.array(data["x"]), x)
        ratio = y / _y(data)[at]
        assert np.all((ratio > 0.25) & (ratio < 0.45)), ratio  # a third of the data, within the fit's bias
    import re

    texts = " ".join(t.get_text() for t in fig.findobj(Text))
    assert "s.e." not in texts and not re.search(r"\\pm\s*[0-9]", texts)


def test_sensitivity_constants_against_the_reduced_flow(built: Any) -> None:
    """(f): C = lim ratio/D² for c0, θ0, ε_align varied one at a time — the D → ∞ limits, against
    the revision's values (3 digits), against the ratio of the reduced flow itself at large D (a
    different computation, O(1/D²) apart), and the exponent 2 in every case."""
    fig, panels = built
    table = panels["f"]["sensitivity"]
    expected = {"c0": (38.4, 5.75, 2.42), "theta0": (4.92, 5.75, 24.6), "eps_align": (3.67, 5.75, 8.72)}
    values = {
        "c0": (0.01, 0.1, 0.5),
        "theta0": (math.pi / 4, math.pi / 2, 3 * math.pi / 4),
        "eps_align": (0.001, 0.01, 0.05),
    }
    texts = [t.get_text() for t in fig.axes[-1].texts]
    for name, rows in expected.items():
        for row, quoted, value in zip(table[name], rows, values[name], strict=True):
            assert row["value"] == pytest.approx(value, rel=1e-15)
            assert float(f"{row['C']:.3g}") == quoted and f"{row['C']:.3g}" in texts
            assert row["C"] == pytest.approx(row["unfavorable_limit"] / row["favorable_limit"], rel=1e-15)
            # the reduced flow's ratio at D = 128 sits O(1/D²) above its limit (measured ≤ 0.96/D² relative)
            assert 0 < row["ratio_over_D2"] / row["C"] - 1 < 1.5 / 128**2
            # the exponent: within O(1/D²) of 2 (measured 1.99963 … 1.99994), from below
            assert 2.0 - 1e-3 < row["local_slope"] < 2.0
    assert table["exponent_range"] == [
        min(r["local_slope"] for n in expected for r in table[n]),
        max(r["local_slope"] for n in expected for r in table[n]),
    ]
    assert panels["key"]["sensitivity_C"] == {n: [r["C"] for r in table[n]] for n in expected}
    # independent: the reduced flow's own T_spec ratio at D = 512 for the two largest constants
    D = 512.0
    for kw, C in ((dict(c0=0.01), table["c0"][0]["C"]), (dict(theta0=3 * math.pi / 4), table["theta0"][2]["C"])):
        ratio = reduced.reduced_specialization_time(-D, **kw) / reduced.reduced_specialization_time(D, **kw)
        assert ratio / D**2 == pytest.approx(C, rel=1.5 / D**2)


def test_mobility_line_is_the_closed_form_at_c0(built: Any) -> None:
    _, panels = built
    mob = panels["b"]["mobility"]
    D = np.array(mob["x"])
    np.testing.assert_allclose(_y(mob), (D + np.sqrt(D**2 + 4 * C0**2)) ** 2 / (4 * C0**2), rtol=1e-12)
    ratio = _y(panels["b"]["ratio"])
    assert panels["b"]["gap"]["mobility_over_ratio"] == pytest.approx(_y(mob)[-1] / ratio[-1], rel=1e-12)
    assert 17.0 < panels["b"]["gap"]["mobility_over_ratio"] < 18.0  # 1/(c0² · 5.7476) = 17.40


def test_speed_ratio_starts_at_the_mobility_ratio_and_averages_to_the_measured_ratio(built: Any) -> None:
    """(d): at t = 0 the two runs share c = c0, so S is the closed form of (b); its time average
    over the +D run equals T_spec(−D)/T_spec(+D) (event-located, not from the grid); at alignment
    the −D coefficient sits on the slow manifold c = 2a*g(θ_ε)."""
    _, panels = built
    d = panels["d"]
    for D in (4.0, 64.0):
        s = d[f"speed-D{D:g}"]
        start = (D + math.sqrt(D**2 + 4 * C0**2)) ** 2 / (4 * C0**2) / D**2
        assert _y(s)[0] == pytest.approx(start, rel=1e-9)
        assert s["x"][0] == 0.0 and s["x"][-1] == 1.0  # exact by construction: the grid's ends as declared
        # two independent integrations: the full flow at rtol 1e-10 and the paired reduced one at
        # 1e-12; an event time carries ~10·rtol, so their ratios agree far inside 1e-7
        assert s["time_average"] == pytest.approx(s["measured_ratio"], rel=1e-7)
        slow = 2.0 * (math.sin(THETA_EPS) + (math.pi - THETA_EPS) * math.cos(THETA_EPS)) / (2 * math.pi)
        assert s["coefficient_minus_at_alignment"] == pytest.approx(slow, abs=0.03 / D**2)  # measured 0.017/D²
    assert _y(d["mobility-at-c0"])[0] == pytest.approx(_y(d["speed-D64"])[0], rel=1e-12)
    # the mobility ratio at the runs' coefficients and S both fall well below the value at c0
    assert _y(d["mobility-D64"])[-1] < 0.05 * _y(d["mobility-at-c0"])[0]
    assert panels["key"]["speed_ratio_time_average"] == pytest.approx(
        limits.unfavorable_limit() / limits.favorable_limit(), rel=1e-3
    )


def _axes_by_panel(fig: Any) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for ax in fig.axes:
        letter = ax.get_title(loc="left").strip("()")
        if letter:
            out[letter] = [ax, *ax.child_axes]
    return out


def test_every_sidecar_series_is_drawn_on_its_panel(built: Any) -> None:
    fig, panels = built
    axes = _axes_by_panel(fig)
    assert sorted(axes) == ["a", "b", "c", "d", "e", "f"]
    count = 0
    for letter, entries in ((k, panels[k]) for k in "abcdef"):
        for name, series in entries.items():
            if not (isinstance(series, dict) and "x" in series and "y" in series):
                continue
            x, y = np.array(series["x"], float), _y(series)
            lines = [ln for ax in axes[letter] for ln in ax.get_lines()]
            assert any(
                np.shape(ln.get_xdata()) == x.shape
                and np.allclose(np.asarray(ln.get_xdata(), float), x)
                and np.allclose(np.asarray(ln.get_ydata(), float), y, equal_nan=True)
                for ln in lines
            ), f"({letter}) {name} is not drawn"
            count += 1
    assert count == 4 + 3 + 6 + 5 + 3 + 0  # (f) is a table of numbers


def test_no_text_below_the_floor(built: Any) -> None:
    from matplotlib.text import Text

    fig, _ = built
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    assert len(texts) > 30
    small = [(t.get_text(), t.get_fontsize()) for t in texts if t.get_fontsize() < MIN_TEXT_PT]
    assert not small, small
    assert fig.get_size_inches()[0] == pytest.approx(layout().width)
