"""Figure 11 (beyond the paper: finite samples) on the quick profile, and the fits it reads.

The logistic threshold fit is checked against closed forms (a symmetric design, a saturated two-size
design) and its delta-method errors against a finite-difference Hessian in another parametrisation;
the bootstrap's batched fit against :func:`fit_logistic` replicate by replicate, and its interval
against a resampling of the seeds' outcomes by hand; the figure's owners on L_n against each seed
trained alone, its sample-size curves against the sweeps' counts, and the dimensions' seeds and
samples against each other (no two share a draw)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from _quick_runs import QuickRuns
from scipy import special

from gaugecli.core.model.state import Network
from gaugecli.experiments.perturb.fits import fit_logistic, power_law_through
from gaugecli.plots import _fig11_samples as fig11_samples
from gaugecli.plots import fig11, render, style
from gaugecli.plots.venue import layout


def test_a_symmetric_design_puts_the_half_size_at_its_centre() -> None:
    """Counts symmetric about ln n = ln 16 (k and N − k mirrored): the penalised likelihood is
    symmetric too (the Jeffreys penalty is invariant under the mirror), so P(16) = ½ — n_½ = 16 to
    the Newton iteration's tolerance (score < 1e-8 counts against an information of ≈ 10)."""
    fit = fit_logistic([4, 8, 16, 32, 64], [1, 3, 10, 17, 19], [20] * 5)
    assert fit is not None
    assert fit.n_half == pytest.approx(16.0, rel=1e-8)
    assert fit.rate([16.0])[0] == pytest.approx(0.5, abs=1e-9)


def _penalised_reference(ns: list[int], k: np.ndarray, N: np.ndarray) -> np.ndarray:
    """Firth's estimate by another route: Nelder–Mead on −ℓ(b) − ½ ln det I(b) in (ln n_½, steepness)
    (no score, no hat values), to xatol 1e-10. Its fatol, 1e-12, lies above the objective's round-off
    (a sum of ≈ 20 counts: a few ulps of 20, ≈ 1e-14), which a fatol of 1e-14 was not: 4 of the 10
    bootstrap rows below ran Nelder–Mead's 20000 iterations in that noise (11.8 CPU-s) to the same
    minimiser, within 3e-15 of the one fatol 1e-12 stops at (0.07 CPU-s); xatol still decides."""
    from scipy import optimize

    x = np.log(np.asarray(ns, float))

    def objective(p: np.ndarray) -> float:
        z = p[1] * (x - p[0])
        w = N * special.expit(z) * special.expit(-z)
        info = np.array(
            [[np.sum(w), np.sum(w * x)], [np.sum(w * x), np.sum(w * x * x)]]
        )  # in (b0, b1) of z = b0 + b1 x
        nll = np.sum(k * np.logaddexp(0.0, -z) + (N - k) * np.logaddexp(0.0, z))
        return float(nll - 0.5 * np.linalg.slogdet(info)[1])

    start = np.array([np.mean(x), 2.0])
    res = optimize.minimize(objective, start, method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 20000})  # fmt: skip
    return np.asarray(res.x)


@pytest.mark.parametrize(
    "k",
    [[0, 2, 5, 10, 15, 19, 20], [0, 0, 3, 9, 15, 20, 20], [0, 0, 0, 12, 20, 20, 20], [0, 0, 0, 0, 20, 20, 20]],
    ids=["gradual", "sweep-like", "one-mixed-size", "separated"],
)
def test_the_fit_maximises_firths_penalised_likelihood(k: list[int]) -> None:
    """The Newton fit against a derivative-free maximisation of the penalised likelihood (the
    Jeffreys prior makes ln det I a function of b alone, invariant under the reparametrisation
    b0 + b1 x = b1 (x − ln n_½)): ln n_½ and the steepness agree to 1e-6 (Nelder–Mead's xatol 1e-10
    on a maximum whose curvature is ≳ 1 count: the optimum is located to ≲ 1e-6). The separated
    and one-mixed-size counts have no plain maximum-likelihood fit; the penalised one exists."""
    ns = [32, 48, 64, 96, 128, 192, 256]
    fit = fit_logistic(ns, k, [20] * len(ns))
    assert fit is not None
    ln_half, steepness = _penalised_reference(ns, np.array(k, float), np.full(len(ns), 20.0))
    assert np.log(fit.n_half) == pytest.approx(ln_half, abs=1e-6)
    assert fit.steepness == pytest.approx(steepness, rel=1e-6)


def test_counts_separated_symmetrically_put_the_threshold_midway() -> None:
    """[0, 0, 20, 20] at n = 8…64 mirror into themselves about ln √(16·32): n_½ = √512 (Newton's
    tolerance as above), with a finite steepness where the plain likelihood has none."""
    fit = fit_logistic([8, 16, 32, 64], [0, 0, 20, 20], [20] * 4)
    assert fit is not None and np.isfinite(fit.steepness)
    assert fit.n_half == pytest.approx(np.sqrt(16 * 32), rel=1e-8)


def test_the_stated_errors_are_the_delta_method_on_a_finite_difference_hessian() -> None:
    """The code's error of ln n_½ (the delta method on the Fisher information) against the same
    quantity by another route: the inverse of a finite-difference Hessian of the negative
    log-likelihood in the canonical coefficients z = b0 + b1 ln n (for the logistic's canonical link
    it equals the Fisher information at any b, so also at the penalised estimate), pushed through a
    finite-difference gradient of ln n_½ = −b0/b1. Central differences with step h = 1e-4 carry
    O(h²) ≈ 1e-8 relative error; 1e-5 leaves room for the round-off of ε/h²."""
    ns, k, N = [16, 24, 32, 48, 64, 96, 128], np.array([0, 0, 3, 9, 15, 20, 20.0]), np.full(7, 20.0)
    fit = fit_logistic(ns, list(k.astype(int)), list(N.astype(int)))
    assert fit is not None
    x = np.log(ns)

    def nll(b: np.ndarray) -> float:
        z = b[0] + b[1] * x
        return float(np.sum(k * np.logaddexp(0.0, -z) + (N - k) * np.logaddexp(0.0, z)))

    def ln_half(b: np.ndarray) -> float:
        return float(-b[0] / b[1])

    b0, h = np.array([-fit.steepness * np.log(fit.n_half), fit.steepness]), 1e-4
    H, g = np.empty((2, 2)), np.empty(2)
    for i in range(2):
        e_i = np.eye(2)[i] * h
        g[i] = (ln_half(b0 + e_i) - ln_half(b0 - e_i)) / (2 * h)
        for j in range(2):
            e_j = np.eye(2)[j] * h
            H[i, j] = (nll(b0 + e_i + e_j) - nll(b0 + e_i - e_j) - nll(b0 - e_i + e_j) + nll(b0 - e_i - e_j)) / (
                4 * h * h
            )
    assert np.sqrt(g @ np.linalg.inv(H) @ g) == pytest.approx(fit.log_err_half, rel=1e-5)


@pytest.mark.parametrize(("k", "why"), [([0, 0, 0, 0], "no success"), ([20, 20, 20, 20], "no failure")])
def test_no_fit_where_the_counts_do_not_locate_a_threshold(k: list[int], why: str) -> None:
    assert fit_logistic([8, 16, 32, 64], k, [20] * 4) is None, why


def test_power_law_through_points_recovers_an_exact_law() -> None:
    d = np.array([8.0, 16.0, 32.0, 64.0])
    law = power_law_through(d, 3.1 * d**1.07, np.full(4, 0.05))
    assert law.slope == pytest.approx(1.07, rel=1e-12)
    assert law.prefactor == pytest.approx(3.1, rel=1e-12)


@pytest.fixture(scope="module")
def built(quick_runs: QuickRuns) -> Any:
    with quick_runs.locked("fig11") as pipeline:
        inputs, _ = render.resolve(fig11.needs(True), pipeline)
    venue = layout()
    with style.context(venue):
        fig, panels = fig11.build(inputs, venue)
        fig.canvas.draw()
        yield fig, panels, inputs
    fig.clear()


def test_owners_on_finite_samples_match_each_seed_trained_alone(built: Any) -> None:
    """(b): the L_n owner of each of three seeds, from the chunk's ensemble (one step-size control
    for all seeds), against that seed's start on its own sample trained alone with the same solver
    and read by hand (aligned α ≥ 1 − ε_align, largest c). Both runs are within rtol 1e-4 of the
    same flow; the owner is decided far above that (a margin of c checked here)."""
    from gaugecli.core.integrate.flow import FlowOptions, gradient_flow
    from gaugecli.core.model.gauge import function_coordinates
    from gaugecli.core.samples.sample import empirical_objective
    from gaugecli.core.samples.sample_draw import draw_sample
    from gaugecli.experiments.config import ModelConfig
    from gaugecli.experiments.params import SAMPLE_RTOL
    from gaugecli.experiments.predict import chunk as chunk_module
    from gaugecli.experiments.predict.config import Cell
    from gaugecli.experiments.predict.starts import gaussian_start

    _, panels, inputs = built
    result, config = inputs["predict-samples"], inputs.configs["predict-samples"]
    (row,) = [r for r in result.rows if r.n is not None and r.batch is None]
    net = ModelConfig(d=config.model.d, k=1).build()
    horizon = config.horizon(Cell(row.k, row.m, None, row.n))
    options = FlowOptions(rtol=SAMPLE_RTOL, atol=SAMPLE_RTOL * 1e-3, method=chunk_module.SAMPLE_METHOD, grid_points=3)
    for b, seed in enumerate(result.seeds[:3]):
        a0, W0 = gaussian_start(seed, 1, row.m, config.model.d, config.init_scale_a, config.init_scale_w, None)
        X, y = draw_sample(net, row.n, np.random.SeedSequence([seed, row.n, 1, row.m]))
        traj = gradient_flow(Network(a0[None], W0[None]), net, horizon, eps_align=0.01, options=options, objective=empirical_objective(X, y))  # fmt: skip
        W = traj.input_weights()[0, -1]
        c, U = function_coordinates(Network(traj.a[0, -1], W))
        alpha = U @ np.eye(config.model.d)[0]
        aligned = np.nonzero(alpha >= 0.99)[0]
        expected = int(aligned[np.argmax(c[aligned])]) if aligned.size else -1
        assert row.owners[b] == [expected]
        if aligned.size > 1:
            top = np.sort(c[aligned])[-2:]
            assert top[1] - top[0] > 1e-3
    assert panels["key"]["sampled"]["population"]["agreement"] == 1.0  # the population row against itself
    (sgd,) = [r for r in result.rows if r.batch is not None]
    assert (sgd.n, sgd.batch, sgd.eta) == (row.n, fig11_samples.SGD_BATCH, config.sgd_eta)


def test_selection_curves_are_the_sweeps_counts_and_their_fits(built: Any) -> None:
    """(c, d): the drawn shares are the sweeps' counts over their trials, the fitted curve passes
    through ½ at the n_½ drawn in (f), and n_0.9 lies above n_½."""
    _, panels, inputs = built
    for d in fig11.DIMENSIONS[True]:
        sweep = inputs[f"samples-d{d}"].selection
        e = panels["c"][f"d{d}"]
        assert e["successes"] == list(sweep.successes)
        assert np.allclose(e["y"], np.array(sweep.successes) / np.array(sweep.trials), rtol=0, atol=1e-15)
        fit = fit_logistic(sweep.ns, sweep.successes, sweep.trials)
        if fit is not None:
            assert fit.rate([fit.n_half])[0] == pytest.approx(0.5, abs=1e-12)
            assert fit.n_ninety > fit.n_half
            assert panels["key"]["samples"]["n_half"][f"d{d}"] == pytest.approx(fit.n_half, rel=1e-12)


def test_each_dimension_draws_its_own_seeds_and_samples() -> None:
    """No two dimensions share a seed, so no two share a sample stream: the size n = 64 that d = 32
    (r = 2) and d = 64 (r = 1) both train on is drawn from different seeds, and the two samples have
    no number in common (two independent N(0, 1) draws coincide with probability 0)."""
    from gaugecli.experiments.perturb import sample_of

    seeds = {d: fig11_samples.selection_seeds(d, False) for d in fig11_samples.DIMENSIONS[False]}
    assert all(len(s) == fig11_samples.SEEDS[False] for s in seeds.values())
    assert len(set().union(*seeds.values())) == sum(len(s) for s in seeds.values())
    for quick in (True, False):
        for d in fig11_samples.DIMENSIONS[quick]:
            assert fig11_samples.sample_config(d, quick).success_seeds == fig11_samples.selection_seeds(d, quick)
    small, large = (fig11_samples.sample_config(d, False).model.build() for d in (32, 64))
    X32, _ = sample_of(small, 64, seeds[32][0])
    X64, _ = sample_of(large, 64, seeds[64][0])
    assert not np.intersect1d(X32.ravel(), X64.ravel()).size


def test_the_batched_fit_solves_each_replicate_as_alone() -> None:
    """All replicates at once (the bootstrap) against each replicate fitted alone and against the
    derivative-free reference: the rows do not couple (agreement to 1e-7 in ln n_½, 1e-6 relative in
    the error: the batch stops when every row's score is below 1e-8 counts, a row alone when its own
    is, and at an information of ≳ 1 count per unit coefficient the two stopping points lie within
    ≲ 1e-8 of each other), and every replicate of these overlapping counts has a fit."""
    from gaugecli.experiments.perturb.fits import logistic_thresholds

    ns, k = [32, 48, 64, 96, 128, 192, 256, 384], np.array([0, 0, 0, 12, 19, 20, 20, 20])
    drawn = np.random.default_rng(7).binomial(20, k / 20, size=(200, len(ns)))
    batch = logistic_thresholds(ns, drawn, [20] * len(ns))
    assert np.all(np.isfinite(batch["log_half"]))
    for r in range(0, len(drawn), 20):
        fit = fit_logistic(ns, [int(v) for v in drawn[r]], [20] * len(ns))
        assert fit is not None
        assert batch["log_half"][r] == pytest.approx(np.log(fit.n_half), abs=1e-7)
        assert batch["log_err_ninety"][r] == pytest.approx(fit.log_err_ninety, rel=1e-6)
        ln_half, _ = _penalised_reference(ns, drawn[r].astype(float), np.full(len(ns), 20.0))
        assert batch["log_half"][r] == pytest.approx(ln_half, abs=1e-6)


def test_the_replicates_slopes_are_power_law_throughs() -> None:
    """The bootstrap's closed-form weighted slope against :func:`power_law_through` (numpy's
    polyfit, a least-squares solve) on 50 random rows of four points: agreement to 1e-9 (the normal
    equations square the condition number of ln d = ln 8…ln 64, ≈ 1e2, times ε ≈ 1e-16 and the
    sums' round-off: ≲ 1e-12; 1e-9 is a wide margin)."""
    from gaugecli.experiments.perturb.bootstrap import weighted_slopes

    rng = np.random.default_rng(5)
    d = np.array([8.0, 16.0, 32.0, 64.0])
    ly = np.log(3.0 * d) + rng.normal(0.0, 0.1, size=(50, 4))
    err = rng.uniform(0.03, 0.2, size=(50, 4))
    slopes = weighted_slopes(np.log(d), ly, 1.0 / err**2)
    for r in range(50):
        assert slopes[r] == pytest.approx(power_law_through(d, np.exp(ly[r]), err[r]).slope, rel=1e-9)


def test_the_bootstrap_interval_is_a_resampling_of_the_seeds_by_hand() -> None:
    """The interval against a bootstrap written out: each cell's 20 seed outcomes (k ones, N − k
    zeros) resampled with replacement, each d refitted by :func:`fit_logistic` and the power law by
    :func:`power_law_through`. The two use different random streams, so they agree in distribution
    only: with B = 400 the 2.5 % and 97.5 % percentiles of an exponent whose bootstrap spread is
    s ≈ 0.05 carry a Monte Carlo error of about 2.5·s/√B ≈ 0.006 each; 0.03 is five of those."""
    from gaugecli.experiments.perturb.bootstrap import bootstrap_exponents

    dims, ratios = (8.0, 16.0, 32.0), np.array([1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0])
    counts = ([0, 2, 5, 10, 15, 19, 20], [0, 1, 4, 10, 16, 20, 20], [0, 0, 3, 9, 17, 19, 20])
    cells = [([round(r * d) for r in ratios], k, [20] * len(ratios)) for d, k in zip(dims, counts, strict=True)]
    B = 400
    boot = bootstrap_exponents(dims, cells, B, seed=3)
    rng = np.random.default_rng(11)
    slopes = []
    for _ in range(B):
        sizes, errs = [], []
        for ns, k, N in cells:
            resampled = [
                int(rng.choice(np.r_[np.ones(s), np.zeros(n - s)], n).sum()) for s, n in zip(k, N, strict=True)
            ]
            fit = fit_logistic(ns, resampled, N)
            if fit is None:
                break
            sizes.append(fit.n_half)
            errs.append(fit.log_err_half)
        else:
            slopes.append(power_law_through(dims, sizes, errs).slope)
    low, high = np.percentile(slopes, [2.5, 97.5])
    assert boot.kept >= 0.9 * B and len(slopes) >= 0.9 * B
    assert boot.half[0] == pytest.approx(low, abs=0.03)
    assert boot.half[1] == pytest.approx(high, abs=0.03)


def test_every_panel_is_drawn_and_readable(built: Any) -> None:
    import _figure_checks as checks

    fig, panels, _ = built
    checks.assert_every_series_drawn(fig, panels, "abcd")
    checks.assert_text_and_height(fig, 9.0)
    checks.assert_rules_name_sidecar_numbers(panels, fig11.SIDECAR_TOLERANCES)
    for letter in "abcd":
        checks.assert_legend_clear(fig, letter)
    assert panels["key"]["samples"]["bootstrap"]["replicates"] == fig11_samples.BOOTSTRAP[True]


def test_the_main_version_draws_its_panels_relettered_with_the_full_sidecar(built: Any) -> None:
    """``MAIN_PANELS`` in one row, lettered (a), (b), …; the sidecar is the full figure's."""
    import _figure_checks as checks

    _, full, inputs = built
    venue = replace(layout(), panels=fig11.MAIN_PANELS)
    with style.context(venue):
        fig, panels = fig11.build(inputs, venue)
        fig.canvas.draw()
        axes = checks.panel_axes(fig)
        assert sorted(axes) == list("abcd"[: len(fig11.MAIN_PANELS)])
        assert fig.get_figheight() < 0.5 * venue.width
        assert panels.keys() == full.keys() and panels["c"]["d8"]["successes"] == full["c"]["d8"]["successes"]
        for shown, letter in zip(sorted(axes), fig11.MAIN_PANELS, strict=True):
            assert axes[shown].get_xlabel() == checks.panel_axes(built[0])[letter].get_xlabel()
            checks.assert_legend_clear(fig, shown)
    fig.clear()
