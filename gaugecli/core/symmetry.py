"""Symmetric starts: exactly equal neurons, and how fast round-off separates them.

Two neurons ``i, j`` with equal parameters ``(a_i, w_i) = (a_j, w_j)`` stay equal under
gradient flow: swapping them is a symmetry of ``L``, so the set ``θ_i = θ_j`` is invariant.
Whether it *attracts* is decided by the antisymmetric mode ``δθ_i = z, δθ_j = −z``, an exact
invariant subspace of the linearised flow (by the same swap symmetry), on which

    ż = −(H_ii − H_ij) z,

with ``H_ii``, ``H_ij`` the ``(d+1)×(d+1)`` blocks of the Hessian ``∇²L`` (both symmetric at
an equal pair). The **separation rate** is ``λ_anti = −λ_min(H_ii − H_ij)``: a positive rate
grows a round-off difference ``ε_machine`` like ``exp(Λ(t))`` with ``Λ(t) = ∫₀ᵗ λ_anti ds``.
Once ``Λ`` exceeds ``ln(1/ε_machine) ≈ 36`` the pair has separated by O(1) from nothing but
round-off, and which of the two ends up owning the feature is not set by the initial condition.

At the duplicate start of SPEC §1 (direction ``u0``, coefficient ``c0/m`` each) the rate of a
``−D`` pair tends to ``‖(c0/2 − 1/(2π)) u0 − v/4‖`` as ``D → ∞`` (for ``u0 ⊥ v``, m = 2).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from gaugecli.core.dynamics import population_hessian
from gaugecli.core.teacher import Teacher

Array = NDArray[np.float64]

MACHINE_EPSILON = float(np.finfo(np.float64).eps)
ROUNDOFF_EXPONENT = float(np.log(1.0 / MACHINE_EPSILON))
"""``ln(1/ε_machine) ≈ 36.04``: a separation exponent ``Λ`` beyond this turns round-off into O(1)."""


def _neuron_indices(i: int, m: int, d: int) -> Array:
    """Positions of ``(a_i, w_i)`` in the packed order ``θ = (a_1..a_m, w_1, ..., w_m)``."""
    return np.concatenate([[i], m + i * d + np.arange(d)])


def antisymmetric_rate(a: Array, W: Array, teacher: Teacher, pair: tuple[int, int]) -> Array:
    """``λ_anti = −λ_min(H_ii − H_ij)`` for the neurons ``pair = (i, j)``; shape ``a.shape[:-1]``.

    Meaningful where the two neurons are equal (then ``H_ii − H_ij`` is symmetric and the
    antisymmetric mode is invariant); elsewhere it is the rate of the symmetrised block.
    """
    i, j = pair
    m, d = W.shape[-2:]
    H = population_hessian(np.asarray(a, float), np.asarray(W, float), teacher)
    ii, jj = _neuron_indices(i, m, d), _neuron_indices(j, m, d)
    block = H[..., ii[:, None], ii[None, :]] - H[..., ii[:, None], jj[None, :]]
    block = 0.5 * (block + np.swapaxes(block, -1, -2))
    return -np.linalg.eigvalsh(block)[..., 0]


def separation_exponent(t: Array, rate: Array) -> Array:
    """``Λ(t) = ∫₀ᵗ λ_anti ds`` by the trapezoid rule on the samples ``t`` (time axis last)."""
    t = np.asarray(t, float)
    rate = np.asarray(rate, float)
    steps = 0.5 * (rate[..., 1:] + rate[..., :-1]) * np.diff(t)
    return np.concatenate([np.zeros(rate.shape[:-1] + (1,)), np.cumsum(steps, axis=-1)], axis=-1)


def equal_groups(a: Array, W: Array) -> list[list[int]]:
    """Groups (size ≥ 2) of neurons with exactly equal parameters ``(a_j, w_j)``, for one
    member ``a (m,)``, ``W (m, d)``; each group in increasing index order."""
    a, W = np.asarray(a, float), np.asarray(W, float)
    groups: dict[bytes, list[int]] = {}
    for j in range(a.shape[-1]):
        key = np.concatenate([[a[j]], W[j]]).tobytes()
        groups.setdefault(key, []).append(j)
    return [g for g in groups.values() if len(g) >= 2]
