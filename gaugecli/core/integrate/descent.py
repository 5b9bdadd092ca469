"""Gradient descent ``θ ← θ − η g(θ)`` on the population loss, ``L_n`` or minibatches, and the
stability bound of its step."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from gaugecli.core.defaults import EPS_ALIGN
from gaugecli.core.integrate.optimizers.base import Optimizer
from gaugecli.core.integrate.trajectory import NumericalFault, SolverStats, Trajectory
from gaugecli.core.model.gauge import imbalance, unit_directions
from gaugecli.core.model.metrics import alignment
from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.population.objective import GradientOracle, Objective, population_objective, population_oracle
from gaugecli.core.types import Array, Progress

LANCZOS_MIN_SIZE = 400
"""From this many parameters ``P`` on, :func:`stable_step_bound` takes ``λ_max`` by Lanczos on
Hessian–vector products where the objective has them: the dense eigensolve is ``O(P³)`` (a
5050 × 5050 Hessian: 11.5 s), Lanczos a few dozen products of the cost of two gradients each."""
LANCZOS_TOL = 1e-10
"""ARPACK's relative tolerance on ``λ_max`` (``|λ − λ_max| ≤ tol·|λ_max|`` at convergence): a step
within this fraction of the bound is the only one the check could call differently."""
LANCZOS_START_SEED = 0
"""The seed of Lanczos' start vector: ARPACK's own draws a different one per call, so the same
run would print a bound differing in its last digits."""


def lanczos_lambda_max(product: Callable[[Array], Array], size: int) -> float:
    """The largest eigenvalue of a symmetric ``size × size`` operator given by ``v → H v``: scipy's
    ``eigsh`` (ARPACK's implicitly restarted Lanczos) to :data:`LANCZOS_TOL`."""
    from scipy.sparse.linalg import LinearOperator, eigsh

    operator = LinearOperator((size, size), matvec=product, dtype=np.float64)
    start = np.random.default_rng(LANCZOS_START_SEED).standard_normal(size)
    values = eigsh(operator, k=1, which="LA", tol=LANCZOS_TOL, v0=start, return_eigenvectors=False)
    return float(values[0])


def stable_step_bound(theta: Network, model: Model, objective: Objective | None = None) -> float:
    """``2/λ_max(∇²L(θ))``: the largest step for which GD is linearly stable at θ (every network of
    its leading axes; ``objective``: the loss descended, default the population loss). Networks of
    at least :data:`LANCZOS_MIN_SIZE` parameters whose objective has Hessian–vector products (one
    loss that every member shares) get ``λ_max`` by Lanczos (:func:`lanczos_lambda_max`), member by
    member; any other the dense eigensolve."""
    a, W = np.asarray(theta.a, float), np.asarray(theta.W, float)
    m, d = W.shape[-2:]
    product = None if objective is None else objective.hessian_vector
    if product is not None and m * (d + 1) >= LANCZOS_MIN_SIZE:
        lam_max = max(
            lanczos_lambda_max(partial(product, a_b, W_b), m * (d + 1))
            for a_b, W_b in zip(a.reshape(-1, m), W.reshape(-1, m, d), strict=True)
        )
        return float(2.0 / lam_max)
    hessian = population_objective(model).hessian if objective is None else objective.hessian
    if hessian is None:  # pragma: no cover - every objective here has a Hessian
        raise ValueError("the stable step bound needs the objective's Hessian")
    lam = np.linalg.eigvalsh(hessian(theta.a, theta.W))[..., -1]
    return float(2.0 / np.max(lam))


IMBALANCE_PER_STEP_BUDGET = 2**24
"""The most numbers (neurons × steps × members) a run keeps with ``imbalance_every_step``: 128 MiB of
float64 in memory (and ~3× that as the artifact's JSON text); a run needing more is refused before it starts."""
PROGRESS_EVERY = 1000
"""GD reports its progress every this many steps (the saved steps are log-spaced, too sparse late)."""


def _record_steps(n_steps: int, points: int) -> Array:
    return np.unique(np.concatenate([[0], np.geomspace(1, n_steps, max(points - 1, 2)).round().astype(int)]))


def _divergence_message(eta: float, step: int, bound: float) -> str:
    return (
        f"gradient descent diverged at step {step} with eta={eta:g}; "
        f"the stable bound at the initial point is eta < {bound:.4g}"
    )


def gradient_descent(
    theta0: Network,
    model: Model,
    eta: float,
    t_max: float,
    *,
    oracle: GradientOracle | Objective | None = None,
    eps_align: float = EPS_ALIGN,
    grad_tol: float = 1e-10,
    grid_points: int = 400,
    stop_at_crossing: bool = False,
    record_every: int | None = None,
    steps: int | None = None,
    record_steps: tuple[int, ...] = (),
    method: str = "gd",
    progress: Progress | None = None,
    optimizer: Optimizer | None = None,
    imbalance_every_step: bool = False,
    crossings: bool = True,
) -> Trajectory:
    """``θ ← θ − η g_k(θ)`` from ``θ0`` (one network or an ensemble); iterate ``k`` sits at time ``t = kη``.

    ``oracle`` gives the gradient ``g_k`` of the objective, called exactly once per step
    (default: the population loss; :func:`gaugecli.core.samples.sample.empirical_objective` gives
    full-batch ``L_n``, :func:`gaugecli.core.samples.sample.minibatch_oracle` a fresh minibatch each
    step — SGD, then ``method="sgd"`` labels it). ``stop_at_crossing``: stop once every member
    has a neuron at ``α ≥ 1 − ε`` (the pilot runs of :func:`choose_step` need no more).
    ``record_every``: save every this many steps (a uniform grid of iterates) instead of
    ``grid_points`` log-spaced ones. ``steps``: take exactly this many steps (the horizon
    ``steps·η``, whatever ``t_max`` says: ``⌈t_max/η⌉`` could round one step more); ``record_steps``:
    iterates saved beside the grid (checkpoints at exact steps).
    Divergence — a non-finite or exploding gradient — is a :class:`NumericalFault` naming the
    stable step bound.

    Beside the iterates it propagates GD's per-step identity for the imbalance at the model's
    degree p and decay λ: for the gradient ``g = ∇L + λθ`` of a loss of the network's function
    (Euler's identity ``a g_a = w·g_w/p`` for the ``L`` part),
    ``δ_{k+1} = (1 − 2ηλ) δ_k + η² (g_a² − ‖g_w‖²/p)`` exactly, so the flow's law
    ``δ(0) e^{−2λt}`` is broken by the η² term alone. The propagated ``δ̂`` is stored at the saved
    iterates (``Trajectory.imbalance_by_steps``); it differs from the iterates' δ by round-off
    only — or reveals an oracle that is not such a gradient (e.g. without the model's decay).

    ``optimizer``: another update rule than ``θ ← θ − η g`` (:mod:`gaugecli.core.integrate.optimizers`:
    momentum, Adam, AdamW as torch.optim steps them), with ``eta`` its learning rate; iterate ``k``
    still sits at ``t = kη``, and no per-step identity for δ is propagated (it is GD's).

    ``imbalance_every_step``: also keep ``δ_j = a_j² − ‖w_j‖²/p`` of every iterate ``k = 0 … K`` (not only
    the saved ones), as ``Trajectory.imbalance_per_step`` ``(..., K + 1, m)`` at ``t = kη``: 8 bytes per
    neuron per step per member, held in memory (the caller bounds it: :data:`IMBALANCE_PER_STEP_BUDGET`).

    ``crossings=False``: locate no crossing (``crossing_times`` all NaN, ``stop_at_crossing`` never
    fires), for a caller that reads the iterates alone: ``α`` of every neuron at every step was a
    quarter of a minibatch step's cost (fig11's SGD). The iterates are the same numbers either way.

    Where they apply the loop runs compiled, the same iterates to the bit (crossings to round-off): on the
    population loss of the ReLU family under GD, heavy ball, Adam or AdamW, for one network or a 1-D
    ensemble without ``imbalance_every_step`` (:mod:`gaugecli.core.integrate.population_loop`), and SGD of
    stacked samples without crossings (:mod:`gaugecli.core.integrate.sgd_loop`).
    """
    objective_name, population = "population", True
    given = population_objective(model) if oracle is None else oracle
    descent = given.descent if isinstance(given, Objective) else None  # the compiled population loop's
    if isinstance(oracle, Objective):
        objective_name, population, oracle = oracle.name, oracle.population, oracle.gradient
    elif oracle is not None:  # a bare oracle: a minibatch stream or a custom loss, not the population's
        objective_name, population = getattr(oracle, "objective_name", "custom"), False
    oracle = oracle or population_oracle(model)
    a, W = np.array(theta0.a, float), np.array(theta0.W, float)
    batch, m = a.shape[:-1], a.shape[-1]
    n_steps = max(1, math.ceil(t_max / eta)) if steps is None else int(steps)
    if record_every is not None:
        record_set = set(range(0, n_steps + 1, max(1, int(record_every))))
    else:
        record_set = set(_record_steps(n_steps, grid_points).tolist())
    record_set |= {int(k) for k in record_steps}
    thr = 1.0 - eps_align
    crossing = np.full(batch + (m,), np.nan)
    features, even = model.unit_directions().T, model.activation.even
    prev_align = alignment(W, model)[0] if crossings else np.zeros(batch + (m,))
    crossing[prev_align >= thr] = 0.0
    saved: list[tuple[float, Array, Array, Array | None, Array | None]] = []
    p, lam = model.degree, model.weight_decay
    law = (
        imbalance(Network(a, W), p) if model.activation.homogeneous and (optimizer is None or optimizer.is_gd) else None
    )
    state = None if optimizer is None else optimizer.start()
    if descent is not None and not imbalance_every_step and len(batch) <= 1:
        stepped = _compiled_population(
            descent, Network(a, W), model, eta, n_steps, record_set, grad_tol, law, optimizer,
            prev_align if crossings else None, thr, stop_at_crossing, (method, objective_name, eps_align), progress,
        )  # fmt: skip
        if stepped is not None:
            return stepped
    if optimizer is None and not crossings and not imbalance_every_step and len(batch) == 1:
        compiled = _compiled_sgd(
            oracle,
            Network(a, W),
            model,
            eta,
            n_steps,
            record_set,
            grad_tol,
            law,
            (method, objective_name, eps_align),
            progress,
        )
        if compiled is not None:
            return compiled
    per_step = np.empty((n_steps + 1,) + batch + (m,)) if imbalance_every_step else None
    converged = np.zeros(batch, bool)
    pending = np.isnan(crossing)  # neurons whose crossing is still to come
    limit = None
    k = 0
    for k in range(n_steps + 1):
        ga, gW, loss = oracle(a, W)
        # np.add.reduce is np.sum without its Python wrapper (the same sums): a few µs of a step's ~60
        gW2 = gW**2
        gsq = np.add.reduce(ga**2, axis=-1) + np.add.reduce(gW2, axis=(-1, -2))
        if limit is None:  # divergence: the squared gradient 10¹² times its start (and above 1), or not a number
            limit = 1e12 * np.maximum(gsq, 1.0)
        if not (gsq <= limit).all():  # false for NaN and ±inf as well
            message = _divergence_message(
                eta, k, stable_step_bound(Network(np.asarray(theta0.a), np.asarray(theta0.W)), model)
            )
            raise NumericalFault(
                message + ("" if optimizer is None else f" for GD; {optimizer.describe()} was stepping")
            )
        converged = gsq <= grad_tol**2
        if per_step is not None:
            per_step[k] = imbalance(Network(a, W), p)
        crossed = stop_at_crossing and not np.any(np.all(pending, axis=-1))
        done = k == n_steps or bool(converged.all()) or crossed
        if k in record_set or done:
            saved.append((k * eta, a.copy(), W.copy(), loss, None if law is None else law.copy()))
        if progress is not None and (done or k % PROGRESS_EVERY == 0):
            progress(k / n_steps)  # steps are the work: a linear, meaningful fraction
        if done:
            break
        if law is not None:
            law = (1.0 - 2.0 * eta * lam) * law + eta**2 * (ga**2 - np.add.reduce(gW2, axis=-1) / p)
        if state is None:
            a = a - eta * ga
            W = W - eta * gW
        else:
            a, W = optimizer.step(state, [a, W], [ga, gW], eta)  # type: ignore[union-attr]
        if not crossings or not pending.any():  # nothing left to locate: α is read nowhere else
            continue
        cos = unit_directions(W) @ features  # alignment(W, model)[0]'s numbers, without its argmax
        align = (np.abs(cos) if even else cos).max(axis=-1)
        new = (align >= thr) & pending  # a pending neuron was below the threshold at iterate k
        if new.any():
            # linear interpolation between iterates k and k+1
            frac = (thr - prev_align[new]) / (align[new] - prev_align[new])
            crossing[new] = (k + frac) * eta
            pending &= ~new
        prev_align = align
    if progress is not None:
        progress(1.0)
    t = np.array([s[0] for s in saved])
    losses = [s[3] for s in saved]
    return Trajectory(
        t=t,
        a=np.moveaxis(np.array([s[1] for s in saved]), 0, -2),
        W=np.moveaxis(np.array([s[2] for s in saved]), 0, -3),
        crossing_times=crossing,
        eps_align=eps_align,
        stats=SolverStats(
            method, k, k + 1, 0, f"{k} steps of size {eta:g}", step=eta, objective=objective_name, population=population
        ),
        converged=np.asarray(converged),
        empirical_loss=None if losses[0] is None else np.moveaxis(np.array(losses), 0, -1),
        imbalance_by_steps=None if law is None else np.moveaxis(np.array([s[4] for s in saved]), 0, -2),
        imbalance_per_step=None if per_step is None else np.moveaxis(per_step[: k + 1], 0, -2),
    )


def _compiled_sgd(
    oracle: GradientOracle,
    theta0: Network,
    model: Model,
    eta: float,
    n_steps: int,
    record: set[int],
    grad_tol: float,
    law: Array | None,
    labels: tuple[str, str, float],
    progress: Progress | None,
) -> Trajectory | None:
    """:func:`gradient_descent`'s SGD loop compiled (:func:`gaugecli.core.integrate.sgd_loop.descend`: the
    same iterates) where the oracle is a :class:`~gaugecli.core.integrate.sgd_loop.MinibatchStream` on the
    compiled route and no crossing is located; ``None`` elsewhere (the Python loop runs). ``labels``: the
    run's method, objective and ε, as the trajectory states them."""
    from gaugecli.core.integrate import sgd_loop

    if not isinstance(oracle, sgd_loop.MinibatchStream):
        return None
    a, W = theta0.a, theta0.W
    route = oracle.route(W.shape[-2])
    if route is None or route[0].shape[0] != W.shape[0] or W.shape[-1] > sgd_loop.PAIRWISE_BLOCK:
        return None
    shrink = 1.0 - 2.0 * eta * model.weight_decay
    run = sgd_loop.descend(a, W, oracle, route, eta, n_steps, record, grad_tol, law, shrink, model.degree, progress)
    if run.fault is not None:
        raise NumericalFault(_divergence_message(eta, run.fault, stable_step_bound(theta0, model)))
    if progress is not None:
        progress(1.0)
    k, (method, objective_name, eps_align) = run.k, labels
    return Trajectory(
        t=run.steps * eta,
        a=np.moveaxis(run.a, 0, -2),
        W=np.moveaxis(run.W, 0, -3),
        crossing_times=np.full(a.shape, np.nan),
        eps_align=eps_align,
        stats=SolverStats(
            method, k, k + 1, 0, f"{k} steps of size {eta:g}", step=eta, objective=objective_name, population=False
        ),
        converged=run.converged,
        imbalance_by_steps=None if run.law is None else np.moveaxis(run.law, 0, -2),
    )


def _population_rule(optimizer: Optimizer | None) -> Any:
    """The compiled loop's :class:`~gaugecli.core.integrate.population_loop.Rule` of ``optimizer`` (``None``:
    GD), or ``None`` for a rule it does not run."""
    from gaugecli.core.integrate.optimizers.adam import Adam
    from gaugecli.core.integrate.optimizers.sgd import SGD, Momentum
    from gaugecli.core.integrate.population_loop import Rule

    if optimizer is None or type(optimizer) is SGD:
        return Rule("gd", decay=0.0 if optimizer is None else optimizer.decay)
    if type(optimizer) is Momentum:
        return Rule("nesterov" if optimizer.nesterov else "momentum", beta=optimizer.momentum, decay=optimizer.decay)
    if isinstance(optimizer, Adam):  # Adam, AdamW (its decay decoupled)
        return Rule("adam", betas=optimizer.betas, adam_eps=optimizer.adam_eps, decay=optimizer.decay)
    return None


def _compiled_population(
    descent: tuple[Array, Array, tuple[float, float], float],
    theta0: Network,
    model: Model,
    eta: float,
    n_steps: int,
    record: set[int],
    grad_tol: float,
    law: Array | None,
    optimizer: Optimizer | None,
    start_align: Array | None,
    threshold: float,
    stop_at_crossing: bool,
    labels: tuple[str, str, float],
    progress: Progress | None,
) -> Trajectory | None:
    """:func:`gradient_descent`'s loop compiled on the population loss
    (:func:`gaugecli.core.integrate.population_loop.descend`: the same iterates, the crossings to round-off)
    for one network or a 1-D ensemble under GD, heavy ball, Adam or AdamW; ``None`` elsewhere."""
    from gaugecli.core.integrate import population_loop

    rule = _population_rule(optimizer)
    a, W = theta0.a, theta0.W
    if rule is None or W.shape[-1] > population_loop.PAIRWISE_BLOCK:
        return None
    batch, (m, r) = a.shape[:-1], W.shape[-2:]
    run = population_loop.descend(
        a.reshape(-1, m), W.reshape(-1, m, r), descent, rule, eta, n_steps, record, grad_tol=grad_tol,
        law=None if law is None else law.reshape(-1, m), shrink=1.0 - 2.0 * eta * model.weight_decay,
        p=model.degree, features=model.unit_directions(), even=model.activation.even, threshold=threshold,
        start_align=None if start_align is None else start_align.reshape(-1, m), stop_at_crossing=stop_at_crossing,
        progress=progress,
    )  # fmt: skip
    if run.fault is not None:
        message = _divergence_message(eta, run.fault, stable_step_bound(theta0, model))
        raise NumericalFault(message + ("" if optimizer is None else f" for GD; {optimizer.describe()} was stepping"))
    if progress is not None:
        progress(1.0)
    k, (method, objective_name, eps_align) = run.k, labels
    R = run.steps.size
    return Trajectory(
        t=run.steps * eta,
        a=np.moveaxis(run.a, 0, -2).reshape(batch + (R, m)),
        W=np.moveaxis(run.W, 0, -3).reshape(batch + (R, m, r)),
        crossing_times=run.crossing.reshape(batch + (m,)),
        eps_align=eps_align,
        stats=SolverStats(
            method, k, k + 1, 0, f"{k} steps of size {eta:g}", step=eta, objective=objective_name, population=True
        ),
        converged=np.asarray(run.converged.reshape(batch), dtype=bool),
        imbalance_by_steps=None if run.law is None else np.moveaxis(run.law, 0, -2).reshape(batch + (R, m)),
    )
