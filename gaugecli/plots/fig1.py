"""Figure 1 — the hidden gauge.

(a) The (‖w‖, |a|) plane of one neuron: the curve ``|a|‖w‖ = c0`` is a single function
``c0 relu(u0·x)``; the level sets of ``δ = a² − ‖w‖²`` cut it once each, at the favorable
(``δ = +D``), balanced (``δ = 0``) and unfavorable (``δ = −D``) points.
(b) The initial predictions of every gauge and of ``m = 1`` and ``m = 5`` duplicates on the
1-D slice ``x(s) = s u0 + v``: all identical (claim C1).

No integration: the data are closed forms (:func:`closed_form_data`) of
:mod:`gaugecli.core.gauge` and :mod:`gaugecli.core.dynamics`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gaugecli.plots import style

STRENGTH = 4.0
MS = (1, 5)
LEVELS = (-4.0, -1.0, 0.0, 1.0, 4.0)
GAUGES = ("favorable", "balanced", "unfavorable")


def requirements(quick: bool) -> list[Any]:
    """None: figure 1 is closed form."""
    return []


def closed_form_data(quick: bool = False) -> dict[str, Any]:
    """The plane and slice data of figure 1 at the SPEC defaults (``d = 16``, ``c0 = 0.1``,
    ``θ0 = π/2``, ``D = 4``), computed from closed forms, no integration."""
    from gaugecli.core.dynamics import population_loss
    from gaugecli.core.gauge import duplicate_initial_condition, gauge_imbalance, initial_direction
    from gaugecli.experiments.common import ModelConfig

    model = ModelConfig()
    teacher = model.teacher()
    c0, D = model.c0, STRENGTH
    u0 = initial_direction(teacher, model.theta0)
    v = teacher.unit_directions()[0]

    points = {}
    for g in GAUGES:
        delta = gauge_imbalance(g, D)
        a, W = duplicate_initial_condition(teacher, np.array([delta]), c0, model.theta0)
        points[g] = {"delta": delta, "norm_w": float(np.linalg.norm(W[0])), "abs_a": float(abs(a[0]))}

    s = np.linspace(-2.0, 2.0, 201)
    X = s[:, None] * u0[None, :] + v[None, :]  # x(s) = s u0 + v
    predictions, losses = {}, {}
    for g in GAUGES:
        for m in MS:
            deltas = np.full(m, gauge_imbalance(g, D))
            a, W = duplicate_initial_condition(teacher, deltas, c0, model.theta0)
            predictions[f"{g}-m{m}"] = (np.maximum(X @ W.T, 0.0) @ a).tolist()
            losses[f"{g}-m{m}"] = float(population_loss(a, W, teacher))
    return {
        "parameters": {"d": model.d, "c0": c0, "theta0": model.theta0, "strength": D, "ms": list(MS)},
        "plane": {"c0": c0, "strength": D, "levels": list(LEVELS), "points": points},
        "slice": {"s": s.tolist(), "predictions": predictions, "initial_loss": losses},
    }


def build(data: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    plane, sl = data["plane"], data["slice"]
    c0, D = float(plane["c0"]), float(plane["strength"])
    fig, (ax_a, ax_b) = style.new_figure(style.TWO_COLUMN, 3.3, ncols=2, width_ratios=[1.0, 1.25])
    panels: dict[str, Any] = {"a": {}, "b": {}}

    # (a) the (‖w‖, |a|) plane
    top = 2.4
    w = np.linspace(1e-3, top, 600)
    for level in plane["levels"]:
        a_sq = w**2 + level
        ok = a_sq >= 0
        ww, aa = w[ok], np.sqrt(a_sq[ok])
        gauge = style.gauge_of(level)
        color = style.GAUGE_COLORS[gauge] if abs(level) == D or level == 0 else "0.6"
        ax_a.plot(ww, aa, color=color, lw=0.8, ls=(0, (4, 2)), alpha=0.9, zorder=1)
        panels["a"][f"delta={level:g}"] = style.series(ww, aa, delta=level)
        # label where the level set leaves the box: through the top (δ > 0) or the right side (δ ≤ 0)
        text = rf"$\delta={level:+g}$" if level else r"$\delta=0$"
        if level > 0:
            ax_a.text(np.sqrt(top**2 - level), top, text, color=color, fontsize=6.5, ha="center", va="bottom")
        else:
            ax_a.text(top, np.sqrt(top**2 + level), " " + text, color=color, fontsize=6.5, ha="left", va="center")
    hyper_w = np.geomspace(c0 / top, top, 400)
    hyper_a = c0 / hyper_w
    ax_a.plot(hyper_w, hyper_a, color="0.1", lw=1.6, zorder=2, label=rf"one function: $|a|\,\|w\| = c_0 = {c0:g}$")
    panels["a"]["hyperbola"] = style.series(hyper_w, hyper_a, c0=c0)
    for g in GAUGES:
        p = plane["points"][g]
        ax_a.plot(
            p["norm_w"],
            p["abs_a"],
            ls="none",
            marker=style.GAUGE_MARKERS[g],
            ms=7,
            mec="white",
            mew=0.8,
            color=style.GAUGE_COLORS[g],
            zorder=3,
            label=style.GAUGE_LABELS[g].replace("D", f"{D:g}"),
        )
        panels["a"][g] = style.series([p["norm_w"]], [p["abs_a"]], delta=p["delta"])
    ax_a.set_xlim(0, top)
    ax_a.set_ylim(0, top)
    ax_a.set_aspect("equal")
    ax_a.set_xlabel(style.LABELS["norm_w"])
    ax_a.set_ylabel(style.LABELS["abs_a"])
    ax_a.legend(
        loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize=6.5, handlelength=1.5, columnspacing=1.0
    )
    style.panel_label(ax_a, "a")

    # (b) initial predictions on the slice x(s) = s u0 + v
    s = style.as_array(sl["s"])
    preds = {k: style.as_array(v) for k, v in sl["predictions"].items()}
    linestyles = {1: "-", 5: (0, (1.5, 1.5))}
    n_curves = len(preds)
    for i, (key, y) in enumerate(preds.items()):
        gauge, m = key.rsplit("-m", 1)
        m = int(m)
        ax_b.plot(
            s,
            y,
            color=style.GAUGE_COLORS[gauge],
            ls=linestyles.get(m, "--"),
            lw=2.6 - 0.35 * i,
            marker=style.GAUGE_MARKERS[gauge],
            markevery=(8 + 5 * i, 12 * n_curves),
            ms=3.5,
            alpha=0.9,
            label=f"{gauge}, $m={m}$",
        )
        panels["b"][key] = style.series(s, y, initial_loss=sl["initial_loss"][key])
    stack = np.array(list(preds.values()))
    spread = float(np.max(np.max(stack, axis=0) - np.min(stack, axis=0)))
    losses = np.array(list(sl["initial_loss"].values()))
    loss_spread = float((losses.max() - losses.min()) / losses.max())
    panels["b"]["max_spread"] = spread
    panels["b"]["loss_relative_spread"] = loss_spread
    ax_b.text(
        0.03,
        0.97,
        f"max spread of $f_0$: {spread:.1e}\n"
        rf"$\mathcal{{L}}(0) = {losses[0]:.6f}$ for all, $D = {D:g}$" + "\n" + f"(relative spread {loss_spread:.1e})",
        transform=ax_b.transAxes,
        va="top",
        ha="left",
        fontsize=6.5,
    )
    ax_b.set_xlabel(style.LABELS["slice"] + r"  [$x(s) = s\,u_0 + v$]")
    ax_b.set_ylabel(style.LABELS["prediction"])
    ax_b.legend(
        loc="upper center", bbox_to_anchor=(0.5, -0.2), fontsize=6.5, ncol=3, columnspacing=1.0, handlelength=2.5
    )
    style.panel_label(ax_b, "b")
    return fig, panels
