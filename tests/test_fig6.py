"""Figure 6 (C3, reading of SPEC §6): the quick profile built once, its key numbers against the
reduced (c, θ) solver — an independent integrator that carries ∫R and ∫T with the state — and
against the loss, every sidecar series drawn, no text below 7 pt."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _quick_runs import QuickRuns

from gaugecli.core.analyses.observables import DISSIPATION_IDENTITY_RTOL
from gaugecli.core.reduced.limits import favorable_limit_dissipation, unfavorable_limit_dissipation
from gaugecli.core.reduced.planar import solve_reduced
from gaugecli.plots import _fig6_checks as checks6
from gaugecli.plots import fig6, style
from gaugecli.plots.render import resolve
from gaugecli.plots.venue import MIN_TEXT_PT, layout

GAUGES = {"favorable": 1.0, "unfavorable": -1.0}


@pytest.fixture(scope="module")
def built(quick_runs: QuickRuns) -> tuple[Any, dict[str, Any], Any]:
    with quick_runs.locked("fig6") as pipeline:
        inputs, _ = resolve(fig6.needs(True), pipeline)
    page = layout()
    with style.context(page):
        fig, panels = fig6.build(inputs, page)
        fig.canvas.draw()
    yield fig, panels, inputs
    fig.clear()


@pytest.fixture(scope="module")
def reduced_shares() -> dict[tuple[str, float], float]:
    """Reaction share ∫R / ∫(R + T) of the reduced equations (m = 1, SPEC defaults). At rtol 1e-10
    they agree with rtol 1e-12 to ≤ 1e-9 and take ~1 s for the eight runs (the −D ones are stiff)."""
    out = {}
    for g, sign in GAUGES.items():
        for D in fig6.STRENGTHS:
            sol = solve_reduced(np.array([sign * D]), t_max=1e5, rtol=1e-10, atol=1e-13)
            assert sol.converged
            out[g, D] = sol.dissipated_reaction / (sol.dissipated_reaction + sol.dissipated_transport)
    return out


def test_needs_are_the_default_single_neuron_flow_runs() -> None:
    needs = fig6.needs(True)
    assert needs.keys() == fig6.needs(False).keys()
    assert len(needs) == 2 * len(fig6.STRENGTHS) + 1
    limit = needs.pop(fig6.LIMIT)  # the D → ∞ shares of the runs' own model
    model = needs[fig6._name("favorable", fig6.SHOWN)].config.model
    assert limit.kind == "limit-dissipation"
    assert (limit.config.c0, limit.config.theta0, limit.config.a_star) == (model.c0, model.theta0, model.a_star)
    for need in needs.values():
        assert need.kind == "simulate" and need.config.m == 1 and need.config.dynamics.mode.value == "flow"


def test_shares_match_the_reduced_solver(built, reduced_shares) -> None:
    """The recorded run integrals of the full flow (d = 16) against the reduced solver: measured
    ≤ 1e-9 relative; the figure-level tolerance 1e-7 leaves room for platform differences."""
    _, panels, _ = built
    shares = panels["shares"]
    for (g, D), expected in reduced_shares.items():
        assert shares[g][f"{D:g}"]["reaction_share"] == pytest.approx(expected, rel=1e-7), (g, D)
    # the reference values of the issue, to the digits quoted there
    quoted = {"favorable": (0.7267, 0.7325, 0.7329, None), "unfavorable": (0.1713, 0.0648, 0.0513, None)}
    for g, values in quoted.items():
        for D, value in zip(fig6.STRENGTHS, values, strict=True):
            if value is not None:
                assert round(shares[g][f"{D:g}"]["reaction_share"], 4) == value


def test_the_reading_of_c3(built) -> None:
    """Integrated over the run +D is mostly reaction and −D mostly transport; the t = 0 instant
    is the other way round (+D 84 % transport; −D ≥ 99.6 % reaction for D ≥ 4)."""
    shares = built[1]["shares"]
    for D in fig6.STRENGTHS:
        plus, minus = shares["favorable"][f"{D:g}"], shares["unfavorable"][f"{D:g}"]
        assert plus["reaction_share"] > 0.72 and minus["reaction_share"] < 0.18
        assert 1.0 - plus["instant_reaction_share"] == pytest.approx(0.84, abs=0.005)
        if D >= 4:
            assert minus["instant_reaction_share"] >= 0.996
    # D → ∞ (reduced equations in the gauge limits) and the approach to it, O(1/D²)
    limit = shares["limit_reaction_share"]
    assert limit["favorable"] == pytest.approx(favorable_limit_dissipation().reaction_share, rel=1e-12)
    assert limit["favorable"] == pytest.approx(0.732932, abs=5e-7)
    assert limit["unfavorable"] == pytest.approx(unfavorable_limit_dissipation().reaction_share, rel=1e-12)
    assert limit["unfavorable"] == pytest.approx(0.050362, abs=5e-7)
    assert abs(shares["favorable"]["64"]["reaction_share"] - limit["favorable"]) < 1e-5
    assert abs(shares["unfavorable"]["64"]["reaction_share"] - limit["unfavorable"]) < 1e-4


def test_integrals_add_up_to_the_loss_drop(built) -> None:
    """∫R dt + ∫T dt = L(0) − L(t_end): the quadrature of the decomposition against the closed-form
    loss at the two ends of each run (measured ≤ 1e-10)."""
    _, panels, inputs = built
    for g in GAUGES:
        for D in fig6.STRENGTHS:
            run = inputs[f"{g}-D{D:g}"]
            drop = run.loss[0] - run.loss[-1]
            spent = run.dissipated_reaction + run.dissipated_transport
            assert spent == pytest.approx(drop, rel=DISSIPATION_IDENTITY_RTOL)
            assert panels["shares"][g][f"{D:g}"]["identity_residual"] <= DISSIPATION_IDENTITY_RTOL
            # pointwise over the whole run where ‖∇L‖ ≥ 1e-5: SPEC's 1e-10 at D = 4 (measured 6e-12); the
            # round-off grows with the parameter scale √D, to 8e-11 at D = 64, so 1e-9 is asserted there
            bound = 1e-10 if D <= 4 else 1e-9
            assert panels["shares"][g][f"{D:g}"]["max_resolved_residual"] <= bound
            # (a)'s cumulative curves (trapezoid in ln t) end at the recorded integrals
            if D == fig6.SHOWN:
                # the window ends at 3 T_spec, where ≥ 99.3 % of the loss is spent
                tail = panels["a"][f"{g}-reaction"]["y"][-1] + panels["a"][f"{g}-transport"]["y"][-1]
                assert 0.99 * spent <= tail <= spent * (1 + 1e-6)


def test_share_curves_start_at_the_instant_and_end_at_the_run_share(built) -> None:
    panels = built[1]
    for g in GAUGES:
        for D in fig6.STRENGTHS:
            key = f"{D:g}"
            curve = np.array(panels["b"][f"{g}-D{key}"]["y"], float)
            numbers = panels["shares"][g][key]
            assert curve[0] == pytest.approx(1.0 - numbers["instant_reaction_share"], abs=1e-3)
            assert curve[-1] == pytest.approx(1.0 - numbers["reaction_share"], abs=0.01)
            assert np.all((curve >= 0) & (curve <= 1))


def test_loss_derivative_matches_the_decomposition(built) -> None:
    """(c): −dL/dt from the loss alone against R + T, two independent routes, over time.

    Their difference is the cubic spline's differentiation error on the stored grid (the flow's
    own error, rtol = 1e-10, is far below it). The bound has that basis: a spline derivative's
    error falls like h³ with the spacing h in ln t, so on every second sample it must be several
    times larger; the full grid's deviation is held to half the coarse grid's (8× expected), and
    to DECOMPOSITION_ERROR_LIMIT (1e-3) absolutely."""
    from gaugecli.core.model.metrics import loss_decay_rate

    parity, inputs = built[1]["c"], built[2]
    assert parity["max_relative_deviation"] <= checks6.DECOMPOSITION_ERROR_LIMIT == parity["limit"]
    for g in GAUGES:
        for D in fig6.STRENGTHS:
            run = inputs[fig6._name(g, D)]
            total = run.reaction + run.transport
            deviation = []
            for step in (1, 2):
                rate = loss_decay_rate(run.t[::step], run.loss[::step], checks6.LOSS_FLOOR)
                ref = total[::step]
                ok = np.isfinite(rate) & (ref > 0)
                deviation.append(float(np.max(np.abs(rate[ok] - ref[ok]) / ref[ok])))
            assert deviation[0] <= 0.5 * deviation[1], (g, D, deviation)
            # the drawn points are that difference, recomputed here, on the window 0–3 T_spec
            s = parity[f"{g}-D{D:g}"]
            x, y = np.array(s["x"], float), np.array([np.nan if v is None else v for v in s["y"]], float)
            assert x.size > 20 and np.all(x <= fig6.X_MAX)
            # each drawn point is a saved time of the run (x = t/T_spec, as the figure computes it)
            grid = run.t / style.spec_time(run)
            at = np.searchsorted(grid, x)
            np.testing.assert_array_equal(grid[at], x)
            rate = loss_decay_rate(run.t, run.loss, checks6.LOSS_FLOOR)
            want = (np.abs(rate - total) / total)[at]
            drawn = np.isfinite(y)
            np.testing.assert_allclose(y[drawn], want[drawn], rtol=1e-12)
            assert np.nanmax(y) <= deviation[0]


def test_rates_are_the_runs_reaction_and_transport(built) -> None:
    """(e) draws R(t) and T(t) of the D = 4 runs; (f) T/(R+T) of every run, starting at the instant."""
    panels, inputs = built[1], built[2]
    for g in GAUGES:
        run = inputs[fig6._name(g, fig6.SHOWN)]
        for part, values in (("reaction", run.reaction), ("transport", run.transport)):
            s = panels["e"][f"{g}-{part}"]
            y = np.array([np.nan if v is None else v for v in s["y"]], float)
            ok = np.isfinite(y)
            np.testing.assert_allclose(y[ok], values[: y.size][ok], rtol=1e-15)
            assert np.all(values[: y.size][~ok] < fig6.RATE_FLOOR)
        for D in fig6.STRENGTHS:
            numbers = panels["shares"][g][f"{D:g}"]
            share = np.array(panels["f"][fig6._name(g, D)]["y"], float)
            assert share[0] == pytest.approx(1.0 - numbers["instant_reaction_share"], rel=1e-12)
            assert np.all((share >= 0) & (share <= 1))
            # the first crossing of ½ lies between the two saved times of half_between, and no earlier
            s = panels["f"][fig6._name(g, D)]
            lo, hi = s["half_between"]
            x = np.array(s["x"], float)
            before, after = share[x == lo][0], share[x == hi][0]
            assert (before - 0.5) * (after - 0.5) < 0 and np.all((share[x < lo] - 0.5) * (before - 0.5) > 0)
            assert (before > 0.5) == (g == "favorable")  # +D transport-led at first, −D reaction-led


def test_residual_is_round_off_and_never_drawn_below_it(built) -> None:
    residual = built[1]["d"]
    assert residual["max_shown"] <= 1e-12 < residual["bound"]
    for g in GAUGES:
        for D in fig6.STRENGTHS:
            y = np.array([np.nan if v is None else v for v in residual[f"{g}-D{D:g}"]["y"]])
            assert np.all(np.isnan(y) | (y > checks6.ROUND_OFF))  # below double precision: the band
            # between 27 % (+D) and 66 % (−D) of the samples are above double precision
            assert np.count_nonzero(np.isfinite(y)) > 0.2 * y.size


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
            x = np.array([np.nan if v is None else v for v in series["x"]], float)
            y = np.array([np.nan if v is None else v for v in series["y"]], float)
            assert any(
                np.asarray(ln.get_xdata(), float).shape == x.shape
                and np.allclose(np.asarray(ln.get_xdata(), float), x, equal_nan=True)
                and np.allclose(np.asarray(ln.get_ydata(), float), y, equal_nan=True)
                for ln in lines[letter]
            ), f"({letter}) {name} is in the sidecar but not drawn"
            drawn += 1
    # (a) 4 curves; (b) 8 shares + 2 instants + 2 limits; (c) 8 runs; (d) 8 runs; (e) 4 rates; (f) 8 shares
    assert drawn == 4 + 12 + 8 + 8 + 4 + 8


def test_linear_time_where_integrals_are_read(built) -> None:
    fig = built[0]
    axes = {ax.get_title(loc="left"): ax for ax in fig.axes}
    for letter in ("(a)", "(b)", "(c)", "(d)", "(e)", "(f)"):
        assert axes[letter].get_xscale() == "linear" and axes[letter].get_xlim() == (0.0, fig6.X_MAX)
    assert axes["(a)"].get_yscale() == axes["(b)"].get_yscale() == axes["(f)"].get_yscale() == "linear"
    assert axes["(c)"].get_yscale() == axes["(e)"].get_yscale() == "log"


def test_text_is_at_least_seven_points(built) -> None:
    from matplotlib.text import Text

    fig = built[0]
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    assert len(texts) > 30
    small = [(t.get_text(), t.get_fontsize()) for t in texts if t.get_fontsize() < MIN_TEXT_PT]
    assert not small, small
    assert fig.get_size_inches()[0] == pytest.approx(layout().width)


def test_legend_clear_of_the_data(built) -> None:
    import _figure_checks as checks

    for letter in "bef":
        checks.assert_legend_clear(built[0], letter)


def test_ciede2000_against_sharma_s_test_data() -> None:
    """The CIEDE2000 helper against pairs 1, 7, 17 and 25 of Sharma, Wu & Dalal (2005), Table 1, to
    their printed 4 decimals."""
    from _colour import delta_e2000_lab

    for lab1, lab2, expected in (
        ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
        ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
        ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
        ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ):
        assert delta_e2000_lab(np.array(lab1), np.array(lab2)) == pytest.approx(expected, abs=5e-5)


def test_lab_conversion_against_published_values() -> None:
    """The ΔE helper's CIELAB against published sRGB → L*a*b* (D65) values: white (100, 0, 0), black
    (0, 0, 0), pure red (53.24, 80.09, 67.20), pure blue (32.30, 79.19, −107.86) — to 0.02, the
    rounding of the published figures."""
    from _colour import lab

    for color, expected in (
        ("#ffffff", (100.0, 0.0, 0.0)),
        ("#000000", (0.0, 0.0, 0.0)),
        ("#ff0000", (53.24, 80.09, 67.20)),
        ("#0000ff", (32.30, 79.19, -107.86)),
    ):
        np.testing.assert_allclose(lab(color), expected, atol=0.02)


def test_each_D_has_its_own_shade_as_well_as_its_dash(built) -> None:
    """(b), (f): every D of a gauge is drawn in its own shade of the gauge's colour, at least
    MIN_SHADE_DELTA_E (CIEDE2000) from every other D's shade, and the two gauges' shades apart from
    each other; each line's colour is its (gauge, D)'s."""
    from _colour import delta_e2000, min_delta_e2000
    from matplotlib.colors import to_hex

    for g in fig6.GAUGES:
        shades = [fig6.strength_color(g, D) for D in fig6.STRENGTHS]
        assert min_delta_e2000(shades) >= fig6.MIN_SHADE_DELTA_E
    plus = [fig6.strength_color("favorable", D) for D in fig6.STRENGTHS]
    minus = [fig6.strength_color("unfavorable", D) for D in fig6.STRENGTHS]
    assert min(delta_e2000(p, m) for p in plus for m in minus) >= fig6.MIN_SHADE_DELTA_E
    fig, panels, _ = built
    axes = {ax.get_title(loc="left").strip("()"): ax for ax in fig.axes if ax.get_title(loc="left")}
    for letter in "bf":
        for g in fig6.GAUGES:
            for D in fig6.STRENGTHS:
                series = panels[letter][f"{g}-D{D:g}"]
                (line,) = [ln for ln in axes[letter].get_lines() if np.array_equal(ln.get_xdata(), series["x"])]
                assert to_hex(line.get_color()) == fig6.strength_color(g, D)


def test_check_panels_span_their_data_not_empty_decades(built) -> None:
    """(c): from a factor MARGIN under the smallest drawn difference to MARGIN over the limit it is
    read against; (d): from MARGIN under double precision to a few MARGIN over the largest drawn
    residual — the claimed bound 1e-10, decades above, is named, with its distance, not drawn."""
    fig, panels, _ = built
    axes = {ax.get_title(loc="left").strip("()"): ax for ax in fig.axes if ax.get_title(loc="left")}
    drawn = [np.array(v["y"], float) for k, v in panels["c"].items() if isinstance(v, dict) and "y" in v]
    lowest = np.nanmin(np.concatenate(drawn))
    bottom, top = axes["c"].get_ylim()
    assert bottom == pytest.approx(lowest / checks6.MARGIN, rel=1e-12)
    assert top == pytest.approx(checks6.DECOMPOSITION_ERROR_LIMIT * checks6.MARGIN, rel=1e-12)
    assert np.log10(top / bottom) <= np.log10(checks6.DECOMPOSITION_ERROR_LIMIT / lowest) + 1.0  # ≤ 1 decade of margin
    d = panels["d"]
    bottom, top = axes["d"].get_ylim()
    assert bottom == pytest.approx(checks6.ROUND_OFF / checks6.MARGIN, rel=1e-12)
    assert top == pytest.approx(d["max_shown"] * checks6.MARGIN * 3.0, rel=1e-12)
    assert top < checks6.CLAIM_BOUND and d["bound_over_max_shown"] == pytest.approx(
        checks6.CLAIM_BOUND / d["max_shown"]
    )
    assert any("off the top" in t.get_text() for t in axes["d"].texts)


def test_main_version_draws_a_and_b_and_keeps_the_full_sidecar(built) -> None:
    """``MAIN_PANELS`` (a, b) in one row, shorter than the full figure, every other panel's sidecar
    numbers still written (the same runs: the same numbers)."""
    from dataclasses import replace

    full, panels, inputs = built
    page = replace(layout(), panels=fig6.MAIN_PANELS)
    with style.context(page):
        fig, main = fig6.build(inputs, page)
        fig.canvas.draw()
    titled = [ax for ax in fig.axes if ax.get_title(loc="left")]
    assert sorted(ax.get_title(loc="left") for ax in titled) == ["(a)", "(b)"]
    assert len({round(ax.get_position().y0, 6) for ax in titled}) == 1
    assert fig.get_figheight() < 0.5 * full.get_figheight()
    assert sorted(main) == sorted(panels)
    for letter in "abcdef":
        assert main[letter].keys() == panels[letter].keys()
    assert main["d"]["max_shown"] == pytest.approx(panels["d"]["max_shown"], rel=1e-15)
    fig.clear()
