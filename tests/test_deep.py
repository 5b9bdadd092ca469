"""``gaugecli deep``: the favorable gauge selects one layer deeper (layer 1 and layer 2, any designated
owner, by flow and by GD), the balances hold along the flow, the separation's local slopes against the
mobility laws of docs/theory.md (T_spec(+D) ∝ D⁻² at layer 1 under a balanced layer 2, ∝ D⁻¹ at layer 2),
the contest of both layers' gauges, and the command line's summary and refusals."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from gaugecli.cli import app
from gaugecli.core.analyses.deep_gauge import duplicates, teacher, with_gauges
from gaugecli.core.samples.deep_sample import DeepSample
from gaugecli.experiments.declare import ConfigError
from gaugecli.experiments.deep import DeepConfig, DeepResult, deep

SMALL: dict[str, Any] = {"d": 3, "n_samples": 300, "m": 2}
"""Sizes at which every run takes well under a second."""
SLOPE = 0.1
"""A local slope over D = 4 → 8 (layer 1) or 2 → 4 (layer 2) against its asymptotic law: the corrections are O(c0²/D) relative
(the mobility's next term), measured within 0.01 of the law at these sizes."""


@pytest.fixture(scope="module")
def layer_1() -> DeepResult:
    return deep(DeepConfig(layer=1, owner=1, gauge_strength=(4.0, 8.0), **SMALL))


@pytest.fixture(scope="module")
def contest() -> DeepResult:
    return deep(DeepConfig(layer=1, owner=1, gauge_strength=(1.0, 2.0), contest=True, **(SMALL | {"m": 3})))


def test_the_gauges_change_no_prediction() -> None:
    """The start of every run is the complete initial function c0 relu(u0·x), whatever the gauges (C1,
    one layer deeper): k·ε of the predictions."""
    sample = DeepSample.draw(teacher(1, 3), 200, seed=0)
    plain = duplicates(1, 3, 3, 0.1)
    gauged = with_gauges(plain, 1, np.array([4.0, -4.0, -4.0]), -2.0)
    f0 = 0.1 * np.maximum(sample.X[:, 1], 0.0)
    assert np.max(np.abs(gauged(sample.X) - f0)) <= 1e3 * np.finfo(float).eps
    assert np.max(np.abs(plain(sample.X) - f0)) <= 1e3 * np.finfo(float).eps


def test_layer_1_favorable_neuron_owns_by_flow_and_by_gd(layer_1: DeepResult) -> None:
    r = layer_1
    assert r.owns and r.selected == 1 and r.gd_selected == 1
    assert r.holds
    assert np.all(r.drift <= r.drift_tolerance)
    # GD's balances move (O(η) over the run), far beyond the flow's tolerance
    assert max(r.gd_drift) > 10 * r.drift_tolerance


def test_layer_1_separation_follows_the_mobility_laws(layer_1: DeepResult) -> None:
    """Under a balanced layer 2 the favorable neuron's outgoing path a·W₂ has (aW₂)² ≈ D², so T_spec(+D)
    ∝ D⁻² (docs/theory.md); the ratio grows faster than the one-layer D²."""
    r = layer_1
    assert r.plus_slopes[-1] == pytest.approx(-2.0, abs=SLOPE)
    assert r.ratio_slopes[-1] > 2.0 + SLOPE


def test_contest_each_layer_gauge_picks_its_own_layer(contest: DeepResult, layer_1: DeepResult) -> None:
    """Duplicates in both layers (m = 3), +D to neuron 1 of layer 1 and to neuron 2 of layer 2: layer 1's
    gauge names the feature's owner, layer 2's the neuron that carries the output (share 1 ± 0.05;
    measured 1.000 — at m = 2 the layer-2 shares stay near ½ each: docs/theory.md §14 says why). Without the
    contest its fields are empty."""
    r = contest
    assert r.contest_owner == 1 and r.contest_carrier == 2
    assert r.contest_share_2[2] == pytest.approx(1.0, abs=0.05)
    assert layer_1.contest_owner == -1 and layer_1.contest_share_1.size == 0


def test_layer_2_owner_and_separation() -> None:
    """Duplicates in layer 2 above an input-heavy layer 1: the favorable one owns, and T_spec(+D) ∝ 1/D
    as in the paper (a² ≈ D)."""
    r = deep(DeepConfig(layer=2, other_gauge=-4.0, gauge_strength=(2.0, 4.0), **SMALL))
    assert r.owns and r.selected == 0 and r.holds
    assert r.plus_slopes[-1] == pytest.approx(-1.0, abs=SLOPE)


def test_owner_beyond_m_is_refused() -> None:
    with pytest.raises(ConfigError, match="owner"):
        DeepConfig(m=2, owner=2)


def test_command_line_summary_and_json(tmp_path: object) -> None:
    runner = CliRunner()
    args = ["deep", "--d", "3", "--n-samples", "300", "--m", "2", "--no-separation", "--cache-dir", str(tmp_path)]
    res = runner.invoke(app, [*args, "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout.splitlines()[-1])
    assert out["result"]["owns"] is True and out["config"]["separation"] is False
    res = runner.invoke(app, ["deep", "--m", "9", "--cache-dir", str(tmp_path)])
    assert res.exit_code == 2 and "--m" in res.output


def test_the_layer_below_cannot_favor_one_exact_duplicate() -> None:
    """docs/theory.md §14: rescaling layer-1 neuron j multiplies column j of W₂, the same in every duplicate
    row, so with layer 2's own rescalings held (``free``) every layer-2 duplicate's balance moves alike —
    equal to k·ε·‖θ‖² — while layer 1's balances reach their targets."""
    from gaugecli.core.model.deep import with_balances

    start = duplicates(2, 3, 3, 0.1)
    moved = with_balances(start, [np.array([5.0, -3.0]), np.zeros(3)], free=[True, False])
    np.testing.assert_allclose(moved.balances()[0], [5.0, -3.0], rtol=0, atol=1e-9 * (1 + moved.norm_sq()))
    second = moved.balances()[1]
    assert np.ptp(second) <= 1e3 * np.finfo(float).eps * moved.norm_sq()
    assert abs(second[0] - start.balances()[1][0]) > 1.0  # moved, but all alike
