"""The heat maps of ``gaugecli phase --figure``: one panel per metric over the two axes, with the
boundaries drawn as contours (outcome-class edges, the gap's C5 level Δ = 0.3, decades of the ±D
ratio, the pruning level of P).

Not a figure of ``gaugecli plot`` (it is not in :data:`gaugecli.plots.FIGURES`): it draws one
``gaugecli.phase/1`` result, whatever its axes. Ordered metrics on a perceptually uniform,
colorblind-safe colormap (cividis); the outcome classes, which have no order, in a qualitative
colorblind-safe palette (:data:`CLASS_COLORS`), the colour bar listing only the classes some cell
has. At the venue's text width, every text at least the venue's small size (≥ 7 pt).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from gaugecli.pipeline import Outcome
from gaugecli.plots import style
from gaugecli.plots.venue import Layout, layout

AXIS_LABELS = {
    "gauge-strength": style.LABELS["D"],
    "gauge": r"imbalance $\delta$ (every neuron)",
    "owner-delta": r"owner's imbalance $\delta_o$",
    "others-delta": r"others' imbalance $\delta_{j\neq o}$",
    "c0": r"initial coefficient $c_0$",
    "theta0": r"initial angle $\theta_0$",
    "eps": style.LABELS["eps"],
    "eta": style.LABELS["eta"],
    "n-samples": style.LABELS["n"],
    "m": style.LABELS["m"],
    "owner": style.LABELS["designated"],
    "weight-decay": r"weight decay $\lambda$",
    "negative-slope": r"leaky slope $\beta$",
    "eps-align": r"alignment threshold $\varepsilon_{\rm align}$",
    "t-max": r"horizon $t_{\max}$",
    "rtol": "solver rtol",
    "d": r"input dimension $d$",
    "k": r"teacher features $k$",
    "momentum": r"momentum $\beta$",
    "beta1": r"Adam's $\beta_1$",
    "beta2": r"Adam's $\beta_2$",
    "init-scale": r"initial scale $\tau$ ($|a|\,\|w\| = \tau^2$)",
}
"""Axis labels in the paper's symbols (an axis not listed is labelled by its option name)."""
METRIC_LABELS = {
    "t-spec": style.LABELS["tspec"],
    "ratio": style.LABELS["ratio"],
    "owner-share": r"owner's share $c_o/\sum_j|c_j|$",
    "p-end": r"non-owner norm $P(t_h)$",
    "outcome": "outcome",
    "reaction-share": r"reaction share $\int R\,/\int(R+T)$",
    "gap": r"clock-free gap $\Delta$",
    "kernel-change": r"kernel change $\|K(t_h)-K(0)\|_F/\|K(0)\|_F$",
    "kernel-distance-cos": r"kernel distance $1-\cos(K(t_h),K(0))$",
    "exponent": r"exponent $d\ln r/d\ln D$ (C4: 2)",
    "constant": r"constant $C=\lim_{D\to\infty} r/D^2$",
    "owner-probability": r"owner probability $P(o\ \mathrm{owns})$",
}
LOG_METRICS = ("t-spec", "ratio", "p-end", "constant")
"""Metrics drawn on a logarithmic colour scale."""
P_FLOOR = 1e-16
"""``P`` below this (an exact 0 for one neuron, round-off) is drawn at this floor."""
CLASS_COLORS = {
    "exclusive": style.BLUE,
    "shared": style.SKY,
    "unpruned": style.YELLOW,
    "lost": style.VERMILLION,
    "no owner": style.GREY,
    "symmetric start": style.PINK,
}
"""The outcome classes (categories, not an order): seaborn's colorblind palette, the hue of each
chosen so that the two owning-but-not-exclusive classes sit near exclusive's blue and failures apart."""
UNDEFINED = "0.85"
"""The colour of cells where a metric is undefined (no T_spec by the horizon, say)."""


def cell_edges(values: np.ndarray, scale: str) -> np.ndarray:
    """Cell edges around the values (midpoints; geometric on a log axis)."""
    v = np.log(values) if scale == "log" else np.asarray(values, float)
    mid = 0.5 * (v[1:] + v[:-1])
    edges = np.concatenate([[v[0] - (mid[0] - v[0])], mid, [v[-1] + (v[-1] - mid[-1])]])
    return np.exp(edges) if scale == "log" else edges


def panel(ax: Any, fig: Any, result: Any, metric: str, sizes: Layout) -> dict[str, Any]:
    """One heat map of ``metric`` on ``ax`` with its colour bar and boundaries (also fig12 (d)'s map)."""
    from matplotlib import colors

    xs, ys = np.asarray(result.x.values), np.asarray(result.y.values)
    Z = result.map(metric)
    cmap = style_cmap()
    ax.set_facecolor(UNDEFINED)
    X, Y = cell_edges(xs, result.x.scale), cell_edges(ys, result.y.scale)
    contours: dict[str, Any] = {}
    norm: Any
    if metric == "outcome":
        # only the classes some cell has, in their declared order, each its own colour
        present = [k for k in range(len(result.outcomes)) if np.any(Z == k)]
        names = [result.outcomes[k] for k in present]
        listed = colors.ListedColormap([CLASS_COLORS.get(name, style.GREY) for name in names])
        rank = np.full(Z.shape, np.nan)
        for slot, k in enumerate(present):
            rank[Z == k] = slot
        norm = colors.BoundaryNorm(np.arange(len(present) + 1) - 0.5, len(present))
        mesh = ax.pcolormesh(X, Y, np.ma.masked_invalid(rank), cmap=listed, norm=norm, shading="flat")
        bar = fig.colorbar(mesh, ax=ax, ticks=np.arange(len(present)))
        bar.ax.set_yticklabels(names)
        bar.ax.tick_params(length=0)
        contours["class_edges"] = _class_edges(ax, X, Y, Z, "white")
        contours["classes_drawn"] = names
    else:
        shown = np.where(Z <= P_FLOOR, P_FLOOR, Z) if metric == "p-end" else Z
        finite = shown[np.isfinite(shown)]
        log = metric in LOG_METRICS and finite.size > 0 and bool(np.all(finite > 0))
        if finite.size == 0:
            norm = None
        elif log:
            norm = colors.LogNorm(vmin=float(finite.min()), vmax=float(max(finite.max(), finite.min() * 1.0001)))
        else:
            norm = colors.Normalize(vmin=float(finite.min()), vmax=float(max(finite.max(), finite.min() + 1e-12)))
        mesh = ax.pcolormesh(X, Y, np.ma.masked_invalid(shown), cmap=cmap, norm=norm, shading="flat")
        bar = fig.colorbar(mesh, ax=ax)
        bar.set_label(METRIC_LABELS[metric], fontsize=sizes.small)
        if metric == "gap":
            contours["gap_level"] = _contour(ax, xs, ys, Z, [result.thresholds["gap_level"]], "white", sizes)
        elif metric == "ratio" and finite.size:
            decades = 10.0 ** np.arange(np.ceil(np.log10(finite.min())), np.floor(np.log10(finite.max())) + 1)
            contours["ratio_levels"] = _contour(ax, xs, ys, Z, list(decades), "white", sizes)
        elif metric == "owner-probability":
            contours["half"] = _contour(ax, xs, ys, Z, [0.5], "white", sizes)
        elif metric == "constant" and finite.size:
            decades = 10.0 ** np.arange(np.ceil(np.log10(finite.min())), np.floor(np.log10(finite.max())) + 1)
            contours["constant_levels"] = _contour(ax, xs, ys, Z, list(decades), "white", sizes)
        elif metric == "p-end":
            contours["pruned_level"] = _contour(ax, xs, ys, shown, [result.thresholds["pruned_level"]], "white", sizes)
        if "outcome" in result.maps and metric in ("owner-share", "p-end"):
            _class_edges(ax, X, Y, result.map("outcome"), "0.3")
    ax.set(
        xscale="log" if result.x.scale == "log" else "linear",
        yscale="log" if result.y.scale == "log" else "linear",
        xlabel=AXIS_LABELS.get(result.x.name, result.x.name),
        ylabel=AXIS_LABELS.get(result.y.name, result.y.name),
        xlim=(X[0], X[-1]),
        ylim=(Y[0], Y[-1]),
    )
    return {"metric": metric, "values": style.tolist(Z), "contours": contours}


def style_cmap() -> Any:
    from matplotlib import colormaps

    return colormaps["cividis"]


def _class_edges(ax: Any, X: np.ndarray, Y: np.ndarray, Z: np.ndarray, color: str) -> int:
    """The edges between cells of different outcome classes, drawn on the cell boundaries (a class
    map has no levels in between to contour); returns how many edge segments were drawn."""
    from matplotlib.collections import LineCollection

    segments = []
    ny, nx = Z.shape
    for iy in range(ny):
        for ix in range(nx):
            if ix + 1 < nx and Z[iy, ix] != Z[iy, ix + 1]:
                segments.append([(X[ix + 1], Y[iy]), (X[ix + 1], Y[iy + 1])])
            if iy + 1 < ny and Z[iy, ix] != Z[iy + 1, ix]:
                segments.append([(X[ix], Y[iy + 1]), (X[ix + 1], Y[iy + 1])])
    ax.add_collection(LineCollection(segments, colors=color, linewidths=0.9))
    return len(segments)


def _contour(
    ax: Any,
    xs: np.ndarray,
    ys: np.ndarray,
    Z: np.ndarray,
    levels: Any,
    color: str,
    sizes: Layout,
    *,
    label: bool = True,
) -> list[float]:
    """Contours of ``Z`` (cell centres) at ``levels`` that the map crosses; returns those drawn."""
    finite = Z[np.isfinite(Z)]
    if finite.size == 0:
        return []
    drawn = [float(v) for v in levels if finite.min() < v < finite.max()]
    if not drawn:
        return []
    lines = ax.contour(xs, ys, np.ma.masked_invalid(Z), levels=drawn, colors=color, linewidths=0.8)
    if label:
        ax.clabel(lines, fmt=lambda v: f"{v:g}", fontsize=sizes.small, inline=True)
    return drawn


def build(result: Any, config: Any, sizes: Layout) -> tuple[Any, dict[str, Any]]:
    """One heat map per metric of ``result`` (a :class:`~gaugecli.experiments.phase.PhaseResult`)."""
    metrics = list(result.metrics)
    ncols = 1 if len(metrics) == 1 else 2
    nrows = -(-len(metrics) // ncols)
    fig, axes = style.new_figure(sizes.width, sizes.width * 0.42 * nrows * (2 / ncols) ** 0.5, nrows=nrows, ncols=ncols)
    flat = np.atleast_1d(axes).ravel()
    panels = {}
    for k, (ax, metric) in enumerate(zip(flat, metrics, strict=False)):
        panels[chr(ord("a") + k)] = panel(ax, fig, result, metric, sizes)
        if len(metrics) > 1:
            style.panel_label(ax, chr(ord("a") + k))
    for ax in flat[len(metrics) :]:
        ax.set_visible(False)
    t = result.thresholds
    start = ", adversarial start" if config.run_base.init == "adversarial" else ""
    n_seeds = len(getattr(result, "seeds", None) or ())
    seeds = "" if not n_seeds else ", one seed" if n_seeds == 1 else f", means over {n_seeds} seeds"
    fig.suptitle(
        f"{config.kind}{start}{seeds}, read at each cell's horizon\n"
        f"aligned: α ≥ 1 − {t['eps_align']:g}; pruned: P ≤ {t['pruned_level']:g}; grey: undefined",
        fontsize=sizes.small,
    )
    return fig, panels


def render(outcome: Outcome, path: Path, sizes: Layout | None = None) -> Path:
    """Draw the maps of a ``phase`` outcome to ``path`` (its format from the suffix)."""
    from gaugecli.plots.render import freeze_layout, save_figure
    from gaugecli.store.artifacts import package_version

    sizes = sizes or layout()
    with style.context(sizes):
        fig, _ = build(outcome.result, outcome.config, sizes)
        freeze_layout(fig)
        save_figure(
            fig,
            path,
            title="gaugecli phase",
            subject=f"config hash {outcome.artifact['config_hash']}",
            version=package_version(),
            flag="--figure",
        )
    return path
