"""Figure 1 — the hidden gauge: invisible at t = 0, decisive later (C1, with C2 made visible).

Three single-neuron (``m = 1``) population-flow runs from the same initial function
``f0 = c0 relu(u0·x)`` in the favorable (``δ = +D``), balanced (``δ = 0``) and unfavorable
(``δ = −D``) gauges, ``D = 4`` (the SPEC defaults otherwise; the runs fig2/fig3/fig6 share).

(a) The ``(‖w‖, |a|)`` plane, log–log: the curve ``|a|‖w‖ = c0`` is the one initial function,
    the hyperbolas ``a² − ‖w‖² = δ`` are the level sets of the imbalance, and each run's path
    (its saved ``norm_w``, ``norm_a``) slides along its own level set (C2) from its start on
    ``|a|‖w‖ = c0`` to the target curve ``|a|‖w‖ = a*``. Open markers: where each run is at
    ``t = T_spec(+D)``.
(b) The functions at ``t = T_spec(+D)`` on the unit circle of the plane ``span(v, u0)``,
    ``x(φ) = cos φ v + sin φ ũ`` (``ũ`` the unit vector of that plane orthogonal to ``v``, so
    ``u0`` sits at ``φ = θ0``): at ``t = 0`` all gauges are the one grey bump; at ``T_spec(+D)``
    the +D student has reached the teacher (dashed) while the −D one has barely turned.
(c) The gap between the two students, ``‖f_{+D}(t) − f_{−D}(t)‖ / ‖y‖`` (L² over N(0, I)),
    against t: zero at t = 0, of the order of the teacher itself between the two
    specialization times, zero again once both have learned the teacher.

The invisibility itself (C1) is a number in the sidecar (``c1``), not a panel of identical curves.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gaugecli.plots import style
from gaugecli.plots.render import Inputs, Need
from gaugecli.plots.venue import Layout

SIDECAR_TOLERANCES = (
    ("a/*/delta_drift", 0.0, 1e-8, "round-off of a conserved δ"),
    ("b/invisibility/*", 0.0, 1e-12, "round-off"),
    ("c/gap*", 1e-6, 1e-5, "masked below 1e-6; near the floor a value may be null on another platform"),
)
"""Per-series tolerances of the regeneration check (:mod:`gaugecli.plots.sidecar`)."""

CLAIM = "C1 invisibility: one initial function in every gauge, different paths and times later (C2 visible)"
STRENGTH = 4.0
GAUGES = ("favorable", "balanced", "unfavorable")
LEVELS = (-4.0, -1.0, 0.0, 1.0, 4.0)
SLICE_POINTS = 241
NARROW = 4.5
"""Below this width (inches) the panels are stacked in one column."""
GAP_T_FIRST = 1e-2
"""Panel (c) starts here: before, the gap grows ∝ t from 0 to about 1 % of ‖y‖."""
WINDOW_LEVEL = 0.5
"""(c)'s window: where the gap between the ±D functions exceeds this fraction of ‖y‖."""
WINDOW_REFINE = 65
"""Samples across each stored interval that brackets an end of the window (see followups)."""
GAP_FLOOR = 1e-6
"""Below this the gap in (c) is round-off: the stored α = cos θ fixes θ only to ~1e-8 near
α = 1, and the L² distance is the square root of a difference of O(1) kernel terms (measured
≤ 4e-8 once both runs have converged)."""


def needs(quick: bool) -> dict[str, Need]:
    """The three ``m = 1`` flow runs at ``D = 4`` with the SPEC defaults (about 0.4 s together,
    so the quick profile is the full one; the configurations are those fig2, fig3 and fig6 read)."""
    from gaugecli.experiments.simulate import SimulateConfig

    return {g: Need("simulate", SimulateConfig(gauge=g, strengths=(STRENGTH,))) for g in GAUGES}


def followups(inputs: Inputs, quick: bool) -> dict[str, Need]:
    """The runs again, storing states at declared times read off the first runs (from the solver's
    dense output): the other gauges at ``T_spec(+D)``, for the snapshots of (a) and (b); both ±D
    runs across each interval where (c)'s gap crosses ½, for the ends of its window."""
    from dataclasses import replace

    t_mark = inputs["favorable"].t_spec
    if t_mark is None:
        return {}
    model = inputs.configs["favorable"].model
    window = _window_times(inputs["favorable"], inputs["unfavorable"], model.a_star)
    times = {"favorable": window, "balanced": (t_mark,), "unfavorable": (t_mark, *window)}
    return {g: Need("simulate", replace(inputs.configs[g], times=times[g])) for g in GAUGES}


# ------------------------------------------------------------------------------------------
# the state of a run in the plane (v, ũ)


def _plane_state(run: Any, index: int) -> tuple[np.ndarray, np.ndarray]:
    """``(a, W)`` of an ``m = 1`` run at saved ``index``, in coordinates of the plane ``(v, ũ)``.

    ``RunObservables`` stores ``norm_a``, ``norm_w``, the signed coefficient ``c = a‖w‖`` and the
    alignment ``α = u·v``, not ``W``. The population flow stays in ``span(v, u0)`` (SPEC §6), and
    for ``m = 1`` the angle to ``v`` only decreases, ``θ̇ = −M^u c (π − θ) sin θ / (2π) ≤ 0``
    (``c > 0`` throughout), from ``θ0 ∈ [0, π)`` towards the fixed point 0, so ``sin θ ≥ 0`` and
    the direction is exactly ``u = α v + √(1 − α²) ũ``; then ``w = ‖w‖ u``, ``a = sign(c) |a|``. Both the predictions ``Σ a relu(w·x)`` and the arc-cosine
    kernel see only norms and angles, so the plane's two coordinates are the whole state.
    """
    alpha = np.clip(run.alignment[index, 0], -1.0, 1.0)
    u = np.stack([alpha, np.sqrt(1.0 - alpha**2)], axis=-1)
    a = np.sign(run.coefficient[index, 0]) * run.norm_a[index, 0]
    return np.asarray(a)[..., None], (run.norm_w[index, 0][..., None] * u)[..., None, :]


def _on_slice(a: np.ndarray, W: np.ndarray, phi: np.ndarray) -> np.ndarray:
    """``f(x(φ)) = Σ_j a_j relu(w_j·x(φ))`` with ``x(φ) = (cos φ, sin φ)`` in the plane ``(v, ũ)``."""
    X = np.stack([np.cos(phi), np.sin(phi)], axis=-1)
    return np.maximum(X @ W.T, 0.0) @ a


def _nearest(t: np.ndarray, when: float) -> int:
    """Index of the saved time ``when``: every run of the figure stores T_spec(+D) itself (the +D
    run as its own crossing, the others as a declared time, see :func:`followups`)."""
    i = int(np.argmin(np.abs(t - when)))
    if t[i] != when:
        raise ValueError(f"figure 1: a run does not store its state at T_spec(+D) = {when!r}")
    return i


# ------------------------------------------------------------------------------------------
# panels


def _panel_plane(ax: Any, runs: dict[str, Any], c0: float, a_star: float, t_mark: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    starts = np.array([[runs[g].norm_w[0, 0], runs[g].norm_a[0, 0]] for g in GAUGES])
    ends = np.array([[runs[g].norm_w[-1, 0], runs[g].norm_a[-1, 0]] for g in GAUGES])
    lo = 0.5 * float(np.min(starts))
    hi = 1.5 * float(np.max(np.concatenate([starts, ends])))
    w = np.geomspace(lo, hi, 400)

    # the curves |a|‖w‖ = c of two functions: every gauge of f0 (grey, as f0 in (b)) and the
    # coefficient the flow ends at, c = a* (dashed near-black, as the teacher in (b))
    for key, c, color, ls in (("initial_curve", c0, style.GUIDE, "-"), ("target_curve", a_star, style.THEORY, "--")):
        ax.plot(w, c / w, color=color, lw=1.2, ls=ls, zorder=2)
        out[key] = style.series(w, c / w, c=c)
    # level sets of δ = a² − ‖w‖², parametrised by the larger coordinate so that each reaches the frame
    for level in LEVELS:
        big = np.sqrt(w**2 + abs(level))
        lw, la = (w, big) if level >= 0 else (big, w)
        ok = (lw <= hi) & (la <= hi)
        ax.plot(lw[ok], la[ok], color=style.GUIDE, lw=0.6, ls=":", zorder=1)
        out[f"level_delta={level:+g}"] = style.series(lw[ok], la[ok], delta=level)

    for g in GAUGES:
        run = runs[g]
        x, y = run.norm_w[:, 0], run.norm_a[:, 0]
        color, marker = style.GAUGE_COLORS[g], style.GAUGE_MARKERS[g]
        ax.plot(x, y, color=color, lw=1.8, zorder=3, solid_capstyle="round")
        ax.plot(x[0], y[0], ls="none", marker=marker, ms=6.5, color=color, mec=color, zorder=5)
        i = _nearest(run.t, t_mark)
        ax.plot(x[i], y[i], ls="none", marker=marker, ms=3.5, mfc="white", mec=color, mew=0.9, zorder=6)
        # an arrowhead half-way along the path (in log space) shows the direction of motion
        k = int(np.argmin(np.abs(np.log(x * y) - 0.5 * np.log(x[0] * y[0] * x[-1] * y[-1]))))
        ax.annotate(
            "",
            (x[k + 1], y[k + 1]),
            xytext=(x[k - 1], y[k - 1]),
            arrowprops={"arrowstyle": "-|>", "color": color, "lw": 0, "mutation_scale": 9},
            zorder=4,
        )
        delta = float(run.imbalance[0, 0])
        drift = float(np.max(np.abs(y**2 - x**2 - delta)) / max(1.0, abs(delta)))
        out[g] = style.series(
            x,
            y,
            t=run.t,
            delta=delta,
            delta_drift=drift,
            start=[x[0], y[0]],
            end=[x[-1], y[-1]],
            end_coefficient=float(x[-1] * y[-1]),
            at_t_mark=[x[i], y[i]],
            t_spec=run.t_spec,
        )
    # label the level sets near their asymptotes, where they are far apart (mirror images in the
    # diagonal): δ > 0 above |a| ≈ √δ, δ < 0 left of ‖w‖ ≈ √−δ, δ = 0 along the diagonal
    at = 5.0 * lo
    for level in LEVELS:
        text = rf"$\delta={level:+g}$" if level else r"$\delta=0$"
        if level > 0:
            xy, rot, off = (at, np.sqrt(at**2 + level)), 0, (0, 1)
        elif level < 0:
            xy, rot, off = (np.sqrt(at**2 - level), at), 90, (-1, 0)
        else:
            xy, rot, off = (at / 2.5, at / 2.5), 45, (0, 1)
        ax.annotate(
            text,
            xy,
            xytext=off,
            textcoords="offset points",
            ha="left",
            va="bottom",
            rotation=rot,
            rotation_mode="anchor",
            color=style.GUIDE,
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_aspect("equal")
    ax.set_xlabel(style.LABELS["norm_w"])
    ax.set_ylabel(style.LABELS["abs_a"])
    style.panel_label(ax, "a")
    return out


def _panel_functions(ax: Any, runs: dict[str, Any], a_star: float, theta0: float, t_mark: float) -> dict[str, Any]:
    from gaugecli.core.metrics import function_distance

    phi = np.linspace(-np.pi / 2, np.pi, SLICE_POINTS)
    teacher_a, teacher_W = np.array([a_star]), np.array([[1.0, 0.0]])
    y = _on_slice(teacher_a, teacher_W, phi)
    out: dict[str, Any] = {}
    f0 = _on_slice(*_plane_state(runs["favorable"], 0), phi)
    ax.plot(phi, f0, color=style.GUIDE, lw=1.4, zorder=2)
    out["initial"] = style.series(phi, f0, t=0.0)
    ax.plot(phi, y, color=style.THEORY, lw=1.0, ls="--", zorder=3)
    out["teacher"] = style.series(phi, y, a_star=a_star)
    norm_y = float(function_distance(teacher_a, teacher_W, np.zeros(1), teacher_W))
    for g in ("favorable", "unfavorable"):  # balanced is still ≈ f0 then (its place: the open marker in (a))
        run = runs[g]
        i = _nearest(run.t, t_mark)
        a, W = _plane_state(run, i)
        f = _on_slice(a, W, phi)
        ax.plot(
            phi,
            f,
            color=style.GAUGE_COLORS[g],
            lw=1.5,
            marker=style.GAUGE_MARKERS[g],
            markevery=(12 + 7 * GAUGES.index(g), 30),
            ms=3.5,
            zorder=4,
        )
        out[g] = style.series(
            phi,
            f,
            t=float(run.t[i]),
            alignment=float(run.alignment[i, 0]),
            coefficient=float(run.coefficient[i, 0]),
            relative_distance_to_teacher=float(function_distance(a, W, teacher_a, teacher_W)) / norm_y,
        )
    out["t_mark"] = t_mark
    ax.set_xlim(phi[0], phi[-1])
    # ticks name the teacher's direction v (φ = 0) and the initial direction u0 (φ = θ0)
    ticks = {-np.pi / 2: r"$-\pi/2$", 0.0: r"$v$", np.pi / 2: r"$\pi/2$", np.pi: r"$\pi$"}
    ticks[theta0] = r"$u_0$"
    ax.set_xticks(list(ticks), list(ticks.values()))
    ax.set_ylim(-0.03 * a_star, 1.1 * a_star)
    ax.set_yticks([0.0, 0.5 * a_star, a_star])
    ax.set_xlabel(r"input angle $\varphi$, $x=\cos\varphi\,v+\sin\varphi\,\tilde u$")
    ax.set_ylabel(r"prediction $f(x(\varphi))$")
    ax.text(0.98, 0.96, r"at $t=T_{\rm spec}(+D)$", transform=ax.transAxes, ha="right", va="top")
    style.panel_label(ax, "b")
    return out


def _gap_series(plus: Any, minus: Any, a_star: float) -> tuple[np.ndarray, np.ndarray]:
    """``‖f_{+D} − f_{−D}‖ / ‖y‖`` at the union of the two runs' positive stored times ≥ GAP_T_FIRST.

    Both runs store the same declared grid (their horizons agree: equal |δ|), the window times of
    :func:`followups` and their own crossings; a time only one run stores is read in the other by
    linear interpolation of α and c in log t."""
    from gaugecli.core.metrics import function_distance

    t = np.union1d(plus.t[plus.t > 0], minus.t[minus.t > 0])
    t = t[t >= GAP_T_FIRST]

    def state(run: Any) -> tuple[np.ndarray, np.ndarray]:
        alpha = np.interp(np.log(t), np.log(run.t[1:]), run.alignment[1:, 0])
        c = np.interp(np.log(t), np.log(run.t[1:]), run.coefficient[1:, 0])
        W = np.stack([alpha, np.sqrt(np.clip(1.0 - alpha**2, 0.0, None))], axis=-1)[:, None, :]
        return c[:, None], W  # the function c relu(u·x): any gauge of it gives the same distance

    return t, function_distance(*state(plus), *state(minus)) / (abs(a_star) / np.sqrt(2.0))


def _crossings(t: np.ndarray, y: np.ndarray, level: float) -> list[tuple[int, float]]:
    """``(i, t*)`` for each sign change of ``y − level`` between samples ``i`` and ``i + 1``; ``t*`` is
    the root of the linear interpolant in ``ln t`` between them."""
    s = np.sign(y - level)
    out = []
    for i in np.flatnonzero(s[:-1] * s[1:] < 0):
        u0, u1 = np.log(t[i]), np.log(t[i + 1])
        out.append((int(i), float(np.exp(u0 + (level - y[i]) * (u1 - u0) / (y[i + 1] - y[i])))))
    return out


def _window_times(plus: Any, minus: Any, a_star: float) -> tuple[float, ...]:
    """:data:`WINDOW_REFINE` times log-spaced across each stored interval where the gap crosses
    :data:`WINDOW_LEVEL`: stored by both runs, they locate the window's ends from the flows' dense
    output (the linear root between refined samples errs by ~(Δ ln t)²/8 · |gap''|, Δ ln t ≈ 1e-3)."""
    t, gap = _gap_series(plus, minus, a_star)
    times: list[float] = []
    for i, _ in _crossings(t, gap, WINDOW_LEVEL):
        times.extend(np.geomspace(t[i], t[i + 1], WINDOW_REFINE)[1:-1].tolist())
    return tuple(times)


def _panel_gap(ax: Any, runs: dict[str, Any], a_star: float) -> dict[str, Any]:
    t, gap = _gap_series(runs["favorable"], runs["unfavorable"], a_star)
    gap = style.clip_to_floor(gap, GAP_FLOOR)  # once both have converged the gap is round-off: not drawn
    ax.plot(t, gap, color=style.THEORY, lw=1.4, zorder=3)
    out: dict[str, Any] = {"gap": style.series(t, gap)}
    for g in GAUGES:
        ts = runs[g].t_spec
        if ts is not None:
            ax.axvline(ts, color=style.GAUGE_COLORS[g], ls=":", lw=1.0, zorder=1)
            ax.plot(
                [ts],
                [1.08],
                ls="none",
                marker=style.GAUGE_MARKERS[g],
                ms=4,
                color=style.GAUGE_COLORS[g],
                clip_on=False,
                zorder=4,
            )
    peak = int(np.nanargmax(gap))
    out.update(peak=float(gap[peak]), t_peak=float(t[peak]), t_spec={g: runs[g].t_spec for g in GAUGES})
    ends = [root for _, root in _crossings(t, gap, WINDOW_LEVEL)]
    out["window_above_half"] = [ends[0], ends[-1]] if len(ends) >= 2 else None
    ax.set_xscale("log")
    # the stored grid runs to the horizon; the axis ends soon after the gap has fallen to round-off
    resolved = t[np.isfinite(gap)]
    t_right = min(float(t[-1]), 2.0 * float(resolved[-1])) if resolved.size else float(t[-1])
    out["t_axis_end"] = t_right
    ax.set_xlim(GAP_T_FIRST, t_right)
    ax.set_ylim(0.0, 1.15)
    ax.set_yticks([0.0, 0.5, 1.0])
    ax.set_xlabel(style.LABELS["t"])
    ax.set_ylabel(r"$\|f_{+D}-f_{-D}\|\,/\,\|y\|$")
    style.panel_label(ax, "c")
    return out


def _invisibility(runs: dict[str, Any], c0: float, theta0: float) -> dict[str, Any]:
    """C1 as numbers: the initial loss and the initial predictions of every gauge, against
    each other and against the closed form ``f0 = c0 relu(cos(φ − θ0))``."""
    phi = np.linspace(-np.pi, np.pi, SLICE_POINTS)
    closed = c0 * np.maximum(np.cos(phi - theta0), 0.0)
    preds = np.array([_on_slice(*_plane_state(runs[g], 0), phi) for g in GAUGES])
    losses = np.array([runs[g].loss[0] for g in GAUGES])
    scale = float(np.max(np.abs(closed)))
    return {
        "initial_loss": {g: float(v) for g, v in zip(GAUGES, losses, strict=True)},
        "initial_loss_relative_spread": float(np.ptp(losses) / np.max(losses)),
        "initial_prediction_relative_spread": float(np.max(np.ptp(preds, axis=0)) / scale),
        "initial_prediction_vs_closed_form": float(np.max(np.abs(preds - closed)) / scale),
        "initial_coefficient": {g: float(runs[g].coefficient[0, 0]) for g in GAUGES},
    }


def build(inputs: Inputs, layout: Layout) -> tuple[Any, dict[str, Any]]:
    runs = {g: inputs[g] for g in GAUGES}
    model = inputs.configs["favorable"].model
    if any(r.alignment.shape[1] != 1 for r in runs.values()) or model.k != 1:
        raise ValueError("figure 1 reads single-neuron (m = 1) runs with a one-feature teacher")
    t_mark = runs["favorable"].t_spec
    if t_mark is None:
        raise ValueError("figure 1 needs the favorable run to specialize (T_spec(+D) is its time mark)")
    narrow = layout.width < NARROW
    if narrow:  # one column: the plane on top, (b) and (c) below it
        fig, (ax_a, ax_b, ax_c) = style.new_figure(
            layout.width, layout.height(2.1), nrows=3, height_ratios=[1.0, 0.5, 0.5]
        )
    else:  # the plane on the left over two rows, (b) over (c) on the right
        fig, axes = style.new_figure(layout.width, layout.height(0.6), nrows=2, ncols=2, width_ratios=[1.0, 1.1])
        for ax in axes[:, 0]:
            ax.remove()
        ax_a, ax_b, ax_c = fig.add_subplot(axes[0, 1].get_gridspec()[:, 0]), axes[0, 1], axes[1, 1]
    panels = {
        "a": _panel_plane(ax_a, runs, model.c0, model.a_star, t_mark),
        "b": _panel_functions(ax_b, runs, model.a_star, model.theta0, t_mark),
        "c": _panel_gap(ax_c, runs, model.a_star),
    }
    panels["b"]["invisibility"] = _invisibility(runs, model.c0, model.theta0)
    handles = [
        style.line_handle(style.GAUGE_COLORS[g], "-", style.GAUGE_MARKERS[g], style.GAUGE_LABELS[g]) for g in GAUGES
    ]
    handles += [
        style.line_handle("0.3", "none", "o", r"at $t=T_{\rm spec}(+D)$", mfc="white"),
        style.line_handle(style.GUIDE, "-", None, r"initial function $f_0$, every gauge"),
        style.line_handle(style.THEORY, "--", None, r"teacher $y$; (a): $|a|\,\|w\|=a_*$"),
        style.line_handle(style.GUIDE, ":", None, r"$T_{\rm spec}$ of each gauge (c)"),
    ]
    fig.legend(
        handles=handles, loc="outside upper center", ncol=2 if narrow else 3, columnspacing=1.0, handlelength=2.0
    )
    return fig, panels
