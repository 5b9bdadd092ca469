"""The flow on compiled DOP853 steps, each member its own, handed to the compiled BDF where it turns stiff
(:mod:`gaugecli.core.integrate.dop853_flow`): its tableau against the Runge–Kutta order conditions, its steps
and dense output against scipy's ``solve_ivp(method="DOP853")`` on the same right-hand side, a stiff member's
switch, a member held at rest, and phase maps of both gauges against the BDF-only solver's."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.integrate._ivp import dop853_coefficients

from gaugecli.core.integrate import bdf_flow, dop853_flow
from gaugecli.core.integrate.flow import FlowOptions, gradient_flow
from gaugecli.core.integrate.members import HOLD_SPEED
from gaugecli.core.model.gauge import duplicate_initial_condition
from gaugecli.core.model.model import standard_model
from gaugecli.core.model.state import Network
from gaugecli.core.population import fused
from gaugecli.core.population.dynamics import _fused_weights
from gaugecli.experiments.phase import PhaseConfig, parse_axis
from gaugecli.experiments.phase.chunk import FLOW_METHOD, flow_method
from gaugecli.experiments.simulate import SimulateConfig

MODEL = standard_model(2)
EPS = np.finfo(float).eps
T_SPEC_AGREE = 1e-8
"""Both solvers at rtol 1e-10, each crossing located on its own dense output: each within ~1e-9 relative of
the flow's (bdf_flow's against LSODA at 1e-12: tests/test_bdf_flow.py), so within 1e-8 of each other (issue 52)."""
STATE_AGREE = 1e-7
"""States on the declared grid, each solver's global error at rtol 1e-10 ≲ 1e-8 of the O(1)…O(D) states
(tests/test_bdf_flow.py's bound)."""
STEP_AGREE = 1e-5
"""Step times against scipy's: the same algorithm, its sums in another order (numpy's dot). The error estimate
is a combination of 13 stages of size ~|ẏ| that cancel to the local error, ~rtol |y|: its round-off is
~ε Σ|E| |ẏ| / (rtol |y|) ≈ 1e-7 of itself at rtol 1e-8, and each step's length moves by 1/8 of its change
(the exponent −1/8), drifting over the steps (measured 3e-10 at δ = 2 and 6e-7 at δ = −8; at rtol 1e-10,
6e-5 and 9e-7: the estimate is then round-off's to a few digits, so the comparison is made at 1e-8)."""


def _args(deltas: np.ndarray) -> tuple:
    """``dop853_flow._solve``'s arguments for one-neuron members at imbalances ``deltas`` (to ``t_end`` later)."""
    a0, W0 = duplicate_initial_condition(MODEL, np.asarray(deltas, float)[:, None])
    y0 = Network(a0, W0).flatten().reshape(len(deltas), -1)
    A, B = _fused_weights(MODEL)  # type: ignore[misc]
    b, V = np.ascontiguousarray(MODEL.coefficients, float), np.ascontiguousarray(MODEL.directions, float)
    return np.ascontiguousarray(y0), 1, b, V, float(A), float(B)


def test_the_tableau_read_from_scipy_satisfies_the_order_conditions() -> None:
    """The module reads scipy's DOP853 tableau (``dop853_coefficients``) rather than typing it: should scipy
    move or change it, this fails here first. Checked independently of scipy: the stages' nodes are the rows
    of ``A`` summed, the weights integrate ``t^k`` exactly for k ≤ 7 (the bushy-tree order conditions of an
    8th-order method), both embedded error estimates are of combinations that vanish on constants, and the
    stiffness test's stage is the last (``c = 1``). Each a sum of ≤ 16 terms of size ≤ ~30: within 1e-12."""
    c = dop853_coefficients
    assert (c.N_STAGES, c.N_STAGES_EXTENDED, c.INTERPOLATOR_POWER) == (12, 16, 7)
    assert c.A.shape == (16, 16) and c.B.shape == (12,) and c.E3.shape == c.E5.shape == (13,) and c.D.shape == (4, 16)
    np.testing.assert_allclose(c.A.sum(axis=1), c.C, rtol=0, atol=1e-12)
    for k in range(8):
        assert np.dot(c.B, c.C[:12] ** k) == pytest.approx(1.0 / (k + 1), abs=1e-12)
    assert abs(c.E5.sum()) < 1e-12 and abs(c.E3.sum()) < 1e-12
    assert c.C[dop853_flow.STAGES - 1] == 1.0
    assert np.array_equal(dop853_flow._A, c.A)  # scipy's own array (contiguous already)


def _velocity(m: int, b: np.ndarray, V: np.ndarray, A: float, B: float) -> Callable[[float, np.ndarray], np.ndarray]:
    """The solvers' own compiled velocity ``ẏ = −∇L(y)`` as a ``solve_ivp`` right-hand side."""
    P = m * (V.shape[1] + 1)
    Yb, Gb, work = np.empty((1, P)), np.empty((1, P)), fused._gradient_work(m, V)

    def velocity(t: float, y: np.ndarray) -> np.ndarray:
        out = np.empty(P)
        bdf_flow._velocity_once(np.ascontiguousarray(y, float), m, b, V, A, B, out, Yb, Gb, work)
        return out

    return velocity


@pytest.mark.parametrize("delta", [2.0, -8.0])
def test_the_compiled_dop853_takes_scipys_steps(delta: float) -> None:
    """Never switched (an infinite bound), one member against scipy's DOP853 on the same compiled velocity, at
    rtol 1e-8: the same number of accepted steps, at the same times within :data:`STEP_AGREE`."""
    y0, m, b, V, A, B = _args(np.array([delta]))
    t_end, rtol, atol = 30.0, 1e-8, 1e-11
    T, _, _, Ords, _, _, stats = dop853_flow._solve(y0, t_end, rtol, atol, m, b, V, A, B, 10**6, np.inf, 15)
    ref = solve_ivp(_velocity(m, b, V, A, B), (0.0, t_end), y0[0], method="DOP853", rtol=rtol, atol=atol)
    assert stats[0, 3] == 0 and stats[0, 0] == stats[0, 4] == ref.t.size - 1 > 20  # every step DOP853's
    assert np.all(Ords[1:] == dop853_flow.DOP853_ROW)
    np.testing.assert_allclose(T, ref.t, rtol=STEP_AGREE, atol=0)


def test_the_dense_output_is_scipys() -> None:
    """Each of scipy's DOP853 steps (δ = −8, rtol 1e-10) stored by the compiled code from scipy's own stages
    (its three more stages and ``F``) and read by :func:`dop853_flow._dense` at a quarter, half and
    three-quarters of the step: scipy's ``Dop853DenseOutput`` there within 256 ε × the state's size (the same
    degree-7 polynomial in the same nested order; ``F``'s last four are ``h D K`` over 16 stages with entries of
    ``D`` up to ~10², their sums taken in another order)."""
    from scipy.integrate._ivp.rk import DOP853

    y0, m, b, V, A, B = _args(np.array([-8.0]))
    solver = DOP853(_velocity(m, b, V, A, B), 0.0, y0[0], 30.0, rtol=1e-10, atol=1e-13)
    P = y0.shape[1]
    K, ytmp, Yb, Gb, work = (
        np.empty((16, P)),
        np.empty(P),
        np.empty((1, P)),
        np.empty((1, P)),
        fused._gradient_work(m, V),
    )
    worst = 0.0
    for _ in range(40):
        solver.step()
        T = np.array([solver.t_old, solver.t])
        Y, Hs, Ords, Dd = np.stack([solver.y_old, solver.y]), np.zeros(2), np.full(2, -1), np.zeros((2, 8, P))
        K[:13] = solver.K
        dop853_flow._store_dense(solver.y_old, solver.y, solver.t - solver.t_old, m, b, V, A, B, K, ytmp, Yb, Gb,
                                 work, Dd, 1)  # fmt: skip
        times = solver.t_old + np.array([0.25, 0.5, 0.75]) * (solver.t - solver.t_old)
        got = np.empty((3, P))
        dop853_flow._dense(T, Y, Hs, Ords, Dd, np.array([0, 2]), np.zeros(3, np.int64), times, got)
        want = solver.dense_output()(times).T
        worst = max(worst, float(np.max(np.abs(got - want)) / np.max(np.abs(want))))
    assert worst <= 256 * EPS


def test_a_stiff_member_switches_to_bdf_and_a_member_at_rest_is_held() -> None:
    """At δ = −256 the coefficient is slaved at rate ~D: the member is handed to BDF (its later rows BDF's,
    orders 1–5) and still within the tolerances' basis of the BDF-only solve; at δ = 4, converged long before
    the horizon, it is held at rest (a last row of zero slope at the horizon) on a few thousand gradients."""
    y0, m, b, V, A, B = _args(np.array([-256.0, 4.0]))
    t_end = 2e4
    args = (y0, t_end, 1e-10, 1e-13, m, b, V, A, B, 200_000)
    T, Y, Hs, Ords, Dd, start, stats = dop853_flow._solve(*args, dop853_flow.STIFF_H_LAMBDA, dop853_flow.STIFF_STEPS)
    assert not np.any(stats[:, 3])
    stiff = slice(start[0] + 1, start[1])
    assert stats[0, 0] > stats[0, 4] > 0 and stats[0, 2] > 0  # DOP853 steps, then BDF's with its Jacobians
    kinds = Ords[stiff]
    assert np.all(kinds[: stats[0, 4]] == dop853_flow.DOP853_ROW) and np.all(kinds[stats[0, 4] :] >= 1)
    last = start[2] - 1
    # exact: the held row stores t_end and a zero slope as given (members.held), no arithmetic on them
    assert T[last] == t_end and Ords[last] == 1 and np.all(Dd[last, 1] == 0.0) and stats[1, 1] < 5000
    assert np.max(np.abs(Y[last - 1] - Y[last - 2])) <= HOLD_SPEED * (T[last - 1] - T[last - 2])
    # the same flows on BDF alone, read on a log grid through each solver's dense output
    ref = bdf_flow._solve(*args)
    times = np.geomspace(1e-2, t_end, 200)
    members = np.repeat(np.arange(2), times.size)
    got, want = np.empty((members.size, 3)), np.empty((members.size, 3))
    dop853_flow._dense(T, Y, Hs, Ords, Dd, start, members, np.tile(times, 2), got)
    bdf_flow._dense(*ref[:6], members, np.tile(times, 2), want)
    size = np.max(np.abs(want), axis=1, keepdims=True)
    assert np.max(np.abs(got - want) / size) <= STATE_AGREE


def test_the_flow_crosses_where_bdf_does_and_a_phase_chunk_takes_it() -> None:
    """``FlowOptions(method="dop853-bdf")`` through ``gradient_flow`` (both gauges, D to 1024): the crossings
    within :data:`T_SPEC_AGREE` of the BDF-only flow's, the same members converged; a phase chunk of
    one-neuron runs takes it."""
    deltas = np.array([2.0, -2.0, 32.0, -32.0, 1024.0, -1024.0])
    theta0 = Network(*duplicate_initial_condition(MODEL, deltas[:, None]))
    new = gradient_flow(theta0, MODEL, 2e4, eps_align=0.01, options=FlowOptions(method="dop853-bdf"))
    ref = gradient_flow(theta0, MODEL, 2e4, eps_align=0.01, options=FlowOptions(method="bdf"))
    assert new.stats.method == "dop853-bdf" and np.all(np.isfinite(ref.crossing_times))
    np.testing.assert_allclose(new.crossing_times, ref.crossing_times, rtol=T_SPEC_AGREE)
    assert np.array_equal(new.converged, ref.converged)
    assert flow_method(theta0) == FLOW_METHOD == "dop853-bdf"


def test_compile_loops_covers_the_types_the_flows_pass() -> None:
    """``compile_loops`` (``make compile-loops``) compiles the one signature the flows call."""
    dop853_flow.compile_loops()
    before = set(dop853_flow._solve.signatures)
    gradient_flow(Network(*duplicate_initial_condition(MODEL, np.array([[3.0]]))), MODEL, 10.0,
                  options=FlowOptions(method="dop853-bdf"))  # fmt: skip
    assert set(dop853_flow._solve.signatures) == before and len(before) == 1


@pytest.mark.parametrize("gauge", ["favorable", "unfavorable"])
def test_a_phase_map_is_the_bdf_solvers_within_its_tolerance(gauge: str, tmp_path, monkeypatch) -> None:
    """A 5 × 5 T_spec map over D = 1…64, c0 = 0.01…1 (m = 1), each chunk on ``dop853-bdf`` (the command's) and on
    ``bdf``: T_spec within :data:`T_SPEC_AGREE` relative, crossing in the same cells."""
    from gaugecli.experiments.phase import chunk
    from gaugecli.pipeline import Pipeline

    config = PhaseConfig(
        "simulate",
        parse_axis("gauge-strength=1:64:5:log", "simulate"),
        parse_axis("c0=0.01:1:5:log", "simulate", "y"),
        ("t-spec",),
        base=replace(SimulateConfig(), m=1, gauge=gauge),
    )
    maps = {}
    for method in ("dop853-bdf", "bdf"):
        monkeypatch.setattr(chunk, "FLOW_METHOD", method)
        maps[method] = Pipeline(tmp_path / method).ensure("phase", config).result.map("t-spec")
    new, ref = maps["dop853-bdf"], maps["bdf"]
    assert np.array_equal(np.isfinite(new), np.isfinite(ref)) and np.isfinite(ref).sum() >= 20
    both = np.isfinite(ref)
    assert math.isclose(0.0, float(np.max(np.abs(new[both] / ref[both] - 1.0))), abs_tol=T_SPEC_AGREE)


@pytest.mark.parametrize("module", [bdf_flow, dop853_flow], ids=["bdf", "dop853-bdf"])
def test_a_member_that_starts_where_the_rows_run_out_gets_room(module: object) -> None:
    """The rows made at first filled exactly by the first member: the second's first row must grow the arrays
    (it was written one past their end — a heap corruption, seen on a 50-member chunk of `predict`'s starts).
    Run as Python (``py_func``: an index past the end raises) with the capacity set to the first member's rows
    alone; each member then takes the steps it takes alone (the same arithmetic in Python and compiled: the
    times agree to a few ulp, not to any tolerance)."""
    y0, m, b, V, A, B = _args(np.array([2.0, -8.0]))
    args = (30.0, 1e-8, 1e-11, m, b, V, A, B, 10**6)
    extra = (dop853_flow.STIFF_H_LAMBDA, dop853_flow.STIFF_STEPS) if module is dop853_flow else ()
    solve = module._solve  # type: ignore[attr-defined]
    alone = [solve(y0[e : e + 1], *args, *extra) for e in range(2)]
    rows = int(alone[0][5][1])  # the first member's rows (its start[1])
    T, *_, start, stats = solve.py_func(y0, *args, *extra, rows)
    assert start[1] == rows and T.size > rows
    for e in range(2):
        assert stats[e, 0] == alone[e][6][0, 0]  # the same number of steps
        np.testing.assert_allclose(T[start[e] : start[e + 1]], alone[e][0], rtol=64 * EPS, atol=0)


def test_a_member_at_rest_on_the_step_that_makes_it_stiff_is_held_not_handed_to_bdf() -> None:
    """The hold and the switch on the same accepted step: every step counted stiff (bound −1: ``|h λ|`` ≥ 0)
    and the count completed on the step where the member comes to rest. The hold ends the member: its rows
    end at the horizon, in order, without BDF's (it was handed to BDF, whose rows went on from before the
    held row's ``t_end``). The steps before are the same arithmetic as a solve that never counts stiffness."""
    y0, m, b, V, A, B = _args(np.array([2.0]))  # at rest after ~60 steps (δ = 4 is not, without the switch)
    args = (y0, 2e4, 1e-10, 1e-13, m, b, V, A, B, 200_000)
    T0, *_, start0, stats0 = dop853_flow._solve(*args, math.inf, dop853_flow.STIFF_STEPS)
    at_rest = int(stats0[0, 4])  # the accepted DOP853 steps up to the one found at rest
    assert stats0[0, 2] == 0 and at_rest > 0
    T, *_, start, stats = dop853_flow._solve(*args, -1.0, at_rest)
    assert stats[0, 2] == 0 and stats[0, 0] == at_rest  # no BDF step, no Jacobian
    rows = T[start[0] : start[1]]
    assert np.all(np.diff(rows) > 0) and rows[-1] == 2e4  # exact: the held row stores t_end as given
    # the same steps: the stiffness count moves none of them (the same compiled arithmetic; a few ulp allowed)
    np.testing.assert_allclose(rows, T0[start0[0] : start0[1]], rtol=64 * EPS, atol=0)
