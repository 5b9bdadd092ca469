"""The ODEs fig1–fig3, fig6 and fig8 draw are cached runs of experiment kinds: each kind against an
independent reference (another solver, the claim's own law, the stored artifact read back), and a warm
cache that redraws the figures with every solver made to raise."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from _quick_runs import QuickRuns

from gaugecli.core.defaults import C0, THETA0
from gaugecli.core.kernels import arccos as kernels
from gaugecli.core.reduced import planar as reduced
from gaugecli.pipeline import Pipeline
from gaugecli.plots import render as R
from gaugecli.plots.sidecar import compare_sidecars

EPS = np.finfo(float).eps

SOLVERS = (
    ("gaugecli.core.reduced.planar", "solve_reduced"),
    ("gaugecli.core.reduced.planar", "reduced_specialization_time"),
    ("gaugecli.core.reduced.limits", "favorable_limit"),
    ("gaugecli.core.reduced.limits", "unfavorable_limit"),
    ("gaugecli.core.reduced.limits", "favorable_limit_path"),
    ("gaugecli.core.reduced.limits", "unfavorable_limit_path"),
    ("gaugecli.core.reduced.limits", "limit_clock_free_gap"),
    ("gaugecli.core.reduced.limits", "favorable_limit_dissipation"),
    ("gaugecli.core.reduced.limits", "unfavorable_limit_dissipation"),
    ("gaugecli.core.analyses.separation", "paired_speed_ratio"),
    ("gaugecli.core.integrate.saveat", "integrate"),
    ("scipy.integrate", "solve_ivp"),
    ("scipy.integrate", "quad"),
)
"""Every integrator a figure's runs go through: the network's flows and the reduced and ``D → ∞`` equations."""


class Integrated(AssertionError):
    """Raised by a solver that a warm cache must not reach."""


def _forbid_solvers(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    def refuse(*args: object, **kwargs: object) -> None:
        raise Integrated("a figure integrated although its runs are cached")

    for module, name in SOLVERS:
        monkeypatch.setattr(importlib.import_module(module), name, refuse)


def _drawn_sidecar(fig_id: str, pipeline: Pipeline) -> dict:
    """The sidecar ``fig_id`` draws from ``pipeline``, for a failure's message."""
    import tempfile

    with tempfile.TemporaryDirectory() as out:
        R.render(fig_id, pipeline, out, formats=("png",), quick=True)
        return json.loads((Path(out) / f"{fig_id}.json").read_text())


@pytest.mark.parametrize(
    ("figures", "kinds"),
    [
        (("fig1", "fig2", "fig3"), {"reduced-window", "limit-paths", "limit-constants", "ratio-slope", "speed-ratio"}),
        (("fig6", "fig8"), {"limit-dissipation", "limit-constants"}),
        (("fig12",), {"heavy-ball-pair", "phase", "simulate"}),
    ],
    ids=["fig1-fig3", "fig6-fig8", "fig12"],
)
def test_a_warm_cache_draws_figures_without_integrating(
    figures: tuple[str, ...], kinds: set[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, quick_runs: QuickRuns
) -> None:
    """``plot`` from a cache that holds a figure's runs computes nothing: with every solver made to
    raise, the figures (quick profile) draw again and their sidecars match the first drawing. The
    runs, computed here in a cold cache of this test's own, then serve the session's other tests of
    these figures (``quick_runs``; this test is collected first for it: conftest.py)."""
    cache = tmp_path / "runs"
    warm = Pipeline(cache)
    with quick_runs.publishing(figures, cache):
        for fig_id in figures:
            R.render(fig_id, warm, tmp_path / "warm", formats=("png",), quick=True)
    _forbid_solvers(monkeypatch)
    with pytest.raises(Integrated):  # the patches bite: a run not in the cache is computed, and refused
        from gaugecli.experiments.reduced_window import ReducedWindowConfig

        Pipeline(None).ensure("reduced-window", ReducedWindowConfig(strength=3.0))
    cold = Pipeline(cache)
    for fig_id in figures:
        # drawn again over the first drawing, kept where it shows the same figure: the same
        # configuration (the declared runs' hashes, the renderer, the layout) and every number
        # within its --compare tolerance (render's keep_unchanged: compare_sidecars(first, again)
        # == []); a kept figure is not laid out and saved a second time, which is all it skips
        first = json.loads((tmp_path / "warm" / f"{fig_id}.json").read_text())
        again = R.render(fig_id, cold, tmp_path / "warm", formats=("png",), quick=True, keep_unchanged=True)
        assert again.kept, (fig_id, compare_sidecars(first, _drawn_sidecar(fig_id, cold)))
        # every run read, follow-ups included, is the one the first drawing read
        assert R.figure_inputs(R.figure_module(fig_id), True, cold)[1] == first["result"]["config_hashes"]
    assert cold.computed == []
    assert kinds <= {path.parent.name for path in cache.glob("*/*.json")}


def test_reduced_window_ends_are_half_on_an_independent_solve(tmp_path: Path) -> None:
    """fig1's window (DOP853 dense output at rtol 1e-12, brentq) against the gap of two Radau solves
    at rtol 1e-10 evaluated at its ends: ½ to 1e-7 (the states to ~1e-9 relative; the gap's slope
    there is O(1), ×100 for the two solvers' error estimates)."""
    from gaugecli.experiments.reduced_window import ReducedWindowConfig

    config = ReducedWindowConfig(strength=4.0, t_max=1000.0)
    window = Pipeline(tmp_path).ensure("reduced-window", config).result
    assert window.ends is not None and len(window.crossings) == 2
    lo, hi = window.ends
    assert 0.1 < lo < 1.0 < 10.0 < hi < 100.0  # between the two specialization times (0.44, 40 at D = 4)
    runs = [
        reduced.solve_reduced(
            np.array([s * 4.0]),
            t_max=1000.0,
            c0=C0,
            theta0=THETA0,
            rtol=1e-10,
            atol=1e-13,
            grad_tol=None,
            method="Radau",
        )
        for s in (1.0, -1.0)
    ]
    for end in window.ends:
        (cp,), (tp,) = runs[0].dense(end)
        (cm,), (tm,) = runs[1].dense(end)
        gap = np.sqrt(0.5 * cp**2 + 0.5 * cm**2 - 2 * cp * cm * float(kernels.angular_profile(abs(tp - tm)))) * np.sqrt(
            2
        )
        assert gap == pytest.approx(0.5, abs=1e-7)
    # the reduced flow's own gap at its roots: ½ to brentq's tolerance times the gap's slope (≤ 1e-12)
    assert np.allclose(window.gap_at_crossings, 0.5, rtol=0.0, atol=1e-12)


def test_limit_runs_meet_the_large_D_reduced_flow(tmp_path: Path) -> None:
    """``limit-constants`` against the reduced flow at D = 10⁴ (another ODE; corrections O(1/D²) ≈ 1e-8,
    bound 1e-7), and ``ratio-slope`` against C4's exponent 2 (its O(1/D²) correction at D = 64 → 128
    is ≤ 4e-4) and against the constant ``C = U/F`` (ratio/D² at D = 128: relative O(1/D) ≤ 1 %)."""
    from gaugecli.experiments.limits import LimitConstantsConfig
    from gaugecli.experiments.ratio_slope import RatioSlopeConfig

    pipe = Pipeline(tmp_path)
    limits = pipe.ensure("limit-constants", LimitConstantsConfig()).result
    D = 1e4
    assert D * reduced.reduced_specialization_time(D) == pytest.approx(limits.favorable, rel=1e-7)
    assert reduced.reduced_specialization_time(-D) / D == pytest.approx(limits.unfavorable, rel=1e-7)
    slope = pipe.ensure("ratio-slope", RatioSlopeConfig()).result
    assert slope.local_slope == pytest.approx(2.0, abs=4e-4)
    assert slope.ratio_over_D2 == pytest.approx(limits.unfavorable / limits.favorable, rel=1e-2)
    # read back from the cache: JSON keeps every digit (repr round-trips), so to a few ε
    again = Pipeline(tmp_path).ensure("ratio-slope", RatioSlopeConfig())
    assert not again.computed
    assert again.result.local_slope == pytest.approx(slope.local_slope, rel=4 * EPS)


def test_limit_paths_start_at_the_initial_function_and_end_at_the_teacher(tmp_path: Path) -> None:
    """Both ``D → ∞`` paths start at ``(c0, θ0)`` and end at ``(a*, 0)`` (the favorable one at
    ``s = 80``: ``e^{−40}`` from it, so to the solver's atol 1e-16 ×1e4); the unfavorable one, after
    its fixed-angle segment, lies on the slow manifold ``c = 2a* g(θ)`` (closed form: to a few ε);
    Δ_∞ at 4001 samples is fig2's quoted 0.4022 (its sidecar's, at 64 001 samples) to 5e-4 (the coarser
    sampling moves it by 1.6e-4, measured; ×3)."""
    from gaugecli.experiments.limits import LimitPathsConfig

    paths = Pipeline(tmp_path).ensure("limit-paths", LimitPathsConfig(points=4001)).result
    for c, theta in (
        (paths.favorable_coefficient, paths.favorable_angle),
        (paths.unfavorable_coefficient, paths.unfavorable_angle),
    ):
        assert len(c) == len(theta) == 4001
        assert c[0] == pytest.approx(C0, rel=4 * EPS) and theta[0] == pytest.approx(THETA0, rel=4 * EPS)
        assert c[-1] == pytest.approx(1.0, abs=1e-12) and theta[-1] == pytest.approx(0.0, abs=1e-6)
    manifold = slice(4001 // 4, None)
    g = kernels.angular_profile(paths.unfavorable_angle[manifold])
    np.testing.assert_allclose(paths.unfavorable_coefficient[manifold], 2.0 * g, rtol=8 * EPS, atol=0.0)
    assert paths.clock_free_gap == pytest.approx(0.4022, abs=5e-4)


def test_speed_ratio_time_average_is_the_ratio_of_independent_times(tmp_path: Path) -> None:
    """fig3 (d)'s identity ``(1/T₊)∫S dt = T_spec(−D)/T_spec(+D)``: the paired run (one LSODA solve at
    rtol 1e-12) against two separate reduced solves with event location (rtol 1e-12): 1e-8 relative
    (each time to ~1e-10, the −D one over ~10³ stiff steps)."""
    from gaugecli.experiments.speed_ratio import SpeedRatioConfig

    times = tuple(np.geomspace(1e-3, 10.0, 50).tolist())
    pair = Pipeline(tmp_path).ensure("speed-ratio", SpeedRatioConfig(strength=8.0, times=times)).result
    plus, minus = reduced.reduced_specialization_time(8.0), reduced.reduced_specialization_time(-8.0)
    assert pair.t_spec_plus == pytest.approx(plus, rel=1e-8)
    assert pair.time_average == pytest.approx(minus / plus, rel=1e-8)
    assert pair.t[-1] == pytest.approx(pair.t_spec_plus, rel=4 * EPS) and np.all(np.diff(pair.t) > 0)


def test_limit_dissipation_spends_the_initial_loss_and_meets_the_large_D_reduced_flow(tmp_path: Path) -> None:
    """``limit-dissipation``: the ``+D`` limit flow's ``∫R + ∫T`` (two quadratures along one DOP853
    solve at rtol 1e-12) is the closed-form initial loss ``L(c0, θ0)`` (the flow ends at the teacher,
    ``e^{−200}`` away at ``s = 400``), to 1e-10 (rtol 1e-12 ×100 for the steps' accumulated error;
    measured 5e-15); each gauge's reaction share is that of the reduced flow at D = 10³ (LSODA, rtol
    1e-10) to 1e-6: the approach is O(1/D²) (measured 6.1e-5 at D = 64 → 2.5e-7 at D = 10³ for −D,
    1.8e-6 → 7e-9 for +D, both ×(10³/64)²), ×4 margin."""
    from gaugecli.experiments.limit_dissipation import LimitDissipationConfig

    limit = Pipeline(tmp_path).ensure("limit-dissipation", LimitDissipationConfig()).result
    loss0 = float(reduced.planar_loss(np.array([C0]), np.array([THETA0])))
    assert limit.favorable_reaction + limit.favorable_transport == pytest.approx(loss0, rel=1e-10)
    assert limit.unfavorable_reaction + limit.unfavorable_transport == pytest.approx(loss0, rel=1e-10)
    for gauge, sign in (("favorable", 1.0), ("unfavorable", -1.0)):
        sol = reduced.solve_reduced(np.array([sign * 1e3]), t_max=1e7, rtol=1e-10, atol=1e-13)
        assert sol.converged
        share = sol.dissipated_reaction / (sol.dissipated_reaction + sol.dissipated_transport)
        assert limit.reaction_share(gauge) == pytest.approx(share, abs=1e-6), gauge
    # read back from the cache: JSON keeps every digit, so the same float to a few ε
    again = Pipeline(tmp_path).ensure("limit-dissipation", LimitDissipationConfig())
    assert not again.computed
    assert again.result.reaction_share("favorable") == pytest.approx(limit.reaction_share("favorable"), rel=4 * EPS)
