"""The flow on ``odeint`` (:mod:`gaugecli.core.integrate.odeint_flow`: the same LSODA called once per chunk
from C) against the default path's ``solve_ivp`` LSODA: the crossings and the stored states of an
ensemble of both gauges, the Hermite interpolant between the fine grid's states, and the fall-back where
the compiled closed forms do not apply."""

from __future__ import annotations

import numpy as np
import pytest

from gaugecli.core.activations import activation
from gaugecli.core.integrate import odeint_flow
from gaugecli.core.integrate.flow import FlowOptions, gradient_flow
from gaugecli.core.model.gauge import duplicate_initial_condition
from gaugecli.core.model.model import standard_model
from gaugecli.core.model.state import Network

MODEL = standard_model(2)
DELTAS = np.array([2.0, -2.0, 8.0, -8.0, 32.0, -32.0])
T_MAX = 500.0  # past every T_spec (≈ 10 D at c0 = 0.1 in the unfavorable gauge)
T_SPEC_AGREE = 1e-8
"""Two LSODA solves at rtol 1e-10 on different step sequences (solve_ivp's and odeint's), each crossing
located on its own interpolant: measured 2.4e-10 here and ≤ 5.6e-10 relative over the cells of 33 × 33 maps (D = 1…64,
c0 = 0.01…1, both gauges; benchmarks row o); asserted ≤ 1e-8, issue 52's bound."""
STATE_AGREE = 1e-7
"""States on the declared grid: the two solves' global errors at rtol 1e-10, each ≲ 1e-9 relative of the
O(1) states through the fast relaxation at rate ~D; asserted ≤ 1e-7 absolute (measured 1.1e-9 here)."""


def _ensemble() -> Network:
    return Network(*duplicate_initial_condition(MODEL, DELTAS[:, None]))  # one member per δ


@pytest.fixture(scope="module")
def both() -> tuple:
    theta0 = _ensemble()
    return (
        gradient_flow(theta0, MODEL, T_MAX, eps_align=0.01),
        gradient_flow(theta0, MODEL, T_MAX, eps_align=0.01, options=FlowOptions(method="odeint")),
    )


def test_odeint_flow_crosses_where_solve_ivps_does(both: tuple) -> None:
    base, new = both
    assert new.stats.method.startswith("odeint") and base.stats.method.startswith("LSODA")
    assert np.all(np.isfinite(base.crossing_times))
    np.testing.assert_allclose(new.crossing_times, base.crossing_times, rtol=T_SPEC_AGREE, atol=0)


def test_odeint_flow_stores_the_same_states_on_the_same_grid(both: tuple) -> None:
    base, new = both
    np.testing.assert_allclose(new.t, base.t, rtol=T_SPEC_AGREE, atol=0)  # the grid holds the crossings
    np.testing.assert_allclose(new.a, base.a, rtol=0, atol=STATE_AGREE)
    np.testing.assert_allclose(new.W, base.W, rtol=0, atol=STATE_AGREE)
    assert np.array_equal(new.converged, base.converged)


def test_the_interpolant_is_exact_at_stored_times_and_fourth_order_between() -> None:
    """On y(t) = (t⁴, e^t) with its exact velocity: exact at the stored times, and between them the
    cubic Hermite interpolant's error ≤ h⁴/384 · max|y⁗| (its standard bound; t⁴ has y⁗ = 24)."""
    t = np.linspace(0.0, 1.0, 11)
    Y = np.stack([t**4, np.exp(t)], axis=-1)[None]  # one member, P = 2

    def velocity(rows: np.ndarray) -> np.ndarray:
        s = np.log(rows[:, 1])  # e^t gives t back
        return np.stack([4 * s**3, rows[:, 1]], axis=-1)

    dense = odeint_flow._Hermite(t, Y, velocity)
    np.testing.assert_array_equal(dense(t), Y[0].T)
    mid = 0.5 * (t[:-1] + t[1:])
    h = t[1] - t[0]
    got = dense(mid)
    assert np.max(np.abs(got[0] - mid**4)) <= h**4 / 384 * 24 * (1 + 1e-9)
    assert np.max(np.abs(got[1] - np.exp(mid))) <= h**4 / 384 * np.e * (1 + 1e-9)


def test_odeint_falls_back_to_lsoda_where_the_compiled_forms_do_not_apply() -> None:
    model = standard_model(2, activation=activation("erf"))
    a0, W0 = duplicate_initial_condition(model, np.array([4.0]))
    traj = gradient_flow(Network(a0, W0), model, 5.0, options=FlowOptions(method="odeint"))
    assert traj.stats.method == "LSODA"


def test_compile_loops_covers_the_types_odeint_passes() -> None:
    """``compile_loops`` (a ``plot`` worker's warm-up) compiles the one signature the flows call, so a
    worker beside the one that compiled loads it from numba's cache instead of compiling it again."""
    odeint_flow.compile_loops()
    before = set(odeint_flow._velocity.signatures)
    gradient_flow(_ensemble(), MODEL, 10.0, options=FlowOptions(method="odeint"))
    assert set(odeint_flow._velocity.signatures) == before and len(before) == 1
