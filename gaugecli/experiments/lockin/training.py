"""Finite-sample training sampled on the uniform epoch grid ``t_k = k τ``, for any model (ReLU, σ = x²)."""

from __future__ import annotations

import numpy as np

from gaugecli.core.descent import gradient_descent
from gaugecli.core.metrics import alignment
from gaugecli.core.model import Model
from gaugecli.core.objective import GradientOracle
from gaugecli.core.types import Array


class _CachedOracle:
    """Remembers the last evaluation: ``gradient_descent`` chunks end and start at the same state."""

    def __init__(self, oracle: GradientOracle) -> None:
        self._oracle = oracle
        self._key: tuple[Array, Array] | None = None
        self._value: tuple[Array, Array, Array | None] | None = None

    def __call__(self, a: Array, W: Array) -> tuple[Array, Array, Array | None]:
        if self._key is not None and np.array_equal(a, self._key[0]) and np.array_equal(W, self._key[1]):
            assert self._value is not None
            return self._value
        self._key, self._value = (a.copy(), W.copy()), self._oracle(a, W)
        return self._value


def finite_sample_on_grid(
    a0: Array, W0: Array, net: Model, oracle: GradientOracle, times: Array, eta: float, eps_align: float
) -> tuple[Array, Array, Array, float | None]:
    """Finite-sample training sampled at the uniform ``times`` (multiples of ``τ``, ``τ/η`` integer):
    ``(a (n, m), W (n, m, d), dW/dt = −∂L_n/∂W (n, m, d), T_spec or None)``.

    Today this is full-batch GD with step ``eta`` (:func:`gaugecli.core.descent.gradient_descent`,
    one call per epoch); it is the one place to switch to a finite-sample gradient flow.
    """
    cached = _CachedOracle(oracle)
    tau = float(times[1] - times[0])
    steps = max(1, round(tau / eta))
    a, W = np.array(a0, float), np.array(W0, float)
    As, Ws, dWs = [], [], []
    t_spec = None
    for k in range(times.size):
        As.append(a)
        Ws.append(W)
        dWs.append(-cached(a, W)[1])
        if k == times.size - 1:
            break
        # t_max a hair under `steps` steps, so that ceil(t_max/eta) is exactly `steps`
        traj = gradient_descent(
            a, W, net, eta, steps * eta * (1 - 1e-12), oracle=cached, eps_align=eps_align, grid_points=3
        )
        if t_spec is None and np.any(np.isfinite(traj.crossing_times)):
            t_spec = float(times[k] + np.nanmin(traj.crossing_times))
        a, W = traj.a[-1], traj.W[-1]
    if np.max(alignment(np.asarray(Ws[0]), net)[0]) >= 1 - eps_align:  # aligned from the start
        t_spec = 0.0
    return np.array(As), np.array(Ws), np.array(dWs), t_spec
