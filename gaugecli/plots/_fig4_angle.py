"""Panels (b) and (d) of fig4 — the signed angle in the invariant plane.

Duplicates start on one direction ``u0``; under the population flow every ``w_j`` stays in the
plane ``span(v, u0)`` (the gradient on ``w_j`` lies in the span of the ``w_k`` and ``v``). There
``φ_j = atan2(w_j·e, w_j·v̂)``, with ``v̂ = v/‖v‖`` and ``e`` the unit part of ``u0`` orthogonal to
``v``, is the angle of ``w_j`` from the teacher direction, positive on ``u0``'s side: ``α_j = cos φ_j``,
and the sign that ``α`` loses says on which side of ``v`` the neuron is. The owner's overshoot is a
sign change of ``φ``: it passes through ``v`` at the crossing time and turns back from a largest
overshoot angle on the other side.

The runs' stored observables hold ``α`` only; the start is integrated again here (the same
solver, tolerances and grid: ``α`` agrees with the stored run's to round-off, tested), and the
crossing and the extreme are located on the flow's dense output: 257 samples of it across the
bracketing grid step, then the root (or the minimum) of the cubic through the four nearest.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gaugecli.core.model.state import Network
from gaugecli.plots import style
from gaugecli.plots.venue import Layout

DENSE_SAMPLES = 257
"""Samples of the dense output across a bracketing grid step (the located time is good to a small
fraction of step/256: the cubic's error, ≈ (step/256)⁴·|φ''''|)."""
BOTTOM_DEGREES = -2000.0
"""The symlog axis reaches this far below 0: two decades under the deepest overshoot (≈ −5°),
room for the note that reads the overshoot."""
LINEAR_DEGREES = 0.01
"""The symlog axis is linear within ±0.01° of the teacher direction (the owner's final approach
and the overshoot's crossing), logarithmic beyond."""


def signed_angle(W: np.ndarray, v: np.ndarray, u0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``φ = atan2(w·e, w·v̂)`` of every ``w`` in ``W (..., d)`` (radians), and the relative size of
    ``w``'s part outside the plane ``span(v, u0)`` (0 while the flow keeps the plane invariant)."""
    v_hat = v / np.linalg.norm(v)
    e = u0 - (u0 @ v_hat) * v_hat
    e = e / np.linalg.norm(e)
    along, across = W @ v_hat, W @ e
    rest = W - along[..., None] * v_hat - across[..., None] * e  # projected out, not a difference of squares
    norm = np.linalg.norm(W, axis=-1)
    outside = np.linalg.norm(rest, axis=-1) / np.where(norm > 0, norm, 1.0)
    return np.arctan2(across, along), outside


def _trajectory(inputs_config: Any, times: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(t, φ (n, m), out-of-plane share (n, m))`` of a select run's start integrated again, with
    ``times`` added to its grid (samples of the dense output)."""
    from gaugecli.experiments.common import duplicates, integrate_ensemble

    config = inputs_config
    a0, W0 = duplicates(config.model, config.imbalances()[None])
    traj, full = integrate_ensemble(
        config.model, config.dynamics, Network(a0, W0), times=tuple(float(t) for t in times)
    )
    W = traj.input_weights()[0]  # (n, m, d)
    phi, outside = signed_angle(W, full.directions[0], W0[0, 0])
    return traj.t, phi, outside


def _cubic_near(t: np.ndarray, y: np.ndarray, i: int) -> np.polynomial.Polynomial:
    """The cubic through the four samples around index ``i`` (time centred for conditioning)."""
    lo = int(np.clip(i - 1, 0, t.size - 4))
    return np.polynomial.Polynomial.fit(t[lo : lo + 4], y[lo : lo + 4], 3)


def plane_angles(config: Any, designated: int) -> dict[str, Any]:
    """The signed angles of a select run (its config; ``designated`` the owner) on its grid, and the
    owner's overshoot located on the dense output: ``crossing`` (the first time after the start
    where ``φ_o`` changes sign) and ``extreme`` (``φ_o``'s most negative value after it)."""
    t, phi, outside = _trajectory(config, np.array([]))
    owner = phi[:, designated]
    sign = np.flatnonzero(np.diff(np.sign(owner)) != 0)
    out: dict[str, Any] = {"t": t, "phi": phi, "max_out_of_plane": float(np.max(outside)), "overshoot": None}
    if not sign.size:
        return out
    k = int(sign[0])
    after = k + 1 + int(np.argmin(owner[k + 1 :]))
    cross_times = np.linspace(t[k], t[k + 1], DENSE_SAMPLES)
    extreme_times = np.linspace(t[max(after - 1, 0)], t[min(after + 1, t.size - 1)], DENSE_SAMPLES)
    t2, phi2, _ = _trajectory(config, np.concatenate([cross_times, extreme_times]))
    dense = phi2[:, designated]
    # the crossing: the root of the cubic through the dense samples around the sign change
    ic = np.flatnonzero(np.isin(t2, cross_times))
    tc, yc = t2[ic], dense[ic]
    j = int(np.flatnonzero(np.diff(np.sign(yc)) != 0)[0])
    cubic = _cubic_near(tc, yc, j)
    roots = [r.real for r in cubic.roots() if abs(r.imag) < 1e-12 and tc[j] <= r.real <= tc[j + 1]]
    crossing = roots[0] if roots else float(tc[j] - yc[j] * (tc[j + 1] - tc[j]) / (yc[j + 1] - yc[j]))
    # the extreme: the minimum of the cubic through the dense samples around the smallest
    ie = np.flatnonzero(np.isin(t2, extreme_times))
    te, ye = t2[ie], dense[ie]
    j = int(np.argmin(ye))
    cubic = _cubic_near(te, ye, j)
    stationary = [
        r.real
        for r in cubic.deriv().roots()
        if abs(r.imag) < 1e-12 and te[max(j - 1, 0)] <= r.real <= te[min(j + 1, te.size - 1)]
    ]
    t_min = min(stationary, key=cubic) if stationary else float(te[j])
    out["overshoot"] = {
        "crossing_time": float(crossing),
        "crossing_bracket": [float(t[k]), float(t[k + 1])],
        "extreme_time": float(t_min),
        "extreme_angle": float(min(cubic(t_min), ye[j])),
        "dense_step": float(tc[1] - tc[0]),
    }
    return out


def _symlog_degrees(ax: Any) -> None:
    """A symlog y-axis in degrees: linear within ±:data:`LINEAR_DEGREES`, decades beyond."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    ax.set_yscale("symlog", linthresh=LINEAR_DEGREES, linscale=0.6)
    ticks = [-10.0, -1.0, -0.1, 0.0, 0.1, 1.0, 10.0, 90.0]
    ax.yaxis.set_major_locator(FixedLocator(ticks))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}°".replace("-", "−")))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.set_ylim(BOTTOM_DEGREES, 200.0)


def panel_angle(
    ax: Any,
    angles: dict[str, Any],
    x_of: Any,
    styles: list[dict[str, Any]],
    names: list[str],
    t_spec: float,
    layout: Layout,
    columns: list[int] | None = None,
) -> dict[str, Any]:
    """The signed angle ``φ_j(t)`` (degrees) of every neuron against ``t/T_spec`` on a symlog axis
    (``columns``: the neurons drawn, default all; ``styles``, ``names``: each one's line style and
    sidecar name); the owner's crossing
    (a ring on the zero line) and its largest overshoot (a triangle), located on the dense output."""
    t, phi = angles["t"], np.degrees(angles["phi"])
    columns = list(range(phi.shape[1])) if columns is None else columns
    keep, x = x_of(t)
    out: dict[str, Any] = {"max_out_of_plane": angles["max_out_of_plane"], "linear_degrees": LINEAR_DEGREES}
    for j, kw, name in zip(columns, styles, names, strict=True):
        y = phi[keep, j]
        ax.plot(x, y, **kw)
        out[name] = style.series(x, y)
    ax.axhline(0.0, color=style.GUIDE, lw=0.7, zorder=1)
    over = angles["overshoot"]
    if over is not None:
        xc, xe = over["crossing_time"] / t_spec, over["extreme_time"] / t_spec
        ye = math.degrees(over["extreme_angle"])
        ax.plot([xc], [0.0], ls="none", marker="o", mfc="white", mec=style.THEORY, ms=4.5, zorder=6)
        ax.plot([xe], [ye], ls="none", marker="v", color=style.THEORY, ms=4.0, zorder=6)
        out["crossing"] = style.series([xc], [0.0])
        out["extreme"] = style.series([xe], [ye])
        out["overshoot"] = {
            "crossing_t_over_t_spec": xc,
            "crossing_bracket_over_t_spec": [b / t_spec for b in over["crossing_bracket"]],
            "dense_step_over_t_spec": over["dense_step"] / t_spec,
            "extreme_t_over_t_spec": xe,
            "extreme_degrees": ye,
        }
        style.note(
            ax,
            rf"through $v$ at {xc:.2f} $T_{{\rm spec}}$,"
            + "\n"
            + rf"back from ${ye:.2f}°$ at {xe:.1f} $T_{{\rm spec}}$",
            (0.03, 0.03),  # under −10°: the axis reaches two decades below any angle (BOTTOM_DEGREES)
            layout,
            xycoords="axes fraction",
            va="bottom",
            color=style.THEORY,
        )
    _symlog_degrees(ax)
    ax.set_ylabel(r"signed angle to $v$, $\varphi_j$")
    return out
