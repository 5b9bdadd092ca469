"""Figure 6 — where the loss goes: reaction and transport integrated over a run (claim C3).

Single neuron (m = 1), population flow, ``δ = ±D`` for ``D ∈ {1, 4, 16, 64}``; time in units of
each run's ``T_spec`` on linear axes, where the integrals are read.

(a) cumulative ``∫₀ᵗ R dt'`` and ``∫₀ᵗ T dt'`` for ``±D`` at ``D = 4``: the favorable gauge loses
    most of its loss through *reaction* (the direction turns at once while ``c`` is small, then
    ``c`` grows), the unfavorable one through *transport* (``c`` relaxes first, then the slow turn
    carries the loss). At ``t = 0`` the split is the other way round (+D: 84 % transport).
(b) the transport share of the dissipated loss, ``∫₀ᵗ T / ∫₀ᵗ (R + T)``, for every D (a shade of
    the gauge's colour and a dash each), with the ``D → ∞`` limits of the reduced equations
    (a cached ``limit-dissipation`` run, :mod:`gaugecli.experiments.limit_dissipation`) at the
    right edge.
(c) the relative difference of ``−dL/dt`` from the loss alone (a spline of ``ln L`` in ``ln t``)
    and ``R + T`` from the decomposition, over time: two independent routes to the dissipation
    (docs/theory.md §4); what remains is the spline's differentiation error. The axis spans the drawn values
    and the limit 1e-3 they are read against (:mod:`gaugecli.plots._fig6_checks`).
(d) the identity residual ``|‖∇L‖² − (R + T)| / ‖∇L‖²`` at every saved time; values below double
    precision (including exact zeros) are a band, not data. The axis spans the drawn values; the claim's
    bound 1e-10, three decades above, is named with its distance instead of drawn.
(e) ``R(t)`` and ``T(t)`` themselves for ``±D`` at ``D = 4`` (the paper's panel): the instants that (a)
    integrates.
(f) the instantaneous transport share ``T / (R + T)`` for every D: +D starts transport-led (84 %)
    and turns reaction-led between 0.17 and 0.18 of its T_spec (D = 4; the sidecar's
    ``half_between``, two saved times); −D the other way round, by 0.023 of its T_spec.

Key numbers (sidecar ``shares``): the recorded run integrals ``dissipated_reaction`` and
``dissipated_transport`` of every run, their reaction share, the instantaneous share at ``t = 0``
and the relative residual of ``∫R + ∫T = L(0) − L(t_end)``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from gaugecli.core.analyses.observables import RunObservables, resolved_residual
from gaugecli.core.model.metrics import cumulative_log_time_integral
from gaugecli.experiments.limit_dissipation import LimitDissipation, LimitDissipationConfig
from gaugecli.experiments.simulate import SimulateConfig
from gaugecli.plots import style
from gaugecli.plots._fig6_checks import (
    panel_parity,
    panel_residual,
    window,
)
from gaugecli.plots._fig6_readings import CAPTION as CAPTION
from gaugecli.plots._fig6_readings import CLAIM as CLAIM
from gaugecli.plots._fig6_readings import READINGS as READINGS
from gaugecli.plots._fig6_readings import SIDECAR_TOLERANCES as SIDECAR_TOLERANCES
from gaugecli.plots.render import Inputs, Need
from gaugecli.plots.venue import Layout

MIN_WIDTH = 5.0
"""Narrower than this (inches) the panels are illegible; ``plot --width`` refuses it."""


GAUGES = ("favorable", "unfavorable")
STRENGTHS = (1.0, 4.0, 16.0, 64.0)
SHOWN = 4.0
"""The gauge strength of panel (a) (the default ``-D 4``)."""
X_MAX = 3.0
"""Time window in units of T_spec: by 3 T_spec every run has spent ≥ 99.3 % of its loss."""
RATE_FLOOR = 1e-8
"""Panel (e) shows R and T down to this (they fall exponentially after alignment)."""
STRENGTH_LINESTYLES: dict[float, style.LineStyleType] = {1.0: ":", 4.0: "-.", 16.0: (0, (4, 1.5)), 64.0: "-"}
SIGN = {"favorable": "+", "unfavorable": "−"}
LIMIT = "limit"
"""The run of the ``D → ∞`` dissipation shares (kind ``limit-dissipation``)."""


def needs(quick: bool) -> dict[str, Need]:
    """``±D`` for ``D ∈ STRENGTHS`` (m = 1, population flow, the model's defaults: docs/theory.md, the model) and the ``D → ∞``
    dissipation of the same model (``limit``). The quick profile is the same: the eight runs are two
    ensembles that take ~1 s together."""
    out = {_name(g, D): Need("simulate", SimulateConfig(gauge=g, strengths=(D,))) for g in GAUGES for D in STRENGTHS}
    model = SimulateConfig().model
    out[LIMIT] = Need("limit-dissipation", LimitDissipationConfig(model.c0, model.theta0, model.a_star))
    return out


def _name(gauge: str, strength: float) -> str:
    return f"{gauge}-D{strength:g}"


def _label(gauge: str, strength: float | None = None) -> str:
    D = "D" if strength is None else f"{strength:g}"
    return rf"$\delta={SIGN[gauge]}{D}$"


def _window(x: np.ndarray) -> np.ndarray:
    """Samples with ``x ≤ X_MAX`` and the first beyond it (so that a line reaches the edge)."""
    return window(x, X_MAX)


STRENGTH_SHADES = {1.0: 0.55, 4.0: 0.3, 16.0: 0.0, 64.0: -0.4}
"""(b), (f): each D a shade of its gauge's colour as well as a dash — the share of white mixed in
(positive) or of black (negative); adjacent shades at least :data:`MIN_SHADE_DELTA_E` apart."""
MIN_SHADE_DELTA_E = 10.0
"""The smallest CIEDE2000 ΔE between two D's shades of one gauge (tested; measured 11.7): about
five just-noticeable differences, and each D has its dash besides."""


def strength_color(gauge: str, strength: float) -> str:
    """The colour of ``gauge`` at gauge strength ``strength`` (:data:`STRENGTH_SHADES`)."""
    from matplotlib.colors import to_hex, to_rgb

    base = np.array(to_rgb(style.GAUGE_COLORS[gauge]))
    mix = STRENGTH_SHADES[strength]
    target = np.ones(3) if mix > 0 else np.zeros(3)
    return to_hex(base + abs(mix) * (target - base))


def _cumulative(run: RunObservables) -> tuple[np.ndarray, np.ndarray]:
    return cumulative_log_time_integral(run.t, run.reaction), cumulative_log_time_integral(run.t, run.transport)


def _shares(runs: dict[str, RunObservables], limit: LimitDissipation) -> dict[str, Any]:
    """The key numbers: recorded run integrals, their shares, the integrated identity and the
    largest pointwise residual over the whole run where ``‖∇L‖ ≥ 1e-5`` (claim C3); the ``D → ∞``
    reaction shares from ``limit``."""
    out: dict[str, Any] = {}
    for g in GAUGES:
        out[g] = {}
        for D in STRENGTHS:
            run = runs[_name(g, D)]
            R, T = run.dissipated_reaction, run.dissipated_transport
            drop = float(run.loss[0] - run.loss[-1])
            out[g][f"{D:g}"] = {
                "dissipated_reaction": R,
                "dissipated_transport": T,
                "reaction_share": R / (R + T),
                "instant_reaction_share": float(run.reaction[0] / (run.reaction[0] + run.transport[0])),
                "loss_drop": drop,
                "identity_residual": abs(R + T - drop) / drop,
                "max_resolved_residual": resolved_residual(run),
                "t_spec": run.t_spec,
            }
    out["limit_reaction_share"] = {g: limit.reaction_share(g) for g in GAUGES}
    return out


# ------------------------------------------------------------------------------------------
# panels


PART_DASHES: dict[str, style.LineStyleType] = {"reaction": "-", "transport": (0, (4, 1.5))}
"""(a) and (e): reaction solid, transport dashed."""


def _shown_parts(
    runs: dict[str, RunObservables], values: Callable[[RunObservables], tuple[np.ndarray, np.ndarray]]
) -> Iterator[tuple[str, str, style.LineStyleType, np.ndarray, np.ndarray]]:
    """``(gauge, part, dashes, t/T_spec, value)`` on the window, for ±D at D = SHOWN, from
    ``values(run) → (reaction-like, transport-like)``."""
    for g in GAUGES:
        run = runs[_name(g, SHOWN)]
        x = run.t / style.spec_time(run)
        keep = _window(x)
        for (part, ls), y in zip(PART_DASHES.items(), values(run), strict=True):
            yield g, part, ls, x[keep], y[keep]


def _panel_cumulative(ax: Any, runs: dict[str, RunObservables], layout: Layout) -> dict[str, Any]:
    out: dict[str, Any] = {"strength": SHOWN}
    for g, part, ls, x, y in _shown_parts(runs, _cumulative):
        ax.plot(
            x,
            y,
            color=style.GAUGE_COLORS[g],
            ls=ls,
            marker=style.GAUGE_MARKERS[g],
            markevery=(0.5 if part == "reaction" else 0.0, 0.2),
            ms=3.0,
            lw=1.3,
        )
        out[f"{g}-{part}"] = style.series(x, y)
    L0 = float(runs[_name("favorable", SHOWN)].loss[0])
    out["initial_loss"] = L0
    style.threshold_line(ax, L0)
    style.note(
        ax,
        r"$\mathcal{L}(0)$, the same for every gauge",
        (0.01, L0),
        layout,
        offset=(0, 2),
        xycoords=("axes fraction", "data"),
        va="bottom",
    )
    # direct labels, each beside its curve's plateau (legends would cover the curves)
    for g, part, above in (
        ("unfavorable", "transport", False),
        ("favorable", "reaction", False),
        ("favorable", "transport", True),
        ("unfavorable", "reaction", True),
    ):
        level = out[f"{g}-{part}"]["y"][-1]
        symbol = r"\int_0^t R" if part == "reaction" else r"\int_0^t T"
        style.note(
            ax,
            rf"{part} ${symbol}$, {_label(g, SHOWN)}",
            (0.99, level),
            layout,
            offset=(0, 2 if above else -2),
            xycoords=("axes fraction", "data"),
            ha="right",
            va="bottom" if above else "top",
            color=style.GAUGE_COLORS[g],
        )
    ax.set_xlim(0.0, X_MAX)
    ax.set_ylim(0.0, 1.12 * L0)
    # each run on its own clock: say so, with the two clocks (their ratio is C4's separation)
    t_specs = {g: style.spec_time(runs[_name(g, SHOWN)]) for g in GAUGES}
    out["t_spec"] = t_specs
    ax.set_title(
        rf"$T_{{\rm spec}}$: {t_specs['favorable']:.3g} ($+D$), {t_specs['unfavorable']:.3g} ($-D$)",
        loc="right",
        fontsize=layout.small,
    )
    ax.set_xlabel(r"$t\,/\,T_{\rm spec}$ of each run")
    ax.set_ylabel("dissipated loss")
    style.panel_label(ax, "a")
    return out


def _strength_handles() -> tuple[list[Any], list[str]]:
    """Legend entries for D: each a pair of short lines, the +D and the −D shade, in D's dash."""
    handles: list[Any] = [
        tuple(style.line_handle(strength_color(g, D), STRENGTH_LINESTYLES[D]) for g in GAUGES) for D in STRENGTHS
    ]
    return handles, [f"$D={D:g}$" for D in STRENGTHS]


def _pair_handler() -> Any:
    from matplotlib.legend_handler import HandlerTuple

    return HandlerTuple(ndivide=None, pad=0.3)


def _panel_share(ax: Any, runs: dict[str, RunObservables], shares: dict[str, Any], layout: Layout) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for g in GAUGES:
        for D in STRENGTHS:
            run = runs[_name(g, D)]
            cR, cT = _cumulative(run)
            x = run.t / style.spec_time(run)
            keep = _window(x) & (x > 0)  # at t = 0 the share is 0/0 (its limit: the instantaneous split)
            share = cT[keep] / (cR[keep] + cT[keep])
            ax.plot(x[keep], share, color=strength_color(g, D), ls=STRENGTH_LINESTYLES[D], lw=1.2)
            # where the share first crosses ½: the two saved times around it (a bracket, not interpolated)
            side = np.flatnonzero(np.diff(np.sign(share - 0.5)) != 0)
            half = None if side.size == 0 else [float(x[keep][side[0]]), float(x[keep][side[0] + 1])]
            out[_name(g, D)] = style.series(x[keep], share, half_between=half)
        # t = 0: the instantaneous split R(0) : T(0), the same for every D within a percent (+D)
        inst = [1.0 - shares[g][f"{D:g}"]["instant_reaction_share"] for D in STRENGTHS]
        ax.plot(
            np.zeros(len(STRENGTHS)),
            inst,
            ls="none",
            marker=style.GAUGE_MARKERS[g],
            color=style.GAUGE_COLORS[g],  # the line's own colour too, not the cycle's next one
            mfc="white",
            ms=4.0,
            clip_on=False,
            zorder=4,
        )
        out[f"{g}-instant"] = style.series(np.zeros(len(STRENGTHS)), inst)
        # D → ∞ (reduced equations): a short black bar at the right edge
        limit = 1.0 - shares["limit_reaction_share"][g]
        ax.plot([X_MAX * 0.93, X_MAX], [limit, limit], color=style.THEORY, lw=2.2, solid_capstyle="butt", zorder=5)
        out[f"{g}-limit"] = style.series([X_MAX * 0.93, X_MAX], [limit, limit])
    style.threshold_line(ax, 0.5)
    for text, y, va in (("mostly transport", 0.5, "bottom"), ("mostly reaction", 0.5, "top")):
        style.note(
            ax,
            text,
            (0.99, y),
            layout,
            offset=(0, 2 if va == "bottom" else -2),
            xycoords=("axes fraction", "data"),
            ha="right",
            va=va,
        )
    style.note(ax, "open markers: the instant $t=0$", (0.6, 0.66), layout, offset=(0, 2))
    ax.set_xlim(0.0, X_MAX)
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel(r"$t\,/\,T_{\rm spec}$")
    ax.set_ylabel(r"transport share $\int_0^t T \,/ \int_0^t (R+T)$")
    handles, labels = _strength_handles()
    handles.append(style.line_handle(style.THEORY, "-", None, lw=2.2))
    labels.append(r"$D\to\infty$")
    # three short columns at the lower right: clear of the −D curves' rise near t = 0, under the +D plateau
    ax.legend(
        handles,
        labels,
        handler_map={tuple: _pair_handler()},
        loc="lower right",
        ncols=3,
        columnspacing=0.5,
        handlelength=2.2,
        handletextpad=0.4,
    )
    style.panel_label(ax, "b")
    return out


def _panel_rates(ax: Any, runs: dict[str, RunObservables], layout: Layout) -> dict[str, Any]:
    """(e) ``R(t)`` and ``T(t)`` themselves for ``±D`` at ``D =`` :data:`SHOWN`."""
    out: dict[str, Any] = {"strength": SHOWN}
    for g, part, ls, x, y in _shown_parts(runs, lambda run: (run.reaction, run.transport)):
        shown = style.clip_to_floor(y, RATE_FLOOR)
        ax.plot(x, shown, color=style.GAUGE_COLORS[g], ls=ls, lw=1.2)
        out[f"{g}-{part}"] = style.series(x, shown)
    ax.set_yscale("log")
    ax.set_ylim(RATE_FLOOR, 1e3)  # headroom for the legend above the curves
    ax.set_xlim(0.0, X_MAX)
    ax.set_xlabel(r"$t\,/\,T_{\rm spec}$ of each run")
    ax.set_ylabel(r"dissipation rate $R(t),\ T(t)$")
    handles = [
        style.line_handle(style.GAUGE_COLORS[g], ls, None, rf"${part[0].upper()}$, {_label(g, SHOWN)}")
        for g in GAUGES
        for part, ls in PART_DASHES.items()
    ]
    ax.legend(handles=handles, loc="upper right", ncols=2, columnspacing=0.8, handlelength=1.8, handletextpad=0.4)
    out["floor"] = RATE_FLOOR
    style.panel_label(ax, "e")
    return out


def _panel_instant_share(ax: Any, runs: dict[str, RunObservables], layout: Layout) -> dict[str, Any]:
    """(f) the instantaneous transport share ``T / (R + T)`` for every D."""
    out: dict[str, Any] = {}
    for g in GAUGES:
        for D in STRENGTHS:
            run = runs[_name(g, D)]
            x = run.t / style.spec_time(run)
            keep = _window(x)
            share = run.transport[keep] / (run.reaction[keep] + run.transport[keep])
            ax.plot(x[keep], share, color=strength_color(g, D), ls=STRENGTH_LINESTYLES[D], lw=1.2)
            # where the share first crosses ½: the two saved times around it (a bracket, not interpolated)
            side = np.flatnonzero(np.diff(np.sign(share - 0.5)) != 0)
            half = None if side.size == 0 else [float(x[keep][side[0]]), float(x[keep][side[0] + 1])]
            out[_name(g, D)] = style.series(x[keep], share, half_between=half)
    style.threshold_line(ax, 0.5)
    ax.set_xlim(0.0, X_MAX)
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel(r"$t\,/\,T_{\rm spec}$")
    ax.set_ylabel(r"instantaneous share $T/(R+T)$")
    handles = [
        style.line_handle(style.PLUS, "-", None, _label("favorable")),
        style.line_handle(style.MINUS, "-", None, _label("unfavorable")),
        style.line_handle("none", "none", None, "D: shade and dash as in (b)"),
    ]
    ax.legend(handles=handles, loc="center right", handlelength=1.6)
    style.panel_label(ax, "f")
    return out


MAIN_PANELS: tuple[str, ...] = ("a", "b")
"""The main-text version: where ±D's loss goes at D = 4 (a), and the integrated split for every D
with its D → ∞ limit and the t = 0 instant that starts the other way round (b). (a)'s direct
labels need half the width: two panels, not three."""


def _axes(layout: Layout) -> tuple[Any, dict[str, Any], Any]:
    """The figure, its axes by letter, and a scratch figure for the panels a main-text version
    does not draw (the sidecar stays the full figure's), or ``None``."""
    if layout.panels is None:
        fig, grid = style.new_figure(layout.width, layout.height(1.18), nrows=3, ncols=2)
        return fig, dict(zip("abcdef", grid.ravel(), strict=True)), None
    letters = [p for p in layout.panels if p in "abcdef"]
    fig, _ = style.new_figure(layout.width, layout.height(0.42 if len(letters) <= 2 else 0.36))
    fig.clear()
    axes = fig.subplot_mosaic([letters])
    scratch, _ = style.new_figure(layout.width, layout.height(1.18))
    scratch.clear()
    axes |= {p: scratch.add_subplot(3, 2, i + 1) for i, p in enumerate("abcdef") if p not in axes}
    return fig, axes, scratch


def build(inputs: Inputs, layout: Layout) -> tuple[Any, dict[str, Any]]:
    """Six panels in three rows at the layout's width, or the panels ``layout.panels`` in one row;
    the sidecar is the full figure's either way."""
    runs: dict[str, RunObservables] = {_name(g, D): inputs[_name(g, D)] for g in GAUGES for D in STRENGTHS}
    missing = [name for name, run in runs.items() if run.t_spec is None]
    if missing:
        raise ValueError(f"fig6: the runs {', '.join(missing)} never specialized; time is read in units of T_spec")
    shares = _shares(runs, inputs[LIMIT])
    fig, axes, scratch = _axes(layout)
    every = [(_name(g, D), g, runs[_name(g, D)]) for g in GAUGES for D in STRENGTHS]
    panels: dict[str, Any] = {
        "a": _panel_cumulative(axes["a"], runs, layout),
        "b": _panel_share(axes["b"], runs, shares, layout),
        "c": panel_parity(axes["c"], every, X_MAX, layout),
        "d": panel_residual(axes["d"], every, X_MAX, layout),
        "e": _panel_rates(axes["e"], runs, layout),
        "f": _panel_instant_share(axes["f"], runs, layout),
        "shares": shares,
    }
    for letter in "abcdef":
        if layout.wants(letter):
            style.panel_label(axes[letter], layout.label(letter))
    if scratch is not None:
        scratch.clear()
    return fig, panels
