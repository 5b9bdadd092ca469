"""Kunin et al.'s setting as ``simulate`` runs it — the rules between its options, and their
measurements at a run's checkpoints (:mod:`gaugecli.core.analyses.rich_lazy`).

Their setting ("Get rich quick", NeurIPS 2024, ``two-layer-relu/run_grid.py``): ``m = 50`` neurons in
``m/2`` pairs ``±a`` sharing ``w`` (``init`` paired, f₀ ≡ 0, ``|a|‖w‖ = τ²``, ``a² − ‖w‖² = δ``), a
teacher of ``k = 3`` random unit directions with output weights ±1 (``teacher`` random), ``n = 1000``
inputs on the unit sphere of ``d = 100`` (``inputs`` sphere), full-batch GD for 10⁴ steps of their
``lr = 5e-3/τ²`` on ``(1/n) Σ (f − y)² = 2 L_n`` — our ``eta`` = 2·lr — measured at steps 0, 10, 100,
1000, 10⁴ with a test sample of 10⁴ points.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from gaugecli.core.analyses.rich_lazy import hamming_distance, kernel_distance, parameter_distance
from gaugecli.core.integrate.trajectory import Trajectory
from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.samples.sample_draw import draw_sample
from gaugecli.core.types import Array
from gaugecli.experiments.declare import ConfigError, require
from gaugecli.experiments.params import MAX_KERNEL_SAMPLES

TEST_STREAM = 2
"""The held-out sample is drawn from the child ``TEST_STREAM`` of the run's seed sequence, so it never
shares draws with the training sample (the seed itself) or SGD's batches (child 1)."""

TEACHER_STREAM = 3
"""``teacher`` random is drawn from the child ``TEACHER_STREAM`` of ``teacher_seed``'s seed sequence, and
``init`` paired from the child :data:`START_STREAM` of ``init_seed``'s: with the same integer for every
seed (``--seeds 7 --teacher-seed 7 --init-seed 7``) the teacher, the start and the sample are still
independent draws (``default_rng(7)`` for all three would make the teacher's directions the first
inputs of the sample, and the start's directions the same again)."""
START_STREAM = 4


def stream(seed: int | None, child: int) -> np.random.SeedSequence:
    """The child ``child`` of the seed sequence of ``seed`` (0 when not given)."""
    return np.random.SeedSequence(0 if seed is None else seed, spawn_key=(child,))


DRAWN_STARTS = ("random", "gaussian", "paired")
"""The starts that do not place the neurons relative to the standard teacher's ``e_1``."""


def check_kunin(config: Any) -> None:
    """The rules (``config``: a :class:`~gaugecli.experiments.simulate.SimulateConfig`, which imports this
    module) between Kunin et al.'s options and the rest of ``simulate``'s, naming the parameter."""
    dyn = config.dynamics
    require(
        config.init_scale is None or config.init == "paired",
        "init_scale",
        "is τ of `init` paired; it has no effect here",
    )
    if config.init == "paired":
        require(config.m % 2 == 0, "m", f"must be even with `init` paired: m/2 pairs ±a sharing w (got {config.m})")
        require(config.deltas is None, "deltas", "would break `init` paired's pairs: give one δ by `gauge`")
        require(not config.natural, "gauge", "natural is the δ of a gaussian draw; `init` paired takes δ from `gauge`")
    require(
        not config.eta_per_scale or (config.init == "paired" and dyn.eta is not None),
        "eta_per_scale",
        "scales a given `eta` by τ⁻² of `init` paired: it needs both",
    )
    require(
        config.teacher_seed is None or config.teacher == "random",
        "teacher_seed",
        "seeds `teacher` random; the standard teacher has nothing to draw",
    )
    require(
        config.teacher == "standard" or config.init in DRAWN_STARTS,
        "teacher",
        f"random needs a drawn start (`init` {', '.join(DRAWN_STARTS)}): `init` {config.init} places the "
        "neurons relative to the standard teacher's e_1",
    )
    has_sample = dyn.sample_size is not None
    require(
        config.inputs == "gaussian" or has_sample,
        "inputs",
        f"sphere is a finite sample's law: `mode` {dyn.mode.value} integrates the Gaussian population "
        "(use sample, sample-gd, or sgd with `n_samples`)",
    )
    if config.inputs == "sphere":
        sigma, tau = config.model.sigma(), config.model.teacher_sigma()
        degree_ok = tau is None or (tau.homogeneous and tau.gauge_degree == sigma.gauge_degree)
        require(
            sigma.homogeneous and degree_ok,
            "inputs",
            "sphere needs a homogeneous activation of one degree for student and teacher: the population "
            "observables on the sphere are then the Gaussian ones scaled by E‖x‖^(2p)",
        )
    for name in ("checkpoints", "test_samples"):
        require(
            getattr(config, name) is None or has_sample,
            name,
            f"is measured on a finite sample: `mode` {dyn.mode.value} has none (sample, sample-gd, or sgd with "
            "`n_samples`)",
        )
    if config.checkpoints is not None and has_sample:
        _check_checkpoints(config)


def _check_checkpoints(config: Any) -> None:
    dyn = config.dynamics
    n = dyn.sample_size
    assert n is not None and config.checkpoints is not None
    require(
        n <= MAX_KERNEL_SAMPLES,
        "n_samples",
        f"must be ≤ {MAX_KERNEL_SAMPLES} with `checkpoints`: the kernel distance holds n × n kernels (got {n})",
    )
    if dyn.mode.stepped:
        require(
            all(float(k).is_integer() for k in config.checkpoints),
            "checkpoints",
            f"are step numbers in `mode` {dyn.mode.value} (got {', '.join(f'{k:g}' for k in config.checkpoints)})",
        )
        require(max(config.checkpoints) >= 1, "checkpoints", "need a step ≥ 1: the last checkpoint is the horizon")
        require(dyn.eta is not None, "eta", "must be given with `checkpoints`: they are steps of η")
        require(dyn.t_max is None, "t_max", "has no effect with `checkpoints`: the last checkpoint is the horizon")
    elif dyn.t_max is not None:
        late = [t for t in config.checkpoints if t > dyn.t_max]
        require(not late, "checkpoints", f"must be ≤ `t_max` = {dyn.t_max:g} (got {', '.join(f'{t:g}' for t in late)})")


@dataclass(frozen=True)
class Measurements:
    """Kunin et al.'s measurements of one run at its checkpoints: ``t`` (times; steps·η for GD),
    ``kernel_distance`` S, ``hamming_distance`` H, ``parameter_distance`` ‖θ_t − θ_0‖ and ``test_loss``
    (½·mean (f − y)² on the held-out sample; ``None`` without one)."""

    t: Array
    kernel_distance: Array
    hamming_distance: Array
    parameter_distance: Array
    test_loss: Array | None

    def fields(self) -> dict[str, Any]:
        """As :class:`~gaugecli.core.analyses.observables.RunObservables` names them."""
        return {
            "checkpoint_t": self.t,
            "kernel_distance": self.kernel_distance,
            "hamming_distance": self.hamming_distance,
            "parameter_distance": self.parameter_distance,
            "test_loss": self.test_loss,
        }


def checkpoint_indices(traj: Trajectory, marks: tuple[float, ...], eta: float | None) -> Array:
    """Indices into ``traj.t`` of the start, each checkpoint and the horizon (sorted, distinct).

    A stepped run's iterate ``k`` is saved at ``t = kη`` and found by its step number; a flow's
    checkpoint is one of its declared times. A run that stopped at convergence before a checkpoint
    holds its last state there (the flow on ``L_n`` stops at ‖∇L_n‖ ≤ 1e-10, GD likewise)."""
    t = np.asarray(traj.t, float)
    found = [0, t.size - 1]
    for mark in marks:
        if eta is not None:  # steps: t = kη, so round(t/η) is the step number
            hits = np.flatnonzero(np.rint(t / eta) == round(mark))
        else:  # declared times are stored exactly
            hits = np.flatnonzero(np.abs(t - mark) <= 4 * np.finfo(float).eps * max(1.0, mark))
        if hits.size:
            found.append(int(hits[0]))
        elif mark > t[-1]:
            found.append(t.size - 1)
        else:  # pragma: no cover - every checkpoint is saved by the integrators
            raise ConfigError("checkpoints", f"{mark:g} was not saved by the run")
    return np.unique(found)


def measure(config: Any, traj: Trajectory, net: Model, member: int, marks: tuple[float, ...]) -> Measurements:
    """Kunin et al.'s measurements of member ``member`` of ``traj`` (a run of ``config`` on the model
    ``net``) at the start, the checkpoints ``marks`` and the horizon, on its training sample (drawn
    again from the run's seed: the same numbers the run descended)."""
    n = config.dynamics.sample_size
    assert n is not None and traj.basis is None  # a finite sample is integrated in all of R^d
    sphere = config.inputs == "sphere"
    eta = config.run_dynamics.eta if config.dynamics.mode.stepped else None
    idx = checkpoint_indices(traj, marks, eta)
    theta = traj.theta[member][idx]
    X, _ = draw_sample(net, n, config.run_seed, sphere)
    test = None
    if config.test_samples is not None:
        X_test, y_test = draw_sample(net, config.test_samples, stream(config.run_seed, TEST_STREAM), sphere)
        test = half_mean_square(theta, X_test, y_test, net)
    return Measurements(
        t=np.asarray(traj.t)[idx],
        kernel_distance=kernel_distance(theta, X, net.activation),
        hamming_distance=hamming_distance(theta.W, X),
        parameter_distance=parameter_distance(theta),
        test_loss=test,
    )


def half_mean_square(theta: Network, X: Array, y: Array, net: Model) -> Array:
    """``½ (1/n) Σ_i (f(x_i) − y_i)²`` at each state of ``θ`` (``a (n_t, m)``, ``W (n_t, m, d)``)."""
    return np.array(
        [0.5 * np.mean((net.activation.sigma(X @ W.T) @ a - y) ** 2) for a, W in zip(theta.a, theta.W, strict=True)]
    )
