"""Observables (docs/theory.md, the model): alignment, owner, non-owner norm, T_spec, clock-free gap, and the
run integrals of docs/theory.md §8 (dissipated reaction and transport) with the loss-decay rate.

All functions take trajectories or snapshots with the neuron axis last
(``c`` is ``(..., m)``, ``U``/``W`` is ``(..., m, d)``) and keep leading axes.
"""

from __future__ import annotations

import numpy as np
from scipy import integrate, interpolate, optimize

from gaugecli.core.activations.base import Activation
from gaugecli.core.kernels.arccos import arccos_kernel
from gaugecli.core.model.gauge import unit_directions
from gaugecli.core.model.model import Model
from gaugecli.core.types import Array


def alignment(W: Array, model: Model) -> tuple[Array, Array]:
    """``α_j = max_k û_j·v̂_k`` and the index ``k`` of the feature attaining it (``|û_j·v̂_k|`` for an
    even σ, whose ``u`` and ``−u`` are the same feature). A neuron at ``w = 0`` (absorbed there:
    :mod:`gaugecli.core.integrate.flow`) has no direction: ``α = 0``."""
    U = unit_directions(W)
    cos = U @ model.unit_directions().T
    if model.activation.even:
        cos = np.abs(cos)
    return np.max(cos, axis=-1), np.argmax(cos, axis=-1)


def instantaneous_owner(c: Array, alpha: Array) -> Array:
    """``o(t) = argmax_j c_j α_j``."""
    return np.argmax(c * alpha, axis=-1)


def final_owner(c: Array, alpha: Array, eps_align: float) -> tuple[Array, Array]:
    """The neuron with ``α ≥ 1 − ε`` carrying the largest ``c``; where none is aligned,
    ``argmax_j c_j α_j``. Returns ``(owner, specialized)``."""
    aligned = alpha >= 1.0 - eps_align
    specialized = np.any(aligned, axis=-1)
    masked = np.where(aligned, c, -np.inf)
    owner = np.where(specialized, np.argmax(masked, axis=-1), instantaneous_owner(c, alpha))
    return owner, specialized


def nonowner_norm(a: Array, W: Array, owner: Array | int, activation: Activation | None = None) -> Array:
    """``P = ‖Σ_{j≠o} a_j σ(w_j·x)‖_{L²(N(0,I))} = (Σ_{i,j≠o} a_i a_j K(w_i, w_j))^{1/2}``
    (ReLU unless ``activation`` says otherwise). For a homogeneous ``σ`` the same number is
    ``(Σ c_i c_j K(u_i, u_j))^{1/2}`` in function coordinates: pass ``(c, U)`` for ``(a, W)``.

    ``owner`` broadcasts against the leading axes of ``a``.
    """
    m = a.shape[-1]
    return group_norm(a, W, np.arange(m) != np.asarray(owner)[..., None], activation)


def group_norm(a: Array, W: Array, members: Array, activation: Activation | None = None) -> Array:
    """``‖Σ_{j ∈ G} a_j σ(w_j·x)‖_{L²(N(0,I))}`` for the neurons ``G`` where the boolean ``members``
    (broadcasting against ``a``) is true: the function a group carries *together*. Two neurons of
    one direction and opposite coefficients carry none, however large each one is."""
    return kernel_group_norm(a, arccos_kernel(W, W) if activation is None else activation.kernel(W, W), members)


def kernel_group_norm(a: Array, K: Array, members: Array) -> Array:
    """:func:`group_norm` from the pair kernel ``K_ij = K(w_i, w_j)`` at hand: one kernel, several groups."""
    a_rest = np.where(members, a, 0.0)
    quad = np.einsum("...i,...ij,...j->...", a_rest, K, a_rest)
    return np.sqrt(np.maximum(quad, 0.0))


def function_distance(a_1: Array, W_1: Array, a_2: Array, W_2: Array, activation: Activation | None = None) -> Array:
    """``‖f_1 − f_2‖_{L²(N(0,I))}`` for two students, in closed form: with the neurons of
    both stacked and output weights ``z = (a_1, −a_2)``, it is ``(zᵀ K z)^{1/2}``."""
    W = np.concatenate([W_1, W_2], axis=-2)
    z = np.concatenate([a_1, -a_2], axis=-1)
    K = arccos_kernel(W, W) if activation is None else activation.kernel(W, W)
    quad = np.einsum("...i,...ij,...j->...", z, K, z)
    return np.sqrt(np.maximum(quad, 0.0))


def empirical_nonowner_norm(
    a: Array, W: Array, owner: Array | int, X: Array, activation: Activation | None = None
) -> Array:
    """Sample counterpart of :func:`nonowner_norm`: ``(mean_i (Σ_{j≠o} a_j σ(w_j·x_i))²)^{1/2}``."""
    m = a.shape[-1]
    keep = np.arange(m) != np.asarray(owner)[..., None]
    Z = np.matmul(X, np.swapaxes(W, -1, -2))  # (..., n, m) by BLAS (einsum would loop in C, ×5 slower)
    H = np.maximum(Z, 0.0) if activation is None else activation.sigma(Z)
    g = np.einsum("...nm,...m->...n", H, np.where(keep, a, 0.0))
    return np.sqrt(np.mean(g**2, axis=-1))


def specialization_time(crossing_times: Array, owner: Array | int) -> Array:
    """``T_spec``: the owner's first crossing of ``α = 1 − ε`` (NaN if it never aligns)."""
    o = np.broadcast_to(np.asarray(owner), crossing_times.shape[:-1])[..., None]
    return np.take_along_axis(crossing_times, o, axis=-1)[..., 0]


def first_time_below(t: Array, values: Array, level: float) -> float:
    """First sampled time at which ``values`` (time axis last) falls to ``level``, with
    log-linear interpolation between samples; NaN if it never does."""
    below = np.flatnonzero(values <= level)
    if below.size == 0:
        return float("nan")
    i = below[0]
    if i == 0:
        return float(t[0])
    v0, v1 = np.log(max(values[i - 1], 1e-300)), np.log(max(values[i], 1e-300))
    frac = (np.log(level) - v0) / (v1 - v0) if v1 != v0 else 1.0
    return float(t[i - 1] + frac * (t[i] - t[i - 1]))


def alignment_vs_loss(loss: Array, alpha: Array, floor: float = 1e-12) -> tuple[Array, Array]:
    """α as a function of the loss level ℓ, ``α(ℓ)``: the samples where the loss sets a new
    minimum above ``floor``, ordered by increasing ℓ (ready for :func:`numpy.interp`)."""
    running = np.minimum.accumulate(loss)
    keep = (loss <= running) & (loss > floor)
    keep[1:] &= np.diff(running) < 0
    keep[0] = loss[0] > floor
    return loss[keep][::-1], alpha[keep][::-1]


def clock_free_gap(
    loss_1: Array, alpha_1: Array, loss_2: Array, alpha_2: Array, *, levels: int = 400, floor: float = 1e-12
) -> float:
    """``Δ = max_ℓ |α₁(ℓ) − α₂(ℓ)|`` over the common loss range (above ``floor``, where
    the closed-form loss is still above round-off). Alignment is read as a function of
    the loss level, so any monotone reparametrization of time leaves Δ unchanged."""
    return clock_free_gap_location(loss_1, alpha_1, loss_2, alpha_2, levels=levels, floor=floor)[0]


def clock_free_gap_location(
    loss_1: Array, alpha_1: Array, loss_2: Array, alpha_2: Array, *, levels: int = 400, floor: float = 1e-12
) -> tuple[float, float, float, float]:
    """:func:`clock_free_gap` and where it is attained: ``(Δ, ℓ*, α₁(ℓ*), α₂(ℓ*))`` on the
    ``levels`` log-spaced loss levels of the common range (all NaN if the ranges do not overlap)."""
    l1, a1 = alignment_vs_loss(loss_1, alpha_1, floor)
    l2, a2 = alignment_vs_loss(loss_2, alpha_2, floor)
    lo, hi = max(l1[0], l2[0]), min(l1[-1], l2[-1])
    if not lo < hi:
        return (float("nan"),) * 4
    grid = np.geomspace(lo, hi, levels)
    y1, y2 = np.interp(grid, l1, a1), np.interp(grid, l2, a2)
    i = int(np.argmax(np.abs(y1 - y2)))
    return float(abs(y1[i] - y2[i])), float(grid[i]), float(y1[i]), float(y2[i])


def time_rescaling_mismatch(t_1: Array, loss_1: Array, t_2: Array, loss_2: Array) -> tuple[float, float]:
    """How well one global clock ``t → s t`` maps run 2's loss curve onto run 1's:
    ``min_s max_t |L₁(t) − L₂(s t)| / L₁(0)`` on a log-time grid. Returns ``(mismatch, s*)``.

    ``ln s`` is searched on a grid of step 0.1 over every scale at which the two time grids
    overlap, then refined: the runs' horizons say nothing about ``s*`` (two runs with one horizon
    can have ``s* ≈ 4·10⁵``, as ±D at D = 256 do)."""
    grid = np.geomspace(max(t_1[1], 1e-12), t_1[-1], 400)
    L1 = np.interp(grid, t_1, loss_1)

    def cost(log_s: float) -> float:
        L2 = np.interp(grid * np.exp(log_s), t_2, loss_2)
        return float(np.max(np.abs(L1 - L2)))

    lo = np.log(max(t_2[1], 1e-300) / grid[-1])
    hi = np.log(t_2[-1] / grid[0])
    coarse = np.linspace(lo, hi, int(np.ceil((hi - lo) / 0.1)) + 1)
    best = coarse[np.argmin([cost(s) for s in coarse])]
    res = optimize.minimize_scalar(cost, bounds=(best - 0.1, best + 0.1), method="bounded")
    return float(res.fun / loss_1[0]), float(np.exp(res.x))


def distance_to_path(x: Array, y: Array, path_x: Array, path_y: Array, neighbours: int = 8) -> Array:
    """Euclidean distance from each point ``(x_i, y_i)`` to the polyline ``(path_x, path_y)``.

    For each point the segments at its ``neighbours`` nearest vertices (a k-d tree) are searched,
    which gives the exact distance to the polyline wherever the path is sampled finely compared
    with that distance (the nearest segment then ends at one of those vertices). Used to compare
    a run's path in a phase plane with a limit path sampled ~10⁴–10⁵ times; a polyline through
    a smooth curve sampled at spacing ``h`` is off by ``κ h²/8`` (``κ`` the curvature)."""
    from scipy.spatial import cKDTree

    px, py = np.asarray(path_x, float), np.asarray(path_y, float)
    qx, qy = np.atleast_1d(np.asarray(x, float)), np.atleast_1d(np.asarray(y, float))
    if px.size < 2:
        raise ValueError("the path needs at least two points")
    k = min(neighbours, px.size)
    _, nearest = cKDTree(np.column_stack([px, py])).query(np.column_stack([qx, qy]), k=k)
    nearest = np.asarray(nearest).reshape(qx.size, k)
    # the segments (i−1, i) and (i, i+1) at each nearest vertex i
    start = np.clip(np.concatenate([nearest - 1, nearest], axis=1), 0, px.size - 2)
    ax, ay = px[start], py[start]
    dx, dy = px[start + 1] - ax, py[start + 1] - ay
    length2 = dx * dx + dy * dy
    s = ((qx[:, None] - ax) * dx + (qy[:, None] - ay) * dy) / np.where(length2 > 0, length2, 1.0)
    s = np.clip(s, 0.0, 1.0)
    return np.min(np.hypot(ax + s * dx - qx[:, None], ay + s * dy - qy[:, None]), axis=1)


# ----------------------------------------------------------------------------------------
# integrals over a run (docs/theory.md §8, the dissipation budget)


def log_grid_nodes(t: Array, inserted: Array | None = None) -> Array:
    """Mask of the samples of ``t`` that are not ``inserted`` times (``t = 0`` is always kept).

    The flow's output grid is ``0`` plus log-spaced times plus every ensemble member's
    crossing time (:func:`gaugecli.core.integrate.gradient_flow`). An inserted node splits one
    log-spaced interval unequally, which costs Simpson's rule its fourth order: measured on
    ``m = 1`` runs at ``D = 1 … 64``, ``∫T dt`` was off by up to 6e-6 with those nodes and by
    ≤ 1e-10 without them."""
    t = np.asarray(t, float)
    if inserted is None:
        return np.ones(t.shape, bool)
    events = np.asarray(inserted, float)
    return ~np.isin(t, events[np.isfinite(events)]) | (t == 0.0)


def log_time_integral(t: Array, values: Array) -> Array:
    """``∫_0^{t_n} y(t) dt`` from samples ``y`` (time axis last) at ``0 ≤ t_0 < t_1 < … < t_n``.

    On ``[t_1, t_n]`` the integral is ``∫ y·t d(ln t)``, by Simpson's rule in ``s = ln t``; on
    ``[t_0, t_1]`` (``t_0 = 0``, ``t_1`` tiny) by the trapezoid in ``t``. On a log-spaced grid the
    integrand ``y·t`` of a converging run vanishes at both ends of the ``s`` axis, so the rule is
    far more accurate than its O(h⁴) suggests (Euler–Maclaurin): on the flow's 400-point grid
    ``∫R dt`` and ``∫T dt`` agree with the reduced solver's integrals to ≤ 1e-9 relative, where
    the trapezoid in ``t`` is off by ~5e-4.
    """
    t = np.asarray(t, float)
    y = np.asarray(values, float)
    if t.ndim != 1 or t.size != y.shape[-1]:
        raise ValueError(f"t must be 1-D with one entry per sample of values (got {t.shape} and {y.shape})")
    if t.size < 2:
        return np.zeros(y.shape[:-1])
    if not (t[0] >= 0.0 and np.all(np.diff(t) > 0)):
        raise ValueError("t must start at t_0 ≥ 0 and increase strictly")
    head = 0.5 * (y[..., 0] + y[..., 1]) * (t[1] - t[0])
    if t.size == 2:
        return head
    return head + integrate.simpson(y[..., 1:] * t[1:], x=np.log(t[1:]), axis=-1)


def log_time_integral_rows(t: Array, values: Array, keep: np.ndarray) -> Array:
    """:func:`log_time_integral` of every row at once: row ``b`` of ``values (..., B, n)`` on its own
    samples ``t[keep[b]]`` of one increasing grid ``t (n,)`` (``keep (B, n)``, each row ≥ 2 samples);
    returns ``(..., B)``.

    The same rule, by one call of scipy's Simpson over the rows of each parity of their sample count:
    a row's samples are preceded by an even number of copies of its first one (Simpson pairs of zero
    width, which add exactly 0), so that its pairs and its last interval's correction are its own. Only
    the order of the sum over the pairs differs: the results agree to a few ε of the integral's scale
    (rows of fewer than 4 samples take :func:`log_time_integral` itself)."""
    t = np.asarray(t, float)
    y = np.asarray(values, float)
    keep = np.asarray(keep, bool)
    out = np.zeros(y.shape[:-1])
    counts = keep.sum(axis=-1)
    indices = [np.flatnonzero(k) for k in keep]
    short = counts < 4  # two Simpson samples are a trapezoid, not a pair with a last interval
    for b in np.flatnonzero(short):
        out[..., b] = log_time_integral(t[indices[b]], y[..., b, indices[b]])
    for parity in (0, 1):
        group = np.flatnonzero(~short & (counts % 2 == parity))
        if group.size == 0:
            continue
        width = int(counts[group].max()) - 1  # the Simpson samples (all but t_0) of the group's longest row
        simpson = np.empty((group.size, width), int)
        for g, b in enumerate(group):
            own = indices[b][1:]
            simpson[g, : width - own.size] = own[0]
            simpson[g, width - own.size :] = own
        first, second = np.array([indices[b][0] for b in group]), simpson[:, 0]
        head = 0.5 * (y[..., group, first] + y[..., group, second]) * (t[second] - t[first])
        at = t[simpson]
        # the rows' samples by one np.take of the flattened (row, time) axes: ×10 faster than fancy indexing
        z = np.take(y.reshape(*y.shape[:-2], -1), group[:, None] * t.size + simpson, axis=-1) * at
        out[..., group] = head + integrate.simpson(z, x=np.broadcast_to(np.log(at), z.shape), axis=-1)
    return out


def cumulative_log_time_integral(t: Array, values: Array) -> Array:
    """``∫_0^{t_i} y dt`` at every sample (time axis last): the trapezoid in ``t`` on
    ``[0, t_1]``, then the trapezoid in ``s = ln t`` of ``y·t``. Non-decreasing for ``y ≥ 0``
    (a cumulative Simpson is not: it dips where ``y`` falls steeply). Its end value is, like
    :func:`log_time_integral`, spectrally accurate on a log-spaced grid (measured ≤ 3e-9 against
    the reduced solver); the intermediate values are O(h²) in the log step ``h``."""
    t = np.asarray(t, float)
    y = np.asarray(values, float)
    if t.ndim != 1 or t.size != y.shape[-1]:
        raise ValueError(f"t must be 1-D with one entry per sample of values (got {t.shape} and {y.shape})")
    out = np.zeros(y.shape)
    if t.size < 2:
        return out
    if not (t[0] >= 0.0 and np.all(np.diff(t) > 0)):
        raise ValueError("t must start at t_0 ≥ 0 and increase strictly")
    out[..., 1] = 0.5 * (y[..., 0] + y[..., 1]) * (t[1] - t[0])
    out[..., 1:] = out[..., 1:2] + integrate.cumulative_trapezoid(y[..., 1:] * t[1:], x=np.log(t[1:]), initial=0.0)
    return out


def loss_decay_rate(t: Array, loss: Array, floor: float = 1e-12) -> Array:
    """``−dL/dt`` at the samples ``0 < t`` before ``L`` first falls to ``floor`` (NaN elsewhere),
    from the loss alone: the cubic spline of ``ln L`` in ``s = ln t`` is differentiated,
    ``−dL/dt = −L (d ln L/ds) / t``. An independent route to ``‖∇L‖² = R + T``.

    ``ln L`` against ``ln t`` stays smooth through the late exponential decay, where a spline of
    ``L`` itself loses accuracy (measured on ``m = 1`` runs, ``D = 1 … 64``: ≤ 6e-5 relative to
    ``R + T`` down to ``L = 1e-12``, against ~1e-3 for a spline of ``L``). Below ``floor`` the
    loss is round-off (~1e-16 absolute) and its derivative is not resolved.
    """
    t = np.asarray(t, float)
    loss = np.asarray(loss, float)
    out = np.full(t.shape, np.nan)
    below = np.flatnonzero(~(loss > floor))
    end = below[0] if below.size else t.size
    use = np.arange(end)[t[:end] > 0]
    if use.size < 4:
        return out
    s, log_loss = np.log(t[use]), np.log(loss[use])
    out[use] = -loss[use] * interpolate.CubicSpline(s, log_loss).derivative()(s) / t[use]
    return out
