"""The population flow of many small members on a torch device (``FlowOptions(method="dop853-torch")``): the
DOP853 of :mod:`gaugecli.core.integrate.dop853_flow` vectorised over the members, each on its own steps.

Every member keeps its own ``t``, step ``h``, accept/reject state and stiffness count (per-instance step
control, as torchode's): the batch iterates while any member is active, each iteration one attempted step of
every active member — the twelve stages, the error norm and scipy's step controller of ``dop853_flow``, the
same tableau (``scipy.integrate._ivp.dop853_coefficients``), in float64 — so a member's steps do not wait for
the slowest member's, and a rejection is its own. On an accepted step Hairer's stiffness test is
``dop853_flow``'s (:data:`~gaugecli.core.integrate.dop853_flow.STIFF_H_LAMBDA` on
:data:`~gaugecli.core.integrate.dop853_flow.STIFF_STEPS` steps): a member found stiff leaves the device and
continues from its current ``(t, y)`` on the compiled CPU BDF (``bdf_flow._member``), exactly where
``dop853_flow`` hands it over; a member at rest to round-off is held to the horizon
(:data:`~gaugecli.core.integrate.members.HOLD_SPEED`).

The accepted steps and their dense coefficients (``y_old`` and scipy's seven ``F``) come back to the host in
one transfer, into ``dop853_flow``'s packed arrays (rows marked ``DOP853_ROW``, BDF rows after them), so the
crossings, the stored grid and every metric downstream read them through the same ``_dense``.

The right-hand side is the population gradient of :mod:`gaugecli.core.population.fused` (the ReLU family,
``K = A κ + B w·w'``) as batched tensor operations (:func:`velocity`): the same closed forms, their sums in
torch's order, so the numbers agree with the compiled path to round-off, not bit for bit.

It imports torch: :mod:`gaugecli.core.integrate.flow` imports it only when a flow asks for this method.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import torch

from gaugecli.core.integrate import bdf_flow
from gaugecli.core.integrate.dop853_flow import (
    DOP853_ROW,
    ERROR_EXPONENT,
    EXTENDED,
    MAX_FACTOR,
    MIN_FACTOR,
    NONSTIFF_RESET,
    ROWS,
    SAFETY,
    STAGES,
    STIFF_H_LAMBDA,
    STIFF_STEPS,
    _dense,
    tableau,
)
from gaugecli.core.integrate.flow_options import FlowOptions
from gaugecli.core.integrate.members import HOLD_SPEED, solve_packed
from gaugecli.core.integrate.odeint_flow import applies
from gaugecli.core.integrate.segments import Solved
from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.types import Array

__all__ = ["applies", "solve_members", "velocity"]


def velocity(Y: torch.Tensor, m: int, b: torch.Tensor, V: torch.Tensor, A: float, B: float) -> torch.Tensor:
    """``ẏ = −∇L`` of the packed states ``Y (n, P)``, ``P = m (r + 1)``, against the teacher ``(b (k,), V (k, r))``
    for the kernel ``K = A κ + B w·w'``: :func:`gaugecli.core.population.fused._gradient_member`'s formulas over
    the rows ``x_j`` of ``X = (W, V)`` with weights ``c = (a, −b)`` — ``∂L/∂a_i = A Σ_j c_j ‖x_i‖‖x_j‖
    (sin φ_ij + (π − φ_ij) ρ_ij)/2π + B Σ_j c_j x_i·x_j`` and ``∂L/∂w_i = c_i (A (Σ_j c_j (π − φ_ij) x_j +
    Σ_j c_j sin φ_ij ‖x_j‖ ŵ_i)/2π + B Σ_j c_j x_j)``, ``φ = atan2(sin φ, ρ)`` with ``sin φ = ‖x̂_j − ρ x̂_i‖``
    and ``ρ`` clipped to [−1, 1] (a row at ``w = 0`` has ``x̂ = 0``)."""

    n = Y.shape[0]
    k, r = V.shape
    a, W = Y[:, :m], Y[:, m:].reshape(n, m, r)
    X = torch.cat((W, V.expand(n, k, r)), dim=1)  # (n, m + k, r)
    c = torch.cat((a, -b.expand(n, k)), dim=1)
    nrm = torch.sqrt((X * X).sum(-1))
    U = torch.where(nrm[..., None] > 0.0, X / torch.where(nrm > 0.0, nrm, 1.0)[..., None], 0.0)
    Ui = U[:, :m]
    Ga: torch.Tensor | float = 0.0
    Gw: torch.Tensor | float = 0.0
    if A != 0.0:
        rho = torch.matmul(Ui, U.transpose(1, 2)).clamp(-1.0, 1.0)  # (n, m, m + k)
        q = U[:, None] - rho[..., None] * Ui[:, :, None]
        sn = torch.sqrt((q * q).sum(-1))
        phi = torch.atan2(sn, rho)
        turn = (math.pi - phi) * c[:, None]
        Ga = Ga + A * (
            (c[:, None] * (nrm[:, :m, None] * nrm[:, None] * (sn + (math.pi - phi) * rho))).sum(-1) / (2.0 * math.pi)
        )
        radial = (c[:, None] * (sn * nrm[:, None])).sum(-1)
        Gw = Gw + A * ((torch.matmul(turn, X) + radial[..., None] * Ui) / (2.0 * math.pi))
    if B != 0.0:
        lin = torch.matmul(c[:, None], X)  # Σ_j c_j x_j, (n, 1, r)
        Ga = Ga + B * (X[:, :m] * lin).sum(-1)
        Gw = Gw + B * lin
    Gw = c[:, :m, None] * torch.as_tensor(Gw, dtype=Y.dtype, device=Y.device).expand(n, m, r)
    return -torch.cat((torch.as_tensor(Ga, dtype=Y.dtype, device=Y.device).expand(n, m), Gw.reshape(n, m * r)), dim=1)


class _Tableau:
    """scipy's DOP853 coefficients as float64 tensors on one device."""

    def __init__(self, device: torch.device) -> None:

        def tensor(x: Any) -> torch.Tensor:
            return torch.as_tensor(np.asarray(x, float), dtype=torch.float64, device=device)

        self.A, self.B = tensor(tableau.A), tensor(tableau.B)
        self.E3, self.E5, self.D = tensor(tableau.E3), tensor(tableau.E5), tensor(tableau.D)


class _Batch:
    """The per-member state of the device loop (each a tensor over the ``n`` members)."""

    def __init__(self, Y0: torch.Tensor, t_end: float) -> None:

        n, device = Y0.shape[0], Y0.device
        zeros = torch.zeros(n, dtype=torch.float64, device=device)
        self.y = Y0.clone()
        self.t, self.h_abs = zeros.clone(), zeros.clone()
        self.evals = torch.full((n,), 2, dtype=torch.int64, device=device)  # f(y0) and the first step's
        self.steps = torch.zeros(n, dtype=torch.int64, device=device)
        self.stiff, self.calm = self.steps.clone(), self.steps.clone()
        flags = torch.zeros(n, dtype=torch.bool, device=device)
        self.rejected, self.failed, self.switch, self.held = flags.clone(), flags.clone(), flags.clone(), flags.clone()
        self.active = ~flags
        self.t_end = t_end


def _first_step(y: torch.Tensor, f: torch.Tensor, f1: Any, t_end: float, rtol: float, atol: float) -> torch.Tensor:
    """scipy's ``select_initial_step`` for an estimate of order 7, per member (``f1``: the velocity at a state)."""

    P = y.shape[1]
    scale = atol + y.abs() * rtol
    d0 = torch.sqrt(((y / scale) ** 2).sum(-1) / P)
    d1 = torch.sqrt(((f / scale) ** 2).sum(-1) / P)
    h0 = torch.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / torch.where(d1 > 0.0, d1, 1.0))
    h0 = torch.clamp(h0, max=t_end)
    d2 = torch.sqrt((((f1(y + h0[:, None] * f) - f) / scale) ** 2).sum(-1) / P) / h0
    small = (d1 <= 1e-15) & (d2 <= 1e-15)
    h1 = torch.where(small, torch.clamp(h0 * 1e-3, min=1e-6), (0.01 / torch.maximum(d1, d2)) ** (1.0 / 8.0))
    return torch.minimum(torch.minimum(100.0 * h0, h1), torch.full_like(h0, t_end))


def _attempt(c: _Tableau, f: Any, y: torch.Tensor, f0: torch.Tensor, h: torch.Tensor) -> tuple:
    """scipy's ``rk_step`` from ``(y, f0)`` over ``h`` for each member: the stages ``K (n, 16, P)`` (``K[:, 12]`` the
    new state's velocity; 13–15 filled by :func:`_dense_coefficients`), the new state and the last stage's
    argument (``c = 1``)."""

    n, P = y.shape
    K = torch.empty((n, EXTENDED, P), dtype=y.dtype, device=y.device)
    K[:, 0] = f0
    y12 = y
    for s in range(1, STAGES + 1):
        weights = c.A[s, :s] if s < STAGES else c.B
        ytmp = y + h[:, None] * torch.matmul(weights, K[:, :s])
        if s == STAGES - 1:
            y12 = ytmp
        K[:, s] = f(ytmp)
    return K, ytmp, y12


def _error_norm(c: _Tableau, K: torch.Tensor, h: torch.Tensor, y: torch.Tensor, ynew: torch.Tensor, rtol: float,
                atol: float) -> torch.Tensor:  # fmt: skip
    """``dop853_flow._error_norm`` per member: ``|h| ‖e5‖² / √((‖e5‖² + 0.01 ‖e3‖²) P)``."""

    scale = atol + torch.maximum(y.abs(), ynew.abs()) * rtol
    e5 = ((torch.matmul(c.E5, K[:, : STAGES + 1]) / scale) ** 2).sum(-1)
    e3 = ((torch.matmul(c.E3, K[:, : STAGES + 1]) / scale) ** 2).sum(-1)
    denominator = torch.sqrt((e5 + 0.01 * e3) * y.shape[1])
    return torch.where(denominator > 0.0, h.abs() * e5 / torch.where(denominator > 0.0, denominator, 1.0), 0.0)


def _dense_coefficients(c: _Tableau, f: Any, K: torch.Tensor, y: torch.Tensor, ynew: torch.Tensor,
                        h: torch.Tensor) -> torch.Tensor:  # fmt: skip
    """scipy's ``_dense_output_impl`` per member: the three more stages, and ``(y_old, F_0..F_6)`` as ``(n, 8, P)``."""

    for s in range(STAGES + 1, EXTENDED):
        K[:, s] = f(y + h[:, None] * torch.matmul(c.A[s, :s], K[:, :s]))
    delta = ynew - y
    hh = h[:, None]
    first = (y, delta, hh * K[:, 0] - delta, 2.0 * delta - hh * (K[:, STAGES] + K[:, 0]))
    rest = hh[:, None] * torch.matmul(c.D, K)  # (n, 4, P)
    return torch.cat((torch.stack(first, dim=1), rest), dim=1)


def _device_loop(Y0: Array, t_end: float, rtol: float, atol: float, m: int, b: Array, V: Array, A: float, B: float,
                 budget: int, stiff_bound: float, stiff_steps: int, device: str) -> tuple:  # fmt: skip
    """Every member's DOP853 steps on ``device``, each its own (module docstring), until it reaches ``t_end``,
    fails, is held at rest or turns stiff. Returns on the host the accepted steps ``(member, t, h, y, Dd)``
    in the order taken, and per member its final ``(t, y)``, counts and flags."""

    dev = torch.device(device)
    c = _Tableau(dev)
    bt = torch.as_tensor(b, dtype=torch.float64, device=dev)
    Vt = torch.as_tensor(V, dtype=torch.float64, device=dev)

    def f(y: torch.Tensor) -> torch.Tensor:
        return velocity(y, m, bt, Vt, A, B)

    s = _Batch(torch.as_tensor(Y0, dtype=torch.float64, device=dev), t_end)
    fy = f(s.y)
    s.h_abs = _first_step(s.y, fy, f, t_end, rtol, atol)
    rows: list[tuple[torch.Tensor, ...]] = []
    inf = torch.tensor(math.inf, dtype=torch.float64, device=dev)
    while True:
        at = torch.nonzero(s.active).squeeze(1)
        if at.numel() == 0:  # the one synchronisation an iteration
            break
        t, h_abs, fresh = s.t[at], s.h_abs[at], ~s.rejected[at]
        over = fresh & (s.evals[at] > budget)  # the budget, checked at each new step (not its retries)
        min_step = 10.0 * (torch.nextafter(t, inf) - t)
        h_abs = torch.where(fresh, torch.maximum(h_abs, min_step), h_abs)
        fail = over | (h_abs < min_step)
        t_new = torch.clamp(t + h_abs, max=t_end)
        h = t_new - t
        y = s.y[at]
        K, ynew, y12 = _attempt(c, f, y, fy[at], h)
        s.evals[at] += STAGES
        error = _error_norm(c, K, h, y, ynew, rtol, atol)
        ok = (error < 1.0) & ~fail
        grow = torch.where(error == 0.0, MAX_FACTOR, torch.clamp(SAFETY * error**ERROR_EXPONENT, max=MAX_FACTOR))
        accepted_h = h * torch.where(fresh, grow, torch.clamp(grow, max=1.0))
        shrunk_h = h * torch.clamp(SAFETY * error**ERROR_EXPONENT, min=MIN_FACTOR)
        s.h_abs[at] = torch.where(ok, accepted_h, shrunk_h)
        s.rejected[at] = ~ok
        s.failed[at] |= fail
        s.active[at] &= ~fail
        # the accepted steps: Hairer's stiffness test, the dense output, the new state
        keep = torch.nonzero(ok).squeeze(1)
        who = at[keep]
        K, y, ynew, y12, h, t, t_new = K[keep], y[keep], ynew[keep], y12[keep], h[keep], t[keep], t_new[keep]
        num = ((K[:, STAGES] - K[:, STAGES - 1]) ** 2).sum(-1)
        den = ((ynew - y12) ** 2).sum(-1)
        h_lambda = torch.where(den > 0.0, h.abs() * torch.sqrt(num / torch.where(den > 0.0, den, 1.0)), -1.0)
        stiff_now = h_lambda > stiff_bound
        calm = torch.where(stiff_now, 0, s.calm[who] + 1)
        stiff = torch.where(stiff_now, s.stiff[who] + 1, torch.where(calm == NONSTIFF_RESET, 0, s.stiff[who]))
        s.calm[who], s.stiff[who] = calm, stiff
        switch = stiff_now & (stiff >= stiff_steps)
        Dd = _dense_coefficients(c, f, K, y, ynew, h)
        s.evals[who] += EXTENDED - STAGES - 1
        s.steps[who] += 1
        rows.append((who, t_new, h, ynew, Dd))
        s.y[who], s.t[who] = ynew, t_new
        fy[who] = K[:, STAGES]
        going = t_new < t_end
        rest = going & ((ynew - y).abs().amax(-1) <= HOLD_SPEED * (t_new - t))  # members.at_rest
        s.held[who] |= rest
        s.switch[who] |= switch & going & ~rest
        s.active[who] &= going & ~rest & ~switch
    host = [torch.cat(parts).cpu().numpy() for parts in zip(*rows, strict=True)] if rows else None
    state = [x.cpu().numpy() for x in (s.t, s.y, s.evals, s.steps, s.failed, s.switch, s.held)]
    return host, state


Rows = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""One member's stored steps ``(T, Y, Hs, Ords, Dd)`` in ``dop853_flow``'s layout."""


def _on_bdf(rows: Rows, y: Array, t: float, evals: int, t_end: float, rtol: float, atol: float, m: int, b: Array,
            V: Array, A: float, B: float, budget: int) -> tuple[Rows, int, int, int, bool]:  # fmt: skip
    """A stiff member's rest on the compiled BDF from its current ``(t, y)`` (``bdf_flow._member``, as
    ``dop853_flow`` calls it), its rows after ``rows``' last, which ``at_rest`` compares the first BDF step with.
    Returns the rows, BDF's steps, the member's gradient count, its Jacobians and whether it failed."""
    P = y.size
    cap = 256
    T, Y, Hs = np.zeros(cap), np.zeros((cap, P)), np.zeros(cap)
    Ords, Dd = np.zeros(cap, np.int64), np.zeros((cap, ROWS, P))
    T[0], Y[0] = rows[0][-1], rows[1][-1]
    T, Y, Hs, Ords, Dd, row, more, evals, jacs, failed = bdf_flow._member(
        np.ascontiguousarray(y), t, np.int64(evals), t_end, rtol, atol, m, b, V, A, B, budget, T, Y, Hs, Ords, Dd,
        np.int64(1),
    )  # fmt: skip
    new = (T[1:row], Y[1:row], Hs[1:row], Ords[1:row], Dd[1:row])
    joined = tuple(np.concatenate((old, part)) for old, part in zip(rows, new, strict=True))
    return joined, int(more), int(evals), int(jacs), bool(failed)  # type: ignore[return-value]


def _held(rows: Rows, t_end: float) -> Rows:
    """``members.held``: the last state, constant to ``t_end`` (one more row, order 1, zero slope)."""
    T, Y, Hs, Ords, Dd = rows
    last = np.zeros((1, ROWS, Y.shape[1]))
    last[0, 0] = Y[-1]
    return (np.append(T, t_end), np.concatenate((Y, Y[-1:])), np.append(Hs, t_end - T[-1]), np.append(Ords, 1),
            np.concatenate((Dd, last)))  # fmt: skip


@contextlib.contextmanager
def _one_cpu_thread(device: str) -> Iterator[None]:
    """torch on one thread while the loop runs on its CPU device: every operation is on a few hundred numbers,
    where intra-op threads cost more in synchronisation than they save (``core/samples/empirical``'s
    ``SMALL_PROBLEM_FLOPS``: measured up to a hundredfold slower on a busy 2-core machine)."""

    threads = torch.get_num_threads()
    if torch.device(device).type != "cpu" or threads == 1:
        yield
        return
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def _solve(Y0: Array, t_end: float, rtol: float, atol: float, m: int, b: Array, V: Array, A: float, B: float,
           budget: int, stiff_bound: float, stiff_steps: int, device: str) -> tuple:  # fmt: skip
    """``dop853_flow._solve``'s contract (the members' steps one after the other in its packed arrays, ``start``
    and per member ``(steps, gradient evaluations, Jacobians, failed, DOP853 steps)``), the DOP853 steps taken
    on ``device`` (:func:`_device_loop`) and a stiff member's rest on the CPU BDF from its current ``(t, y)``."""
    n, P = Y0.shape
    with _one_cpu_thread(device):
        host, (t, y, evals, steps, failed, switch, held) = _device_loop(
            Y0, t_end, rtol, atol, m, b, V, A, B, budget, stiff_bound, stiff_steps, device
        )
    if host is None:  # no step accepted (every member failed at once)
        host = [np.empty(0, np.int64), np.empty(0), np.empty(0), np.empty((0, P)), np.empty((0, ROWS, P))]
    who, times, lengths, states, coefficients = host
    order = np.argsort(who, kind="stable")  # per member, in the order taken (= in time)
    bounds = np.concatenate(([0], np.cumsum(np.bincount(who, minlength=n))))
    members: list[Rows] = []
    stats = np.zeros((n, 5), np.int64)
    for e in range(n):
        mine = order[bounds[e] : bounds[e + 1]]
        ords = np.full(mine.size + 1, DOP853_ROW, np.int64)
        ords[0] = 0  # the start (members.first_row)
        Dd = np.zeros((mine.size + 1, ROWS, P))
        Dd[1:] = coefficients[mine]
        rows: Rows = (np.concatenate(([0.0], times[mine])), np.concatenate((Y0[e : e + 1], states[mine])),
                      np.concatenate(([0.0], lengths[mine])), ords, Dd)  # fmt: skip
        more, count, jacs, gone = 0, int(evals[e]), 0, bool(failed[e])
        if held[e]:
            rows = _held(rows, t_end)
        elif switch[e] and not gone:
            rows, more, count, jacs, gone = _on_bdf(rows, y[e], float(t[e]), count, t_end, rtol, atol, m, b, V, A, B,
                                                    budget)  # fmt: skip
        members.append(rows)
        stats[e] = steps[e] + more, count, jacs, int(gone), steps[e]
    start = np.concatenate(([0], np.cumsum([rows[0].size for rows in members]))).astype(np.int64)
    T, Y, Hs, Ords, Dd = (np.concatenate([rows[i] for rows in members]) for i in range(5))
    return T, np.ascontiguousarray(Y), Hs, Ords, np.ascontiguousarray(Dd), start, stats


def solve_members(
    theta0: Network, model: Model, t_max: float, eps_align: float, options: FlowOptions, extra_times: Array | None
) -> Solved:
    """The flows of the ``n`` members of ``θ0``, each on its own DOP853 steps on ``options.device`` (the compiled
    CPU BDF's where it turns stiff), at ``options``' tolerances."""
    del extra_times
    device = options.device

    def solve(Y0: Array, t_end: float, rtol: float, atol: float, m: int, b: Array, V: Array, A: float, B: float,
              budget: int, stiff_bound: float, stiff_steps: int) -> tuple:  # fmt: skip
        return _solve(Y0, t_end, rtol, atol, m, b, V, A, B, budget, stiff_bound, stiff_steps, device)

    def describe(stats: Array) -> str:
        switched = int(np.count_nonzero(stats[:, 0] > stats[:, 4]))
        return f"dop853-torch ({device}): DOP853 per member, {switched} of {stats.shape[0]} handed to BDF where stiff"

    return solve_packed(
        theta0, model, t_max, eps_align, options, solve, _dense, "dop853-torch", describe, STIFF_H_LAMBDA, STIFF_STEPS
    )
