"""The rate at which the non-owners are pruned: the flow linearised at the pruned minimum.

At the end of a pruning run the owner carries the teacher, ``c_o = a*``, ``u_o = v``, and the
non-owners (``δ_j < 0``) have ``c_j = 0`` at a frozen direction ``u`` (at angle ``φ`` to ``v``;
their direction moves only at second order in ``c_j``). Near that point the residual vanishes,
so the Hessian of ``L`` is the Gauss–Newton matrix of the function's linear coordinates:

* the owner's function ``c_o relu(u_o·x) = relu(β·x)``, ``β = c_o u_o``: ``∂²L/∂β² = E[1(v·x>0) x xᵀ] = ½ I``;
* the non-owners' total coefficient ``s = Σ_{j≠o} c_j`` (identical directions): ``∂²L/∂s² = κ(u, u) = ½``;
* the coupling ``∂²L/∂β∂s = E[1(v·x>0) x relu(u·x)] = ∂κ(β, u)/∂β|_{β=v} = ((π − φ) u + sin φ v)/(2π)``.

Gradient flow in ``(a, w)`` moves these coordinates with the mobilities of docs/theory.md §4: ``β`` along ``v``
with ``M^c = √(δ_o² + 4a*²)``, across it with ``c_o² M^u = a_o² = (δ_o + √(δ_o² + 4a*²))/2``; and ``s``
with ``Σ_j M^c_j = k |δ|`` (``k`` non-owners, ``M^c_j = √(δ² + 4c_j²) → |δ|`` as ``c_j → 0``). The slowest
mode of ``ż = −M H z`` decays at ``λ = λ_min(M^{1/2} H M^{1/2})``, and ``P(t) ∝ e^{−λ t}``.

For ``δ_o = −δ = D → ∞`` every mobility is ``≈ D``: ``λ → D λ_k`` with ``λ_k`` the smallest eigenvalue of
``[[½, √k ‖g‖], [√k ‖g‖, k/2]]``, ``‖g‖² = (π²/4 + 1)/(4π²)`` at ``φ = π/2``: ``λ_1 = ½ − ‖g‖ = 0.20364``
(m = 2), ``λ_4 = 0.29405`` (m = 5). Hence the pruning time ``∝ 1/D``.
"""

from __future__ import annotations

import numpy as np


def pruning_rate(
    owner_delta: float, nonowner_delta: float, n_nonowners: int = 1, alignment: float = 0.0, a_star: float = 1.0
) -> float:
    """``λ``: the exponential rate of ``P(t) → 0`` near the pruned minimum (module docstring).

    ``owner_delta`` = ``δ_o``, ``nonowner_delta`` = ``δ < 0`` shared by ``n_nonowners`` non-owners
    with one direction ``u``, ``alignment`` = ``u·v`` (their final alignment), ``a_star`` = ``a*``.
    Returns NaN for ``δ ≥ 0`` (such non-owners are not pruned: they co-align).
    """
    if not nonowner_delta < 0:
        return float("nan")
    phi = float(np.arccos(np.clip(alignment, -1.0, 1.0)))
    # g = ∂κ(β, u)/∂β at β = v in the basis (v, e) of span(v, u), u = cos φ v + sin φ e
    g = np.array([(np.pi - phi) * np.cos(phi) + np.sin(phi), (np.pi - phi) * np.sin(phi)]) / (2.0 * np.pi)
    k = int(n_nonowners)
    H = np.zeros((3, 3))
    H[:2, :2] = 0.5 * np.eye(2)
    H[:2, 2] = H[2, :2] = g
    H[2, 2] = 0.5  # κ(u, u) for a unit u
    root = np.hypot(owner_delta, 2.0 * a_star)
    mobility = np.array([root, (owner_delta + root) / 2.0, k * abs(nonowner_delta)])
    scale = np.sqrt(mobility)
    return float(np.linalg.eigvalsh(scale[:, None] * H * scale[None, :])[0])


def pruning_rate_limit(n_nonowners: int = 1) -> float:
    """``lim_{D→∞} λ/D`` for owner ``+D`` and ``n_nonowners`` non-owners at ``−D``, ``φ = π/2``."""
    g2 = (np.pi**2 / 4.0 + 1.0) / (4.0 * np.pi**2)
    k = float(n_nonowners)
    return float(np.linalg.eigvalsh(np.array([[0.5, np.sqrt(k * g2)], [np.sqrt(k * g2), k / 2.0]]))[0])
