"""Figure ``kunin`` — Kunin et al.'s rich/lazy grid in their setting, from our command line.

Their two-layer ReLU grid (Kunin et al. 2024, figure 1(b)'s axes: the initial scale τ across on a log
scale, the imbalance δ = a² − ‖w‖² up, their sign convention), every other of their 17 × 17 values:
each cell ``phase --preset kunin`` (``simulate --mode sample-gd --init paired --teacher random --inputs
sphere``, m = 50, n = 1000, d = 100, k = 3, η = 1e-2/τ², their lr = 5e-3/τ²), read at step 10⁴, one
run per seed and cell. Their measurement is the kernel distance S = 1 − cos(K_t, K_0) of the empirical
NTK on the training set (:mod:`gaugecli.core.analyses.rich_lazy`).

(a) S, the mean over the seeds, on a logarithmic colour scale, with the contours of the calls of
    docs/howto/kunin.md (rich: S ≥ :data:`RICH`; lazy: S < :data:`LAZY`) and a marker at each of the six
    cells run against their own code (:data:`CELLS`; docs/data/kunin-cells.json). (b) The seed-to-seed
    spread: the sample standard deviation of S over the seeds over its mean. (c) S against τ along the
    cells' three imbalances, the seeds' range shaded. (d) S against δ at the cells' three scales.

Outside ``plot all``'s budget (each seed's 81 runs cost a quarter of a CPU-hour: tools/figure_costs.json):
``plot kunin`` reads the committed runs (figures/data/kunin) or runs them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from gaugecli.plots import style
from gaugecli.plots.phase_map import AXIS_LABELS
from gaugecli.plots.readings import Reading
from gaugecli.plots.render import Inputs, Need
from gaugecli.plots.venue import Layout

if TYPE_CHECKING:
    from matplotlib.typing import LineStyleType

REGENERATE = "gaugecli plot kunin --workers 1 --cache-dir figures/data/kunin --out-dir figures"
"""Redraws the figure from its committed runs (figures/data/kunin: one ``phase`` artifact per seed and
its points) in seconds; without them the same command reruns the grid, each cell cached as it finishes —
``--workers 1``: a prefetch worker would run the grid without the point cache, so an interrupted grid
would not resume."""
GRID_X = "init-scale=0.1:1.995:9:log"
"""Every other of their ``np.logspace(-1, 0.3, 17)`` (the preset's τ axis)."""
GRID_Y = "gauge=-1:1:9"
"""Every other of their 17 imbalances δ ∈ [−1, 1]."""
STUDY_SEEDS = (100, 101, 102)
"""Seeds of the committed grid (their seeds start at 100): as many as the shared two-core machine ran in
the time there was (the caption prints their count from the data)."""
QUICK_SEEDS = (100, 101)
"""The quick profile's seeds (``kunin-quick``: 3 × 3 cells of a small setting, seconds)."""
CELLS = ((0.1, -1.0), (0.1, 0.0), (0.1, 1.0), (0.447, -1.0), (0.447, 1.0), (1.995, 0.0))
"""(τ, δ) of the six cells run beside their own code (issue 54; tools/kunin_cells.py's ``CELLS``)."""
CELL_RTOL = 0.01
"""A cell of :data:`CELLS` is marked at the grid's cell within 1 % of its τ (their τ = 0.447 is the grid's
10^−0.35 = 0.4467, printed to three digits) and δ; the quick grid holds only some of them."""
RICH, LAZY = 0.1, 0.01
"""The calls of docs/howto/kunin.md (tools/kunin_cells.py's ``RICH``, ``LAZY``): rich where S ≥ 0.1 (the
kernel turned by more than 26°), lazy where S < 0.01 (less than 8°)."""
METRIC = "kernel-distance-cos"
HEIGHT = 0.78
"""Height over width: two rows of panels, the maps with their colour bars."""
CELL_MARKER = {"marker": "o", "ms": 4.5, "mfc": "none", "mec": "white", "mew": 1.1, "ls": "none"}
TITLES = {"a": "mean", "b": "spread", "c": r"along $\tau$", "d": r"along $\delta$"}
"""Short: each sits right of its panel's letter, above a map narrowed by its colour bar."""

CLAIM = (
    "Kunin et al.'s grid from our command line: the kernel turns (rich) at small τ for every δ and stays "
    "lazy at large τ; at the smallest τ it turns most at negative δ"
)
READINGS = (
    Reading("Seeds", "panels/key/seeds", ".0f", "seeds per cell"),
    Reading("TheirSeeds", "panels/key/their_seeds", ".0f", "seeds per cell of their grid (the kunin preset's)"),
    Reading("Cells", "panels/key/cells", ".0f", "cells of the grid"),
    Reading("Steps", "panels/key/steps", ".0f", "GD steps at which S is read"),
    Reading("Rich", "panels/key/rich", ".1f", "the rich call: S at least this"),
    Reading("Lazy", "panels/key/lazy", ".2f", "the lazy call: S below this"),
    Reading("RichTo", "panels/key/rich_to", ".3g", "the largest τ rich at every δ"),
    Reading("LazyFrom", "panels/key/lazy_from", ".3g", "the smallest τ lazy at every δ"),
    Reading("PeakS", "panels/key/peak", ".2f", "the largest mean S of any cell"),
    Reading("PeakTau", "panels/key/peak_tau", ".3g", "its τ"),
    Reading("PeakDelta", "panels/key/peak_delta", ".2f", "its δ"),
    Reading("SmallNegative", "panels/key/small_tau_negative", ".2f", "mean S over δ < 0 at the smallest τ"),
    Reading("SmallPositive", "panels/key/small_tau_positive", ".2f", "mean S over δ > 0 at the smallest τ"),
    Reading("LargeS", "panels/key/large_tau_max", ".1e", "the largest mean S at the largest τ"),
    Reading("SpreadMedian", "panels/key/spread_median", ".2f", "median over the cells of the spread sd/mean"),
    Reading("SpreadMax", "panels/key/spread_max", ".2f", "the largest spread sd/mean of any cell"),
    Reading("CallsAgree", "panels/key/calls_agree", ".0%", "cells whose call (rich, between, lazy) no seed changes"),
)
"""The numbers the caption and the reading quote (:mod:`gaugecli.plots.readings`)."""
CAPTION = (
    "**On Kunin et al.'s grid, run from our command line in their setting, the kernel turns at small τ "
    "and stays lazy at large τ, at every δ.** Their kernel distance S at step {Steps}, {Cells} cells "
    "(τ across, δ up: their figure 1(b)'s axes), the mean of {Seeds} seeds per cell (theirs: {TheirSeeds}). "
    "(a) S: rich (S ≥ {Rich}) at every δ up to τ = {RichTo}, lazy (S < {Lazy}) at every δ from "
    "τ = {LazyFrom} on; the largest, {PeakS}, at τ = {PeakTau}, δ = {PeakDelta}; circles: the six cells "
    "run against their code; (b) the spread sd/mean over the seeds; (c), (d) S along the six cells' "
    "rows and columns, the seeds' range shaded."
)
"""The gallery's caption: ``{Name}`` fields are :data:`READINGS`."""
READING = (
    "At the smallest τ the kernel turns by more on the negative side of δ (mean S {SmallNegative} over "
    "δ < 0, {SmallPositive} over δ > 0): a neuron heavier in its input weights than in its output weight "
    "(their 'upstream' initialisation) moves the kernel most, and the largest S of the grid is at "
    "δ = {PeakDelta}. Along τ every δ crosses from rich to lazy between τ = {RichTo} and τ = {LazyFrom}; "
    "at the largest τ no cell exceeds S = {LargeS}. The seed-to-seed spread sd/mean has median "
    "{SpreadMedian} over the cells and reaches {SpreadMax}; the call (rich, between, lazy) is the same for "
    "every seed in {CallsAgree} of the cells."
)
"""The gallery's longer reading, collapsed under the caption: ``{Name}`` fields are :data:`READINGS`."""


def needs(quick: bool) -> dict[str, Need]:
    """One ``phase`` map per seed (a seed's map caches by itself, so the committed grid grows a seed at a
    time). Full: the ``kunin`` preset on :data:`GRID_X` × :data:`GRID_Y` at :data:`STUDY_SEEDS` (CPU-hours;
    committed in figures/data/kunin). Quick: the ``kunin-quick`` preset (3 × 3 small cells) at
    :data:`QUICK_SEEDS` (seconds)."""
    from gaugecli.experiments.phase import preset_config

    if quick:
        return {f"seed{s}": Need("phase", preset_config("kunin-quick", seeds=(s,))) for s in QUICK_SEEDS}
    return {f"seed{s}": Need("phase", preset_config("kunin", x=GRID_X, y=GRID_Y, seeds=(s,))) for s in STUDY_SEEDS}


def seed_maps(inputs: Inputs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(τ values, δ values, S)`` with ``S[s, iy, ix]`` the map of the ``s``-th seed: the seeds' maps
    share their axes (one configuration but the seed)."""
    results = [inputs[name] for name in inputs.results]
    taus, deltas = np.asarray(results[0].x.values, float), np.asarray(results[0].y.values, float)
    for r in results[1:]:
        assert r.x.values == results[0].x.values and r.y.values == results[0].y.values
    return taus, deltas, np.stack([r.map(METRIC) for r in results])


def marked_cells(taus: np.ndarray, deltas: np.ndarray) -> list[tuple[int, int]]:
    """``(iy, ix)`` of each of :data:`CELLS` that is a cell of the grid (within :data:`CELL_RTOL`)."""
    out = []
    for tau, delta in CELLS:
        ix = int(np.argmin(np.abs(np.log(taus / tau))))
        iy = int(np.argmin(np.abs(deltas - delta)))
        if abs(taus[ix] / tau - 1.0) <= CELL_RTOL and abs(deltas[iy] - delta) <= CELL_RTOL:
            out.append((iy, ix))
    return out


def _heat_map(ax: Any, fig: Any, taus: np.ndarray, deltas: np.ndarray, Z: np.ndarray, norm: Any, label: str) -> None:
    from gaugecli.plots.phase_map import cell_edges, style_cmap

    X, Y = cell_edges(taus, "log"), cell_edges(deltas, "linear")
    ax.set_facecolor("0.85")  # undefined cells (one seed: no spread)
    mesh = ax.pcolormesh(X, Y, np.ma.masked_invalid(Z), cmap=style_cmap(), norm=norm, shading="flat")
    bar = fig.colorbar(mesh, ax=ax, pad=0.02)
    bar.set_label(label)
    ax.set(xscale="log", xlim=(X[0], X[-1]), ylim=(Y[0], Y[-1]), xlabel=AXIS_LABELS["init-scale"])
    ax.set_ylabel(r"imbalance $\delta$")


def _cells(ax: Any, taus: np.ndarray, deltas: np.ndarray, cells: list[tuple[int, int]], values: np.ndarray) -> Any:
    x = [float(taus[ix]) for _, ix in cells]
    y = [float(deltas[iy]) for iy, _ in cells]
    ax.plot(x, y, **CELL_MARKER)
    return style.series(x, y, S=[float(values[iy, ix]) for iy, ix in cells])


def _panel_mean(ax: Any, fig: Any, taus: np.ndarray, deltas: np.ndarray, S: np.ndarray, cells: Any) -> dict[str, Any]:
    from matplotlib import colors

    mean = S.mean(axis=0)
    norm = colors.LogNorm(vmin=float(np.nanmin(mean)), vmax=float(np.nanmax(mean)))
    _heat_map(ax, fig, taus, deltas, mean, norm, "mean $S$")
    drawn = [v for v in (LAZY, RICH) if np.nanmin(mean) < v < np.nanmax(mean)]
    if drawn:  # lazy dashed, rich solid, as the guides of (c) and (d)
        ax.contour(taus, deltas, mean, levels=drawn, colors="white", linewidths=0.9,
                   linestyles=["--" if v == LAZY else "-" for v in drawn])  # fmt: skip
    return {"tau": taus.tolist(), "delta": deltas.tolist(), "mean": style.tolist(mean), "contours": drawn,
            "cells": _cells(ax, taus, deltas, cells, mean)}  # fmt: skip


def calls_of(S: np.ndarray) -> np.ndarray:
    """The call of each value of ``S``: 2 rich (S ≥ :data:`RICH`), 0 lazy (S < :data:`LAZY`), 1 between."""
    return np.where(S >= RICH, 2, np.where(S < LAZY, 0, 1))


def spread(S: np.ndarray) -> np.ndarray:
    """The seed-to-seed spread of each cell: the sample standard deviation over the seeds over the mean
    (NaN with one seed)."""
    if S.shape[0] < 2:
        return np.full(S.shape[1:], np.nan)
    return S.std(axis=0, ddof=1) / S.mean(axis=0)


def _panel_spread(ax: Any, fig: Any, taus: np.ndarray, deltas: np.ndarray, S: np.ndarray, cells: Any) -> dict[str, Any]:
    from matplotlib import colors

    rel = spread(S)
    finite = rel[np.isfinite(rel)]
    norm = colors.Normalize(vmin=0.0, vmax=float(finite.max()) if finite.size else 1.0)
    _heat_map(ax, fig, taus, deltas, rel, norm, r"sd$\,/\,$mean of $S$")
    if not finite.size:
        ax.text(0.5, 0.5, "one seed: no spread", transform=ax.transAxes, ha="center", va="center")
    return {"spread": style.tolist(rel), "cells": _cells(ax, taus, deltas, cells, rel)}


def _band(ax: Any, x: np.ndarray, S: np.ndarray, color: str, label: str) -> dict[str, Any]:
    """The mean over the seeds (a line with markers) and their range (shaded); ``S`` is ``(seeds, len(x))``."""
    mean, low, high = S.mean(axis=0), S.min(axis=0), S.max(axis=0)
    ax.fill_between(x, low, high, color=color, alpha=0.25, lw=0)
    ax.plot(x, mean, color=color, marker="o", ms=2.5, lw=1.0, label=label)
    return style.series(x, mean, low=low, high=high)


def _signed(value: float) -> str:
    return "0" if value == 0 else f"{value:+g}"


CALLS: tuple[tuple[float, LineStyleType, str], ...] = (
    (RICH, "-", rf"rich: $S\geq{RICH:g}$"),
    (LAZY, "--", rf"lazy: $S<{LAZY:g}$"),
)
"""The calls' guides: level, line style, legend label."""


def _calls(ax: Any) -> None:
    for level, ls, _ in CALLS:
        ax.axhline(level, color=style.GUIDE, lw=0.7, ls=ls)


def _panel_along_tau(ax: Any, taus: np.ndarray, deltas: np.ndarray, S: np.ndarray) -> dict[str, Any]:
    """S against τ at each δ of :data:`CELLS` that is a row of the grid, coloured by its gauge."""
    out = {}
    for delta in sorted({d for _, d in CELLS}):
        iy = int(np.argmin(np.abs(deltas - delta)))
        if abs(deltas[iy] - delta) > CELL_RTOL:
            continue
        color = style.GAUGE_COLORS[style.gauge_of(delta)]
        out[f"delta{delta:+g}"] = _band(ax, taus, S[:, iy, :], color, rf"$\delta={_signed(delta)}$")
    _calls(ax)
    ax.set(xscale="log", yscale="log", xlabel=AXIS_LABELS["init-scale"], ylabel="$S$")
    return out


def _panel_along_delta(ax: Any, taus: np.ndarray, deltas: np.ndarray, S: np.ndarray) -> dict[str, Any]:
    """S against δ at each τ of :data:`CELLS` that is a column of the grid (sequential colours)."""
    columns = [int(np.argmin(np.abs(np.log(taus / t)))) for t in sorted({t for t, _ in CELLS})]
    columns = [ix for ix in dict.fromkeys(columns) if any(abs(taus[ix] / t - 1.0) <= CELL_RTOL for t, _ in CELLS)]
    out = {}
    for ix, color in zip(columns, style.sequential_colors(len(columns)), strict=True):
        out[f"tau{taus[ix]:.4g}"] = _band(ax, deltas, S[:, :, ix], color, rf"$\tau={taus[ix]:.4g}$")
    _calls(ax)
    ax.set(yscale="log", xlabel=r"imbalance $\delta$", ylabel="$S$")
    return out


def build(inputs: Inputs, layout: Layout) -> tuple[Any, dict[str, Any]]:
    import matplotlib

    taus, deltas, S = seed_maps(inputs)
    cells = marked_cells(taus, deltas)
    fig, grid = style.new_figure(layout.width, layout.height(HEIGHT), nrows=2, ncols=2)
    axes = dict(zip("abcd", grid.ravel(), strict=True))
    with matplotlib.rc_context({"font.size": layout.small}):
        panels = {
            "a": _panel_mean(axes["a"], fig, taus, deltas, S, cells),
            "b": _panel_spread(axes["b"], fig, taus, deltas, S, cells),
            "c": _panel_along_tau(axes["c"], taus, deltas, S),
            "d": _panel_along_delta(axes["d"], taus, deltas, S),
        }
    for letter, ax in axes.items():
        style.panel_label(ax, layout.label(letter))
        ax.set_title(TITLES[letter], loc="right", fontsize=layout.small, pad=3)
    handles = [
        *(h for letter in "cd" for h in axes[letter].get_legend_handles_labels()[0]),
        *(style.line_handle(style.GUIDE, ls, None, label) for _, ls, label in CALLS),
        style.line_handle("0.3", "none", "o", "cells run by their code too", mfc="none", mew=1.1),
    ]
    fig.legend(handles=handles, loc="outside lower center", ncol=5, columnspacing=1.0, handlelength=1.8)
    panels["legend"] = {"labels": [h.get_label() for h in handles]}
    panels["key"] = key_numbers(taus, deltas, S, list(inputs.configs.values()))
    return fig, panels


def key_numbers(taus: np.ndarray, deltas: np.ndarray, S: np.ndarray, configs: list[Any]) -> dict[str, Any]:
    """The numbers the gallery quotes (:data:`READINGS`), from the seeds' maps ``S[s, iy, ix]`` and their
    ``configs`` (one per seed)."""
    from gaugecli.experiments.phase import PRESETS

    mean, rel = S.mean(axis=0), spread(S)
    calls = calls_of(S)
    rich_at = np.all(mean >= RICH, axis=0)  # per τ: rich at every δ
    lazy_at = np.all(mean < LAZY, axis=0)
    iy, ix = np.unravel_index(int(np.nanargmax(mean)), mean.shape)
    finite = rel[np.isfinite(rel)]
    checkpoints = configs[0].base.checkpoints
    return {
        "seeds": int(S.shape[0]),
        "their_seeds": len(PRESETS["kunin"].seeds or ()),
        "calls_agree": float(np.mean(np.all(calls == calls[0], axis=0))),
        "cells": int(mean.size),
        "steps": None if not checkpoints else float(max(checkpoints)),
        "rich": RICH,
        "lazy": LAZY,
        "rich_to": float(taus[rich_at].max()) if rich_at.any() else None,
        "lazy_from": float(taus[lazy_at].min()) if lazy_at.any() else None,
        "peak": float(mean[iy, ix]),
        "peak_tau": float(taus[ix]),
        "peak_delta": float(deltas[iy]),
        "small_tau_negative": float(mean[deltas < 0, 0].mean()),
        "small_tau_positive": float(mean[deltas > 0, 0].mean()),
        "large_tau_max": float(mean[:, -1].max()),
        "spread_median": float(np.median(finite)) if finite.size else None,
        "spread_max": float(finite.max()) if finite.size else None,
        "seed_list": [int(s) for c in configs for s in (c.seeds or ())],
    }
