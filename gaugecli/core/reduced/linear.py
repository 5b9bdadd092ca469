"""The linear network in closed form: the aligned neuron's ``ċ = −√(δ² + 4c²)(c − a*)``, even in δ, and
the ``D(2 ln D + B)`` law of ``T_spec(−D)`` from ``u0 ⊥ v`` (:func:`unfavorable_log_law`).

For ``σ(z) = z`` and a neuron aligned with its teacher feature (``u = v̂``, teacher ``a* v̂·x``), the
function is ``c v̂·x`` and the loss ``L = ½(c − a*)²``. With ``δ = a² − ‖w‖²`` conserved, the mobility of
``c = a‖w‖`` is ``a² + ‖w‖² = √(δ² + 4c²)``, so ``ċ = −√(δ² + 4c²)(c − a*)`` — the sign of δ drops out.
The time from ``c0`` to ``c1`` is ``∫ dc / (√(δ² + 4c²)(a* − c))``; with ``x = a* − c`` it is
``∫ dx / (x √(4x² − 8a*x + k))``, ``k = 4a*² + δ²``, whose antiderivative is
``F(x) = −ln[(2k − 8a*x + 2√k R(x))/x]/√k``, ``R = √(4x² − 8a*x + k)`` (docs/theory.md §12).
At δ = 0 it is Saxe et al.'s logistic, ``t = ½ ln[c1(a* − c0)/(c0(a* − c1))]`` for ``a* = 1``.

Without a direction to turn, the gauge changes the speed of learning but not which sign is faster:
the ±D asymmetry of fig8 is made by the turning of ``u`` alone.
"""

from __future__ import annotations

import math


def aligned_time(delta: float, c_from: float, c_to: float, a_star: float = 1.0) -> float:
    """The time the aligned linear neuron takes from ``c = c_from`` to ``c = c_to`` (``0 < c_from < c_to < a*``)."""
    if not 0.0 < c_from < c_to < a_star:
        raise ValueError(f"need 0 < c_from < c_to < a_star (got {c_from!r}, {c_to!r}, {a_star!r})")
    k = 4.0 * a_star**2 + delta**2
    root_k = math.sqrt(k)

    def F(x: float) -> float:
        R = math.sqrt(4.0 * x * x - 8.0 * a_star * x + k)
        return -math.log((2.0 * k - 8.0 * a_star * x + 2.0 * root_k * R) / x) / root_k

    return F(a_star - c_from) - F(a_star - c_to)


def unfavorable_log_law(c0: float, eps_align: float, a_star: float = 1.0) -> tuple[float, float]:
    """The linear network's ``T_spec(−D)/D → A ln D + B`` from ``u0 ⊥ v`` (``m = 1``): ``(A, B)``.

    The single linear neuron has ``L = ½‖β − a* v̂‖² + const`` (``β = a w``); the ReLN pathway gated by
    the teacher's half-space has ``L = ¼‖β − a* v̂‖² + const`` (docs/theory.md §10). The two gradients are
    proportional (factor 2) at every ``(a, w)``, so the linear flow is the gate-v ReLN flow at twice the
    speed: ``T_lin(±D) = T_ReLN(±D)/2`` exactly, and ``T(−D)/T(+D)`` is the same for both. Halving the
    ReLN's asymptote (:func:`gaugecli.core.reduced.reln.final_gate_tspec_asymptote`: the seed
    ``tan θ ≈ D²/(c0 a*)`` decays at ``a*²/D`` here) gives ``T ≈ (D/a*²) ln(D²/(c0 a* tan θ_ε))``:
    ``A = 2/a*²``, ``B = ln(1/(c0 a* tan θ_ε))/a*²`` (2 and 4.2511 at c0 = 0.1, ε = 0.01).
    """
    if c0 <= 0 or not 0 < eps_align < 1 or a_star <= 0:
        raise ValueError("unfavorable_log_law: needs c0 > 0, 0 < eps_align < 1 and a_star > 0")
    tan_eps = math.sqrt(1.0 - (1.0 - eps_align) ** 2) / (1.0 - eps_align)
    return 2.0 / a_star**2, math.log(1.0 / (c0 * a_star * tan_eps)) / a_star**2
