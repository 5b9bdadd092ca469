"""Figure 13's runs and panels — the hidden gauge one layer deeper (``gaugecli laws`` and ``gaugecli deep``).

(a) The number of conservation laws per architecture (``laws``) beside the known ones, as a table.
(b) Every hidden neuron's balance over time along the layer-1 selection flow, both layers, with its drift.
(c) The local slopes ``Δ ln r/Δ ln D`` of ``r = T_spec(−D)/T_spec(+D)`` for one neuron in layer 1 (layer 2
balanced) and in layer 2 (layer 1 at δ = −4), against the mobility laws' 3 and 2 (docs/theory.md).
(d) Selection: each duplicate's alignment at the stop of the layer-1 and the layer-2 selection (+D = 4 to
one, −D to the others), and its boundary: with the first layer's balance above the owner's (+8 > +4) no
layer-2 duplicate aligns — the first layer, faster, learns the feature instead (measured: selection holds
at a first-layer balance −4, 0, +2 and fails at +4, +8, +16, with the alignments unchanged from t = 5 to 1000).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gaugecli.plots import style
from gaugecli.plots.venue import Layout

ARCHITECTURES: dict[bool, tuple[tuple[tuple[int, ...], str], ...]] = {
    False: (
        ((3, 4, 3, 1), "relu"),
        ((3, 4, 3, 1), "leaky-relu"),
        ((3, 2, 3), "linear"),
        ((3, 2, 2, 1), "linear"),
    ),
    True: (((3, 4, 3, 1), "relu"), ((3, 2, 2, 1), "linear")),
}
"""(a)'s rows: one and two hidden layers, ReLU, leaky ReLU and linear (quick: one of each family)."""
STRENGTHS = {False: (1.0, 2.0, 4.0, 8.0), True: (1.0, 2.0, 4.0)}
"""(c)'s gauge strengths D (quick: the largest T_spec(−D) runs left out)."""
SAMPLES = 500
"""The fixed sample of every ``deep`` run here: n = 500 Gaussian inputs in d = 4 (the Monte Carlo error of
L_n is printed by each run; the selection and slopes are the same at n = 1000, measured)."""
RTOL = 1e-5
"""The flows' tolerance here: the T_spec local slopes are those at 1e-6 to three digits (measured), at a
third of the cost; the balances then hold to ~1e-6 against a tolerance 10·rtol·max‖θ‖² ≈ 2e-3."""
LOWER_GAUGE = -4.0
"""The first layer's balance under the layer-2 runs: input-heavy, so that it is slower than the duplicates."""
BOUNDARY_GAUGE = 8.0
"""(d)'s boundary run: the first layer's balance above the layer-2 owner's +4."""
BOUNDARY_HORIZON = 5.0
"""Its horizon: the owner of the −4 run aligns by t ≈ 3; here the alignments stay where they are at t = 5
to t = 1000 (measured), and a run to 1000 costs ~25 s."""
LAYER_COLORS = {1: style.THEORY, 2: style.ORANGE}
LAYER_MARKERS = {1: "o", 2: "s"}
LAW_SLOPES = {1: 3.0, 2: 2.0}
"""The separations' exponents from the mobilities (docs/theory.md): (aW₂)² ≈ D² at layer 1 under a balanced
layer 2, a² ≈ D at layer 2; T_spec(−D) ∝ D at both."""


def deep_config(layer: int, quick: bool) -> Any:
    """The selection and separation study at ``layer`` (layer 2: the first layer at :data:`LOWER_GAUGE`)."""
    from gaugecli.experiments.deep import DeepConfig

    other = 0.0 if layer == 1 else LOWER_GAUGE
    return DeepConfig(layer=layer, other_gauge=other, gauge_strength=STRENGTHS[quick], n_samples=SAMPLES, rtol=RTOL)


def boundary_config() -> Any:
    """Layer 2's selection with the first layer at :data:`BOUNDARY_GAUGE` (no separation: no neuron aligns)."""
    from gaugecli.experiments.deep import DeepConfig

    return DeepConfig(
        layer=2,
        other_gauge=BOUNDARY_GAUGE,
        n_samples=SAMPLES,
        t_max=BOUNDARY_HORIZON,
        rtol=RTOL,
        separation=False,
    )


def laws_config(widths: tuple[int, ...], activation: str) -> Any:
    from gaugecli.experiments.laws import LawsConfig

    return LawsConfig(layer_widths=widths, activation=activation)


def _known(widths: tuple[int, ...], linear: bool) -> int:
    """The known laws' count: n(n+1)/2 per hidden layer of a linear network, else one per hidden neuron."""
    hidden = widths[1:-1]
    return sum(n * (n + 1) // 2 for n in hidden) if linear else sum(hidden)


def panel_counts(ax: Any, counts: dict[str, Any], layout: Layout) -> dict[str, Any]:
    """``counts[name] = (widths, activation, LawsResult)``: a table of the laws found and the known ones."""
    rows, out = [], {}
    for name, (widths, activation, r) in counts.items():
        known = _known(widths, bool(r.linear))
        rows.append(
            [
                "–".join(map(str, widths)),
                activation.split("-")[0],
                str(r.n_laws),
                str(known),
                f"{r.max_relative_drift:.0e}",
            ]
        )
        out[name] = {
            "widths": list(widths),
            "activation": activation,
            "n_laws": int(r.n_laws),
            "known": known,
            "others": int(r.others),
            "max_relative_drift": float(r.max_relative_drift),
            "holds": bool(r.holds),
        }
    ax.axis("off")
    header = ["widths", "σ", "laws", "known", "drift"]
    table = ax.table(cellText=rows, colLabels=header, loc="center", cellLoc="center", edges="horizontal")
    table.auto_set_font_size(False)
    table.set_fontsize(layout.small)
    table.scale(1.0, 1.35)
    for (row, _col), cell in table.get_celld().items():
        cell.set_linewidth(0.5 if row == 0 else 0.0)
    return out


def panel_balances(ax: Any, run: Any, layout: Layout) -> dict[str, Any]:
    """The layer-1 selection run: δ_j^ℓ(t) of layer 1 (solid) and layer 2 (dashed)."""
    t = np.asarray(run.t, float)
    keep = t > 0
    out: dict[str, Any] = {}
    for layer, deltas in ((1, np.asarray(run.delta_1)), (2, np.asarray(run.delta_2))):
        ls = "-" if layer == 1 else "--"
        for j in range(deltas.shape[1]):
            d = deltas[:, j]
            color = style.GAUGE_COLORS["favorable" if d[0] > 0 else "unfavorable" if d[0] < 0 else "balanced"]
            ax.plot(t[keep], d[keep], color=color, ls=ls, lw=1.1)
            out[f"layer{layer}_neuron{j}"] = style.series(t[keep], d[keep])
    out["drift"] = style.tolist(np.asarray(run.drift))
    out["drift_tolerance"] = float(run.drift_tolerance)
    out["max_drift"] = float(np.max(run.drift))
    ax.set(xscale="log", xlabel=r"time $t$", ylabel=r"balance $\delta^\ell_j$")
    ax.set_ylim(-6.5, 8.5)  # room above the +4 line for the legend
    handles = [
        style.line_handle(style.THEORY, "-", label="layer 1"),
        style.line_handle(style.THEORY, "--", label="layer 2"),
    ]
    ax.legend(handles=handles, loc="upper right", ncol=2, fontsize=layout.small, handlelength=1.6)
    style.note(ax, f"max drift {out['max_drift']:.0e}", (0.03, 0.06), layout, xycoords="axes fraction", va="bottom")
    return out


def panel_slopes(ax: Any, runs: dict[int, Any], layout: Layout) -> dict[str, Any]:
    """``runs[layer]``: the two selection studies; their ratios' local slopes at the geometric midpoints."""
    out: dict[str, Any] = {}
    for layer, r in runs.items():
        D = np.asarray(r.strengths, float)
        mid = np.sqrt(D[1:] * D[:-1])
        slopes = np.asarray(r.ratio_slopes, float)
        ax.plot(mid, slopes, color=LAYER_COLORS[layer], marker=LAYER_MARKERS[layer], ms=3.5, lw=1.1)
        ax.axhline(LAW_SLOPES[layer], color=LAYER_COLORS[layer], ls=":", lw=0.8, zorder=0)
        out[f"layer{layer}"] = {
            **style.series(mid, slopes),
            "strengths": style.tolist(D),
            "t_plus": style.tolist(np.asarray(r.t_spec_plus, float)),
            "t_minus": style.tolist(np.asarray(r.t_spec_minus, float)),
            "ratio": style.tolist(np.asarray(r.ratio, float)),
            "plus_slopes": style.tolist(np.asarray(r.plus_slopes, float)),
            "minus_slopes": style.tolist(np.asarray(r.minus_slopes, float)),
            "last_slope": float(slopes[-1]),
            "first_slope": float(slopes[0]),
            "last_plus_slope": float(np.asarray(r.plus_slopes, float)[-1]),
            "last_minus_slope": float(np.asarray(r.minus_slopes, float)[-1]),
            "other_gauge": float(r.config.other_gauge) if getattr(r, "config", None) is not None else None,
        }
    ax.set(xscale="log", xlabel=r"gauge strength $D$", ylabel=r"local slope $\Delta\ln r/\Delta\ln D$")
    ax.set_ylim(1.5, 3.5)
    style.tidy_log_axis(ax, "x")
    handles = [
        style.line_handle(LAYER_COLORS[1], marker="o", label=r"layer 1 (guide 3)"),
        style.line_handle(LAYER_COLORS[2], marker="s", label=r"layer 2 (guide 2)"),
    ]
    ax.legend(handles=handles, loc="lower right", fontsize=layout.small, handlelength=1.6)
    return out


def panel_selection(ax: Any, runs: dict[str, Any], layout: Layout) -> dict[str, Any]:
    """``runs``: ``layer1``, ``layer2`` (m = 3, +D to neuron 0) and ``boundary`` (layer 2 above a balanced
    layer 1): each duplicate's final alignment as a bar, the designated owner first."""
    out: dict[str, Any] = {}
    groups = (("layer1", "layer 1"), ("layer2", "layer 2"), ("boundary", "layer 2,\nlayer 1 at +8"))
    width = 0.25
    for g, (name, _label) in enumerate(groups):
        r = runs[name]
        align = np.asarray(r.alignment, float)
        for j, a in enumerate(align):
            color = style.GAUGE_COLORS["favorable" if j == 0 else "unfavorable"]
            ax.bar(g + (j - (align.size - 1) / 2) * width, a, width=width * 0.9, color=color)
        out[name] = {
            "alignment": style.tolist(align),
            "selected": int(r.selected),
            "owns": bool(r.owns),
            "t_stop": float(r.t_stop),
            "loss_end": float(r.loss_end),
            "loss_error": float(r.loss_error),
            "gd_selected": int(r.gd_selected),
        }
    ax.axhline(0.99, color=style.GUIDE, ls=":", lw=0.8, zorder=0)
    ax.set_xticks(range(len(groups)), [label for _, label in groups], fontsize=layout.small)
    ax.set(ylabel=r"alignment $\alpha$ at the stop", ylim=(-0.05, 1.25))
    handles = [
        style.line_handle(style.GAUGE_COLORS["favorable"], lw=4, label=r"$+D$ (designated)"),
        style.line_handle(style.GAUGE_COLORS["unfavorable"], lw=4, label=r"$-D$"),
    ]
    ax.legend(handles=handles, loc="upper right", fontsize=layout.small, ncol=2, handlelength=1.0)
    return out
