"""Figure 5 (C7): the quick profile built once; the boundary of pruning at δ = 0, the 1/D law of
the pruning time, the exponential decay at the rate of the linearised flow, nothing drawn below
the round-off floor, every sidecar series drawn, no text below 7 pt."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _quick_runs import QuickRuns

from gaugecli.core.analyses.pruning import pruning_rate_limit
from gaugecli.experiments.prune import PRUNED_LEVEL, RESOLUTION
from gaugecli.plots import fig5, style
from gaugecli.plots.render import resolve
from gaugecli.plots.venue import MIN_TEXT_PT, layout


@pytest.fixture(scope="module")
def built(quick_runs: QuickRuns) -> tuple[Any, dict[str, Any], Any]:
    """The quick profile (~2 s on an idle core: one flow ensemble, three n = 1000 finite-sample
    flows, the m = 3 contrast and an 8-member δ sweep). torch at one thread, restored after."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with quick_runs.locked("fig5") as pipeline:
            inputs, _ = resolve(fig5.needs(True), pipeline)
    finally:
        torch.set_num_threads(before)
    page = layout()
    with style.context(page):
        fig, panels = fig5.build(inputs, page)
        fig.canvas.draw()
    yield fig, panels, inputs["prune"]
    fig.clear()


def test_needs_one_prune_run() -> None:
    for quick in (True, False):
        needs = fig5.needs(quick)
        assert list(needs) == ["prune"] and needs["prune"].kind == "prune"
        config = needs["prune"].config
        assert config.sample and config.strengths == fig5.STRENGTHS[quick] and config.coalign_strength == 4.0
    full = fig5.needs(False)["prune"].config
    assert min(full.sweep_deltas) == -4.0 and max(full.sweep_deltas) == 4.0 and 0.0 in full.sweep_deltas


def test_the_transition_is_at_zero(built) -> None:
    """δ < 0: pruned (P(end) ≤ 1e-6, in fact round-off); δ ≥ 0: co-aligned, P(end) = O(0.01 … 0.1).
    Measured (owner +4, m = 2): δ = −0.1 prunes at t = 367, P(end) = 2e-14; the balanced non-owner
    keeps 0.92 % of the coefficient (P(end) = 0.0065, α = 0.956 at t = 1000, → 0.0061, α → 1);
    δ = 0.25 → P 0.036, δ = 1 → 0.130, the tie δ = 4 → 1/(2√2)."""
    _, panels, result = built
    key = panels["key"]
    assert key["largest_pruned_delta"] < 0.0 == key["smallest_coaligned_delta"]
    for s in result.sweep:
        if s.delta < 0:
            assert s.owner == 0 and s.final <= PRUNED_LEVEL and s.time_below is not None
            assert s.alignment < 0.2 and abs(s.share) <= 1e-9  # the non-owner never turned; its c is gone
        else:
            assert s.time_below is None and s.final >= 5e-3 and s.alignment >= 0.95
    by = {s.delta: s for s in result.sweep}
    assert 5e-3 <= by[0.0].final <= 1e-2 and by[0.0].share == pytest.approx(0.0092, abs=3e-4)
    assert by[0.25].final == pytest.approx(0.036, rel=0.02) and by[1.0].final == pytest.approx(0.130, rel=0.02)
    # independent of the flow: co-aligned (α → 1) non-owners are share · c_total · relu(v·x), ‖relu(v·x)‖ = 1/√2,
    # and the owner with them carries the teacher (c_0 + c_1 = a* = 1)
    for d in (0.25, 1.0, 4.0):
        assert by[d].final == pytest.approx(by[d].share / np.sqrt(2.0), rel=1e-3)
    # the tie: no unique owner, and by symmetry the equal split
    assert by[4.0].owner is None and by[4.0].share == pytest.approx(0.5, abs=1e-9)
    assert by[4.0].final == pytest.approx(1.0 / (2.0 * np.sqrt(2.0)), rel=1e-6)
    # the pruning time diverges like 1/|δ| as δ → 0⁻ (rate ∝ |δ|): −0.25 → −0.1 stretches it ×2.6
    assert by[-0.1].time_below / by[-0.25].time_below == pytest.approx(2.6, abs=0.1)


def test_decay_is_exponential_at_the_linearised_rate(built) -> None:
    """The fitted −d ln P/dt of the full flow against the eigenvalue of the flow linearised at the
    pruned minimum (measured agreement ≤ 7e-5 relative for every D, m and sweep δ < 0)."""
    _, _, result = built
    flows = [p for p in result.points if p.mode == "flow"]
    assert flows
    for p in flows:
        assert p.decay_rate == pytest.approx(p.predicted_rate, rel=1e-4), p.strength
    # the D → ∞ rate per unit D, from the scalar closed form ½ − ‖g‖, ‖g‖² = (π²/4 + 1)/(4π²)
    limit = 0.5 - np.sqrt((np.pi**2 / 4 + 1) / (4 * np.pi**2))
    assert pruning_rate_limit(1) == pytest.approx(limit, rel=1e-12) == pytest.approx(0.2036382, abs=1e-7)
    largest = max(flows, key=lambda p: p.strength)
    assert largest.decay_rate / largest.strength == pytest.approx(limit, rel=1e-3)
    for s in result.sweep:
        if s.delta < 0:
            assert s.decay_rate == pytest.approx(s.predicted_rate, rel=1e-4), s.delta
    # the finite-sample flow decays more slowly than the population's linearisation: the smallest
    # eigenvalue of the empirical Gauss–Newton matrix sits below the population one (measured,
    # seed 0: −9 % at n = 1000, −4 % at n = 2000, −0.5 % at n = 10⁴)
    sample = [p for p in result.points if p.mode == "sample" and p.decay_rate is not None]
    assert sample
    for p in sample:
        assert 0.85 < p.decay_rate / p.predicted_rate < 1.0


def test_pruning_time_scales_as_one_over_D(built) -> None:
    """The asymptotic slope (last local slope; its change from the previous one as error) is −1
    within that error; D·T_prune converges (measured: 57.55, 59.22, 59.34, 59.35 for D = 4 … 256)."""
    panels = built[1]
    flow = panels["b"]["flow-m2"]
    slope, error = flow["asymptotic_slope"], flow["asymptotic_error"]
    assert abs(slope + 1.0) <= error < 0.05
    compensated = np.array(flow["compensated"])
    assert compensated == pytest.approx(59.3, rel=0.03)
    assert abs(compensated[-1] / compensated[-2] - 1) < 3e-3  # the last doubling-pair changes by < 0.3 %
    # the finite-sample flow prunes on the same 1/D clock, ~10 % later at n = 1000 (its slower
    # empirical rate; measured D·T_prune 63.4, 65.5, 63.6 against 57.6, 59.2, 59.3)
    sample = panels["b"]["sample-m2"]
    ratio = np.array(sample["compensated"]) / compensated
    assert np.all((ratio > 1.0) & (ratio < 1.2))
    assert sample["slope"] == pytest.approx(-1.0, abs=max(3 * sample["stderr"], 0.02))


def _values(series: dict[str, Any], key: str) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in series[key]], float)


def test_nothing_is_drawn_below_the_floor(built) -> None:
    panels = built[1]
    floor = RESOLUTION["flow"]
    for letter in "cd":
        for name, series in panels[letter].items():
            if not (isinstance(series, dict) and "y" in series) or name == "linearised":
                continue
            y = _values(series, "y")
            resolution = series.get("resolution", floor)
            assert np.all(np.isnan(y) | (y > resolution)), (letter, name)
            assert np.count_nonzero(np.isfinite(y)) > 20
    # (c): the finite-sample curves stop at their own resolution, the pruning level
    assert RESOLUTION["sample"] == PRUNED_LEVEL
    assert any(name.startswith("sample") for name in panels["c"])
    # (a): resolved values above the floor; the pruned ones drawn as censored markers on its edge
    a = panels["a"]
    assert np.all(_values(a["positive"], "y") > floor) and np.all(_values(a["zero"], "y") > floor)
    np.testing.assert_array_equal(_values(a["negative-below-floor"], "y"), floor)
    assert "negative" not in a  # no pruned run is resolved above the floor
    # the round-off band is drawn where values are clipped
    fig = built[0]
    for ax in fig.axes:
        if ax.get_yscale() == "log" and ax.get_title(loc="left") in ("(a)", "(c)", "(d)"):
            assert any(p.get_facecolor()[:3] == pytest.approx((0.9, 0.9, 0.9)) for p in ax.patches)


def _lines_by_panel(fig: Any) -> dict[str, list[Any]]:
    return {ax.get_title(loc="left").strip("()"): ax.get_lines() for ax in fig.axes if ax.get_title(loc="left")}


def test_every_sidecar_series_is_drawn(built) -> None:
    fig, panels, _ = built
    lines = _lines_by_panel(fig)
    drawn = 0
    for letter in "abcd":
        for name, series in panels[letter].items():
            if not (isinstance(series, dict) and "x" in series):
                continue
            x, y = _values(series, "x"), _values(series, "y")
            assert any(
                np.asarray(ln.get_xdata(), float).shape == x.shape
                and np.allclose(np.asarray(ln.get_xdata(), float), x, equal_nan=True)
                and np.allclose(np.asarray(ln.get_ydata(), float), y, equal_nan=True)
                for ln in lines[letter]
            ), f"({letter}) {name} is in the sidecar but not drawn"
            drawn += 1
    # (a) δ < 0 (censored), 0, > 0, the line; (b) flow, fit, guide (the finite sample's delay is
    # tested on its own axes below); (c) 3 + 3 runs + band; (d) 5 traces
    assert drawn == 4 + 3 + 7 + 5


def test_the_finite_sample_delay_is_drawn_as_a_ratio_minus_one(built) -> None:
    """(b)'s lower axes: per width, 100 × (mean finite-sample time / population time − 1) at each D,
    recomputed here from the grid's pruning times (independent of the panel), drawn point for
    point; each sample's own ratio inside the drawn range (the sidecar's ``sample_delay``)."""
    fig, panels, result = built
    delay = panels["b"]["delay"]
    key = panels["key"]
    assert sorted(delay) == [f"m{m}" for m in sorted({p.m for p in result.points})]
    lines = [ln for ax in fig.axes for ln in ax.get_lines()]
    for m_key, series in delay.items():
        m = int(m_key[1:])
        low_high = zip(series.get("min", series["y"]), series.get("max", series["y"]), strict=True)  # one seed: y
        for D, y, (low, high) in zip(series["D"], series["y"], low_high, strict=True):
            flow = key["grid"][f"flow-m{m}-D{D:g}-seed0"]["time_below"]
            times = [p.time_below for p in result.points if p.mode == "sample" and p.m == m and p.strength == D]
            # a mean and a ratio of numbers ≈ 1–100: round-off only
            assert y == pytest.approx(100.0 * (np.mean(times) / flow - 1.0), rel=1e-12, abs=1e-12)
            ratios = 100.0 * np.array(list(key["sample_delay"][m_key].values()))
            # the drawn range is the extreme samples' own ratios (relative round-off of a division)
            assert low <= y <= high and np.any(np.isclose(ratios, low, rtol=1e-12, atol=1e-12))
            assert np.any(np.isclose(ratios, high, rtol=1e-12, atol=1e-12))
        x = np.array(series["x"])
        assert any(len(ln.get_xdata()) == x.size and np.allclose(ln.get_ydata(), series["y"]) for ln in lines)


def test_main_version_draws_a_and_c_and_keeps_the_full_sidecar(built) -> None:
    """``MAIN_PANELS`` (a, c) in one row, relettered (a), (b), shorter than the full figure; the
    sidecar the full figure's (the same runs: the same numbers to round-off)."""
    from dataclasses import replace

    from gaugecli.pipeline import Inputs

    full_fig, panels, result = built
    page = replace(layout(), panels=fig5.MAIN_PANELS)
    with style.context(page):
        fig, main = fig5.build(Inputs({"prune": result}, {"prune": fig5.needs(True)["prune"].config}), page)
        fig.canvas.draw()
    titled = [ax for ax in fig.axes if ax.get_title(loc="left")]
    assert fig5.MAIN_PANELS == ("a", "c") and sorted(ax.get_title(loc="left") for ax in titled) == ["(a)", "(b)"]
    assert len({round(ax.get_position().y0, 6) for ax in titled}) == 1  # one row
    assert fig.get_figheight() < 0.6 * full_fig.get_figheight()
    assert sorted(main) == sorted(panels)
    for letter in "abcd":
        assert main[letter].keys() == panels[letter].keys()
    for m_key, delays in panels["key"]["sample_delay"].items():
        assert main["key"]["sample_delay"][m_key] == pytest.approx(delays, rel=1e-15)
    fig.clear()


def test_time_axes_are_linear(built) -> None:
    axes = {ax.get_title(loc="left"): ax for ax in built[0].axes}
    for letter in ("(c)", "(d)"):
        assert axes[letter].get_xscale() == "linear" and axes[letter].get_yscale() == "log"
    assert axes["(b)"].get_xscale() == axes["(b)"].get_yscale() == "log"


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

    checks.assert_legend_clear(built[0], "c")


def test_sample_delay_is_the_ratio_of_the_pruning_times(built) -> None:
    """fig5's "prunes later by …" (its sidecar's `sample_delay`): each finite-sample time over the population flow's, minus 1."""
    key = built[1]["key"]
    assert key["sample_delay"]
    for m, by_point in key["sample_delay"].items():
        for point, delay in by_point.items():
            flow = key["grid"][f"flow-{m}-{point}"]["time_below"]
            sample = key["grid"][f"sample-{m}-{point}"]["time_below"]
            assert delay == pytest.approx(sample / flow - 1.0, rel=1e-12)
            assert -0.05 < delay < 0.5  # later, and on the same clock


def _point(mode: str, D: float, seed: int, time: float | None) -> Any:
    from gaugecli.experiments.prune import PrunePoint

    t = np.array([0.0, 1.0])
    return PrunePoint(D, 2, mode, seed, 0, t, np.ones(2), time, 0.0, None, 0.0, 0.0, None, None)


def test_sample_times_are_the_mean_and_range_over_seeds() -> None:
    """(b): at each D the finite-sample time is the mean over seeds, the bar their min–max; a D
    where one seed never pruned is left out; the population flow (one seed) has no bar; the
    delays are each sample's time over the population's, minus 1."""
    from gaugecli.experiments.prune import PruneResult

    points = [_point("flow", 1.0, 0, 10.0), _point("flow", 4.0, 0, 2.5)]
    points += [_point("sample", 1.0, s, x) for s, x in enumerate((10.2, 10.6, 9.9))]
    points += [_point("sample", 4.0, s, x) for s, x in enumerate((2.6, None, 2.5))]
    result = PruneResult(PRUNED_LEVEL, points, None, 4.0, [])  # type: ignore[arg-type]
    D, T, spread = fig5._times(result, "sample", 2)
    assert D.tolist() == [1.0] and T[0] == pytest.approx((10.2 + 10.6 + 9.9) / 3, rel=1e-15)
    assert spread is not None and spread[0].tolist() == [9.9] and spread[1].tolist() == [10.6]
    D, T, spread = fig5._times(result, "flow", 2)
    assert D.tolist() == [1.0, 4.0] and T.tolist() == [10.0, 2.5] and spread is None
    key = fig5._key_numbers(result, {"b": {}})
    assert key["sample_delay"]["m2"]["D1-seed1"] == pytest.approx(0.06, rel=1e-12)
    assert key["sample_delay_range"]["m2"] == pytest.approx([-0.01, 0.06], rel=1e-12)


def test_sweep_horizon_reads_the_last_decade_slope() -> None:
    """The sweep's ``log_slope_last_decade``: d ln P/d ln t over [t_end/10, t_end], interpolated in
    ln t on the saved grid — exact for a power law sampled at any grid."""
    from gaugecli.experiments.prune import SweepPoint

    t = np.geomspace(1e-3, 1000.0, 37)
    power = SweepPoint(0.0, 0, t, 0.3 * t**-0.29, None, 0.0, 0.0, 0.9, None, None, None)
    h = fig5._horizon(power)
    assert h["t_end"] == 1000.0 and h["log_slope_last_decade"] == pytest.approx(-0.29, rel=1e-12)
    settled = SweepPoint(1.0, 0, t, np.full_like(t, 0.13), None, 0.13, 0.18, 1.0, None, None, None)
    assert fig5._horizon(settled)["log_slope_last_decade"] == pytest.approx(0.0, abs=1e-15)
    # pruned to round-off by the end: no slope (it would be the solver's noise)
    pruned = SweepPoint(-1.0, 0, t, 0.1 * np.exp(-t), 1.0, 0.0, 0.0, 0.01, None, None, None)
    assert fig5._horizon(pruned)["log_slope_last_decade"] is None
