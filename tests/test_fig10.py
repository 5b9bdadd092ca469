"""Figure 10 (beyond the paper: ownership in the wild) on the quick profile, and the fits it reads.

The logistic threshold fit is checked against closed forms (a symmetric design, a saturated two-size
design) and its delta-method errors against a finite-difference Hessian in another parametrisation;
the figure's owners against a recomputation from the run's final state, its accuracies against a
recount of the study's owners and picks, and its sample-size curves against the sweeps' counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import special

from gaugecli.experiments.perturb.fits import fit_logistic, power_law_through
from gaugecli.pipeline import Pipeline
from gaugecli.plots import _fig10_samples as fig10_samples
from gaugecli.plots import fig10, render, style
from gaugecli.plots.venue import layout


def test_a_symmetric_design_puts_the_half_size_at_its_centre() -> None:
    """Counts symmetric about ln n = ln 16 (k and N − k mirrored): the maximum-likelihood logistic
    is symmetric too, so P(16) = ½ — n_½ = 16 to the optimiser's tolerance (gtol 1e-9 in counts)."""
    fit = fit_logistic([4, 8, 16, 32, 64], [1, 3, 10, 17, 19], [20] * 5)
    assert fit is not None
    assert fit.n_half == pytest.approx(16.0, rel=1e-8)
    assert fit.rate([16.0])[0] == pytest.approx(0.5, abs=1e-9)


def test_two_sizes_fit_their_own_rates_exactly() -> None:
    """With two sizes the logistic line is saturated: it passes through both empirical logits, so
    ln n_½ = x₁ − ℓ₁ (x₂ − x₁)/(ℓ₂ − ℓ₁) and the steepness is (ℓ₂ − ℓ₁)/(x₂ − x₁)."""
    ns, k, N = [10, 40], [3, 14], [20, 20]
    fit = fit_logistic(ns, k, N)
    assert fit is not None
    x, logit = np.log(ns), special.logit(np.array(k) / np.array(N))
    slope = (logit[1] - logit[0]) / (x[1] - x[0])
    assert fit.steepness == pytest.approx(slope, rel=1e-8)
    assert np.log(fit.n_half) == pytest.approx(x[0] - logit[0] / slope, rel=1e-8)
    assert np.log(fit.n_ninety) == pytest.approx(x[0] + (special.logit(0.9) - logit[0]) / slope, rel=1e-8)


def test_the_stated_errors_are_the_inverse_hessian_in_the_threshold_parametrisation() -> None:
    """The delta method on the Fisher information (the code) against the inverse of a
    finite-difference Hessian of the negative log-likelihood in (ln n_½, steepness) — the same
    quantity by another route (maximum-likelihood errors are invariant under reparametrisation;
    for the logistic's canonical link observed and expected information agree). Central differences
    with step h = 1e-4 carry O(h²) ≈ 1e-8 relative error; 1e-5 leaves room for the round-off of ε/h²."""
    ns, k, N = [16, 24, 32, 48, 64, 96, 128], np.array([0, 0, 3, 9, 15, 20, 20.0]), np.full(7, 20.0)
    fit = fit_logistic(ns, list(k.astype(int)), list(N.astype(int)))
    assert fit is not None
    x = np.log(ns)

    def nll(p: np.ndarray) -> float:
        z = p[1] * (x - p[0])
        return float(np.sum(k * np.logaddexp(0.0, -z) + (N - k) * np.logaddexp(0.0, z)))

    p0, h = np.array([np.log(fit.n_half), fit.steepness]), 1e-4
    H = np.empty((2, 2))
    for i in range(2):
        for j in range(2):
            e_i, e_j = np.eye(2)[i] * h, np.eye(2)[j] * h
            H[i, j] = (nll(p0 + e_i + e_j) - nll(p0 + e_i - e_j) - nll(p0 - e_i + e_j) + nll(p0 - e_i - e_j)) / (
                4 * h * h
            )
    assert np.sqrt(np.linalg.inv(H)[0, 0]) == pytest.approx(fit.log_err_half, rel=1e-5)


@pytest.mark.parametrize(
    ("k", "why"),
    [
        ([0, 0, 20, 20], "separated between two sizes"),
        ([0, 7, 20, 20], "one mixed size, separated around it"),
        ([0, 0, 0, 0], "no success"),
    ],
)
def test_no_fit_where_the_counts_do_not_locate_a_threshold(k: list[int], why: str) -> None:
    assert fit_logistic([8, 16, 32, 64], k, [20] * 4) is None, why


def test_power_law_through_points_recovers_an_exact_law() -> None:
    d = np.array([8.0, 16.0, 32.0, 64.0])
    law = power_law_through(d, 3.1 * d**1.07, np.full(4, 0.05))
    assert law.slope == pytest.approx(1.07, rel=1e-12)
    assert law.prefactor == pytest.approx(3.1, rel=1e-12)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Any:
    pipeline = Pipeline(Path(tmp_path_factory.mktemp("fig10-cache")))
    inputs, _ = render.resolve(fig10.needs(True), pipeline)
    venue = layout()
    with style.context(venue):
        fig, panels = fig10.build(inputs, venue)
        fig.canvas.draw()
        yield fig, panels, inputs
    fig.clear()


def test_owners_of_the_random_run_match_a_recomputation_from_its_final_state(built: Any) -> None:
    """(a): per feature, the neuron aligned with v_k (α_jk ≥ 1 − ε_align, α = O/c at the last
    stored time) that carries the largest c — computed here from the run's arrays, not by
    :func:`gaugecli.core.ownership.feature_owners`."""
    _, panels, inputs = built
    run, eps = inputs["wild"], inputs.configs["wild"].model.eps_align
    c = np.asarray(run.coefficient, float)[-1]
    alpha = np.asarray(run.ownership, float)[-1] / c[:, None]
    owners = []
    for f in range(fig10.WILD_K):
        aligned = np.nonzero(alpha[:, f] >= 1 - eps)[0]
        owners.append(int(aligned[np.argmax(c[aligned])]))
    assert panels["key"]["wild"]["owners"] == owners
    for f in range(fig10.WILD_K):
        roles = {name: s["role"] for name, s in panels["a"][f"v{f + 1}"].items()}
        assert roles[f"neuron{owners[f]}"] == "owner"
        assert panels["key"]["wild"]["owner_share"][f] == pytest.approx(c[owners[f]] * alpha[owners[f], f], rel=1e-12)


def test_accuracies_are_recounted_from_the_studys_owners_and_picks(built: Any) -> None:
    """(c, d): every drawn accuracy is the share of owned (run, feature) pairs where the predictor's
    pick is the owner, recounted from the artifact's per-seed lists (exact: integers)."""
    _, panels, inputs = built
    for k, letter in ((1, "c"), (2, "d")):
        result = inputs[f"predict-k{k}"]
        for name in result.predictors:
            if k == 1 and name == "race-matched":  # at k = 1 it is the race, and not drawn twice
                assert name not in panels[letter]
                continue
            drawn = [r for r in result.rows if r.spread is not None]
            recount = [
                sum(o != -1 and o == q for row, qs in zip(r.owners, r.picks[name], strict=True) for o, q in zip(row, qs, strict=True))
                for r in drawn
            ]  # fmt: skip
            owned = [sum(o != -1 for row in r.owners for o in row) for r in drawn]
            assert panels[letter][name]["correct"] == recount
            assert np.allclose(panels[letter][name]["y"], np.array(recount) / np.array(owned), rtol=0, atol=1e-15)


def test_owners_on_finite_samples_match_each_seed_trained_alone(built: Any) -> None:
    """(b): the L_n owner of each of three seeds, from the chunk's ensemble (one step-size control
    for all seeds), against that seed's start on its own sample trained alone with the same solver
    and read by hand (aligned α ≥ 1 − ε_align, largest c). Both runs are within rtol 1e-4 of the
    same flow; the owner is decided far above that (a margin of c checked here)."""
    from gaugecli.core.empirical import draw_sample
    from gaugecli.core.flow import FlowOptions, gradient_flow
    from gaugecli.core.gauge import function_coordinates
    from gaugecli.core.sample import empirical_objective
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
        traj = gradient_flow(a0[None], W0[None], net, horizon, eps_align=0.01, options=options, objective=empirical_objective(X, y))  # fmt: skip
        W = traj.input_weights()[0, -1]
        c, U = function_coordinates(traj.a[0, -1], W)
        alpha = U @ np.eye(config.model.d)[0]
        aligned = np.nonzero(alpha >= 0.99)[0]
        expected = int(aligned[np.argmax(c[aligned])]) if aligned.size else -1
        assert row.owners[b] == [expected]
        if aligned.size > 1:
            top = np.sort(c[aligned])[-2:]
            assert top[1] - top[0] > 1e-3
    assert panels["key"]["sampled"]["population"]["agreement"] == 1.0  # the population row against itself
    (sgd,) = [r for r in result.rows if r.batch is not None]
    assert (sgd.n, sgd.batch, sgd.eta) == (row.n, fig10_samples.SGD_BATCH, config.sgd_eta)


def test_owner_sets_reduce_to_the_rules_at_one_feature_and_are_recounted_at_two(built: Any) -> None:
    """With one feature the top-1 of δ (of c·α) is exactly the delta (c-alpha) rule's pick, so the
    owner-set counts equal the rules' counts in (c). With two, the drawn counts of (d) against a
    recount from each seed's start rebuilt by :func:`gaussian_start` in all d dimensions (δ = a² − ‖w‖²,
    c α_jl from the raw weights), a set counted where its two top scores clear the third (for δ by
    more than 1e-12 of the largest a² + ‖w‖², the rule's tie margin)."""
    from gaugecli.experiments.predict.sets import owner_sets
    from gaugecli.experiments.predict.starts import gaussian_start

    _, panels, inputs = built
    one = inputs["predict-k1"]
    for row, sets in zip(one.rows, owner_sets(one, inputs.configs["predict-k1"]), strict=True):
        assert sets.correct == {"delta": row.correct["delta"], "c-alpha": row.correct["c-alpha"]}
    config = inputs.configs["predict-k2"]
    drawn = [r for r in inputs["predict-k2"].rows if r.spread is not None]
    for i, row in enumerate(drawn):
        counts = {"delta": 0, "c-alpha": 0}
        for b, seed in enumerate(inputs["predict-k2"].seeds):
            a, W = gaussian_start(seed, 2, row.m, config.model.d, config.init_scale_a, config.init_scale_w, row.spread)
            norms = np.linalg.norm(W, axis=1)
            scores = {
                "delta": a**2 - norms**2,
                "c-alpha": np.max((a * norms)[:, None] * (W[:, :2] / norms[:, None]), axis=1),
            }
            ties = {"delta": 1e-12 * np.max(a**2 + norms**2), "c-alpha": 0.0}
            owners = set(row.owners[b])
            if -1 in owners or len(owners) < 2:
                continue
            for name, score in scores.items():
                order = np.argsort(-score)
                if score[order[1]] - score[order[2]] > ties[name] and set(order[:2]) == owners:
                    counts[name] += 1
        assert panels["d"]["owner_sets"]["delta"]["correct"][i] == counts["delta"]
        assert panels["d"]["owner_sets"]["c-alpha"]["correct"][i] == counts["c-alpha"]


def test_selection_curves_are_the_sweeps_counts_and_their_fits(built: Any) -> None:
    """(e, f): the drawn shares are the sweeps' counts over their trials, the fitted curve passes
    through ½ at the n_½ drawn in (f), and n_0.9 lies above n_½."""
    _, panels, inputs = built
    for d in fig10.DIMENSIONS[True]:
        sweep = inputs[f"samples-d{d}"].selection
        e = panels["e"][f"d{d}"]
        assert e["successes"] == list(sweep.successes)
        assert np.allclose(e["y"], np.array(sweep.successes) / np.array(sweep.trials), rtol=0, atol=1e-15)
        fit = fit_logistic(sweep.ns, sweep.successes, sweep.trials)
        if fit is not None:
            assert fit.rate([fit.n_half])[0] == pytest.approx(0.5, abs=1e-12)
            assert fit.n_ninety > fit.n_half
            assert panels["key"]["samples"]["n_half"][f"d{d}"] == pytest.approx(fit.n_half, rel=1e-12)


def test_every_panel_is_drawn_and_readable(built: Any) -> None:
    import _figure_checks as checks

    fig, panels, _ = built
    checks.assert_every_series_drawn(fig, panels, "abcdef")
    checks.assert_text_and_height(fig, 9.0)
    checks.assert_rules_name_sidecar_numbers(panels, fig10.SIDECAR_TOLERANCES)
    for letter in "abce":
        checks.assert_legend_clear(fig, letter)
