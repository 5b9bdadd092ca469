"""Heavy-ball momentum on the ReLU population loss as one compiled loop, to the first crossing only.

The separation of discrete momentum at large D needs millions of steps per ``−D`` run (its time grows like
``γD`` and the step that resolves the ``+D`` neuron's turn shrinks like ``D^{-1/2}``); the package's
:func:`gaugecli.core.integrate.descent.gradient_descent` spends ~20 µs of Python on each. This loop does
torch's update ``b₁ = g₁``, ``b_k = β b_{k−1} + g_k``, ``θ ← θ − η b_k`` (:class:`~gaugecli.core.integrate.optimizers.sgd.Momentum`)
with the compiled pair sums of :mod:`gaugecli.core.population.fused` in ~1 µs a step, for a student in the
teacher's plane (population dynamics never leave the span of the start and the teacher, and the ReLU
kernel reads inner products only, so the plane is exact for every d), and stops at the first iterate with
``α ≥ 1 − ε``, locating the crossing between iterates by linear interpolation as ``gradient_descent`` does.
The sums run in another order than numpy's, so a crossing agrees with the package's to round-off, not bit
for bit.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from gaugecli.core.population.fused import _gradient, pack
from gaugecli.core.types import Array


@njit(cache=True, nogil=True, error_model="numpy")
def _crossing(Y0, m, b, V, beta, eta, thr, max_steps):  # pragma: no cover - compiled
    """The fractional step count of the first crossing ``α_0 ≥ thr`` of neuron 0 (NaN: none in
    ``max_steps``), ``v̂ = V[0]/‖V[0]‖``."""
    r = V.shape[1]
    Y = Y0.copy()
    G = np.empty_like(Y)
    buf = np.zeros_like(Y)
    vn = 0.0
    for x in range(r):
        vn += V[0, x] * V[0, x]
    vn = math.sqrt(vn)

    def align(Y):
        dot, nn = 0.0, 0.0
        for x in range(r):
            dot += Y[0, m + x] * V[0, x]
            nn += Y[0, m + x] * Y[0, m + x]
        return dot / (math.sqrt(nn) * vn) if nn > 0.0 else 0.0

    prev = align(Y)
    if prev >= thr:
        return 0.0
    for k in range(max_steps):
        _gradient(Y, m, b, V, 1.0, 0.0, G)
        for p in range(Y.shape[1]):
            buf[0, p] = G[0, p] if k == 0 else beta * buf[0, p] + G[0, p]
            Y[0, p] -= eta * buf[0, p]
        now = align(Y)
        if now >= thr:
            return k + (thr - prev) / (now - prev)
        prev = now
    return math.nan


def momentum_crossing_steps(
    a0: Array, W0: Array, v: Array, a_star: float, momentum: float, eta: float, eps_align: float, max_steps: int
) -> float:
    """Steps of heavy-ball momentum (``momentum`` β, learning rate ``eta``, torch's first buffer) from the
    student ``(a0 (m,), W0 (m, r))`` to the first iterate at which neuron 0 reaches ``α ≥ 1 − eps_align``
    against the teacher ``a* σ(v·x)`` (``v (r,)``, in the student's coordinates), located between iterates
    (a fraction; NaN: not within ``max_steps``). ``t = steps·η`` is the package's ``T_spec`` of the run."""
    W0 = np.asarray(W0, float)
    Y = np.ascontiguousarray(pack(np.asarray(a0, float), W0))
    V = np.ascontiguousarray(np.asarray(v, float).reshape(1, -1))
    b = np.array([float(a_star)])
    return float(_crossing(Y, W0.shape[-2], b, V, float(momentum), float(eta), 1.0 - eps_align, int(max_steps)))
