"""Figure 1 — the hidden gauge: invisible at t = 0, decisive later (C1, with C2 made visible).

Three single-neuron (``m = 1``) population-flow runs from the same initial function
``f0 = c0 relu(u0·x)`` in the favorable (``δ = +D``), balanced (``δ = 0``) and unfavorable
(``δ = −D``) gauges, ``D = 4`` (the model's defaults otherwise, docs/theory.md, the model; the runs fig2/fig3/fig6 share).

(a) The ``(‖w‖, |a|)`` plane, log–log: the curve ``|a|‖w‖ = c0`` is the one initial function,
    the hyperbolas ``a² − ‖w‖² = δ`` are the level sets of the imbalance, and each run's path
    (its saved ``norm_w``, ``norm_a``) slides along its own level set (C2) from its start on
    ``|a|‖w‖ = c0`` to the target curve ``|a|‖w‖ = a*``. Open markers: where each run is at
    ``t = T_spec(+D)``.
(b) Predictions on the unit circle of the plane ``span(v, u0)``, ``x(φ) = cos φ v + sin φ ũ``
    (``ũ`` the unit vector of that plane orthogonal to ``v``, so ``u0`` sits at ``φ = θ0``).
    Top, ``t = 0``: the initial predictions of the three gauges overlaid (one dash pattern each),
    with their largest difference printed (C1: round-off). Bottom, ``t = T_spec(+D)``: every run's
    state stored at that time (declared times, from the solver's dense output): the +D student
    has reached the teacher (dashed) while the −D one has barely turned.
(c) The gap between the two students, ``‖f_{+D}(t) − f_{−D}(t)‖ / ‖y‖`` (L² over N(0, I)),
    against t, at the times both runs store: zero at t = 0, of the order of the teacher itself
    between the two specialization times, zero again once both have learned the teacher. The
    window where it exceeds ½ has its ends found by ``brentq`` on the reduced flow's dense output
    (a cached run, :mod:`gaugecli.experiments.reduced_window`); both runs store their states
    there, and the gap the panel reads at the ends is ½ to the solvers' tolerance
    (:mod:`gaugecli.plots._fig1_gap`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gaugecli.plots import style
from gaugecli.plots._fig1_gap import GAP_FLOOR, panel_gap
from gaugecli.plots._fig1_readings import CAPTION, READING, READINGS
from gaugecli.plots.render import Inputs, Need
from gaugecli.plots.venue import Layout

__all__ = ["CAPTION", "GAP_FLOOR", "READING", "READINGS", "build", "followups", "needs"]

SIDECAR_TOLERANCES = (
    ("a/*/delta_drift", 0.0, 1e-8, "round-off of a conserved δ"),
    ("b/invisibility/*", 0.0, 1e-12, "round-off"),
    (
        "c/window/reduced_gap*",
        0.0,
        1e-12,
        "the reduced flow's gap at its own brentq roots: ½ to round-off (|gap − ½| ≤ 1e-15 measured)",
    ),
    ("c/gap*", 1e-6, 1e-5, "masked below 1e-6; near the floor a value may be null on another platform"),
)
"""Per-series tolerances of the regeneration check (:mod:`gaugecli.plots.sidecar`)."""

MAIN_PANELS = ("a", "b", "c")
"""The main-text version is the whole figure (three panels): the claim (b, c) and why it holds (a)."""
CLAIM = "C1 invisibility: one initial function in every gauge, different paths and times later (C2 visible)"
STRENGTH = 4.0
GAUGES = ("favorable", "balanced", "unfavorable")
LEVELS = (-4.0, -1.0, 0.0, 1.0, 4.0)
SLICE_POINTS = 241
NARROW = 4.5
"""Below this width (inches) the panels are stacked in one column."""
INITIAL_DASHES: dict[str, Any] = {"favorable": "-", "balanced": (0, (5.0, 2.5)), "unfavorable": (0, (1.2, 1.8))}
"""(b, top): the three initial predictions coincide; each gauge keeps its own dash pattern so that
all three stay visible on top of each other."""
TARGET_DASHES: Any = (0, (6.0, 2.0, 1.5, 2.0))
"""(a)'s target curve ``|a|‖w‖ = a*``: dash-dot, not the teacher's dashes of (b) (another object)."""


def needs(quick: bool) -> dict[str, Need]:
    """The three ``m = 1`` flow runs at ``D = 4`` with the model's defaults (about 0.4 s together,
    so the quick profile is the full one; the configurations are those fig2, fig3 and fig6 read)."""
    from gaugecli.experiments.simulate import SimulateConfig

    return {g: Need("simulate", SimulateConfig(gauge=g, strengths=(STRENGTH,))) for g in GAUGES}


def _window(inputs: Inputs, quick: bool) -> dict[str, Need]:
    """(c)'s window for the figure's ±D pair, up to the runs' horizon: a run of the reduced flow
    (:mod:`gaugecli.experiments.reduced_window`), configured from the first runs."""
    from gaugecli.experiments.reduced_window import ReducedWindowConfig

    model = inputs.configs["favorable"].model
    horizon = float(inputs["favorable"].t[-1])
    config = ReducedWindowConfig(STRENGTH, model.c0, model.theta0, model.a_star, horizon)
    return {"window": Need("reduced-window", config)}


def _timed(inputs: Inputs, quick: bool) -> dict[str, Need]:
    """The runs again, storing states at declared times read off the first runs (from the solver's
    dense output): the other gauges at ``T_spec(+D)`` (the snapshots of (a) and (b)), the +D run at
    ``T_spec(−D)``, and both ±D runs at the two ends of (c)'s window (so both store every time (c) draws)."""
    from dataclasses import replace

    plus, minus = inputs["favorable"], inputs["unfavorable"]
    if plus.t_spec is None or minus.t_spec is None:
        return {}
    window = inputs["window"].ends or ()
    times = {
        "favorable": (minus.t_spec, *window),
        "balanced": (plus.t_spec,),
        "unfavorable": (plus.t_spec, *window),
    }
    return {g: Need("simulate", replace(inputs.configs[g], times=times[g])) for g in GAUGES}


followups = (_window, _timed)
"""Two stages (:func:`gaugecli.plots.render.figure_inputs`): the window, then the timed runs."""


# ------------------------------------------------------------------------------------------
# the state of a run in the plane (v, ũ)


def _plane_state(run: Any, index: int) -> tuple[np.ndarray, np.ndarray]:
    """``(a, W)`` of an ``m = 1`` run at saved ``index``, in coordinates of the plane ``(v, ũ)``.

    ``RunObservables`` stores ``norm_a``, ``norm_w``, the signed coefficient ``c = a‖w‖`` and the
    alignment ``α = u·v``, not ``W``. The population flow stays in ``span(v, u0)`` (docs/theory.md §5), and
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

    # the curves |a|‖w‖ = c of two functions, labelled where they run: every gauge of f0 (grey)
    # and the coefficient the flow ends at, c = a* (dash-dot near-black)
    curves = (
        ("initial_curve", c0, style.GUIDE, "-", r"$|a|\,\|w\|=c_0$ ($f_0$)", 2.6 * lo, "top", (-3, -3)),
        ("target_curve", a_star, style.THEORY, TARGET_DASHES, r"$|a|\,\|w\|=a_*$", 0.62 * a_star, "bottom", (9, 9)),
    )
    for key, c, color, ls, text, at, va, offset in curves:
        ax.plot(w, c / w, color=color, lw=1.2, ls=ls, zorder=2)
        out[key] = style.series(w, c / w, c=c)
        # along the curve (slope −1 on equal log axes: rotated by −45°), on its empty side
        ax.annotate(
            text,
            (at, c / at),
            xytext=offset,
            textcoords="offset points",
            rotation=-45,
            rotation_mode="anchor",
            ha="left",
            va=va,
            color=color,
        )
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


def _initial_predictions(runs: dict[str, Any], phi: np.ndarray) -> dict[str, np.ndarray]:
    """Each gauge's prediction at ``t = 0`` on the slice, from its own stored state ``(a, w)``."""
    return {g: _on_slice(*_plane_state(runs[g], 0), phi) for g in GAUGES}


def _panel_initial(ax: Any, runs: dict[str, Any], c0: float, phi: np.ndarray, layout: Layout) -> dict[str, Any]:
    """(b, top): the initial predictions of every gauge overlaid, and their largest difference."""
    preds = _initial_predictions(runs, phi)
    out: dict[str, Any] = {}
    for k, g in enumerate(GAUGES):
        ax.plot(
            phi,
            preds[g],
            color=style.GAUGE_COLORS[g],
            lw=1.3,
            ls=INITIAL_DASHES[g],
            marker=style.GAUGE_MARKERS[g],
            markevery=(186 + 14 * k, 240),
            ms=3.2,
            zorder=3 + k,
        )
        out[f"initial-{g}"] = style.series(phi, preds[g], t=0.0, delta=float(runs[g].imbalance[0, 0]))
    stacked = np.array([preds[g] for g in GAUGES])
    spread = float(np.max(np.ptp(stacked, axis=0)))
    out["invisibility"] = {"drawn_max_difference": spread}  # printed; build adds the rest of C1
    ax.set_ylim(-0.08 * c0, 1.45 * c0)
    ax.set_yticks([0.0, c0])
    ax.yaxis.set_major_formatter(_plain())
    style.note(
        ax,
        r"$t=0$: every gauge;" + "\n" + rf"spread ${_sci(spread)}$",
        (0.01, 0.97),
        layout,
        xycoords="axes fraction",
        va="top",
        color=None,
    )
    ax.set_ylabel(r"$f_0(x(\varphi))$")
    return out


def _sci(value: float) -> str:
    """``2.8\\times10^{-17}`` in mathtext (``0`` for an exact zero)."""
    if value == 0.0:
        return "0"
    mantissa, exponent = f"{value:.1e}".split("e")
    return rf"{mantissa}\times10^{{{int(exponent)}}}"


def _plain() -> Any:
    from matplotlib.ticker import FuncFormatter

    return FuncFormatter(lambda v, _pos: f"{v:g}")


def _panel_functions(
    ax: Any, runs: dict[str, Any], a_star: float, phi: np.ndarray, t_mark: float, layout: Layout
) -> dict[str, Any]:
    """(b, bottom): the ±D students at ``t = T_spec(+D)``, both stored at that time, and the teacher."""
    from gaugecli.core.model.metrics import function_distance

    teacher_a, teacher_W = np.array([a_star]), np.array([[1.0, 0.0]])
    y = _on_slice(teacher_a, teacher_W, phi)
    out: dict[str, Any] = {}
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
    ax.set_ylim(-0.03 * a_star, 1.1 * a_star)
    ax.set_yticks([0.0, 0.5 * a_star, a_star])
    ax.yaxis.set_major_formatter(_plain())
    style.note(
        ax,
        rf"$t=T_{{\rm spec}}(+D)={t_mark:.3f}$",
        (0.99, 0.96),
        layout,
        xycoords="axes fraction",
        ha="right",
        va="top",
        color=None,
    )
    return out


def _slice_axis(ax: Any, phi: np.ndarray, theta0: float, labelled: bool, layout: Layout) -> None:
    """The angle φ on the slice, ticked in angles; thin guides at the teacher's direction ``v``
    (φ = 0) and at ``u0`` (φ = θ0), named at the bottom of the lower axes (``labelled``)."""
    ax.set_xlim(phi[0], phi[-1])
    ticks = {-np.pi / 2: r"$-\pi/2$", 0.0: "0", np.pi / 2: r"$\pi/2$", np.pi: r"$\pi$"}
    ax.set_xticks(list(ticks), list(ticks.values()) if labelled else [])
    for at, name in ((0.0, r"$v$"), (theta0, r"$u_0$")):
        ax.axvline(at, color=style.GUIDE, ls=":", lw=0.7, zorder=0)
        if labelled:
            # under the teacher's peak, above the students: a height no curve crosses at either guide
            style.note(ax, name, (at, 0.6), layout, offset=(2, 0), xycoords=("data", "axes fraction"), va="bottom")
    if labelled:
        ax.set_xlabel(r"angle $\varphi$ of $x=\cos\varphi\,v+\sin\varphi\,\tilde u$")


def _invisibility(runs: dict[str, Any], c0: float, theta0: float) -> dict[str, Any]:
    """C1 as numbers: the initial loss and the initial predictions of every gauge, against
    each other and against the closed form ``f0 = c0 relu(cos(φ − θ0))``."""
    phi = np.linspace(-np.pi, np.pi, SLICE_POINTS)
    closed = c0 * np.maximum(np.cos(phi - theta0), 0.0)
    preds = np.array(list(_initial_predictions(runs, phi).values()))
    losses = np.array([runs[g].loss[0] for g in GAUGES])
    scale = float(np.max(np.abs(closed)))
    return {
        "initial_loss": {g: float(v) for g, v in zip(GAUGES, losses, strict=True)},
        "initial_loss_relative_spread": float(np.ptp(losses) / np.max(losses)),
        "initial_prediction_max_difference": float(np.max(np.ptp(preds, axis=0))),
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
        fig, (ax_a, ax_b0, ax_b1, ax_c) = style.new_figure(
            layout.width, layout.height(2.3), nrows=4, height_ratios=[1.0, 0.3, 0.5, 0.5]
        )
    else:  # the plane on the left; on the right (b)'s two states over (c), a grid of their own
        fig, (ax_a, right) = style.new_figure(layout.width, layout.height(0.72), ncols=2, width_ratios=[1.0, 1.0])
        column = right.get_subplotspec().subgridspec(3, 1, height_ratios=[0.6, 1.0, 1.0])
        right.remove()
        ax_b0, ax_b1, ax_c = (fig.add_subplot(column[i]) for i in range(3))
    ax_b1.set_label("b-at-t_mark")  # the second axes of panel (b): its label, for the tests
    phi = np.linspace(-np.pi / 2, np.pi, SLICE_POINTS)
    panels = {
        "a": _panel_plane(ax_a, runs, model.c0, model.a_star, t_mark),
        "b": {
            **_panel_initial(ax_b0, runs, model.c0, phi, layout),
            **_panel_functions(ax_b1, runs, model.a_star, phi, t_mark, layout),
        },
        "c": panel_gap(ax_c, runs, model.a_star, inputs["window"], inputs.configs["window"].level, layout),
    }
    _slice_axis(ax_b0, phi, model.theta0, labelled=False, layout=layout)
    _slice_axis(ax_b1, phi, model.theta0, labelled=True, layout=layout)
    ax_b1.set_ylabel(r"$f(x(\varphi))$")
    style.panel_label(ax_b0, "b")
    panels["b"]["invisibility"].update(_invisibility(runs, model.c0, model.theta0))
    handles = [
        style.line_handle(style.GAUGE_COLORS[g], "-", style.GAUGE_MARKERS[g], style.GAUGE_LABELS[g]) for g in GAUGES
    ]
    handles += [
        style.line_handle("0.3", "none", "o", r"(a): state at $t=T_{\rm spec}(+D)$", mfc="white"),
        style.line_handle(style.THEORY, "--", None, r"(b): teacher $y=a_*\,{\rm relu}(v\cdot x)$"),
        style.line_handle(style.GUIDE, ":", None, r"(c): $T_{\rm spec}$ of each gauge"),
    ]
    fig.legend(
        handles=handles,
        loc="outside upper center",
        ncol=2 if narrow else 3,
        columnspacing=1.0,
        handlelength=2.0,
        title=rf"$m=1$, gauge strength $D={STRENGTH:g}$, $c_0={model.c0:g}$, $\theta_0=\pi/2$"
        if np.isclose(model.theta0, np.pi / 2)
        else rf"$m=1$, gauge strength $D={STRENGTH:g}$, $c_0={model.c0:g}$, $\theta_0={model.theta0:.3g}$",
    )
    panels["key"] = {
        "D": STRENGTH,
        "t_spec": {g: runs[g].t_spec for g in GAUGES},
        "window_above_half": panels["c"]["window_above_half"],
        "delta_drift_max": max(panels["a"][g]["delta_drift"] for g in GAUGES),
    }
    return fig, panels
