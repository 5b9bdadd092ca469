"""Finite-sample training sampled on the uniform epoch grid ``t_k = k τ``, for any model (ReLU, σ = x²)."""

from __future__ import annotations

import numpy as np

from gaugecli.core.integrate.descent import gradient_descent
from gaugecli.core.model.metrics import alignment
from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.population.objective import GradientOracle
from gaugecli.core.types import Array


def finite_sample_on_grid(
    theta0: Network, net: Model, oracle: GradientOracle, times: Array, eta: float, eps_align: float
) -> tuple[Array, Array, Array, float | None]:
    """Finite-sample training from ``θ0`` sampled at the uniform ``times`` (multiples of ``τ``, ``τ/η`` integer):
    ``(a (n, m), W (n, m, d), dW/dt = −∂L_n/∂W (n, m, d), T_spec or None)``.

    Today this is full-batch GD with step ``eta`` (:func:`gaugecli.core.integrate.descent.gradient_descent`),
    one run saving every ``τ/η``-th iterate; ``dW`` is the gradient GD evaluates at each saved
    iterate (the oracle is called exactly once per step, so the saved steps' calls are known). It
    is the one place to switch to a finite-sample gradient flow.
    """
    tau = float(times[1] - times[0])
    steps = max(1, round(tau / eta))
    total = steps * (times.size - 1)
    slopes: list[Array] = []
    calls = [0]

    def recording(a: Array, W: Array) -> tuple[Array, Array, Array | None]:
        out = oracle(a, W)
        if calls[0] % steps == 0:
            slopes.append(-np.asarray(out[1]))
        calls[0] += 1
        return out

    # t_max a hair under `total` steps, so that ceil(t_max/eta) is exactly `total`; grad_tol 0: every
    # step is taken (the grid is the experiment's, whatever the gradient's size)
    traj = gradient_descent(
        theta0, net, eta, total * eta * (1 - 1e-12), oracle=recording, eps_align=eps_align, grad_tol=0.0,
        record_every=steps,
    )  # fmt: skip
    if traj.a.shape[0] != times.size or len(slopes) != times.size:
        raise RuntimeError(f"finite_sample_on_grid: {traj.a.shape[0]} saved iterates for {times.size} times")
    t_spec: float | None = None
    if np.any(np.isfinite(traj.crossing_times)):
        t_spec = float(np.nanmin(traj.crossing_times))
    if np.max(alignment(np.asarray(theta0.W), net)[0]) >= 1 - eps_align:  # aligned from the start
        t_spec = 0.0
    return traj.a, traj.W, np.array(slopes), t_spec
