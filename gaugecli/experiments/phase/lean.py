"""What a phase cell reads of its run, for a chunk of one-neuron runs measured all at once
(:func:`observe_row`), without building each run's full observables.

:func:`~gaugecli.experiments.phase.metrics.measure` reads of a run its time grid, loss, alignment,
coefficient, non-owners' norm ``P``, reaction ``R`` and transport ``T`` series, its crossings, owner and
``T_spec`` (:class:`Seen` names exactly these). A full :func:`~gaugecli.core.analyses.observables.observe`
computes ~30 more (norms, δ and its drift, the symmetry report, the identity's residual, …), run by run:
2–4 ms a cell, most of a phase map's cost outside its flows (benchmarks row o4). For runs of one neuron
(``m = 1``) everything :class:`Seen` holds follows from the chunk's states at once, as arrays over
(run, time), by the same closed forms: one neuron has no non-owners (``P = 0``), owns whatever it
aligns with, and has no tie (its start is symmetric only on an exact saddle,
:func:`~gaugecli.core.analyses.symmetry.exact_saddle`, as ``observe`` decides). The numbers are
``observe``'s: the same functions, on arrays with one more leading axis.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gaugecli.core.analyses.symmetry import exact_saddles
from gaugecli.core.integrate.trajectory import Trajectory
from gaugecli.core.model.gauge import function_coefficients
from gaugecli.core.model.metrics import alignment, final_owner
from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.population.dynamics import population_loss, reaction_transport
from gaugecli.core.types import Array


@dataclass
class Seen:
    """The part of :class:`~gaugecli.core.analyses.observables.RunObservables` that a phase cell's metrics
    read (the same fields, the same meaning; series on the time grid ``t``, per-neuron ``(n_t, m)``; the
    loss, the alignment and the coefficient NaN off the states read, where :func:`observe_row` was given them, and
    ``R`` and ``T`` off the nodes of their integrals, where it was given those)."""

    t: Array
    loss: Array
    alignment: Array
    coefficient: Array
    nonowner_norm: Array
    reaction: Array
    transport: Array
    crossing_times: Array
    owner: int | None
    computed_owner: int
    t_spec: float | None
    symmetric_start: bool
    kernel_distance: Array | None = None


def applies(trajectory: Trajectory) -> bool:
    """Whether :func:`observe_row` can take this trajectory: population-flow runs of one neuron each."""
    return trajectory.a.ndim == 3 and trajectory.a.shape[-1] == 1 and trajectory.stats.population


def observe_row(
    trajectory: Trajectory, model: Model, read_at: Array | None = None, nodes: Array | None = None
) -> list[Seen]:
    """:class:`Seen` of every run of ``trajectory`` (``a (n, n_t, 1)``, ``W (n, n_t, 1, r)``: :func:`applies`),
    as :func:`~gaugecli.core.analyses.observables.observe` would give them run by run. ``read_at``: the one
    state of each run whose loss, alignment and coefficient are read (its horizon's index): they are computed there
    only (and the alignment and coefficient at the last state, which decide the owner), NaN elsewhere on their series
    (a map without the ±D pair reads no other; the gap reads both series whole). ``nodes``: ``(n, n_t)``, the
    states whose ``R`` and ``T`` are read (the Simpson nodes of each run's integrals up to its horizon,
    :func:`~gaugecli.experiments.phase.metrics.simpson_nodes`): computed there only, NaN elsewhere (a chunk's grid
    holds every run's horizon and crossings, and runs on past most runs' horizons: ~half its states are read)."""
    model = trajectory.model_in(model)
    theta = trajectory.theta
    # observe's R and T, without its check ‖∇L‖² (ReLU's compiled: the directions are never formed here)
    if nodes is None:
        reaction, transport = reaction_transport(theta, model)
    else:  # state by state, so the states read get the numbers of the whole grid's call
        reaction, transport = np.full(theta.a.shape[:2], np.nan), np.full(theta.a.shape[:2], np.nan)
        at = np.flatnonzero(nodes)  # rows taken by index: 0.03 ms on a 64-run chunk, a boolean mask's 0.5 ms
        m, r = theta.W.shape[-2:]
        read = Network(theta.a.reshape(-1, m).take(at, axis=0), theta.W.reshape(-1, m, r).take(at, axis=0))
        reaction.reshape(-1)[at], transport.reshape(-1)[at] = reaction_transport(read, model)
    if read_at is None:
        c = function_coefficients(theta, model.degree)
        align = alignment(theta.W, model)[0]
        loss = population_loss(theta, model)
    else:  # the coefficient too at the horizon and the last state only (measure and the owner read no other)
        runs = np.arange(theta.a.shape[0])
        a_at, W_at = theta.a[runs, read_at], theta.W[runs, read_at]
        loss = np.full(theta.a.shape[:2], np.nan)
        loss[runs, read_at] = population_loss(Network(a_at, W_at), model)
        align, c = np.full(theta.a.shape, np.nan), np.full(theta.a.shape, np.nan)
        align[:, -1] = alignment(theta.W[:, -1], model)[0]
        align[runs, read_at] = alignment(W_at, model)[0]
        c[:, -1] = function_coefficients(Network(theta.a[:, -1], theta.W[:, -1]), model.degree)
        c[runs, read_at] = function_coefficients(Network(a_at, W_at), model.degree)
    owners, _ = final_owner(c[:, -1], align[:, -1], trajectory.eps_align)
    crossing = trajectory.crossing_times
    saddles = exact_saddles(Network(theta.a[:, 0], theta.W[:, 0]), model).tolist()
    none = np.zeros(trajectory.t.shape)  # P of no neuron: 0, as kernel_group_norm of an empty group
    out = []
    for b, saddle in enumerate(saddles):
        owner = int(owners[b])
        t_spec = float(crossing[b, owner])
        if saddle:  # the exact dynamics never align (observe's rule)
            t_spec = float("nan")
        out.append(
            Seen(
                t=trajectory.t,
                loss=loss[b],
                alignment=align[b],
                coefficient=c[b],
                nonowner_norm=none,
                reaction=reaction[b],
                transport=transport[b],
                crossing_times=crossing[b],
                owner=None if saddle else owner,
                computed_owner=owner,
                t_spec=None if np.isnan(t_spec) else t_spec,
                symmetric_start=saddle,
            )
        )
    return out
