"""Figure 10 (beyond the paper: random-start ownership) on the quick profile.

The figure's owners against a recomputation from the run's final state, its accuracies against a
recount of the study's owners and picks, the owner sets against a recount from each seed's start,
the δ rules left out at ρ = 0 (where every δ ties), and the main-text version's panels."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from _quick_runs import QuickRuns

from gaugecli.plots import fig10, render, style
from gaugecli.plots.venue import layout


@pytest.fixture(scope="module")
def built(quick_runs: QuickRuns) -> Any:
    with quick_runs.locked("fig10") as pipeline:
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
    :func:`gaugecli.core.analyses.ownership.feature_owners`."""
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
    from gaugecli.plots._fig10_accuracy import DRAWN

    _, panels, inputs = built
    for k, letter in ((1, "b"), (2, "c")):
        result = inputs[f"predict-k{k}"]
        for name in result.predictors:
            if name not in DRAWN[k]:  # three rules per panel: the rest are in the sidecar's key
                assert name not in panels[letter]
                assert name in panels["key"]["predict"][f"k{k}"]["rho0"]["accuracy"]
                continue
            drawn = [r for r in result.rows if r.spread is not None and not (name == "delta" and r.spread == 0.0)]
            recount = [
                sum(o != -1 and o == q for row, qs in zip(r.owners, r.picks[name], strict=True) for o, q in zip(row, qs, strict=True))
                for r in drawn
            ]  # fmt: skip
            owned = [sum(o != -1 for row in r.owners for o in row) for r in drawn]
            assert panels[letter][name]["correct"] == recount
            assert np.allclose(panels[letter][name]["y"], np.array(recount) / np.array(owned), rtol=0, atol=1e-15)


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
        sets = panels["c"]["owner_sets"]
        assert sets["c-alpha"]["correct"][i] == counts["c-alpha"]
        if row.spread == 0.0:  # every δ ties: the δ set names none, and is not drawn
            assert counts["delta"] == 0
        else:
            assert sets["delta"]["correct"][i - int(drawn[0].spread == 0.0)] == counts["delta"]


def test_no_delta_rule_is_drawn_where_every_delta_ties(built: Any) -> None:
    """At ρ = 0 every δ is 0: the single-feature rule names no neuron (one basin holds all four), and
    neither the rule nor the owner set is drawn there; the sidecar says so."""
    _, panels, inputs = built
    for letter, other in (("b", "c-alpha"), ("c", "race-matched")):
        assert len(panels[letter]["delta"]["x"]) == len(panels[letter][other]["x"]) - 1  # all but ρ = 0
        assert (
            panels[letter]["omitted"]["delta"]["rho"] == 0.0
        )  # exact by construction: the grid's ρ = 0 as given (spreads 0,…), not computed
    (tied,) = [r for r in inputs["predict-k1"].rows if r.spread == 0.0]
    assert all(q == -1 for row in tied.picks["delta"] for q in row)  # one basin, four equal δ: no pick
    assert panels["b"]["omitted"]["delta"]["named"] == 0
    assert len(panels["c"]["owner_sets"]["delta"]["x"]) == len(panels["c"]["race-matched"]["x"]) - 1


def test_every_panel_is_drawn_and_readable(built: Any) -> None:
    import _figure_checks as checks

    fig, panels, _ = built
    checks.assert_every_series_drawn(fig, panels, "abc")
    checks.assert_text_and_height(fig, 9.0)
    checks.assert_rules_name_sidecar_numbers(panels, fig10.SIDECAR_TOLERANCES)
    for letter in "abc":
        checks.assert_legend_clear(fig, letter)


def test_the_main_version_draws_its_panels_relettered_with_the_full_sidecar(built: Any) -> None:
    """``MAIN_PANELS`` in one row, lettered (a), (b), …; the sidecar is the full figure's."""
    import _figure_checks as checks

    _, full, inputs = built
    venue = replace(layout(), panels=fig10.MAIN_PANELS)
    with style.context(venue):
        fig, panels = fig10.build(inputs, venue)
        fig.canvas.draw()
        axes = checks.panel_axes(fig)
        assert sorted(axes) == list("abc"[: len(fig10.MAIN_PANELS)])
        assert fig.get_figheight() < 0.6 * venue.width
        assert panels.keys() == full.keys() and panels["b"]["delta"]["correct"] == full["b"]["delta"]["correct"]
        for shown, letter in zip(sorted(axes), fig10.MAIN_PANELS, strict=True):
            assert axes[shown].get_xlabel() == checks.panel_axes(built[0])[letter].get_xlabel()
            checks.assert_legend_clear(fig, shown)
    fig.clear()
