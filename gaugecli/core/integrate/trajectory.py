"""What an integrator returns: a sampled :class:`Trajectory` with its :class:`SolverStats`, and
the :class:`NumericalFault` raised when an integration cannot go on (with a remedy)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.types import Array


class NumericalFault(RuntimeError):
    """A numerical failure, with a message that says what to try instead."""


@dataclass(frozen=True)
class SolverStats:
    """How a trajectory was computed. ``step``: the GD/SGD step η (``None`` for flows);
    ``step_error``: the estimated relative discretisation error of ``T_spec`` at that step
    (:func:`choose_step`; ``None`` when not estimated); ``objective``: the loss descended;
    ``population``: it is the population loss (deterministic: its exact saddles hold the run)."""

    method: str
    n_steps: int
    n_gradient_evals: int
    n_hessian_evals: int
    message: str
    step: float | None = None
    step_error: float | None = None
    objective: str = "population"
    population: bool = True


@dataclass
class Trajectory:
    """A sampled trajectory. Arrays carry the ensemble axes first, then time:
    ``a`` is ``(..., n, m)``, ``W`` is ``(..., n, m, r)``.

    ``basis``: ``None`` when ``W`` holds the input weights themselves (``r = d``); else the
    ``(d, r)`` orthonormal basis of the invariant subspace ``S`` (:mod:`gaugecli.core.model.subspace`)
    in which ``W`` holds the coordinates of ``w_j``, so that ``w_j = basis @ W[..., j, :]``
    (:meth:`input_weights`). Every observable is an inner product, so it can be read off the
    coordinates with the teacher in the same basis (:meth:`model_in`).

    ``crossing_times[..., j]`` is the first time ``α_j(t) = max_k u_j·v̂_k`` reaches
    ``1 − eps_align`` (NaN if never): located by root-finding on the solver's dense
    output for flow, by linear interpolation between iterates for GD.

    ``imbalance_by_steps`` (GD and SGD, activations with a degree): δ ``(..., n, m)`` propagated
    by GD's per-step identity from δ(0) (:func:`gaugecli.core.integrate.descent.gradient_descent`); ``None``
    for flows.

    ``imbalance_per_step`` (stepped runs asked for it): δ ``(..., K + 1, m)`` of every iterate ``k = 0 … K``
    at ``t = kη``, not only of the saved ones; ``None`` otherwise.

    ``absorption_times`` (flows): ``(..., n, m)`` the first time each neuron came within the slaving
    level of ``w = 0`` (:mod:`gaugecli.core.integrate.absorption`; NaN: never), or ``None`` when none did.
    """

    t: Array
    a: Array
    W: Array
    crossing_times: Array
    eps_align: float
    stats: SolverStats
    converged: Array
    empirical_loss: Array | None = None
    basis: Array | None = None
    imbalance_by_steps: Array | None = None
    absorption_times: Array | None = None
    imbalance_per_step: Array | None = None

    @property
    def theta(self) -> Network:
        """The states as one :class:`~gaugecli.core.model.state.Network` (leading axes: ensemble, then time)."""
        return Network(self.a, self.W)

    def input_weights(self) -> Array:
        """``w_j`` in ``R^d``, shape ``(..., n, m, d)`` (a copy of size d: only where needed)."""
        return self.W if self.basis is None else self.W @ self.basis.T

    def model_in(self, model: Model) -> Model:
        """``model`` with its teacher in the coordinates of ``W`` (itself when ``basis`` is ``None``)."""
        if self.basis is None:
            return model
        return model.with_directions(model.directions @ self.basis)


def log_time_grid(t_first: float, t_end: float, points: int) -> Array:
    """``0`` followed by ``points − 1`` log-spaced times in ``[t_first, t_end]``."""
    t_first = min(t_first, t_end)
    return np.concatenate([[0.0], np.geomspace(t_first, t_end, max(points - 1, 2))])
