"""Gradient descent, heavy ball and Adam on the ReLU-family population loss as one compiled loop.

:func:`gaugecli.core.integrate.descent.gradient_descent` spends ~35 µs of Python a step around the
compiled population gradient (:mod:`gaugecli.core.population.fused`): the objective's dispatch, the
packing, the divergence and convergence tests, the update rule's list of arrays, every neuron's
alignment for the crossings. fig12's optimizer cells take ~130 000 such steps. Where the objective is
the population loss on the fused route (:attr:`~gaugecli.core.population.objective.Objective.descent`)
and the rule is GD, torch's heavy ball (or Nesterov), Adam or AdamW
(:mod:`gaugecli.core.integrate.optimizers`), :func:`descend` runs the same loop compiled:

* the gradient is the same compiled pass, plus ``λθ`` elementwise, and each rule's update the same
  elementwise operations in the same order (Adam's bias corrections ``η/(1 − β₁ᵗ)`` and
  ``√(1 − β₂ᵗ)`` computed in Python, as the rule does), so every iterate is the Python loop's to the bit;
  so is GD's δ̂, its ``‖g_w‖²`` summed in numpy's pairwise order
  (:func:`gaugecli.core.integrate.sgd_loop._pairwise`);
* ``α`` of each neuron after each step is ``max_k u_j·v̂_k`` (``|·|`` for an even σ) summed in index
  order, where numpy's product may sum in another: a crossing, interpolated between the iterates around
  it as the Python loop does, agrees with its to round-off, not bit for bit;
* the squared gradient norm of the divergence and convergence tests, summed in another order, moves a
  decision only for a norm within round-off of its threshold.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import njit
from numpy.typing import NDArray

from gaugecli.core.integrate.sgd_loop import PAIRWISE_BLOCK, _diverged, _save, _track
from gaugecli.core.population.fused import _gradient
from gaugecli.core.types import Array, Indices

__all__ = ["RULES", "PopulationRun", "compile_loops", "descend"]

RULES = {"gd": 0, "momentum": 1, "nesterov": 2, "adam": 3}
"""The update rules the loop runs (``adamw``: ``adam`` with a decoupled decay)."""
MORE, DONE, FAULT = 0, 1, 2
SEGMENT = 100_000
"""Steps per call of the loop where progress is reported (between calls)."""


@njit(cache=True, nogil=True, error_model="numpy")
def _descend(  # pragma: no cover - compiled
    Y, m, b, V, A, Bw, lam, rule, beta, beta1, beta2, adam_eps, decay, step_sizes, roots, buf, buf2,
    eta, k, k_stop, n_steps, record, saved, laws, steps, slot, law, track, shrink, eta2, p,
    U, even, thr, crossing, prev, pending, crossings, stop, limit, tol2, converged,
):  # fmt: skip
    """Iterates ``k … k_stop − 1`` of the packed states ``Y (S, P)`` (``P = m(r + 1)``) as
    :func:`gaugecli.core.integrate.descent.gradient_descent`'s loop takes them; returns ``(outcome, k, slot)``."""
    S, P = Y.shape
    r = V.shape[1]
    nf = U.shape[0]
    G = np.empty_like(Y)
    g2 = np.empty(r)
    while k < k_stop:
        _gradient(Y, m, b, V, A, Bw, G)
        if lam != 0.0:
            for s in range(S):
                for q in range(P):
                    G[s, q] += lam * Y[s, q]
        diverged, every = _diverged(G, k, limit, converged, tol2)
        if diverged:
            return FAULT, k, slot
        crossed = stop
        if stop:
            for s in range(S):
                waiting = True
                for j in range(m):
                    waiting = waiting and pending[s, j]
                crossed = crossed and not waiting
        done = k == n_steps or every or crossed
        if record[k] or done:
            slot = _save(Y, law, k, saved, laws, steps, slot)
        if done:
            return DONE, k, slot
        if track:
            _track(G, law, r, shrink, eta2, p, g2)
        if decay != 0.0:  # the optimizer's decoupled decay, before its update
            for s in range(S):
                for q in range(P):
                    Y[s, q] = (1.0 - eta * decay) * Y[s, q]
        for s in range(S):
            for q in range(P):
                g = G[s, q]
                if rule == 0:
                    Y[s, q] = Y[s, q] - eta * g
                elif rule <= 2:  # torch's heavy ball: the first buffer is the gradient itself
                    buf[s, q] = g if k == 0 else beta * buf[s, q] + g
                    u = g + beta * buf[s, q] if rule == 2 else buf[s, q]
                    Y[s, q] = Y[s, q] - eta * u
                else:  # Adam: m by torch's lerp, v from 0
                    buf[s, q] = buf[s, q] + (1.0 - beta1) * (g - buf[s, q])
                    buf2[s, q] = beta2 * buf2[s, q] + (1.0 - beta2) * g * g
                    Y[s, q] = Y[s, q] - step_sizes[k] * buf[s, q] / (math.sqrt(buf2[s, q]) / roots[k] + adam_eps)
        k += 1
        if not crossings:
            continue
        left = False
        for s in range(S):
            for j in range(m):
                left = left or pending[s, j]
        if not left:  # nothing left to locate: α is read nowhere else
            continue
        for s in range(S):
            for j in range(m):
                nn = 0.0
                for x in range(r):
                    nn += Y[s, m + j * r + x] ** 2
                norm = math.sqrt(nn)
                if norm <= 0.0:
                    norm = 1.0
                best = -math.inf
                for f in range(nf):
                    c = 0.0
                    for x in range(r):
                        c += (Y[s, m + j * r + x] / norm) * U[f, x]
                    if even:
                        c = abs(c)
                    best = max(best, c)
                if best >= thr and pending[s, j]:  # between iterates k − 1 and k
                    crossing[s, j] = (k - 1 + (thr - prev[s, j]) / (best - prev[s, j])) * eta
                    pending[s, j] = False
                prev[s, j] = best
    return MORE, k, slot


@dataclass(frozen=True)
class PopulationRun:
    """What :func:`descend` returns: the saved iterates ``a (R, S, m)``, ``W (R, S, m, r)`` at steps
    ``steps (R,)``, δ̂ there (``law``; ``None`` untracked), the crossings ``(S, m)`` (NaN: none), the
    last iterate ``k``, the members' convergence at it, and ``fault``: the diverging iterate (``None``: none)."""

    a: Array
    W: Array
    steps: Indices
    law: Array | None
    crossing: Array
    k: int
    converged: NDArray[np.bool_]
    fault: int | None


@dataclass(frozen=True)
class Rule:
    """An update rule as the loop takes it: ``kind`` (:data:`RULES`), heavy ball's ``beta``, Adam's
    ``(β₁, β₂)`` and ε, and a decoupled ``decay``."""

    kind: str = "gd"
    beta: float = 0.0
    betas: tuple[float, float] = (0.9, 0.999)
    adam_eps: float = 1e-8
    decay: float = 0.0


def descend(
    a0: Array,
    W0: Array,
    teacher: tuple[Array, Array, tuple[float, float], float],
    rule: Rule,
    eta: float,
    n_steps: int,
    record: set[int],
    *,
    grad_tol: float,
    law: Array | None,
    shrink: float,
    p: float,
    features: Array,
    even: bool,
    threshold: float,
    start_align: Array | None,
    stop_at_crossing: bool,
    progress: Callable[[float], None] | None = None,
) -> PopulationRun:
    """``rule`` on the population loss of the members ``a0 (S, m)``, ``W0 (S, m, r)`` for up to
    ``n_steps`` steps, as :func:`gaugecli.core.integrate.descent.gradient_descent`'s loop runs it.
    ``teacher``: ``(b (k,), V (k, r), (A, B), λ)`` of :attr:`Objective.descent`; ``features (k, r)``: the
    teacher's unit directions, ``start_align (S, m)``: α at the start (``None``: no crossing is located);
    ``law``: δ̂_0 (``None``: not tracked)."""
    S, m, r = W0.shape
    Y = np.ascontiguousarray(np.concatenate((a0, W0.reshape(S, m * r)), axis=1), dtype=np.float64)
    b, V, (A, Bw), lam = teacher
    marks = np.zeros(n_steps + 1, np.bool_)
    marks[[k for k in record if 0 <= k <= n_steps]] = True
    slots = int(marks.sum()) + 1
    saved, steps = np.empty((slots, S, Y.shape[1])), np.empty(slots, np.intp)
    track = law is not None
    delta = np.array(law, dtype=np.float64) if track else np.zeros((S, m))
    laws = np.empty((slots, S, m))
    beta1, beta2 = rule.betas
    adam = rule.kind == "adam"
    # Adam's corrections as the rule computes them (Python's float power, at t = k + 1)
    step_sizes = np.array([eta / (1.0 - beta1 ** (k + 1)) for k in range(n_steps)] if adam else [0.0])
    roots = np.array([math.sqrt(1.0 - beta2 ** (k + 1)) for k in range(n_steps)] if adam else [1.0])
    crossings = start_align is not None
    prev = np.array(start_align, dtype=np.float64) if crossings else np.zeros((S, m))
    crossing = np.full((S, m), np.nan)
    crossing[prev >= threshold] = 0.0
    pending = np.isnan(crossing)
    limit, converged = np.empty(S), np.zeros(S, np.bool_)
    buf, buf2 = np.zeros_like(Y), np.zeros_like(Y)
    # writable copies: numba compiles a loop anew for a read-only array (the model's teacher is one)
    teacher_b, teacher_V, unit = (np.array(x, dtype=np.float64, order="C") for x in (b, V, features))
    k, slot, outcome = 0, 0, MORE
    while outcome == MORE:
        k_stop = n_steps + 1 if progress is None else min(n_steps + 1, k + SEGMENT)
        outcome, k, slot = _descend(
            Y, m, teacher_b, teacher_V, float(A),
            float(Bw), float(lam), RULES[rule.kind], float(rule.beta), float(beta1), float(beta2),
            float(rule.adam_eps), float(rule.decay), step_sizes, roots, buf, buf2, float(eta), k, k_stop, n_steps,
            marks, saved, laws, steps, slot, delta, track, float(shrink), float(eta) ** 2, float(p),
            unit, bool(even), float(threshold), crossing, prev, pending,
            crossings, bool(stop_at_crossing), limit, float(grad_tol) ** 2, converged,
        )  # fmt: skip
        if progress is not None:
            progress(min(k, n_steps) / n_steps)
    kept = saved[:slot]
    return PopulationRun(
        a=kept[:, :, :m].copy(),
        W=kept[:, :, m:].reshape(slot, S, m, r),
        steps=steps[:slot].copy(),
        law=laws[:slot].copy() if track else None,
        crossing=crossing,
        k=int(k),
        converged=converged,
        fault=int(k) if outcome == FAULT else None,
    )


def applies(rule_name: str, r: int) -> bool:
    """Whether the loop runs this rule at ``r`` input coordinates (δ̂'s pairwise sum: ``r ≤ 128``)."""
    return rule_name in (*RULES, "adamw", "sgd") and r <= PAIRWISE_BLOCK


def compile_loops() -> None:
    """Compile the loop now (or load it from numba's on-disk cache) for the argument types GD passes."""
    teacher = (np.array([1.0]), np.array([[1.0, 0.0]]), (1.0, 0.0), 0.0)
    for kind in ("gd", "adam"):
        descend(
            np.array([[0.5]]), np.array([[[0.0, 1.0]]]), teacher, Rule(kind), 0.1, 2, {0, 2}, grad_tol=0.0,
            law=np.zeros((1, 1)), shrink=1.0, p=1.0, features=np.array([[1.0, 0.0]]), even=False, threshold=0.99,
            start_align=np.zeros((1, 1)), stop_at_crossing=False,
        )  # fmt: skip
