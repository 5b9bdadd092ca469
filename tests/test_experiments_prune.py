"""``prune``: the non-owners' function vanishes (claim C7), and the co-alignment exception.

One small grid (D = 4, m ∈ {2, 5}, population flow and finite-sample flow with n = 2000)
run once per module; d = 4 since duplicates move in span(v, u0) only.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from gaugecli.experiments.common import run_serially
from gaugecli.experiments.config import DynamicsConfig, ModelConfig, auto_horizon
from gaugecli.experiments.prune import PRUNED_LEVEL, PruneConfig, PruneResult, prune
from gaugecli.experiments.select import SelectConfig, select

MODEL = ModelConfig(d=4)
D = 4.0
MS = (2, 5)


@pytest.fixture(scope="module")
def result() -> PruneResult:
    """The grid of C7. Finite-sample flows run ~1000 tiny torch matmuls; with two intra-op
    threads on a busy 2-core machine that is ~100× slower, so use one and restore it."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    calls: list[int] = []

    def counting_runner(fn, points, progress):
        calls.append(len(points))
        return run_serially(fn, points, progress)

    try:
        out = prune(
            PruneConfig(
                model=MODEL,
                strengths=(D,),
                ms=MS,
                n_samples=2000,
                seeds=(0,),
                sweep_deltas=(-1.0, 0.0, 1.0),
                dynamics=DynamicsConfig(rtol=1e-8),
            ),
            runner=counting_runner,
        )
    finally:
        torch.set_num_threads(before)
    # flow: one job per m (all D batched); sample: one per (m, D, seed); then the co-alignment job and the sweep
    assert calls == [len(MS) + len(MS), 1, 1]
    return out


def test_grid_layout(result) -> None:
    assert result.level == PRUNED_LEVEL == 1e-6
    assert [(p.mode, p.m, p.strength) for p in result.points] == [
        ("flow", 2, D),
        ("flow", 5, D),
        ("sample", 2, D),
        ("sample", 5, D),
    ]


@pytest.mark.parametrize("mode", ["flow", "sample"])
def test_nonowners_are_pruned(result, mode: str) -> None:
    """C7: P(t) ≤ 1e-6 by the default horizon, for the population flow and for n = 2000."""
    horizon = auto_horizon(np.array([D]), MODEL.c0)
    for p in (q for q in result.points if q.mode == mode):
        assert p.owner == 0
        assert p.final <= PRUNED_LEVEL
        assert p.final == p.nonowner_norm[-1]
        assert p.t[-1] <= horizon
        # P starts at the non-owners' share of the initial function: (m−1)/m · c0 · ‖relu(u0·x)‖ = … /√2
        assert p.nonowner_norm[0] == pytest.approx((p.m - 1) / p.m * MODEL.c0 / np.sqrt(2), rel=1e-12)
        # the crossing time is bracketed by the samples around it
        assert p.time_below is not None and 0 < p.time_below <= p.t[-1]
        i = int(np.flatnonzero(p.nonowner_norm <= PRUNED_LEVEL)[0])
        assert p.t[i - 1] <= p.time_below <= p.t[i]
        assert p.nonowner_norm[i - 1] > PRUNED_LEVEL
        # and once pruned, P stays pruned
        assert np.all(p.nonowner_norm[i:] <= PRUNED_LEVEL)


@pytest.mark.parametrize("m", MS)
def test_owner_takes_the_whole_function(m: int) -> None:
    """C7: owner c → a* = 1 (1e-6), α → 1, loss → 0 (≤ 1e-12) by the default horizon."""
    run = select(SelectConfig(model=MODEL, dynamics=DynamicsConfig(rtol=1e-8), m=m, strength=D)).runs[0]
    assert run.owner == 0
    assert run.coefficient[-1, 0] == pytest.approx(MODEL.a_star, abs=1e-6)
    assert run.alignment[-1, 0] == pytest.approx(1.0, abs=1e-9)
    assert run.final_loss <= 1e-12
    assert run.nonowner_norm[-1] <= PRUNED_LEVEL
    # the non-owners keep their (unfavorable) gauge while their function vanishes
    np.testing.assert_allclose(run.imbalance[-1, 1:], -D, rtol=1e-8)
    assert np.all(np.abs(run.coefficient[-1, 1:]) <= PRUNED_LEVEL)


def test_coalignment_exception(result) -> None:
    """C7's converse: non-owners with δ > 0 co-align with the owner and keep a share of the
    coefficient (P stays Θ(1)); the same neurons with δ < 0 are pruned."""
    co = result.coalignment
    assert co.deltas_pruned == [D, -D, -D]
    assert co.deltas_coaligned == [D, D / 2, D / 2]

    pruned = co.pruned
    assert pruned.owner == 0
    assert pruned.nonowner_norm[-1] <= PRUNED_LEVEL
    assert pruned.coefficient[-1, 0] == pytest.approx(1.0, abs=1e-6)
    assert pruned.alignment[-1, 0] == pytest.approx(1.0, abs=1e-9)
    assert pruned.final_loss <= 1e-12
    assert np.all(pruned.alignment[-1, 1:] < 0.5)  # the input-heavy ones never turned

    shared = co.coaligned
    assert shared.owner == 0
    assert np.all(shared.alignment[-1] >= 0.99)
    c_end = shared.coefficient[-1]
    assert c_end.sum() == pytest.approx(1.0, abs=1e-4)  # together they are the teacher
    assert c_end[0] > c_end[1] > 0.1
    assert c_end[1] == pytest.approx(c_end[2], rel=1e-8)  # equal gauges, equal shares
    assert shared.nonowner_norm[-1] >= 0.1
    # independent value: co-aligned non-owners are (c1 + c2) relu(v·x), of norm (c1 + c2)/√2
    assert shared.nonowner_norm[-1] == pytest.approx((c_end[1] + c_end[2]) / np.sqrt(2), rel=1e-3)
    assert shared.final_loss <= 1e-8


def test_sweep_boundary_and_decay_rates(result) -> None:
    """The boundary sweep (m = 2, owner +4): δ = −1 is pruned at the rate of the flow linearised at
    the pruned minimum (core.pruning, measured 1e-6 relative); δ = 0 and δ = 1 co-align and keep
    a share of the coefficient (0.9 % and 18 %); and every population grid point decays at its
    predicted rate."""
    assert result.sweep_strength == 4.0 and [s.delta for s in result.sweep] == [-1.0, 0.0, 1.0]
    pruned, balanced, positive = result.sweep
    assert pruned.final <= PRUNED_LEVEL and pruned.time_below is not None
    assert pruned.decay_rate == pytest.approx(pruned.predicted_rate, rel=1e-4)
    for s in (balanced, positive):
        assert s.time_below is None and s.predicted_rate is None and s.alignment > 0.95
    assert balanced.share == pytest.approx(0.0092, abs=3e-4) and positive.share == pytest.approx(0.184, abs=2e-3)
    for p in result.points:
        if p.mode == "flow":
            assert p.decay_rate == pytest.approx(p.predicted_rate, rel=1e-4)
        # the resolution scales with the solver tolerance: rtol 1e-8 here (flow), the default 1e-4 (sample)
        assert p.resolution == pytest.approx(1e-9 if p.mode == "flow" else 1e-6, rel=1e-12)


def test_sweep_deltas_above_the_owner_are_rejected() -> None:
    from gaugecli.experiments.declare import ConfigError

    with pytest.raises(ConfigError) as err:
        PruneConfig(sweep_deltas=(5.0,))
    assert err.value.param == "sweep_deltas"
