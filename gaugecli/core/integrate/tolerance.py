"""The flows' tolerance policy as one object: the solver, its relative tolerance and the absolute
tolerance's rule ``atol = ATOL_FACTOR · rtol`` (:class:`Tolerance`), with the per-mode defaults named.

Every flow of the package takes its ``atol`` from :attr:`Tolerance.atol`; the rule is written here
only (``tests/test_architecture.py`` checks it)."""

from __future__ import annotations

from dataclasses import dataclass

POPULATION_RTOL = 1e-10
"""The population flow's default tolerance: T_spec to ~1e-9, δ conserved to ~1e-11."""
SAMPLE_RTOL = 1e-4
"""The finite-sample flow's default tolerance. ``L_n`` is piecewise smooth (its gradient jumps
by O(1/n) each time a sample point crosses a neuron's hyperplane, ~n/2 times while a neuron
turns by π/2), so tighter tolerances cost steeply: LSODA, n = 10⁴, m = 1, D = 4: 1593 gradient
evaluations at 1e-4, 11 597 at 1e-5, 48 371 at 1e-6; at 1e-8 and n = 10⁵ it ran out of budget.
At 1e-4 the solver's error, sup_t ‖f − f_ref‖ against an RK45 run at 1e-7, was 2e-5 … 6e-5 for
n = 10³ … 10⁵ — under 1 % of the sampling deviation from the population flow (0.048 … 0.006)."""
ATOL_FACTOR = 1e-3
"""``atol = 1e-3 · rtol``: the states are O(c0) … O(1) (c0 = 0.1 by default), so an absolute
tolerance three decades under the relative one only binds on components passing through 0 (a
neuron's ``w`` at its kink, ``α_j`` at ``π/2``), where a relative tolerance alone would demand
digits that are not there. At the population default it is ``1e-13``."""


@dataclass(frozen=True)
class Tolerance:
    """How accurately a flow is solved: ``method`` (a :func:`scipy.integrate.solve_ivp` method, or
    ``"auto"``: LSODA, chunked for ensembles; :class:`gaugecli.core.integrate.flow.FlowOptions`), the relative
    tolerance ``rtol`` and the absolute one ``atol = atol_factor · rtol``."""

    rtol: float = POPULATION_RTOL
    method: str = "auto"
    atol_factor: float = ATOL_FACTOR

    @property
    def atol(self) -> float:
        """The absolute tolerance: ``atol_factor · rtol`` (:data:`ATOL_FACTOR`)."""
        return self.atol_factor * self.rtol

    @classmethod
    def population(cls, method: str = "auto") -> Tolerance:
        """The population flow's default: ``rtol`` :data:`POPULATION_RTOL`."""
        return cls(POPULATION_RTOL, method)

    @classmethod
    def sample(cls, method: str = "auto") -> Tolerance:
        """The finite-sample flow's default: ``rtol`` :data:`SAMPLE_RTOL`."""
        return cls(SAMPLE_RTOL, method)
