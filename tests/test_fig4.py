"""Figure 4 (C6, SPEC §6 symmetric starts): the quick profile built once; its key numbers against
the reduced (c, θ) solver — an independent integrator in function coordinates — and the owner-success
matrix against fig4's own select run integrated alone; ties reported as no unique owner; every
sidecar series drawn; no text below 7 pt."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _quick_runs import QuickRuns

from gaugecli.core.reduced.planar import solve_reduced
from gaugecli.plots import fig4, style
from gaugecli.plots.render import resolve
from gaugecli.plots.venue import MIN_TEXT_PT, layout


@pytest.fixture(scope="module")
def built(quick_runs: QuickRuns) -> tuple[Any, dict[str, Any], Any]:
    """The quick profile: the select and mixed-δ runs, the gap sweep at g ∈ {0, 0.1} for the three
    families and the owner sweep at m = 2, 3, 5 — the smallest runs that carry every panel."""
    with quick_runs.locked("fig4") as pipeline:
        inputs, _ = resolve(fig4.needs(True), pipeline)
    page = layout()
    with style.context(page):
        fig, panels = fig4.build(inputs, page)
        fig.canvas.draw()
    yield fig, panels, inputs
    fig.clear()


def _reduced(deltas: tuple[float, ...], t_end: float) -> Any:
    """The reduced equations from the same duplicate start, to the full run's last time (its
    convergence test is the full flow's, so it stops at the same ‖∇L‖ ≤ 1e-10 where that applies)."""
    return solve_reduced(np.asarray(deltas, float), t_max=t_end, rtol=1e-10, atol=1e-13)


def _array(values: list[Any]) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], float)


def test_needs_share_runs_with_verify() -> None:
    from gaugecli.experiments.select import OwnerSweepConfig, SelectConfig

    full, quick = fig4.needs(False), fig4.needs(True)
    assert full["select"].config == SelectConfig(m=5, strength=4.0, owner=2)
    # the mixed-δ run and (f)'s owner sweep are the runs `gaugecli verify` checks for C6: one cached run each
    assert full["mixed"].config == SelectConfig(deltas=(-2.0, 4.0, 0.0, -4.0, 2.0))
    assert full["sweep"].kind == "select-sweep" and full["sweep"].config == OwnerSweepConfig(ms=(2, 3, 4, 5, 6, 7, 8))
    assert quick["sweep"].config == OwnerSweepConfig(ms=(2, 3, 5))
    gaps = {k: n.config for k, n in full.items() if k.startswith("gap")}
    # 3 families × 6 gaps, less (δ_r = −4, g = 8): that is the select run itself
    assert len(gaps) == 3 * len(fig4.GAPS[False]) - 1
    for config in gaps.values():
        d = np.asarray(config.deltas)
        assert config.dynamics.mode.value == "flow" and d.size == fig4.M
        assert np.all(np.delete(d, fig4.DESIGNATED) == d[0 if fig4.DESIGNATED else 1])
        assert d[fig4.DESIGNATED] >= d.max()
    assert quick.keys() <= full.keys()


def test_select_run_owner_takes_the_feature(built) -> None:
    """(a), (b): the +D neuron o = 2 owns, c_o → a*, the −D non-owners are identical (exact symmetry)
    and pruned; T_spec and the final coefficients agree with the reduced solver (measured 1e-10)."""
    _, panels, inputs = built
    run = inputs["select"].runs[0]
    a, b = panels["a"], panels["b"]
    assert a["unique_owner"] == a["designated"] == fig4.DESIGNATED and inputs["select"].success == [True]
    assert a["nonowner_spread"] <= 1e-15  # identical up to round-off (measured 5e-17)
    assert a["final_owner_coefficient"] == pytest.approx(1.0, abs=1e-6)
    assert abs(a["final_nonowner_coefficient"]) <= 1e-6
    ref = _reduced(fig4._gap_deltas(-4.0, 8.0), float(run.t[-1]))
    assert a["t_spec"] == pytest.approx(ref.crossing_times[fig4.DESIGNATED], rel=1e-7)
    np.testing.assert_allclose(run.coefficient[-1], ref.coefficient[-1], atol=1e-6)
    # the non-owners barely turn (α ≤ 2e-3) while the owner converges to α = 1 to round-off
    assert 0.0 < b["max_nonowner_alignment"] < 2e-3
    assert b["final_owner_misalignment"] <= 1e-12
    # (b)'s owner curve passes the angle arccos(1 − ε_align) at t = T_spec (x = 1, a stored sample:
    # α there is 1 − ε_align to round-off ≈ 1e-12, the angle to 1e-12/sin φ rad ≈ 4e-10°)
    x, y = _array(b["owner"]["x"]), _array(b["owner"]["y"])
    on_crossing = np.flatnonzero(np.isclose(x, 1.0, rtol=1e-12, atol=0.0))
    assert on_crossing.size == 1
    assert y[on_crossing[0]] == pytest.approx(b["spec_angle_degrees"], abs=1e-8)
    assert b["spec_angle_degrees"] == pytest.approx(np.degrees(np.arccos(0.99)), rel=1e-15)


def test_owner_is_argmax_delta_for_mixed_deltas(built) -> None:
    """(c), (d): δ = (−2, 4, 0, −4, 2): neuron 1 (δ = 4) owns; δ = +2 co-aligns and keeps a share;
    the final coefficients follow the reduced solver (measured agreement 1e-9)."""
    _, panels, inputs = built
    c = panels["c"]
    deltas = np.array(fig4.MIXED)
    assert c["argmax_delta"] == int(np.argmax(deltas)) == 1
    assert c["owner"] == 1 and inputs["mixed"].success == [True] and not inputs["mixed"].symmetric_start
    final = np.array(c["final_coefficient"])
    order = np.argsort(-deltas)
    assert final[order[0]] > final[order[1]] > np.max(np.abs(final[order[2:]]))
    run = inputs["mixed"].runs[0]
    ref = _reduced(fig4.MIXED, float(run.t[-1]))
    np.testing.assert_allclose(final, ref.coefficient[-1], atol=1e-6)
    assert c["t_spec"] == pytest.approx(ref.crossing_times[1], rel=1e-7)
    # the owner's and the co-aligned δ = +2 neuron's shares: 0.670 and 0.330 of a*
    assert final[1] == pytest.approx(0.6701, abs=1e-3) and final[4] == pytest.approx(0.3299, abs=1e-3)
    alignment = np.array(c["final_alignment"])
    assert alignment[1] > 0.99 and alignment[4] > 0.99 and np.all(np.abs(alignment[[0, 2, 3]]) < 0.01)


@pytest.mark.parametrize("panel, run_name, deltas", [("b", "select", None), ("d", "mixed", fig4.MIXED)])
def test_overshoot_crossing_and_extreme_against_the_reduced_solver(built, panel, run_name, deltas) -> None:
    """(b), (d): the owner's signed angle changes sign once (it passes through v) and turns back
    from its most negative value. The reduced (c, θ) solver — another integrator, in the teacher's
    plane, whose θ is signed — locates both on its own dense output (brentq, bounded minimisation):
    the crossing times agree to 1e-6 relative and the extreme angles to 1e-7 rad (both flows at
    rtol 1e-10: their T_spec agree to 1e-7, as above). The integration again agrees with the
    stored run (cos φ = α to round-off) and stays in the plane span(v, u0)."""
    from scipy.optimize import brentq, minimize_scalar

    _, panels, inputs = built
    run = inputs[run_name].runs[0]
    over = panels[panel]["overshoot"]
    assert panels[panel]["alignment_check"] < 1e-9  # measured ~1e-15
    assert panels[panel]["max_out_of_plane"] < 1e-12
    d = fig4._gap_deltas(-4.0, 8.0) if deltas is None else deltas
    owner = int(np.argmax(d))
    ref = _reduced(d, float(run.t[-1]))
    theta = ref.angle[:, owner]
    k = int(np.flatnonzero(np.diff(np.sign(theta)) != 0)[0])
    crossing = brentq(lambda t: float(ref.dense(t)[1][owner]), ref.t[k], ref.t[k + 1], xtol=1e-14)
    assert over["crossing_t_over_t_spec"] * run.t_spec == pytest.approx(crossing, rel=1e-6)
    t_min = over["extreme_t_over_t_spec"] * run.t_spec
    best = minimize_scalar(
        lambda t: float(ref.dense(t)[1][owner]),
        bounds=(0.5 * t_min, 1.5 * t_min),
        method="bounded",
        options={"xatol": 1e-10 * t_min},
    )
    assert np.radians(over["extreme_degrees"]) == pytest.approx(best.fun, abs=1e-7)
    assert over["extreme_degrees"] < 0.0 < over["crossing_t_over_t_spec"] < over["extreme_t_over_t_spec"]


def test_mixed_run_function_norms(built) -> None:
    """(c)'s P and P_U in units of c: P ends at the co-aligned δ = +2 share; the three unaligned
    neurons together carry ≤ 1e-3 of Σ|c_j| (the δ = 0, −4 pair cancels); both curves drawn."""
    fig, panels, _ = built
    f = panels["c"]["function"]
    final = np.array(panels["c"]["final_coefficient"])
    assert f["unit_norm"] == pytest.approx(np.sqrt(0.5), rel=1e-15)
    assert _array(f["P_over_unit"]["y"])[-1] == pytest.approx(final[4], rel=1e-3)
    u = f["unaligned"]
    assert u["neurons"] == [0, 2, 3]
    assert u["final_coefficient"] == pytest.approx(final[[0, 2, 3]].tolist(), abs=1e-12)
    assert u["final_group_norm_over_unit"] <= 1e-3 * u["sum_abs_final_coefficient"]
    drawn = _lines_by_panel(fig)["c"]
    for series in (f["P_over_unit"], u["series"]):
        x, y = _array(series["x"]), _array(series["y"])
        assert any(
            np.asarray(ln.get_xdata(), float).shape == x.shape and np.allclose(np.asarray(ln.get_ydata(), float), y)
            for ln in drawn
        )


def test_ties_have_no_unique_owner(built) -> None:
    """(e): exact ties (every δ equal) report owner null and symmetric_start, and count as no
    selection — also for −D, where round-off splits the group."""
    _, panels, inputs = built
    e = panels["e"]
    for rest in fig4.REST:
        tie = e[f"{rest:+g}-tie"]
        assert (
            tie["gap"] == 0.0 and tie["owner"] is None and tie["symmetric_start"] is True
        )  # exact by construction: identical neurons, identical operations: their difference is exactly 0 on any CPU
        assert tie["success"] is False
        result = inputs[fig4._gap_name(rest, 0.0)]
        assert result.owner is None and result.symmetric_start and result.success == [False]
    assert e["success_rate_tie"] == 0.0  # exact by construction: 0 successes of n: a count
    # with δ_r ≥ 0 the tied neurons stay identical: equal shares a*/m
    for rest in (0.0, 4.0):
        assert e[f"{rest:+g}-tie"]["y"][0] == pytest.approx(1.0 / fig4.M, abs=1e-6)


def test_success_for_every_positive_gap(built) -> None:
    """(e): at every g > 0 the unique owner is argmax δ (success rate 1); its final coefficient
    agrees with the reduced solver: exclusive for δ_r = −4, shared for δ_r ≥ 0."""
    _, panels, inputs = built
    e = panels["e"]
    assert e["success_rate_positive_gap"] == 1.0
    for rest in fig4.REST:
        family = e[f"{rest:+g}"]
        assert all(family["success"]) and family["owner"] == [fig4.DESIGNATED] * len(family["x"])
        assert not any(family["symmetric_start"])
        assert e[f"{rest:+g}-successes"] == e[f"{rest:+g}-trials"] == len(family["x"]) >= 1
        for g, share in zip(family["x"], family["y"], strict=True):
            run = inputs[fig4._gap_name(rest, g)].runs[0]
            ref = _reduced(fig4._gap_deltas(rest, g), float(run.t[-1]))
            assert share == pytest.approx(ref.coefficient[-1, fig4.DESIGNATED], abs=1e-6)
    # g = 0.1: exclusive against −D others, shares against balanced and +D others
    shares = {rest: dict(zip(e[f"{rest:+g}"]["x"], e[f"{rest:+g}"]["y"], strict=True))[0.1] for rest in fig4.REST}
    assert shares[-4.0] == pytest.approx(1.0, abs=1e-6)
    assert shares[0.0] == pytest.approx(0.682, abs=2e-3)
    assert shares[4.0] == pytest.approx(0.2042, abs=1e-3)


def test_owner_success_matrix(built) -> None:
    """(f): SPEC's owner-success matrix. Every designated o < m owns, at every m of the sweep (the run
    ``gaugecli verify`` judges C6 on); T_spec does not depend on o — the others are interchangeable,
    so the m designations are permutations of one flow and differ by round-off only (≤ 1e-9 relative:
    10× the solver's rtol) — and falls with m; the (m = 5, o = 2) cell is fig4's own select run,
    integrated alone, to the solver's tolerance (1e-7 relative: rtol 1e-10 propagated through T_spec)."""
    _, panels, inputs = built
    f = panels["f"]
    sweep = inputs["sweep"]
    assert inputs.configs["sweep"].ms == (2, 3, 5) and f["ms"] == [2, 3, 5]
    assert f["runs"] == f["successes"] == 2 + 3 + 5
    for i, m in enumerate(f["ms"]):
        points = sorted((p for p in sweep.points if p.m == m), key=lambda p: p.designated)
        assert [p.owner for p in points] == list(range(m)) == [o for o in range(m) if f["success_matrix"][i][o]]
        row = np.asarray(f["t_spec"][i])
        assert np.ptp(row) <= 1e-9 * row.mean()
    assert f["t_spec_relative_spread_over_o"] <= 1e-9
    means = [float(np.mean(r)) for r in f["t_spec"]]
    assert means[0] > means[1] > means[2]
    assert f["t_spec"][2][fig4.DESIGNATED] == pytest.approx(inputs["select"].runs[0].t_spec, rel=1e-7)


def _lines_by_panel(fig: Any) -> dict[str, list[Any]]:
    return {ax.get_title(loc="left").strip("()"): ax.get_lines() for ax in fig.axes if ax.get_title(loc="left")}


def test_every_sidecar_series_is_drawn(built) -> None:
    fig, panels, _ = built
    lines = _lines_by_panel(fig)
    drawn = 0
    for letter in "abcdef":
        for name, series in panels[letter].items():
            if not (isinstance(series, dict) and "x" in series):
                continue
            x, y = _array(series["x"]), _array(series["y"])
            assert any(
                np.asarray(ln.get_xdata(), float).shape == x.shape
                and np.allclose(np.asarray(ln.get_xdata(), float), x, equal_nan=True)
                and np.allclose(np.asarray(ln.get_ydata(), float), y, equal_nan=True)
                for ln in lines[letter]
            ), f"({letter}) {name} is in the sidecar but not drawn"
            drawn += 1
    # (a), (b): owner and one non-owner line, (b) the crossing and the extreme; (c), (d): five neurons,
    # (d) the crossing and the extreme; (e): 3 families + 3 ties; (f) is a map
    assert drawn == 2 + 4 + 5 + 7 + 6


def test_axes_show_what_they_claim(built) -> None:
    fig = built[0]
    axes = {ax.get_title(loc="left"): ax for ax in fig.axes}
    for letter in ("(a)", "(b)", "(c)", "(d)"):
        assert axes[letter].get_xscale() == "log" and axes[letter].get_xlabel() == r"$t\,/\,T_{\rm spec}$"
    # signed angles on a symlog axis: the start at 90°, the overshoot below 0 and the approach to 0
    for letter in ("(b)", "(d)"):
        assert axes[letter].get_yscale() == "symlog"
        lo, hi = axes[letter].get_ylim()
        assert lo < -10.0 and hi > 90.0
    assert axes["(e)"].get_xscale() == "log"
    assert axes["(f)"].get_xlabel().startswith("designated owner") and axes["(f)"].get_ylabel() == r"neurons $m$"


def test_text_is_at_least_seven_points(built) -> None:
    from matplotlib.text import Text

    fig = built[0]
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    assert len(texts) > 40
    small = [(t.get_text(), t.get_fontsize()) for t in texts if t.get_fontsize() < MIN_TEXT_PT]
    assert not small, small
    assert fig.get_size_inches()[0] == pytest.approx(layout().width)


def test_fit_tolerances_cover_the_propagated_t_spec_tolerance() -> None:
    """The regeneration check's tolerance on (e)'s fit ``T_spec ≈ A + B ln(1/g)`` is the T_spec's own
    (1e-6 relative) propagated through the least squares, computed here from the committed points."""
    import json
    from pathlib import Path

    from gaugecli.plots.sidecar import DEFAULT_RTOL, tolerance_for

    panel = json.loads((Path(__file__).parents[1] / "figures" / "fig4.json").read_text())["result"]["panels"]["e"]
    g, T = np.array(panel["-4"]["x"], float), np.array(panel["-4"]["t_spec"], float)
    keep = g <= 0.1
    x, T = np.log(1.0 / g[keep]), T[keep]
    dB = (x - x.mean()) / np.sum((x - x.mean()) ** 2)  # ∂B/∂T_i of the least-squares slope
    dA = 1.0 / x.size - x.mean() * dB
    fit = panel["-4-t_spec_per_efold"]
    for name, grad in (("slope", dB), ("intercept", dA)):
        bound = float(np.sum(np.abs(grad) * DEFAULT_RTOL * T)) / abs(fit[name])
        rtol, _ = tolerance_for(f"fig4/e/-4-t_spec_per_efold/{name}")
        assert bound <= rtol <= 2 * bound, (name, bound, rtol)


def test_mixed_series_colours_are_distinct() -> None:
    """(c), (d): every two δ's colours at least MIN_MIXED_DELTA_E apart (CIEDE2000); the orange the
    referee could not tell from δ = −4's vermillion (17.0) would fail it."""
    from _colour import delta_e2000, min_delta_e2000

    assert min_delta_e2000(fig4.MIXED_COLORS.values()) >= fig4.MIN_MIXED_DELTA_E
    assert delta_e2000(style.ORANGE, style.MINUS) < fig4.MIN_MIXED_DELTA_E


def test_main_version_draws_a_b_f_and_keeps_the_full_sidecar(built) -> None:
    """``MAIN_PANELS`` (a, b, f), relettered (a), (b), (c): (a) and (b) side by side, (f) under
    them; shorter than the full figure; the sidecar the full figure's (the same runs)."""
    from dataclasses import replace

    full, panels, inputs = built
    page = replace(layout(), panels=fig4.MAIN_PANELS)
    with style.context(page):
        fig, main = fig4.build(inputs, page)
        fig.canvas.draw()
    titled = {ax.get_title(loc="left"): ax for ax in fig.axes if ax.get_title(loc="left")}
    assert fig4.MAIN_PANELS == ("a", "b", "f") and sorted(titled) == ["(a)", "(b)", "(c)"]
    assert titled["(a)"].get_position().y0 == pytest.approx(titled["(b)"].get_position().y0)
    assert titled["(c)"].get_position().y1 < titled["(a)"].get_position().y0
    assert fig.get_figheight() < 0.75 * full.get_figheight()
    assert sorted(main) == sorted(panels)
    for letter in "abcdef":
        assert main[letter].keys() == panels[letter].keys()
    assert main["b"]["overshoot"]["crossing_t_over_t_spec"] == pytest.approx(
        panels["b"]["overshoot"]["crossing_t_over_t_spec"], rel=1e-12
    )
    fig.clear()
