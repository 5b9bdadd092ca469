"""The σ = x² contrast of ``gaugecli lockin`` (opt-in, ``--x2``): finite-sample GD of ``select`` and its
aligned control over seeds (:mod:`gaugecli.core.quadratic`), where Xu's floored detector has its positive.

The clock is the ``T_spec`` of a pilot ``select`` run on the first seed: the x² population flow from
u0 ⊥ v never aligns (an exact saddle, :data:`gaugecli.core.quadratic.SADDLE_NOTE`), so there is no
population clock to borrow.
"""

from __future__ import annotations

import math

import numpy as np

from gaugecli.core import quadratic as qd
from gaugecli.core.teacher import Teacher
from gaugecli.core.trajectory import NumericalFault
from gaugecli.core.types import Array, Progress
from gaugecli.experiments.lockin.config import LockinConfig, assignment_imbalances
from gaugecli.experiments.lockin.diagnose import Condition, Trajectory, diagnose, unique_owner
from gaugecli.experiments.lockin.result import LockinRun

QUADRATIC_PILOT_HORIZON = 1000.0
"""Give up on the σ = x² pilot run if it has not aligned by then (T_spec ≈ 0.6 at the defaults)."""


def quadratic_crossing(t: Array, W: Array, teacher: Teacher, eps_align: float) -> float | None:
    """First time ``max_j |u_j·v| = 1 − ε``, linearly interpolated between recorded iterates."""
    alpha = np.max(qd.quadratic_alignment(W, teacher), axis=-1)
    hit = np.flatnonzero(alpha >= 1 - eps_align)
    if hit.size == 0:
        return None
    i = int(hit[0])
    if i == 0:
        return 0.0
    frac = (1 - eps_align - alpha[i - 1]) / (alpha[i] - alpha[i - 1])
    return float(t[i - 1] + frac * (t[i] - t[i - 1]))


def saddle_notes(config: LockinConfig) -> list[str]:
    """The one-line note that the x² population flow from ``select``'s start sits at an exact saddle."""
    teacher = config.model.teacher()
    deltas = assignment_imbalances("select", config.m, config.sample_strength, config.owner)
    _, W0 = qd.quadratic_duplicates(teacher, deltas, config.model.c0, config.model.theta0)
    return [qd.SADDLE_NOTE] if qd.exact_saddle(W0, teacher) else []


def quadratic_runs(config: LockinConfig, progress: Progress | None) -> list[LockinRun]:
    """σ = x² select runs and aligned controls, finite-sample GD over seeds, on the clock of a pilot run."""
    from gaugecli.core.empirical import draw_sample

    D = config.sample_strength
    teacher = config.model.teacher()
    eps = config.model.eps_align
    deltas = assignment_imbalances("select", config.m, D, config.owner)

    def start(control: bool) -> tuple[Array, Array]:
        theta0 = 0.0 if control else config.model.theta0
        return qd.quadratic_duplicates(teacher, deltas, config.model.c0, theta0)

    def oracle(seed: int) -> tuple[Array, qd.QuadraticOracle]:
        X, _ = draw_sample(teacher, config.n_samples, seed)
        return X, qd.quadratic_empirical_oracle(X, qd.quadratic_labels(X, teacher))

    a_sel, W_sel = start(False)
    eta_max = config.quadratic_step_fraction * min(
        qd.quadratic_stable_step(a_sel, W_sel, teacher), qd.quadratic_stable_step(*start(True), teacher)
    )
    # pilot: run in chunks of one time unit until it aligns
    _, pilot_oracle = oracle(config.seeds[0])
    chunk = max(1, round(1.0 / eta_max))
    a, W, t0 = a_sel, W_sel, 0.0
    t_pilot = None
    while t_pilot is None:
        if t0 >= QUADRATIC_PILOT_HORIZON:
            raise NumericalFault(f"σ=x² select run did not align by t = {QUADRATIC_PILOT_HORIZON:g}; raise `n_samples`")
        part = qd.quadratic_gradient_descent(a, W, pilot_oracle, eta_max, chunk, 1)
        t_pilot = quadratic_crossing(t0 + part.t, part.W, teacher, eps)
        a, W, t0 = part.a[-1], part.W[-1], t0 + float(part.t[-1])
    tau = t_pilot / config.per
    steps = max(1, math.ceil(tau / eta_max))
    eta = tau / steps
    n_epochs = round(config.span * config.per)
    times = np.arange(n_epochs + 1) * tau
    runs = []
    cases = [(False, s) for s in config.seeds] + ([(True, s) for s in config.seeds] if config.control else [])
    for i, (control, seed) in enumerate(cases):
        a0, W0 = start(control)
        X, orc = oracle(seed)
        run = qd.quadratic_gradient_descent(a0, W0, orc, eta, n_epochs * steps, steps)
        dW = np.array([-orc(a, W)[1] for a, W in zip(run.a, run.W, strict=True)])
        c, _ = qd.quadratic_function_coordinates(run.a[-1], run.W[-1])
        alpha = qd.quadratic_alignment(run.W[-1], teacher)
        trajectory = Trajectory(
            times=times,
            t_unit=t_pilot,
            a=run.a,
            W=run.W,
            dW=dW,
            t_spec=quadratic_crossing(times, run.W, teacher, eps),
            eta=eta,
            X=X,
            u0=W0[0] / np.linalg.norm(W0[0]),
        )
        runs.append(
            diagnose(
                config,
                Condition("select", "sample", D, seed, "x2", control),
                trajectory,
                teacher,
                owner=None if control else unique_owner(deltas, c, alpha, eps),
                deltas=deltas,
            )
        )
        if progress is not None:
            progress((i + 1) / len(cases))
    return runs
