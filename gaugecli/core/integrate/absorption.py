"""Neurons near ``w = 0``: the ReLU flow's one non-smooth point, and how the flow passes it.

A neuron with output weight ``a_j < 0`` and imbalance ``δ_j = a_j² − ‖w_j‖² > 0`` keeps ``a_j² ≥ δ_j > 0``
along the flow (δ is conserved), so ``a_j`` never changes sign. While it carries function of the wrong
sign its input weight can shrink to ``w_j = 0`` in *finite* time. Near ``w = 0``, with ``w_j = n_j u_j``,

    ṅ_j = |a_j| g(u_j),    u̇_j = (|a_j|/n_j) (I − u_j u_jᵀ) ∇g(u_j),    g(u) = E[r relu(u·x)],  r = f − y,

(``−a_j ∂L/∂w_j = |a_j| ∇g`` and ``u·∇g(u) = g(u)``, ``g`` being homogeneous of degree 1): the direction
climbs ``g`` on the sphere at a rate ~1/n_j — stiff, and at ``n = 0`` undefined (the kink; a solver
stalls there) — while the norm moves at speed ``|a_j| g`` at that direction. So below a small norm the
direction *is* the local maximum ``u*_j(t)`` of ``g`` it climbed to, up to O(n_j), and the neuron has
one degree of freedom left, its norm:

    ṅ_j = |a_j| g(u*_j(t))  (held at 0 while n_j = 0 and g < 0),   w_j = n_j u*_j(t).

The neuron is absorbed at ``w = 0`` while ``g(u*) < 0`` (the student under-shoots the teacher along
``u*``) and leaves along ``u*`` once ``g(u*) > 0`` (it over-shoots there). This is the limit of gradient
descent as its step goes to 0 (``tests/test_absorption.py`` checks it against GD on two starts, at two
steps each: quartering the step quarters the distance).

:class:`NearZero` carries this for one member of :func:`gaugecli.core.integrate.flow.gradient_flow`, with four
solver events: a neuron that :func:`can_be_absorbed` is *slaved* when ``‖w_j‖`` falls to
:data:`SLAVING_LEVEL`·s_j — its norm moves to an extra state ``n_j`` and its direction to
:func:`held_maximum`, tracked as the state moves; it *lands* (is absorbed) when ``n_j`` reaches 0; it
*lifts* when ``|a_j| g(u*_j)`` rises above :data:`REVIVAL_TOLERANCE`; and it is *freed* at
``n_j = 2·SLAVING_LEVEL·s_j`` (the gap keeps slaving and freeing from chattering). Each event restarts
the solve; its dense output is stitched from the segments.
Only the population loss: an empirical loss's ``g`` is piecewise linear, its maxima are corners.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from gaugecli.core.kernels.arccos import arccos_kernel
from gaugecli.core.model.model import Model
from gaugecli.core.model.state import Network
from gaugecli.core.population.objective import Objective
from gaugecli.core.types import Array, Indices

SLAVING_LEVEL = 1e-6
"""A neuron that :func:`can_be_absorbed` is slaved below ``‖w_j‖ = SLAVING_LEVEL·s_j`` and freed above
twice that, ``s_j = √(a_j² + ‖w_j‖²)`` at the start (``≥ √δ_j``; the neuron's own scale where δ ≈ 0).
Its direction then lags the maximum ``u*`` by O(n_j) (the relaxation rate is ~|a_j| ‖∇²g‖/n_j), and
its function ``a_j n_j relu(u·x)``, of norm ≤ 1.5e-6·s_j², is left out of the others' gradient; the
stiffness the solver meets at the level, ~1e6, is one LSODA's stiff mode takes in its stride (a level
of 1e-12 stalled it)."""

REVIVAL_TOLERANCE = 1e-8
"""A neuron absorbed at ``w = 0`` moves again once ``|a_j| g(u*_j)`` exceeds this. The rate is the loss
decrease per unit ``‖w_j‖`` along ``u*_j``, a gradient norm; a converged flow's gradients are at
``grad_tol`` (1e-10) and its states carry the solver's relative tolerance (1e-10) times O(1)
Hessians, so a rate under 1e-8 is the flow's own residual, not a direction of descent (at a fit,
``g → 0``, and the rate would otherwise flicker around 0 and move neurons by round-off)."""

DELTA_ROUND_OFF = 1e-12
"""δ at or below this fraction of ``a² + ‖w‖²`` is round-off of a balanced start (:func:`can_be_absorbed`)."""

_TINY = 1e-30
"""The output weight of a probe neuron in :func:`held_maximum`: ``∂L/∂w`` of a neuron is ``a`` times
``∇g``, and at ``a = 1e-30`` the probe changes ``f`` by nothing the sums can see."""


def can_be_absorbed(theta0: Network, model: Model) -> NDArray[np.bool_]:
    """Which neurons of a start ``θ0 = (a0 (..., m), W0 (..., m, r))`` can reach ``w = 0`` and be held
    there: ``a_j < 0 ≤ δ_j`` (``a_j`` cannot change sign; δ ≥ 0 to its round-off) for a ReLU student; none for other
    activations (a smooth σ has no kink at 0; leaky ReLU's linear part moves ``w`` through it)."""
    a0, W0 = np.asarray(theta0.a, float), np.asarray(theta0.W, float)
    if model.activation.name != "relu":
        return np.zeros(a0.shape, bool)
    squares = np.sum(W0**2, axis=-1)
    # δ ≥ 0 up to its round-off: a balanced start rebuilt from (c, u, δ = 0) carries δ ~ ε (a² + ‖w‖²)
    # of either sign, and its neuron, shrinking with a and w together, meets the kink at the scale
    # √|δ| ~ 1e-9 that the round-off sets (a flow of four such negative neurons stalled there)
    return (a0 < 0.0) & (a0**2 - squares > -DELTA_ROUND_OFF * (a0**2 + squares))


def _probe(objective: Objective, a: Array, W: Array, U: Array, weight: float = 0.0) -> tuple[Array, Array]:
    """``(∂L/∂a, ∂L/∂w)`` of probe neurons of directions ``U (B, Q, r)`` and output weight ``weight``
    appended to the states ``a (B, m)``, ``W (B, m, r)``."""
    m = a.shape[-1]
    a_all = np.concatenate([a, np.full(U.shape[:2], weight)], axis=1)
    ga, gW, _ = objective.gradient(a_all, np.concatenate([W, U], axis=1))
    return ga[:, m:], gW[:, m:]


def held_maximum(objective: Objective, a: Array, W: Array, u0: Array, scale: float) -> tuple[Array, float]:
    """``(u, g(u))``: the local maximum of ``g(u) = E[r relu(u·x)]`` on the unit sphere reached by ascent
    from ``u0``, for the state ``a (m,)``, ``W (m, r)`` (``g`` is ``∂L/∂a`` of a probe neuron of
    direction ``u``; ``∇g`` is its ``∂L/∂w`` divided by its output weight :data:`_TINY`). ``scale``:
    ``Σ_i |c_i| ‖x_i‖`` over the student and teacher, which bounds ``‖∇g‖``.

    Projected gradient ascent with Barzilai–Borwein steps, warm-started from the held direction (it
    moves a little from one solver step to the next), until the tangential gradient is below
    :data:`HELD_GRADIENT`·scale."""
    a = np.asarray(a, float).reshape(1, -1)
    W = np.asarray(W, float).reshape(1, *np.shape(W)[-2:])
    u = np.asarray(u0, float) / np.linalg.norm(u0)

    def probe(u: Array) -> tuple[float, Array]:
        g, grad = _probe(objective, a, W, u[None, None], _TINY)
        grad = grad[0, 0] / _TINY
        return float(g[0, 0]), grad - (grad @ u) * u  # g(u) and its gradient along the sphere

    g, tangent = probe(u)
    step = 0.5 / max(float(np.linalg.norm(tangent + g * u)), 1e-300)  # 1/curvature, curvature ~ ‖∇g‖
    for _ in range(HELD_ITERATIONS):
        if float(np.linalg.norm(tangent)) <= HELD_GRADIENT * scale:
            break
        # at most HELD_TURN rad a step, so that the ascent stays on the maximum it started beside
        turn = step * float(np.linalg.norm(tangent))
        moved = u + (step if turn <= HELD_TURN else HELD_TURN / turn * step) * tangent
        moved /= np.linalg.norm(moved)
        g_new, tangent_new = probe(moved)
        du, dt = moved - u, tangent_new - tangent
        curvature = abs(float(du @ dt))
        step = float(du @ du) / curvature if curvature > 0.0 else 2.0 * step
        u, g, tangent = moved, g_new, tangent_new
    return u, g


HELD_GRADIENT = 1e-9
""":func:`held_maximum` stops when the tangential gradient is below this fraction of ``Σ|c_i|‖x_i‖``.
At a maximum of curvature κ the direction is then within ~1e-9·scale/κ of it and ``g`` within
~1e-18·scale²/κ of its value (at a flat maximum, ``g ~ −(π − φ)³`` as at ``u* = −v``, within ~1e-13·scale):
far below what ``ṅ`` and the revival test read."""

HELD_TURN = 0.05
"""The largest turn (radians) of one :func:`held_maximum` step."""

HELD_ITERATIONS = 200
"""A cap on :func:`held_maximum`'s steps (warm-started, it takes a few)."""


class NearZero:
    """The neurons of one flow member near ``w = 0`` (module docstring): which are slaved, their held
    directions, and the extra states ``n_j`` appended to the flow's packed state ``θ = (a, w_1 … w_m)``
    (``P = m (d + 1)`` entries, then ``m``). :meth:`state` gives the student the objective sees,
    :meth:`velocity` the flow's right-hand side, :meth:`events` the four events (entering, landing,
    lifting, leaving) and :meth:`switch` what happens at them."""

    def __init__(self, objective: Objective, model: Model, start: Network) -> None:
        a0, W0 = np.asarray(start.a, float), np.asarray(start.W, float)
        self.objective = objective
        self.m, self.d = W0.shape
        self.P = self.m * (self.d + 1)
        self.watch = can_be_absorbed(Network(a0, W0), model)
        self.teacher_scale = float(np.sum(np.abs(model.coefficients) * np.linalg.norm(model.directions, axis=-1)))
        self.level = SLAVING_LEVEL * np.sqrt(a0**2 + np.sum(W0**2, axis=-1))
        self.slaved = np.zeros(self.m, bool)
        self.at_zero = np.zeros(self.m, bool)  # slaved and held at n = 0 (absorbed)
        self.held = np.zeros((self.m, self.d))
        self.lifted: dict[float, float] = {}  # lifting's values at the times it was asked (below)
        self.entered = np.full(self.m, np.nan)  # the first time each neuron was slaved
        self.absorbed = np.zeros(self.m, bool)  # held at w = 0 at some time
        self.freed = 0
        self.segments: list[tuple[Array, Array]] = []  # (slaved, held) at the start of each solve

    def scale(self, a: Array, W: Array) -> float:
        """``Σ_i |a_i| ‖w_i‖ + Σ_l |b_l| ‖v_l‖``: the scale of ``g`` and its gradient."""
        return float(np.sum(np.abs(a) * np.linalg.norm(W, axis=-1))) + self.teacher_scale

    @property
    def active(self) -> bool:
        return bool(np.any(self.watch))

    def extend(self, theta: Array) -> Array:
        """The packed state ``θ (P,)`` with the norms ``n = 0`` appended."""
        return np.concatenate([theta, np.zeros(self.m)])

    def state(self, y: Array) -> Array:
        """``θ (P,)`` of the full state ``y (P + m,)`` as the objective sees it: a slaved neuron at
        ``w_j = 0``. Its function, of norm ≤ |a_j| n_j/√2 ≤ 1.5e-6·s_j², is left out of the others'
        gradient while it is slaved: with ``w_j = n_j u*_j`` the right-hand side would carry the error
        of ``u*_j`` (at a flat maximum, such as ``u* = −v`` where ``κ(u, v) ~ (π − φ)³``, ~1e-4 rad), a
        noise that stalls the solver; ``ṅ_j`` does not, ``g`` being flat at its maximum."""
        return y[: self.P]

    def velocity(self, y: Array, theta: Array, minus_gradient: Array) -> Array:
        """``ẏ (P + m,)`` from ``−∇L`` at ``θ = state(y)``: the free coordinates' as given (a slaved
        neuron's ``a_j`` too: 0 at ``w_j = 0``, ``−λa_j`` under weight decay), a slaved ``w_j`` still, ``ṅ_j`` from :meth:`rates` for
        a slaved neuron that moves, and 0 for one held at ``n_j = 0``."""
        out = np.concatenate([minus_gradient, np.zeros(self.m)])
        if np.any(self.slaved):
            out[self.m : self.P].reshape(self.m, self.d)[self.slaved] = 0.0
            moving = self.slaved & ~self.at_zero
            out[self.P :][moving] = self.rates(y, moving)[moving]
        return out

    def rates(self, y: Array, which: NDArray[np.bool_]) -> Array:
        """``ṅ_j = |a_j| g_j`` of the slaved neurons ``which`` (``−inf`` elsewhere), the held directions
        updated: ``g_j = g(u*_j) + Σ_i a_i n_i κ(u*_i, u*_j)``, ``g`` with the slaved neurons left out
        and the sum over the slaved ones that move — their function on one another, which decides where a
        slaved norm comes to rest (``a_j n_j/2`` on itself: without it a neuron whose ``g(u*)`` is a
        little above 0 would grow while slaved and shrink once freed)."""
        a, W = y[: self.m], y[self.m : self.P].reshape(self.m, self.d)
        n = np.where(self.slaved & ~self.at_zero, np.maximum(y[self.P :], 0.0), 0.0)
        climb = np.flatnonzero(which | (n > 0.0))
        g = np.zeros(self.m)
        for j in climb:
            self.held[j], g[j] = held_maximum(self.objective, a, W, self.held[j], self.scale(a, W))
        U = self.held[climb]
        g[climb] += arccos_kernel(U, U) @ (a[climb] * n[climb])
        return np.where(which, np.abs(a) * g, -np.inf)

    def norm_jacobian(self, y: Array) -> Array:
        """``∂ṅ_j/∂n_i = |a_j| a_i κ(u*_i, u*_j)`` among the slaved neurons that move, ``(m, m)`` (0
        elsewhere): the coupling in :meth:`rates` at the held directions (their own motion left out, as
        ``g`` is flat at a maximum) — a slaved norm relaxes at ``a_j²/2``, which Newton's iteration
        must see."""
        J = np.zeros((self.m, self.m))
        moving = np.flatnonzero(self.slaved & ~self.at_zero)
        if moving.size:
            a = y[: self.m]
            U = self.held[moving]
            J[np.ix_(moving, moving)] = np.abs(a[moving])[:, None] * arccos_kernel(U, U) * a[moving][None, :]
        return J

    def jacobian(self, minus_hessian: Array, y: Array) -> Array:
        """``∂ẏ/∂y (P + m, P + m)`` from ``−∇²L`` at ``state(y)``: slaved coordinates do not move as
        themselves, so their rows and columns are 0 (a slaved neuron's own block is singular at
        ``n = 0``; only Newton's iteration sees the difference), and the norms couple by
        :meth:`norm_jacobian`."""
        J = np.zeros((self.P + self.m, self.P + self.m))
        J[: self.P, : self.P] = minus_hessian
        keep = ~self.frozen()
        J = np.where(keep[:, None] & keep[None, :], J, 0.0)
        J[self.P :, self.P :] = self.norm_jacobian(y)
        return J

    def frozen(self) -> NDArray[np.bool_]:
        """``(P + m,)``: the coordinates that do not move as themselves (slaved ``w_j``, every ``n_j``)
        — the Jacobian's rows and columns there are 0 (an approximation only Newton's iteration sees)."""
        mask = np.zeros(self.P + self.m, bool)
        mask[self.m : self.P].reshape(self.m, self.d)[self.slaved] = True
        mask[self.P :] = True
        return mask

    def entering(self, t: float, y: Array) -> float:
        """Event: ``min (‖w_j‖ − level_j)`` over the free neurons that can be absorbed (falling)."""
        W = y[self.m : self.P].reshape(self.m, self.d)
        free = self.watch & ~self.slaved
        return float(np.min(np.sqrt(np.sum(W[free] ** 2, axis=-1)) - self.level[free]))

    def leaving(self, t: float, y: Array) -> float:
        """Event: ``max (n_j − 2 level_j)`` over the slaved neurons that move (rising)."""
        return float(np.max((y[self.P :] - 2.0 * self.level)[self.slaved & ~self.at_zero]))

    def landing(self, t: float, y: Array) -> float:
        """Event: ``min n_j`` over the slaved neurons that move (falling through 0)."""
        return float(np.min(y[self.P :][self.slaved & ~self.at_zero]))

    def lifting(self, t: float, y: Array) -> float:
        """Event: ``max ṅ_j − REVIVAL_TOLERANCE`` over the neurons held at 0 (rising). The maxima are
        climbed to from where they stood at the last call (warm), so a value depends on the calls
        before it by the climb's tolerance; the value at a time already asked is returned again, so
        that the root finder, which asks again at the ends of the step where the event was seen,
        finds the signs that were seen there."""
        if t not in self.lifted:
            if len(self.lifted) > 64:
                self.lifted.clear()
            self.lifted[t] = float(np.max(self.rates(y, self.at_zero)) - REVIVAL_TOLERANCE)
        return self.lifted[t]

    def events(self) -> list[Callable[[float, Array], float]]:
        """The terminal events to watch in the next solve (the state it starts from is recorded)."""
        self.segments.append((self.slaved.copy(), self.held.copy()))
        self.lifted.clear()
        self.absorbed = self.absorbed | self.at_zero
        watched = []
        moving = self.slaved & ~self.at_zero
        for name, event, direction, due in (
            ("entering", self.entering, -1, np.any(self.watch & ~self.slaved)),
            ("leaving", self.leaving, 1, np.any(moving)),
            ("landing", self.landing, -1, np.any(moving)),
            ("lifting", self.lifting, 1, np.any(self.at_zero)),
        ):
            if due:
                watched.append(_event(name, event, direction))
        return watched

    def switch(self, t: float, y: Array, fired: list[Any]) -> Array:
        """The state to restart from after the events ``fired`` (from :meth:`events`) at ``t``."""
        names = {getattr(event, "name", None) for event in fired}
        y = y.copy()
        W = y[self.m : self.P].reshape(self.m, self.d)
        n = y[self.P :]
        if "entering" in names:  # every neuron at its level (to the event's location) is slaved
            norms = np.sqrt(np.sum(W**2, axis=-1))
            gap = np.where(self.watch & ~self.slaved, norms - self.level, np.inf)
            hit = gap <= 1e-6 * self.level
            hit[np.argmin(gap)] = True
            n[hit] = norms[hit]
            self.held[hit] = W[hit] / norms[hit, None]
            W[hit] = 0.0
            self.slaved |= hit
            self.entered[hit & np.isnan(self.entered)] = t
        if "landing" in names:  # every moving slaved neuron at n = 0 is held there
            gap = np.where(self.slaved & ~self.at_zero, n, np.inf)
            down = gap <= 1e-6 * self.level
            down[np.argmin(gap)] = True
            n[down] = 0.0
            self.at_zero |= down
        if "lifting" in names:  # the neuron held at 0 whose rate reached the tolerance moves again
            rates = self.rates(y, self.at_zero)
            up = self.at_zero & (rates >= REVIVAL_TOLERANCE * (1.0 - 1e-6))
            up[np.argmax(rates)] = True
            self.at_zero &= ~up
        if "leaving" in names:  # every slaved neuron at twice its level is freed along u*
            gap = np.where(self.slaved & ~self.at_zero, n - 2.0 * self.level, -np.inf)
            go = gap >= -1e-6 * self.level
            go[np.argmax(gap)] = True
            W[go] = n[go, None] * self.held[go]
            n[go] = 0.0
            self.slaved &= ~go
            self.freed += int(go.sum())
        return y

    def observed(self, segment: Indices, Y: Array) -> Array:
        """The packed states ``θ`` of the full states ``Y (len, P + m)`` in the segments ``segment``
        (indices): a slaved neuron's ``w_j = n_j u*_j`` (``w_j = 0`` once absorbed), with ``u*_j``
        climbed to as the flow does (from the segment's start, the slaved neurons at 0)."""
        out = Y[:, : self.P].copy()
        for i in range(Y.shape[0]):
            slaved, start = self.segments[segment[i]]
            if not np.any(slaved):
                continue
            a, W = out[i, : self.m], out[i, self.m :].reshape(self.m, self.d)
            held = {
                j: held_maximum(self.objective, a, W, start[j], self.scale(a, W))[0] for j in np.flatnonzero(slaved)
            }
            for j, u in held.items():
                W[j] = max(float(Y[i, self.P + j]), 0.0) * u
        return out

    def note(self) -> str:
        """What happened near ``w = 0``, for the solver message ('' when nothing did)."""
        if not np.any(np.isfinite(self.entered)):
            return ""
        return (
            f" ({int(np.isfinite(self.entered).sum())} neurons reached ‖w‖ ≤ {SLAVING_LEVEL:g}·√(a² + ‖w‖²), "
            f"{int(self.absorbed.sum())} were absorbed there, {self.freed} left again, "
            f"{int(self.at_zero.sum())} absorbed at the end)"
        )


def _event(name: str, event: Callable[[float, Array], float], direction: int) -> Callable[[float, Array], float]:
    """``event`` as a terminal solve_ivp event crossing in ``direction``, tagged with ``name``."""

    def watched(t: float, y: Array) -> float:
        return event(t, y)

    watched.terminal = True  # type: ignore[attr-defined]
    watched.direction = direction  # type: ignore[attr-defined]
    watched.name = name  # type: ignore[attr-defined]
    return watched
