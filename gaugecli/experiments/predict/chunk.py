"""One chunk of ``gaugecli predict`` (:class:`PredictChunk`): consecutive seeds of one cell, drawn,
integrated as one ensemble, and read — the realised owner of every feature against the neuron each
predictor names.

On the population loss the ensemble is integrated in the invariant subspace (``k + m`` coordinates,
:mod:`~gaugecli.experiments.predict.starts`), each seed on its own compiled steps (:data:`POPULATION_METHOD`). On ``L_n`` (``n`` given) it is not: a sample is not
invariant under the rotations that build those coordinates. Each seed then flows in all ``d``
dimensions on a sample of its own, drawn from ``SeedSequence([seed, n, k, m])``, and all seeds share
one step-size control (:func:`~gaugecli.core.samples.sample.stacked_empirical_objective`). The solver is
RK45 at rtol :data:`~gaugecli.experiments.params.SAMPLE_RTOL`, the one the selection sweep uses on
``L_n``'s kinks (:data:`~gaugecli.experiments.perturb.selection.SELECTION_METHOD`). Should the
ensemble fail, each seed runs alone, and a seed whose own run fails has no owner (``failed``).
With ``batch`` and ``eta`` the same starts and samples are trained by minibatch SGD instead: every
seed's batches of ``batch`` rows of its own sample, reshuffled every epoch from ``default_rng(seed)``
(:func:`~gaugecli.core.samples.sample.stacked_minibatch_oracle`, one batched gradient per step), step
``eta``, ``⌈t_max/eta⌉`` steps. A diverging ensemble reruns seed by seed, as the flow does.
The predictors read the start alone, so they name the same neurons as on the population loss."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace

import numpy as np

from gaugecli.core.analyses.ownership import feature_alignment, feature_owners
from gaugecli.core.analyses.symmetry import equal_groups
from gaugecli.core.model.gauge import function_coordinates
from gaugecli.core.model.state import Network
from gaugecli.core.population.objective import Objective
from gaugecli.core.types import LATER_FIELD
from gaugecli.experiments.common import integrate_ensemble
from gaugecli.experiments.config import DynamicsConfig, ModelConfig
from gaugecli.experiments.params import PREDICTORS, SAMPLE_RTOL, Mode
from gaugecli.experiments.predict.predictors import NONE, predictions
from gaugecli.experiments.predict.starts import draw, gaussian_start

GRID_POINTS = 3
"""Saved times of each flow: only the state at the horizon is read (the owners), and the flow's
adaptive steps do not depend on the saved grid."""
POPULATION_METHOD = "dop853-bdf"
"""The population flows to the horizon: each seed on its own steps of the compiled DOP853, BDF's where it
turns stiff (:mod:`gaugecli.core.integrate.dop853_flow`; a seed whose neuron can reach w = 0 runs alone on
LSODA, as on the default path), instead of LSODA on steps the chunk shares: fig10's and fig11's 33
population chunks' final states 3.78 → 2.37 CPU-s, every owner the same, the final coefficients within
3.5e-7 of LSODA's (rtol 1e-7)."""
SAMPLE_METHOD = "RK45"
"""The solver on ``L_n`` (module docstring)."""
SAMPLE_BUDGET = 400_000
"""Gradient evaluations an ensemble on ``L_n`` may take: 3 000–18 000 were measured for 50 seeds at
n = 64…800 (d = 16, k = 1, m = 4, natural δ); a run past it is a fault, and its seeds rerun alone."""


@dataclass(frozen=True)
class PredictChunk:
    """Seeds ``seeds`` of the cell ``(k, m, spread)`` (``spread``: ρ, ``None`` for δ as drawn) at input
    dimension ``d``, scales ``σ_a, σ_w``, alignment threshold ``eps_align``, solver ``rtol`` and horizon
    ``t_max``; ``mixed_signs``: the output weights keep their drawn signs."""

    k: int
    m: int
    spread: float | None
    seeds: tuple[int, ...]
    d: int
    scale_a: float
    scale_w: float
    eps_align: float
    rtol: float
    t_max: float
    n: int | None = field(default=None, metadata={LATER_FIELD: True})
    batch: int | None = field(default=None, metadata={LATER_FIELD: True})
    eta: float | None = field(default=None, metadata={LATER_FIELD: True})
    mixed_signs: bool = field(default=False, metadata={LATER_FIELD: True})
    rules: tuple[str, ...] = PREDICTORS
    """The predictors whose picks the chunk's result holds: part of its identity, so that a chunk
    cached before a rule was added is not read for it."""
    optimizer: str | None = field(default=None, metadata={LATER_FIELD: True})
    """A population cell trained by this update rule at learning rate ``eta`` instead of the flow."""


@dataclass
class ChunkResult:
    """Per seed and feature (``[run][feature]``): the realised owner (:data:`NONE` where there is none),
    whether it is tied, and each predictor's pick; the sums of the draws that give the measured
    spread ratio (δ over every neuron, ``c α`` over every neuron and feature)."""

    owners: list[list[int]]
    tied: list[list[bool]]
    picks: dict[str, list[list[int]]]
    delta_moments: list[float]
    visible_moments: list[float]
    gradient_evals: int
    failed: int = 0


def _moments(x: np.ndarray) -> list[float]:
    return [float(x.size), float(np.sum(x)), float(np.sum(x**2))]


def _final_state(job: PredictChunk, a0: np.ndarray, W0: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """``(c_end (B, m), α_end (B, m, k), failed (B,), gradient evaluations)`` of the chunk's runs."""
    seeds = list(job.seeds)
    if job.n is None and job.optimizer is not None:
        return _stepped_final_state(job)
    if job.n is None:
        model = ModelConfig(d=W0.shape[-1], k=job.k, eps_align=job.eps_align)
        dynamics = DynamicsConfig(rtol=job.rtol, t_max=job.t_max, grid_points=GRID_POINTS)
        traj, full = integrate_ensemble(
            model, dynamics, Network(a0, W0), crossings=False, flow_method=POPULATION_METHOD
        )
        W_end = traj.input_weights()[:, -1]
        c_end, _ = function_coordinates(Network(traj.a[:, -1], W_end))
        return c_end, feature_alignment(W_end, full), np.zeros(len(seeds), bool), int(traj.stats.n_gradient_evals)
    return _sample_final_state(job)


def _stepped_final_state(job: PredictChunk) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The same under ``job.optimizer`` on the population loss, in all ``d`` coordinates of the stated basis
    (Adam's update is not invariant under the rotation to the invariant subspace's coordinates)."""
    from gaugecli.core.integrate.trajectory import NumericalFault

    starts = [
        gaussian_start(s, job.k, job.m, job.d, job.scale_a, job.scale_w, job.spread, job.mixed_signs) for s in job.seeds
    ]
    a0, W0 = np.stack([a for a, _ in starts]), np.stack([W for _, W in starts])
    model = ModelConfig(d=job.d, k=job.k, eps_align=job.eps_align)
    dynamics = DynamicsConfig(
        mode=Mode.gd, optimizer=job.optimizer, eta=job.eta, t_max=job.t_max, grid_points=GRID_POINTS
    )

    def run(members: list[int]) -> tuple[np.ndarray, np.ndarray, int]:
        traj, full = integrate_ensemble(model, dynamics, Network(a0[members], W0[members]), crossings=False)
        W_end = traj.input_weights()[:, -1]
        c_end, _ = function_coordinates(Network(traj.a[:, -1], W_end))
        return c_end, feature_alignment(W_end, full), int(traj.stats.n_gradient_evals)

    everyone = list(range(len(starts)))
    try:
        c_end, alpha_end, evals = run(everyone)
        return c_end, alpha_end, np.zeros(len(starts), bool), evals
    except NumericalFault:  # a diverging ensemble: each seed alone, as the flow's
        pass
    c_end, alpha_end = np.zeros(a0.shape), np.zeros(a0.shape + (job.k,))
    failed, evals = np.zeros(len(starts), bool), 0
    for b in everyone:
        try:
            c, alpha, e = run([b])
            c_end[b], alpha_end[b], evals = c[0], alpha[0], evals + e
        except NumericalFault:
            failed[b] = True
    return c_end, alpha_end, failed, evals


def _sample_final_state(job: PredictChunk) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The same on ``L_n``, by flow or SGD (module docstring), in all ``d`` dimensions."""
    from gaugecli.core.integrate.descent import gradient_descent
    from gaugecli.core.integrate.flow import FlowOptions, gradient_flow
    from gaugecli.core.integrate.tolerance import Tolerance
    from gaugecli.core.integrate.trajectory import NumericalFault
    from gaugecli.core.samples.sample import stacked_empirical_objective, stacked_minibatch_oracle
    from gaugecli.core.samples.sample_draw import draw_sample
    from gaugecli.experiments.budget import check_flow

    assert job.n is not None
    net = ModelConfig(d=job.d, k=job.k, eps_align=job.eps_align).build()
    starts = [
        gaussian_start(s, job.k, job.m, job.d, job.scale_a, job.scale_w, job.spread, job.mixed_signs) for s in job.seeds
    ]
    a0, W0 = np.stack([a for a, _ in starts]), np.stack([W for _, W in starts])
    samples = [draw_sample(net, job.n, np.random.SeedSequence([s, job.n, job.k, job.m])) for s in job.seeds]
    options = FlowOptions.at(
        Tolerance(SAMPLE_RTOL, SAMPLE_METHOD),
        max_gradient_evals=SAMPLE_BUDGET,
        grid_points=GRID_POINTS,
    )

    def run(a: np.ndarray, W: np.ndarray, members: list[int]) -> tuple[np.ndarray, np.ndarray, int]:
        chosen = [samples[b] for b in members]
        if job.batch is None:
            objective: Objective = stacked_empirical_objective(chosen)
            check_flow(np.shape(W), options.grid_points)
            traj = gradient_flow(
                Network(a, W),
                net,
                job.t_max,
                eps_align=job.eps_align,
                options=options,
                objective=objective,
                crossings=False,
            )
        else:
            assert job.eta is not None
            oracle = stacked_minibatch_oracle(chosen, job.batch, [job.seeds[b] for b in members])
            traj = gradient_descent(Network(a, W), net, job.eta, job.t_max, oracle=oracle, eps_align=job.eps_align, grid_points=GRID_POINTS, method="sgd", crossings=False)  # fmt: skip
        W_end = traj.input_weights()[:, -1]
        c_end, _ = function_coordinates(Network(traj.a[:, -1], W_end))
        return c_end, feature_alignment(W_end, net), int(traj.stats.n_gradient_evals)

    everyone = list(range(len(starts)))
    try:
        c_end, alpha_end, evals = run(a0, W0, everyone)
        return c_end, alpha_end, np.zeros(len(starts), bool), evals
    except NumericalFault:
        pass
    c_end, alpha_end = np.zeros(a0.shape), np.zeros(a0.shape + (job.k,))
    failed, evals = np.zeros(len(starts), bool), 0
    for b in everyone:
        try:
            c, alpha, e = run(a0[b : b + 1], W0[b : b + 1], [b])
            c_end[b], alpha_end[b], evals = c[0], alpha[0], evals + e
        except NumericalFault:
            failed[b] = True
    return c_end, alpha_end, failed, evals


@functools.lru_cache(maxsize=8)
def _start_picks(start: PredictChunk) -> dict[str, tuple[tuple[int, ...], ...]]:
    """Each predictor's picks for the starts of ``start`` (a chunk with its training fields cleared:
    the predictors read the start alone). Kept for the chunks that follow in this process: the cells
    of one seed range at several ``n`` (and by SGD) share their starts, and recomputing the race
    times for each was 8 of fig11's 9 predictor evaluations (≈ 1 CPU-s)."""
    a0, W0, _ = draw(
        list(start.seeds), start.k, start.m, start.d, start.scale_a, start.scale_w, start.spread, start.mixed_signs
    )
    net = ModelConfig(d=W0.shape[-1], k=start.k, eps_align=start.eps_align).build()
    picks = predictions(Network(a0, W0), net, start.eps_align, start.rtol, start.t_max)
    return {name: tuple(tuple(row) for row in picks[name].tolist()) for name in start.rules}


def predict_chunk(job: PredictChunk) -> ChunkResult:
    """Draw, integrate and read the chunk's runs (module docstring)."""
    seeds = list(job.seeds)
    a0, W0, delta = draw(seeds, job.k, job.m, job.d, job.scale_a, job.scale_w, job.spread, job.mixed_signs)
    net = ModelConfig(d=W0.shape[-1], k=job.k, eps_align=job.eps_align).build()
    c_end, alpha_end, failed, evals = _final_state(job, a0, W0)
    owners, tied = [], []
    for b in range(len(seeds)):
        if failed[b]:
            owners.append([NONE] * job.k)
            tied.append([False] * job.k)
            continue
        end = feature_owners(c_end[b], alpha_end[b], job.eps_align, equal_groups(Network(a0[b], W0[b])))
        owners.append([NONE if o is None else o for o in end.owners])
        tied.append(list(end.tied))
    picks = _start_picks(replace(job, n=None, batch=None, eta=None, optimizer=None))
    c0, _ = function_coordinates(Network(a0, W0))
    visible = c0[..., None] * feature_alignment(W0, net)
    return ChunkResult(
        owners=owners,
        tied=tied,
        picks={name: [list(row) for row in picks[name]] for name in job.rules},
        delta_moments=_moments(delta),
        visible_moments=_moments(visible),
        gradient_evals=evals,
        failed=int(np.sum(failed)),
    )
