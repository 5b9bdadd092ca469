"""Figure 12 — the gauge under the optimizers people train with (beyond the paper; issue 49; docs/theory.md §13).

(a) What becomes of δ under GD, momentum, Adam and AdamW; (b, c) the ±D separation against D under the
population flow (Θ(D²)), the heavy-ball flow (Θ(D^{3/2})) and Adam (Θ(D)), and its local slopes; (d) the
selection map under Adam over (D, η) with the boundary where exclusive selection stops; (e, f) the same
over (D, β) under heavy-ball momentum and over (D, β1) under Adam. The runs are
:mod:`gaugecli.plots._fig12_runs`, the panels :mod:`gaugecli.plots._fig12_panels`.
"""

from __future__ import annotations

from typing import Any

from gaugecli.plots import style
from gaugecli.plots._fig12_panels import (
    panel_gauge,
    panel_ratios,
    panel_selection,
    panel_slopes,
    selection_map,
    separations,
)
from gaugecli.plots._fig12_readings import CAPTION, READING, READINGS
from gaugecli.plots._fig12_runs import (
    ADAM_LR,
    GAUGES,
    HEAVY_BALL_STRENGTHS,
    OPTIMIZERS,
    STRENGTHS,
    adam_beta_select_config,
    adam_config,
    flow_config,
    gauge_config,
    heavy_ball_config,
    momentum_select_config,
    select_config,
)
from gaugecli.plots.grid import panel_axes
from gaugecli.plots.render import Inputs, Need
from gaugecli.plots.venue import Layout

MIN_WIDTH = 5.0
"""Narrower than this (inches) the panels are illegible; ``plot --width`` refuses it."""

CLAIM = "beyond: Adam keeps no gauge and separates ±D like D, momentum like D^{3/2}; the owner still wins under momentum, under Adam at small η"
MAIN_PANELS: tuple[str, ...] = ("c", "d")
"""The main-text version: the separation's local slopes (the three laws) and the selection map with its
boundary."""
SIDECAR_TOLERANCES = (
    ("d/values", 0.0, 0.0, "outcome classes (integers)"),
    ("e/values", 0.0, 0.0, "outcome classes (integers)"),
    ("f/values", 0.0, 0.0, "outcome classes (integers)"),
)
"""Where a number is exact, and why (first match wins); the rest use the shared defaults."""
LETTERS = "abcdef"
__all__ = ["CAPTION", "CLAIM", "MAIN_PANELS", "READING", "READINGS", "build", "needs"]


def needs(quick: bool) -> dict[str, Need]:
    """(a) eight simulate runs; (b, c) the flow's and Adam's ±D simulate pairs and one heavy-ball pair;
    (d, e, f) three phase maps of select."""
    out = {f"{o}-{g}": Need("simulate", gauge_config(o, g)) for o in OPTIMIZERS for g in GAUGES}
    for D in STRENGTHS[quick]:
        for g in GAUGES:
            out[f"flow-{g}-D{D:g}"] = Need("simulate", flow_config(g, D))
            out[f"adam-{g}-D{D:g}"] = Need("simulate", adam_config(g, D))
    out["heavy-ball"] = Need("heavy-ball-pair", heavy_ball_config(quick))
    out["select"] = Need("phase", select_config(quick))
    out["select-momentum"] = Need("phase", momentum_select_config(quick))
    out["select-adam-beta1"] = Need("phase", adam_beta_select_config(quick))
    return out


def _axes(layout: Layout) -> tuple[Any, dict[str, Any]]:
    """The full figure 3 × 2; the main version: its panels in one row."""
    return panel_axes(layout, LETTERS, full=1.26, main=0.42)


def _key(panels: dict[str, Any], laws: dict[str, Any]) -> dict[str, Any]:
    """The numbers the caption quotes that no panel holds as one value."""
    gauge = panels["a"]
    gd_drift = max(abs(gauge[o][g]["relative_drift"]) for o in ("sgd",) for g in GAUGES)
    return {
        "gd_drift": gd_drift,
        "momentum_drift": max(abs(gauge["momentum"][g]["relative_drift"]) for g in GAUGES),
        "adam_delta_at_t_spec": {g: gauge["adam"][g]["delta_at_t_spec"] for g in GAUGES},
        "slopes": {law: laws[law]["local_slopes"] for law in laws},
        "last_slope": {law: laws[law]["local_slopes"][-1] for law in laws},
        "first_slope": {law: laws[law]["local_slopes"][0] for law in laws},
        "ratios": {law: laws[law]["ratios"] for law in laws},
        "strengths": {law: laws[law]["strengths"] for law in laws},
        "t_plus": {law: laws[law]["t_plus"] for law in laws},
        "t_minus": {law: laws[law]["t_minus"] for law in laws},
        "adam_plus_steps_min": min(laws["adam"]["t_plus"]) / ADAM_LR,  # T(+D)/η at the largest D
    }


def build(inputs: Inputs, layout: Layout) -> tuple[Any, dict[str, Any]]:
    """Six panels (3 × 2) at the layout's width (the main version: those of ``layout.panels``);
    returns the figure and its sidecar panels (the full figure's, whichever are drawn)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    quick = len(inputs["heavy-ball"].strengths) == len(HEAVY_BALL_STRENGTHS[True])
    fig, axes = _axes(layout)
    spare = Figure()  # a panel the main version does not show is drawn here: the sidecar is the full figure's
    FigureCanvasAgg(spare)
    ax = {p: axes[p] if p in axes else spare.add_subplot() for p in LETTERS}
    pairs = {
        law: {D: (inputs[f"{law}-favorable-D{D:g}"], inputs[f"{law}-unfavorable-D{D:g}"]) for D in STRENGTHS[quick]}
        for law in ("flow", "adam")
    }
    laws = separations(pairs["flow"], inputs["heavy-ball"], pairs["adam"])
    panels = {
        "a": panel_gauge(ax["a"], {f"{o}-{g}": inputs[f"{o}-{g}"] for o in OPTIMIZERS for g in GAUGES}, layout),
        "b": panel_ratios(ax["b"], laws, layout),
        "c": panel_slopes(ax["c"], laws, layout),
        "d": panel_selection(ax["d"], fig if "d" in axes else spare, inputs["select"], layout),
        "e": selection_map(ax["e"], fig if "e" in axes else spare, inputs["select-momentum"], layout),
        "f": selection_map(ax["f"], fig if "f" in axes else spare, inputs["select-adam-beta1"], layout),
    }
    for letter in axes:
        style.panel_label(axes[letter], layout.label(letter))
    panels["key"] = _key(panels, laws)
    return fig, panels
