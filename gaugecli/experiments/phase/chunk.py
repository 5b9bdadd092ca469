"""One chunk of a ``gaugecli phase`` grid (:class:`PhaseChunk`): its cells integrated — as one
ensemble in the population flow, else each alone as its command would — and measured.

The population flow path is :func:`~gaugecli.experiments.common.integrate_ensemble` (the same
invariant subspace, solver, tolerances and observables as every command), whose trajectory gives
what a map needs besides the observables: every run's parameters at its own horizon (the kernel
distance) and the horizon itself on the output grid. Each run's horizon (its command's, alone) is a declared time
of the shared grid; the ensemble is integrated to the latest of them.

Beside each cell's run a chunk may integrate, in the same ensemble, the run of the opposite gauge
(``pair``: the ratio and the gap) and the ``±D`` pair at each large strength of ``limits`` (the
exponent and the constant of C4).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace

import numpy as np

from gaugecli.core.analyses.observables import observe
from gaugecli.core.model.gauge import duplicates_along, imbalance, initial_direction
from gaugecli.core.model.state import Network
from gaugecli.core.types import LATER_FIELD, UNKEYED_FIELD, Array
from gaugecli.experiments.budget import check_input_dimension
from gaugecli.experiments.common import integrate_ensemble, run_ensemble
from gaugecli.experiments.config import ModelConfig, auto_horizon
from gaugecli.experiments.initial import initial_condition
from gaugecli.experiments.params import Mode
from gaugecli.experiments.phase import lean
from gaugecli.experiments.phase.config import Base, designated, partner
from gaugecli.experiments.phase.metrics import (
    CellMetrics,
    Observed,
    measure,
    owners_all,
    simpson_nodes,
    spent_all,
    with_limits,
    with_partner,
)
from gaugecli.experiments.simulate import SimulateConfig, simulate

FLOW_METHOD = "dop853-bdf"
"""The population flows of a chunk of one-neuron runs (:func:`flow_method`): each cell on its own steps of
a compiled DOP853, handed to a compiled variable-order BDF where it turns stiff
(:mod:`gaugecli.core.integrate.dop853_flow`; where it does not apply, the default path, LSODA on shared rows).
Chosen by measurement on cold 33 × 33 T_spec maps, end to end, against solve_ivp's LSODA rows, ``odeint``'s
rows, a compiled Rodas5P and the compiled BDF alone per cell (``"bdf"``; benchmarks rows r1–r5; the numbers
in docs/design.md and docs/benchmarks.md); T_spec within 1e-8 relative of the LSODA rows there. Its compiled
code is built once per installed copy and CPU (numba's on-disk cache after that)."""


WIDE_METHOD = "odeint"
"""The population flows of a chunk of runs of several neurons with one starting at ``δ < 0``: LSODA over the
chunk, called once by ``odeint`` with a compiled right-hand side (:mod:`gaugecli.core.integrate.odeint_flow`;
benchmarks rows o1–o3: the flows ×1.5–1.8 faster than solve_ivp's, T_spec within 6e-10); such a chunk without
one keeps the default path. Runs of several neurons keep these, as on main, bit for bit: a symmetric start's
outcome is decided by round-off (docs/design.md, "Symmetric starts"), which a change of solver would move."""


DEVICE_METHOD = "dop853-torch"
"""The population flows of a chunk of one-neuron runs on a torch device (``phase --device``): the DOP853 of
:data:`FLOW_METHOD` vectorised over the cells, each on its own steps, the stiff ones handed to the same compiled
BDF on the CPU (:mod:`gaugecli.core.integrate.dop853_torch`); T_spec within 1e-8 relative of FLOW_METHOD's
(tests/test_dop853_torch.py)."""


def flow_method(theta0: Network, device: str | None = None) -> str:
    """The method of the population flow of a chunk starting at ``θ0`` (``a (n, m)``, ``W (n, m, d)``):
    :data:`FLOW_METHOD` for runs of one neuron (:data:`DEVICE_METHOD` where a torch ``device`` is given), else
    :data:`WIDE_METHOD` where a neuron starts at δ < 0."""
    if theta0.W.shape[-2] == 1:
        return FLOW_METHOD if device is None else DEVICE_METHOD
    return WIDE_METHOD if bool(np.any(imbalance(theta0) < 0.0)) else "auto"


@dataclass(frozen=True)
class PhaseChunk:
    """Runs of cells integrated together (``pair``: each with its opposite gauge's run beside it;
    ``limits``: and its ``+D`` and ``−D`` runs at each of these D; ``kernels``: the tangent kernels'
    metrics measured, else left ``None``; ``device``: the torch device of its one-neuron population flows,
    ``None`` the compiled CPU solver). ``kernels`` is left out of the cache key while true, so
    the chunks cached before it existed, which measured them, keep their keys; ``device`` always (the same
    chunk within the solver's tolerance, wherever it ran)."""

    cells: tuple[Base, ...]
    pair: bool = False
    limits: tuple[float, ...] = ()
    kernels: bool = field(default=True, metadata={LATER_FIELD: True})
    device: str | None = field(default=None, metadata={UNKEYED_FIELD: True})


@dataclass
class ChunkResult:
    cells: list[CellMetrics]


def _deltas(run: Base) -> Array:
    """The imbalances of ``run``'s start, ``(1, m)``."""
    return run.imbalances() if isinstance(run, SimulateConfig) else run.imbalances()[None, :]


def _start(run: Base) -> tuple[Array, Array]:
    return initial_condition(run.model, _deltas(run), run.init, run.eps, run.init_seed)


@functools.lru_cache(maxsize=64)
def _direction(model: ModelConfig) -> tuple[int, Array]:
    """The degree of ``model`` and the direction ``u0`` of its exact duplicates (the model built and its
    ``u0`` found once for all the runs of a chunk: they were most of each run's start)."""
    net = model.build()
    u0 = initial_direction(net, model.theta0)
    u0.flags.writeable = False  # shared by every start of the model
    return net.degree, u0


def _starts(runs: list[Base], deltas: list[Array]) -> tuple[Array, Array]:
    """``(a0 (B, m), W0 (B, m, d))``: each run's start as :func:`_start` gives it alone. The exact duplicates
    of one model share its direction ``u0``; at degree 1 their norms are closed forms, element by element,
    so the runs of one model take one call; at a higher degree each run keeps its own Newton solve
    (``squared_norms`` iterates until every member of a call converges: a shared call would move the runs
    that converge first by the extra iterations of the slowest)."""
    a0: list[Array | None] = [None] * len(runs)
    W0: list[Array | None] = [None] * len(runs)
    together: dict[tuple[ModelConfig, int], list[int]] = {}
    for i, (run, delta) in enumerate(zip(runs, deltas, strict=True)):
        if run.init == "duplicates" and run.eps is None:
            together.setdefault((run.model, delta.size), []).append(i)
        else:
            a0[i], W0[i] = _start(run)
    for (model, size), members in together.items():
        check_input_dimension(model.d, model.k + size)
        degree, u0 = _direction(model)
        parts = [members] if degree == 1 else [[i] for i in members]
        for part in parts:
            a, W = duplicates_along(u0, np.concatenate([deltas[i] for i in part]), model.c0, degree)
            for j, i in enumerate(part):
                a0[i], W0[i] = a[j : j + 1], W[j : j + 1]
    return np.concatenate(a0), np.concatenate(W0)  # type: ignore[arg-type]


def _seed(run: Base) -> int:
    return run.run_seed if isinstance(run, SimulateConfig) else run.run_seeds[0]


def horizon(run: Base, deltas: Array | None = None) -> float:
    """The horizon of ``run`` alone: ``t_max``, else :func:`auto_horizon` of its δ (``deltas``, where
    the caller has them) and c0."""
    deltas = run.imbalances() if deltas is None else deltas
    return run.dynamics.t_max or auto_horizon(deltas, run.model.c0)


def _flow(runs: list[Base], deltas: list[Array], series: bool = True, device: str | None = None) -> list[Observed]:
    """The population flow of ``runs`` as one ensemble (they share model and dynamics), to the latest
    of their horizons, each of which is a declared time of the shared grid; ``series``: every run's loss
    and alignment along its grid (else, for one-neuron runs, at its horizon only); ``deltas``: each run's :func:`_deltas`;
    ``device``: the torch device of one-neuron flows (:func:`flow_method`)."""
    model, dynamics = runs[0].model, runs[0].dynamics
    a0, W0 = _starts(runs, deltas)
    horizons = np.array([horizon(r, d) for r, d in zip(runs, deltas, strict=True)])
    t_max = float(horizons.max())
    traj, full = integrate_ensemble(
        model,
        replace(dynamics, t_max=t_max),
        Network(a0, W0),
        times=tuple(horizons[horizons < t_max]),  # the grid ends at t_max (to round-off) already
        flow_method=flow_method(Network(a0, W0), device),
        flow_device=device or "cpu",
    )
    # each run's horizon on the grid: h itself, or the grid's end at t_max (geomspace's, to 1 ulp)
    ats = np.argmin(np.abs(traj.t[None, :] - horizons[:, None]), axis=1)
    # the declared times off the log grid, one array for every run: the crossings and the horizons before
    # t_max (a run's own horizon among them changes nothing: metrics.measure keeps its horizon's node)
    inserted = np.concatenate([traj.crossing_times.ravel(), horizons[horizons < t_max]])
    # one-neuron runs: what the metrics read, for the whole row at once (lean.py: observe's numbers); the
    # loss and the alignment at the horizons only, unless the ±D pair's gap reads their series; R and T at
    # the nodes of the integrals spent_all takes only
    if lean.applies(traj):
        row = lean.observe_row(traj, full, None if series else ats, simpson_nodes(traj.t, inserted, ats))
    else:
        row = None
    # each run's parameters at its horizon, its input weights in R^d (not every state's: a copy of size d)
    members = np.arange(len(runs))
    a_end, W_end = traj.a[members, ats], traj.W[members, ats]
    if traj.basis is not None:
        W_end = W_end @ traj.basis.T
    out = []
    for b, at in enumerate(ats.tolist()):
        seen = observe(traj, full, (b,)) if row is None else row[b]
        out.append(Observed(seen, at, inserted, (a0[b], W0[b]), (a_end[b], W_end[b])))
    return out


def _alone(run: Base) -> Observed:
    """One run by itself, as its command runs it (stepped and finite-sample modes): a ``simulate``
    cell through :func:`~gaugecli.experiments.simulate.simulate` itself (Kunin et al.'s start, teacher,
    inputs and checkpoints included)."""
    if isinstance(run, SimulateConfig):
        (obs,) = simulate(run)
        return Observed(obs, obs.t.size - 1, obs.crossing_times)
    a0, W0 = _start(run)
    (obs,) = run_ensemble(run.model, run.dynamics, Network(a0, W0), seed=_seed(run))
    return Observed(obs, obs.t.size - 1, obs.crossing_times)


def limit_runs(cell: SimulateConfig, strengths: tuple[float, ...]) -> list[SimulateConfig]:
    """The ``+D`` and ``−D`` runs of ``cell`` at each of ``strengths``: ``[+D₁, −D₁, +D₂, −D₂, …]``."""
    return [replace(cell, strengths=(D,), gauge=g) for D in strengths for g in ("favorable", "unfavorable")]


def phase_chunk(job: PhaseChunk) -> ChunkResult:
    """Integrate the chunk's runs and measure each cell (module docstring)."""
    runs: list[Base] = []
    for cell in job.cells:
        runs.append(cell)
        if job.pair:
            assert isinstance(cell, SimulateConfig)
            runs.append(partner(cell))
        if job.limits:
            assert isinstance(cell, SimulateConfig)
            runs.extend(limit_runs(cell, job.limits))
    flow = runs[0].dynamics.mode is Mode.flow
    deltas = [_deltas(r) for r in runs]
    seen = _flow(runs, deltas, series=job.pair, device=job.device) if flow else [_alone(r) for r in runs]
    model = runs[0].model.build()
    eps = runs[0].model.eps_align
    budgets = spent_all(seen)  # ∫R dt and ∫T dt of every run at once where they share one grid
    owned = owners_all(seen, eps)  # each run's owner at its horizon, all at once
    out = []
    step = 1 + int(job.pair) + 2 * len(job.limits)
    for k, cell in enumerate(job.cells):
        at = step * k
        mine = seen[at]
        metrics = measure(
            mine,
            model,
            eps,
            designated(cell, deltas[at][0]),
            kernels=job.kernels,
            spent=budgets[at],
            owned=owned[at],
        )
        if job.pair:
            other = seen[at + 1]
            theirs = measure(
                other,
                model,
                eps,
                designated(runs[at + 1], deltas[at + 1][0]),
                kernels=False,
                spent=budgets[at + 1],
                owned=owned[at + 1],
            )
            metrics = with_partner(metrics, mine, other, theirs)
        if job.limits:
            first = at + 1 + int(job.pair)
            times = [
                measure(
                    replace(seen[first + i], start=None),
                    model,
                    eps,
                    0,
                    kernels=False,
                    spent=budgets[first + i],
                    owned=owned[first + i],
                ).t_spec
                for i in range(2 * len(job.limits))
            ]
            metrics = with_limits(metrics, job.limits, times[0::2], times[1::2], model)
        out.append(metrics)
    return ChunkResult(out)
