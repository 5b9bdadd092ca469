"""What a gradient flow is asked for (:class:`FlowOptions`: solver, tolerances, convergence test,
Jacobian, stored grid) and how its progress is reported (:func:`flow_progress`), apart from the
solve itself (:mod:`gaugecli.core.integrate.flow`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from gaugecli.core.integrate.tolerance import POPULATION_RTOL, Tolerance

ENSEMBLE_CHUNK_STATES = 1000
"""Ensembles are integrated in chunks of at most this many unknowns (whole members). Within
a chunk all members share one step size, so chunks hold similar members and stay small; the
banded LU keeps the linear algebra linear in the chunk size. 750-1100 measured best (×16
over one by one for 256 members with D from 2 to 64, both gauges)."""


@dataclass(frozen=True)
class FlowOptions:
    """Tolerances of the flow solver.

    ``grad_tol``: stop once ``‖∇L‖ ≤ grad_tol`` in every ensemble member (the flow
    has converged; pruning and the loss floor are reached well before).
    ``max_gradient_evals``: a budget; exceeding it is a :class:`NumericalFault`.
    ``method``: a :func:`scipy.integrate.solve_ivp` method, or ``"auto"``: LSODA, which
    switches between Adams and BDF as the flow turns stiff, with the closed-form Hessian
    as Jacobian (banded for ensembles, whose Jacobian is block-diagonal); ensembles beyond
    :data:`ENSEMBLE_CHUNK_STATES` unknowns run as chunks of similar members; ``"odeint"``: the same
    LSODA called once per chunk from compiled code (:mod:`gaugecli.core.integrate.odeint_flow`); ``"bdf"``:
    each member on its own compiled BDF steps (:mod:`gaugecli.core.integrate.bdf_flow`); ``"dop853-bdf"``: each
    member on its own compiled DOP853 steps (scipy's explicit Runge–Kutta pair of order 8, its dense output),
    continued on the compiled BDF from where Hairer's stiffness test finds it stiff
    (:mod:`gaugecli.core.integrate.dop853_flow`; phase's one-neuron maps); ``"dop853-torch"``: the same DOP853,
    each member on its own steps, vectorised over the members on the torch ``device`` (a stiff member continued
    on the compiled CPU BDF: :mod:`gaugecli.core.integrate.dop853_torch`) — these four where the compiled
    closed forms apply, else ``"auto"``.
    ``device``: the torch device of ``"dop853-torch"`` (``cpu``, ``cuda``, ``cuda:1``, …); the other methods
    run on the CPU and ignore it.
    ``stop_at_convergence``: end the solve at the convergence event and hold the final state
    after it (cheaper, but the stored tail then depends on when the event fired); by default the
    flow is integrated over its whole declared horizon, so each stored state is the flow's own.
    ``jacobian``: ``"exact"`` passes the objective's closed-form Hessian to the implicit
    solvers; ``"none"`` lets them estimate it by finite differences of the gradient.
    """

    rtol: float = POPULATION_RTOL
    atol: float = Tolerance().atol
    method: str = "auto"
    grad_tol: float = 1e-10
    max_gradient_evals: int = 200_000
    grid_points: int = 400
    jacobian: str = "exact"
    stop_at_convergence: bool = False
    device: str = "cpu"

    def __post_init__(self) -> None:
        if self.jacobian not in ("exact", "none"):
            raise ValueError(f"FlowOptions.jacobian must be 'exact' or 'none' (got {self.jacobian!r})")

    @classmethod
    def at(cls, tolerance: Tolerance, **options: Any) -> FlowOptions:
        """The options that solve to ``tolerance`` (its method, ``rtol`` and ``atol``), and any other
        field as given."""
        return cls(rtol=tolerance.rtol, atol=tolerance.atol, method=tolerance.method, **options)


PROGRESS_DECADES = 6.0
"""The flow's progress is read on a log scale over this many decades below ``t_max``: the solver
spends its steps about evenly per decade of t (fast relaxation early, slow alignment and
convergence late), so a linear t/t_max would sit near 0 for most of the run, then jump."""


def flow_progress(t: float, t_max: float) -> float:
    """``log(1 + t/τ) / log(1 + t_max/τ)`` with ``τ = t_max·10^-PROGRESS_DECADES``: 0 at t = 0, 1 at t_max."""
    tau = t_max * 10.0**-PROGRESS_DECADES
    return min(math.log1p(max(t, 0.0) / tau) / math.log1p(t_max / tau), 1.0)
