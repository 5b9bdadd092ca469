"""A row of one-neuron runs observed at once (:mod:`gaugecli.experiments.phase.lean`) against each run's
full :func:`~gaugecli.core.analyses.observables.observe`: every field a phase cell's metrics read."""

from __future__ import annotations

import numpy as np
import pytest

from gaugecli.core.analyses.observables import observe
from gaugecli.core.integrate.flow import gradient_flow
from gaugecli.core.model.gauge import duplicate_initial_condition
from gaugecli.core.model.model import standard_model
from gaugecli.core.model.state import Network
from gaugecli.experiments.phase import lean

MODEL = standard_model(2)
DELTAS = np.array([4.0, -4.0, 0.0, 16.0])
ROUNDOFF = 64 * np.finfo(float).eps
"""The same closed forms on arrays with one more leading axis: numpy may sum their few terms in another
order, so a series agrees to k·ε of its own scale (k = 64 covers the handful of O(1) terms summed)."""


@pytest.fixture(scope="module")
def trajectory():
    theta0 = Network(*duplicate_initial_condition(MODEL, np.asarray(DELTAS, float)[:, None]))  # one member per δ
    return gradient_flow(theta0, MODEL, 100.0, eps_align=0.01)


def test_a_row_of_one_neuron_runs_reads_what_observe_gives(trajectory) -> None:
    assert lean.applies(trajectory)
    row = lean.observe_row(trajectory, MODEL)
    for b, seen in enumerate(row):
        full = observe(trajectory, MODEL, (b,))
        for name in ("loss", "alignment", "coefficient", "reaction", "transport", "nonowner_norm"):
            got, want = getattr(seen, name), getattr(full, name)
            scale = max(float(np.max(np.abs(want))), 1e-300)
            np.testing.assert_allclose(got, want, rtol=0, atol=ROUNDOFF * scale, err_msg=name)
        np.testing.assert_array_equal(seen.t, full.t)
        np.testing.assert_array_equal(seen.crossing_times, full.crossing_times)
        assert (seen.owner, seen.computed_owner, seen.t_spec, seen.symmetric_start) == (
            full.owner,
            full.computed_owner,
            full.t_spec,
            full.symmetric_start,
        )


def test_runs_of_several_neurons_are_observed_one_by_one() -> None:
    a0, W0 = duplicate_initial_condition(MODEL, np.array([2.0, 1.0]))
    traj = gradient_flow(Network(a0[None], W0[None]), MODEL, 5.0)
    assert not lean.applies(traj)
