"""The σ = x² contrast of ``gaugecli lockin`` (opt-in, ``--x2``): finite-sample GD of ``select`` and its
aligned control over seeds, where Xu's floored detector has its positive. These are ordinary runs of
the core under the ``square`` activation (:class:`~gaugecli.core.activations.square.Square`): its
degree-2 gauge, its kernel, its samples and the same gradient descent as every other run.

The clock is the ``T_spec`` of a pilot ``select`` run on the first seed: the x² population flow from
u0 ⊥ v never aligns (an exact saddle, :func:`gaugecli.core.analyses.symmetry.exact_saddle`), so there is no
population clock to borrow.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from gaugecli.core.analyses.symmetry import exact_saddle
from gaugecli.core.integrate.descent import gradient_descent, stable_step_bound
from gaugecli.core.integrate.trajectory import NumericalFault
from gaugecli.core.model.gauge import duplicate_initial_condition, function_coordinates
from gaugecli.core.model.metrics import alignment
from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.population.objective import GradientOracle
from gaugecli.core.types import Array, Progress
from gaugecli.experiments.lockin.config import LockinConfig, assignment_imbalances
from gaugecli.experiments.lockin.diagnose import Condition, Trajectory, diagnose, unique_owner
from gaugecli.experiments.lockin.result import LockinRun
from gaugecli.experiments.lockin.training import finite_sample_on_grid

QUADRATIC_PILOT_HORIZON = 1000.0
"""Give up on the σ = x² pilot run if it has not aligned by then (T_spec ≈ 0.6 at the defaults)."""

SADDLE_NOTE = (
    "σ=x² population flow from u0 ⊥ v is not run: it starts at an exact saddle (the gradient has no "
    "v-component, so W stays ⊥ v and never aligns); the x² runs are finite-sample GD"
)


def square_model(config: LockinConfig) -> Model:
    """The lockin model with σ = x² for student and teacher."""
    return replace(config.model, activation="square").build()


def _start(config: LockinConfig, net: Model, control: bool) -> tuple[Array, Array]:
    deltas = assignment_imbalances("select", config.m, config.sample_strength, config.owner)
    theta0 = 0.0 if control else config.model.theta0
    return duplicate_initial_condition(net, deltas, config.model.c0, theta0)


def saddle_notes(config: LockinConfig) -> list[str]:
    """The one-line note that the x² population flow from ``select``'s start sits at an exact saddle."""
    net = square_model(config)
    return [SADDLE_NOTE] if exact_saddle(Network(*_start(config, net, False)), net) else []


def quadratic_runs(config: LockinConfig, progress: Progress | None) -> list[LockinRun]:
    """σ = x² select runs and aligned controls, finite-sample GD over seeds, on the clock of a pilot run."""
    from gaugecli.core.samples.moments import QuadraticMoments, moments_apply
    from gaugecli.core.samples.sample import empirical_oracle
    from gaugecli.core.samples.sample_draw import draw_sample

    D = config.sample_strength
    net = square_model(config)
    eps = config.model.eps_align
    deltas = assignment_imbalances("select", config.m, D, config.owner)

    def oracle(seed: int) -> tuple[Array, GradientOracle]:
        X, y = draw_sample(net, config.n_samples, seed)
        if moments_apply(net):  # the same L_n through the sample's fourth moments: ~20× cheaper per step
            return X, QuadraticMoments(X, net).oracle()
        return X, empirical_oracle(X, y, activation=net.activation)

    a_sel, W_sel = _start(config, net, False)
    eta_max = config.quadratic_step_fraction * min(
        stable_step_bound(Network(a_sel, W_sel), net), stable_step_bound(Network(*_start(config, net, True)), net)
    )
    # pilot: GD on the first seed's sample until a neuron aligns (crossing interpolated between steps)
    _, pilot_oracle = oracle(config.seeds[0])
    pilot = gradient_descent(
        Network(a_sel, W_sel),
        net,
        eta_max,
        QUADRATIC_PILOT_HORIZON,
        oracle=pilot_oracle,
        eps_align=eps,
        stop_at_crossing=True,
    )
    if not np.any(np.isfinite(pilot.crossing_times)):
        raise NumericalFault(f"σ=x² select run did not align by t = {QUADRATIC_PILOT_HORIZON:g}; raise `n_samples`")
    t_pilot = float(np.nanmin(pilot.crossing_times))
    tau = t_pilot / config.per
    steps = max(1, math.ceil(tau / eta_max))
    eta = tau / steps
    times = np.arange(round(config.span * config.per) + 1) * tau
    runs = []
    cases = [(False, s) for s in config.seeds] + ([(True, s) for s in config.seeds] if config.control else [])
    for i, (control, seed) in enumerate(cases):
        a0, W0 = _start(config, net, control)
        X, orc = oracle(seed)
        a, W, dW, t_spec = finite_sample_on_grid(Network(a0, W0), net, orc, times, eta, eps)
        c, _ = function_coordinates(Network(a[-1], W[-1]), net.degree)
        alpha, _ = alignment(W[-1], net)
        trajectory = Trajectory(
            times=times,
            t_unit=t_pilot,
            a=a,
            W=W,
            dW=dW,
            t_spec=t_spec,
            eta=eta,
            X=X,
            u0=W0[0] / np.linalg.norm(W0[0]),
        )
        runs.append(
            diagnose(
                config,
                Condition("select", "sample", D, seed, "x2", control),
                trajectory,
                net,
                owner=None if control else unique_owner(deltas, c, alpha, eps),
                deltas=deltas,
            )
        )
        if progress is not None:
            progress((i + 1) / len(cases))
    return runs
