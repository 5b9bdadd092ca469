"""Figure 8 — the gauge across activations: the separation is Θ(D^{1+1/p}) at degree p, and where the
law takes a ln D (beyond the paper; ``m = 1`` from ``u0 ⊥ v`` unless stated).

(a) ``T_spec(+D)`` (circles) and ``T_spec(−D)`` (squares) against D, log–log, at degree 1: relu,
leaky-relu at β = 0.01 (on top of relu) and 0.3, and the linear network, with the closed form of an
*aligned* linear neuron (``c: c0 → ½``, even in δ: ``gaugecli.core.reduced.linear``) — the ±D asymmetry is made
by the direction's turn alone.
(b) the same at degree 2 (relu2; σ = z² from θ0 = 1.2, since from ``u0 ⊥ v`` its flow sits on an exact
saddle, ``gaugecli.core.analyses.symmetry.exact_saddle``) and for erf, which has no degree.
(c) the local slope ``d ln(T(−D)/T(+D)) / d ln D`` against ``1 + 1/p`` (2 at degree 1, 3/2 at degree 2;
docs/theory.md §12), and for the linear network and erf the slope ``2 + A/(A ln D + B)`` of their
fitted ``D ln D`` laws (dotted).
(d) ``T(−D)/D`` against ln D: flat where ``T(−D) ∝ D``; for the linear network and erf a straight
line, ``T(−D) = D(A ln D + B)`` — the separation is ``Θ(D² ln D)``. The linear law is the gate-v ReLN's
(theory §10) at twice its speed: A = 2, B = ln(1/(c0 tan θ_ε)) (``core.linear.unfavorable_log_law``).
(e) selection among ``m = 5`` duplicates (owner +D, the others −D, D = 4): the non-owner norm
``P_end`` at the horizon per activation — pruned (``P ≤ 1e-6``) for every activation but linear, whose
loss sees only ``Σ c_j u_j``; the owner's share of ``Σ|c_j|`` is printed (its lowest).
(f) erf, the non-homogeneous contrast: δ is not conserved. ``δ(t)/δ(0)`` of the ±D runs: each neuron
keeps its δ while it turns and then balances (δ → 0) as it grows into erf's nonlinear range — yet the
+D neuron still specializes first, and selects among duplicates ((e)).

The sidecar's ``key`` holds per activation the local slopes at the largest D, the constants
``D^{1/p} T(+D)``, ``T(−D)/D`` and ``(T(−D)/T(+D))/D^{1+1/p}`` at the largest D with their Richardson
extrapolation in ``1/D`` (only where the limit exists: for linear and erf ``T(−D)/D`` diverges like
ln D and ``law`` holds the least-squares ``A ln D + B`` over ``D ≥`` :data:`LAW_FROM` with the local
increments per unit ln D), and for relu the exact limits of ``gaugecli.core.reduced.limits``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gaugecli.core.activations import activation_class
from gaugecli.plots import style
from gaugecli.plots._fig8_readings import CAPTION as CAPTION
from gaugecli.plots._fig8_readings import CLAIM as CLAIM
from gaugecli.plots._fig8_readings import READINGS as READINGS
from gaugecli.plots._fig8_readings import SIDECAR_TOLERANCES as SIDECAR_TOLERANCES
from gaugecli.plots.render import Inputs, Need
from gaugecli.plots.venue import Layout

MIN_WIDTH = 5.0
"""Narrower than this (inches) the panels are illegible; ``plot --width`` refuses it."""
MAX_HEIGHT = 7.0
"""Inches: the full figure with its caption on one page (a 9-inch text block); ICML's 6.75-inch width
would otherwise make it 7.8."""

MAIN_PANELS = ("a", "c", "d")
"""The main-text version: the times at degree 1, the separation's slope against 1 + 1/p, and the
``D ln D`` law of the linear network and erf — the claim and its boundary."""
GAUGES = ("favorable", "unfavorable")
STRENGTHS = {False: tuple(4.0**k for k in range(6)), True: (1.0, 16.0, 256.0)}
"""D = 1 … 1024 by factors of 4 (quick: 1, 16, 256)."""
ACTIVATIONS: tuple[tuple[str, str, dict[str, float], float], ...] = (
    ("relu", "relu", {}, math.pi / 2),
    ("leaky-relu-0.01", "leaky-relu", {"negative_slope": 0.01}, math.pi / 2),
    ("leaky-relu-0.3", "leaky-relu", {"negative_slope": 0.3}, math.pi / 2),
    ("linear", "linear", {}, math.pi / 2),
    ("relu2", "relu2", {}, math.pi / 2),
    ("square", "square", {}, 1.2),
    ("erf", "erf", {}, math.pi / 2),
)
"""Label, activation, its parameters and θ0 (σ = z² off its saddle)."""
TIME_PANELS = {"a": ("relu", "leaky-relu-0.01", "leaky-relu-0.3", "linear"), "b": ("relu2", "square", "erf")}
"""(a) the degree-1 activations, (b) degree 2 and erf: small multiples, not fourteen curves in one."""
LAWS = ("linear", "erf")
"""The activations whose ``T(−D)/D`` grows like ln D."""
RELU_LIMITS = "relu-limits"
"""The run of relu's ``D → ∞`` constants ``D·T(+D)`` and ``T(−D)/D`` (kind ``limit-constants``)."""
LAW_FROM = 16.0
"""The ``A ln D + B`` fit uses the stored D from here on: below it the law has not set in (the linear
network's increment per unit ln D is −0.46 at D = 1 → 4 and 1.65 at 4 → 16, then 1.97, 2.00, 2.00)."""
LAW_NOTES = {"linear": "line", "erf": "corner"}
"""(d): where each law's formula sits: above the linear line's last point (the erf line is far above it),
and erf's in the top-left corner (above its line's end is the panel's top)."""
ERF_STRENGTHS = {False: (4.0, 64.0), True: (16.0, 256.0)}
"""The erf runs whose δ(t) (f) draws (among (b)'s)."""
LINEAR_TARGET = 0.5
"""(a): the aligned neuron's time from ``c0`` to this ``c``."""
SELECT_STRENGTH = 4.0
PRUNED = 1e-6
"""``P`` at or below this counts as pruned (claim C7)."""
LABELS = {
    "relu": "relu",
    "leaky-relu-0.01": r"leaky $\beta{=}0.01$",
    "leaky-relu-0.3": r"leaky $\beta{=}0.3$",
    "linear": "linear",
    "relu2": r"relu$^2$",
    "square": r"$z^2$ ($\theta_0{=}1.2$)",
    "erf": "erf",
}
LINESTYLES: dict[int | None, Any] = {1: "-", 2: "--", None: "-."}
COLORS = {
    "relu": "#882255",
    "leaky-relu-0.01": style.ORANGE,
    "leaky-relu-0.3": style.PURPLE,
    "linear": "0.0",
    "relu2": "#999933",
    "square": style.SKY,
    "erf": "#44aa99",
}
"""One colour per activation in every panel; never blue, vermillion or green (they mean +D, −D and δ = 0).
relu, purple-red and olive are Paul Tol's; the rest the colorblind palette's. Distinct by CIE ΔE
(``tests/test_fig8.py``)."""


def _expected(name: str, what: str) -> float | None:
    """The mobilities' slope of ``what`` (ratio, favorable, unfavorable) at degree p (``None``: no degree)."""
    p = activation_class(name).degree
    if p is None:
        return None
    return {"ratio": 1.0 + 1.0 / p, "favorable": -1.0 / p, "unfavorable": 1.0}[what]


def _model(name: str, params: dict[str, float], theta0: float) -> Any:
    from gaugecli.experiments.config import ModelConfig

    return ModelConfig(activation=name, theta0=theta0, negative_slope=params.get("negative_slope"))


def needs(quick: bool) -> dict[str, Need]:
    """One single-neuron flow per activation, gauge and D (the configuration of ``gaugecli simulate
    --activation A --gauge G -D …``), one ``select`` per activation, and the relu model's ``D → ∞``
    constants (:data:`RELU_LIMITS`, the key's ``exact_limits``)."""
    from gaugecli.experiments.limits import LimitConstantsConfig
    from gaugecli.experiments.select import SelectConfig
    from gaugecli.experiments.simulate import SimulateConfig

    out: dict[str, Need] = {}
    for label, name, params, theta0 in ACTIVATIONS:
        model = _model(name, params, theta0)
        for g in GAUGES:
            for D in STRENGTHS[quick]:
                out[f"{label}-{g}-D{D:g}"] = Need("simulate", SimulateConfig(model=model, gauge=g, strengths=(D,)))
        out[f"{label}-select"] = Need("select", SelectConfig(model=model, strength=SELECT_STRENGTH))
        if name == "relu":
            limits = LimitConstantsConfig(model.c0, model.theta0, model.eps_align, model.a_star)
            out[RELU_LIMITS] = Need("limit-constants", limits)
    return out


def _strengths(inputs: Inputs) -> np.ndarray:
    runs = (c for k, c in inputs.configs.items() if not k.endswith("select") and k != RELU_LIMITS)
    return np.array(sorted({c.strengths[0] for c in runs}))


def _style(label: str) -> dict[str, Any]:
    """Colour, dashes (by degree) and width: relu is drawn wide beneath, since leaky β = 0.01 lies on it."""
    name = next(a[1] for a in ACTIVATIONS if a[0] == label)
    return {
        "color": COLORS[label],
        "ls": LINESTYLES[activation_class(name).degree],
        "lw": 2.4 if label == "relu" else 0.9,
    }


def _d_axis(ax: Any, D: np.ndarray, narrow: bool = False) -> None:
    """A log₂ D axis labelled at 1, 16, 256 and the largest D (``narrow``: 1, 32 and the largest, and a
    shorter label, for a third of a page)."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    ax.set_xscale("log", base=2)
    marks = (1, 32) if narrow else (1, 16, 256)
    ax.xaxis.set_major_locator(FixedLocator([x for x in marks if D[0] <= x < D[-1]] + [float(D[-1])]))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlabel(r"gauge strength $D$" if narrow else style.LABELS["D"])


def _panel_times(ax: Any, D: np.ndarray, times: dict[str, dict[str, np.ndarray]], labels: tuple[str, ...]) -> dict[str, Any]:  # fmt: skip
    """(a, b) ``T_spec(±D)`` for ``labels``."""
    out = {}
    for label in labels:
        for g in GAUGES:
            T = times[label][g]
            ax.plot(D, T, **_style(label), marker=style.GAUGE_MARKERS[g], ms=3.0, mfc="white", mew=0.8)
            out[f"{label}-{g}"] = style.series(D, T)
    ax.set_yscale("log")
    _d_axis(ax, D)
    ax.set_ylabel(r"specialization time $T_{\rm spec}$")
    return out


def _panel_aligned(ax: Any, D: np.ndarray, c0: float) -> dict[str, Any]:
    """(a)'s closed form: the aligned linear neuron's time ``c0 → ½``, the same for ±D."""
    from gaugecli.core.reduced.linear import aligned_time

    Dg = np.geomspace(D[0], D[-1], 60)
    aligned = np.array([aligned_time(x, c0, LINEAR_TARGET) for x in Dg])
    ax.plot(Dg, aligned, color=style.GUIDE, ls=":", lw=1.4, zorder=1)
    return style.series(Dg, aligned, c0=c0, c_to=LINEAR_TARGET)


def _law_slope(law: Any, D: np.ndarray) -> np.ndarray:
    """The local slope of the separation under ``T(−D) = D(A ln D + B)`` and ``T(+D) ∝ 1/D``."""
    return 2.0 + law.coefficient / law(D)


def _panel_separation(
    ax: Any, D: np.ndarray, times: dict[str, dict[str, np.ndarray]], laws: dict[str, Any], layout: Layout
) -> dict[str, Any]:
    """(c) the local slope of the separation against ``1 + 1/p``; the ``D ln D`` laws' slopes dotted."""
    from gaugecli.core.analyses.separation import local_slopes

    out: dict[str, Any] = {}
    for p in (1, 2):
        ax.axhline(1.0 + 1.0 / p, color=style.GUIDE, ls=":", lw=0.9, zorder=1)
        style.note(ax, rf"$1+1/p = {1 + 1 / p:g}$", (1.0, 1.0 + 1.0 / p), layout, offset=(-2, -2), xycoords=("axes fraction", "data"), ha="right", va="top")  # fmt: skip
    for label, name, _, _ in ACTIVATIONS:
        ratio = times[label]["unfavorable"] / times[label]["favorable"]
        mid, slopes = local_slopes(D, ratio)
        ax.plot(mid, slopes, **_style(label), marker="D", ms=2.6, mfc="white")
        out[label] = style.series(mid, slopes, expected=_expected(name, "ratio"), ratio=ratio)
    for label, law in laws.items():
        Dg = np.geomspace(LAW_FROM, D[-1], 40)
        ax.plot(Dg, _law_slope(law, Dg), color=COLORS[label], ls=":", lw=1.2, zorder=1)
        out[f"{label}-law"] = style.series(Dg, _law_slope(law, Dg), form="2 + A/(A ln D + B)")
    _d_axis(ax, D)
    ax.set_ylabel("local slope of\n" + r"$T_{\rm spec}(-D)/T_{\rm spec}(+D)$")
    return out


def _panel_law(
    ax: Any, D: np.ndarray, times: dict[str, dict[str, np.ndarray]], laws: dict[str, Any], layout: Layout
) -> dict[str, Any]:
    """(d) ``T(−D)/D`` against ln D, with the fitted ``A ln D + B`` of the linear network and erf."""
    out: dict[str, Any] = {}
    for label, _, _, _ in ACTIVATIONS:
        y = times[label]["unfavorable"] / D
        ax.plot(D, y, **_style(label), marker=style.GAUGE_MARKERS["unfavorable"], ms=2.8, mfc="white", mew=0.8)  # fmt: skip
        out[label] = style.series(D, y)
    for label, law in laws.items():
        Dg = np.geomspace(law.fitted[0], D[-1], 40)
        ax.plot(Dg, law(Dg), color=COLORS[label], ls=":", lw=1.6, zorder=1)
        out[f"{label}-law"] = style.series(Dg, law(Dg), coefficient=law.coefficient, constant=law.constant)
        text = rf"${law.coefficient:.2f}\,\ln D {'+' if law.constant >= 0 else '−'} {abs(law.constant):.2f}$"
        if LAW_NOTES[label] == "line":
            x = float(law.fitted[-1])
            style.note(ax, text, (x, float(law(x))), layout, offset=(0, 6), ha="right", va="bottom", color=COLORS[label])  # fmt: skip
        else:
            style.note(ax, text, (0.03, 0.97), layout, xycoords="axes fraction", ha="left", va="top", color=COLORS[label])  # fmt: skip
    _d_axis(ax, D)
    ax.set_ylim(0.0, None)
    ax.set_ylabel(r"$T_{\rm spec}(-D)\,/\,D$")
    return out


def _panel_selection(ax: Any, selections: dict[str, Any], layout: Layout) -> dict[str, Any]:
    """(e) ``P_end`` per activation (a dot plot), the pruning threshold, and the owners' lowest share."""
    out: dict[str, Any] = {}
    labels = [a[0] for a in ACTIVATIONS]
    shares, P = [], []
    for label in labels:
        result = selections[label]
        run = result.runs[0]
        c = np.abs(run.coefficient[-1])
        shares.append(float(c[result.designated] / c.sum()))
        P.append(float(run.nonowner_norm[-1]))
        out[label] = {
            "owner": run.owner,
            "designated": result.designated,
            "success": bool(result.success[0]),
            "owner_share": shares[-1],
            "P_end": P[-1],
            "pruned": P[-1] <= PRUNED,
            "t_end": float(run.t[-1]),
        }
    y = -np.arange(len(labels), dtype=float)  # top to bottom in the key's order
    low, high = y[-1] - 0.7, 2.6  # room above the first row for the note
    # the threshold stops below the first row: the note above it is not crossed
    ax.axvline(PRUNED, ymax=(0.45 - low) / (high - low), color=style.GUIDE, ls=":", lw=0.9, zorder=1)
    style.note(ax, "pruned\nbelow", (PRUNED, 0.0), layout, offset=(-2, 2), xycoords=("data", "axes fraction"), ha="right", va="bottom", multialignment="right")  # fmt: skip
    ax.plot(P, y, ls="none", marker="o", ms=4.0, color=style.THEORY, zorder=3)
    ax.set_xscale("log")
    ax.set_xlim(1e-20, 1e0)
    ax.set_ylim(low, high)
    ax.set_xlabel(r"non-owner norm $P_{\rm end}$")
    ax.set_yticks(y)
    ax.set_yticklabels([LABELS[k] for k in labels])
    ax.grid(axis="y", color="0.9", lw=0.6, zorder=0)
    lowest = math.floor(min(shares) * 1e3) / 1e3
    style.note(ax, rf"$m = 5$, $D = {SELECT_STRENGTH:g}$: owner's share" + "\n" + rf"of $\Sigma|c_j| \geq {lowest:.3f}$", (0.98, 0.98), layout, xycoords="axes fraction", ha="right", va="top", color=None, multialignment="right")  # fmt: skip
    out["series"] = style.series(P, y, owner_share=shares)
    return out


def _panel_erf(ax: Any, runs: dict[tuple[float, str], Any]) -> dict[str, Any]:
    """(f) erf's δ(t)/δ(0) for the ±D runs at two D, with each run's T_spec marked."""
    out = {}
    styles: dict[float, Any] = dict(zip(sorted({D for D, _ in runs}), ("-", "--"), strict=False))
    for (D, g), run in runs.items():
        t = np.asarray(run.t, float)
        keep = t > 0
        ratio = np.asarray(run.imbalance, float)[:, 0] / float(run.imbalance[0, 0])
        color = style.GAUGE_COLORS[g]
        ax.plot(t[keep], ratio[keep], color=color, ls=styles[D], lw=1.1)
        if run.t_spec is not None:
            at = float(np.interp(np.log(run.t_spec), np.log(t[keep]), ratio[keep]))
            ax.plot([run.t_spec], [at], ls="none", marker=style.GAUGE_MARKERS[g], color=color, ms=3.4, mfc="white", mew=0.8)  # fmt: skip
        out[f"{g}-D{D:g}"] = style.series(t[keep], ratio[keep], t_spec=run.t_spec, final_loss=run.final_loss)
    ax.set_xscale("log")
    ax.set_xlim(1e-3, None)  # the log grid starts far below any motion
    ax.set_ylim(-0.05, 1.1)
    ax.set_xlabel("time $t$ (erf)")
    ax.set_ylabel(r"$\delta(t)/\delta(0)$, $\delta = a^2 - \|w\|^2$")
    handles = [style.line_handle(style.THEORY, ls, None, f"$D={D:g}$") for D, ls in styles.items()]
    handles += [
        style.line_handle(
            style.GAUGE_COLORS[g], "-", style.GAUGE_MARKERS[g], f"${'+' if g == 'favorable' else '-'}D$", mfc="white"
        )
        for g in GAUGES
    ]
    ax.legend(handles=handles, loc="lower left")
    return out


def _legend(fig: Any, drawn: set[str]) -> None:
    """One key for every panel: the activations drawn, the gauges' markers and the guides."""
    handles = [style.line_handle(label=LABELS[a], **_style(a)) for a, _, _, _ in ACTIVATIONS if a in drawn]
    handles += [
        style.line_handle(
            style.THEORY,
            "none",
            style.GAUGE_MARKERS[g],
            rf"$T_{{\rm spec}}({'+' if g == 'favorable' else '-'}D)$",
            mfc="white",
        )
        for g in GAUGES
    ]
    if "aligned" in drawn:
        handles.append(style.line_handle(style.GUIDE, ":", None, r"aligned linear, $\pm D$ alike"))
    handles.append(style.line_handle(style.THEORY, ":", None, r"fit $D(A\ln D + B)$"))
    fig.legend(handles=handles, loc="outside upper center", ncols=4, columnspacing=1.2, handlelength=2.2)


def build(inputs: Inputs, layout: Layout) -> tuple[Any, dict[str, Any]]:
    """Six panels (3 × 2), or :data:`MAIN_PANELS` in one row, at the layout's width, under one key;
    returns the figure and its sidecar panels (all six, whichever are drawn)."""
    from gaugecli.core.analyses.separation import log_law_fit
    from gaugecli.plots._fig8_key import key_numbers

    D = _strengths(inputs)
    times = {
        label: {
            g: np.array([np.nan if (t := inputs[f"{label}-{g}-D{s:g}"].t_spec) is None else t for s in D], dtype=float)
            for g in GAUGES
        }
        for label, _, _, _ in ACTIVATIONS
    }
    laws = {label: log_law_fit(D, times[label]["unfavorable"] / D, LAW_FROM) for label in LAWS}
    selections = {label: inputs[f"{label}-select"] for label, _, _, _ in ACTIVATIONS}
    quick = len(D) == len(STRENGTHS[True])
    erf_runs = {(s, g): inputs[f"erf-{g}-D{s:g}"] for s in ERF_STRENGTHS[quick] for g in GAUGES}
    model = inputs.configs[f"linear-favorable-D{D[0]:g}"].model
    letters = [x for x in "abcdef" if layout.wants(x)]
    if layout.is_main:
        fig, axes = style.new_figure(layout.width, layout.height(0.44), ncols=len(letters))
    else:
        fig, axes = style.new_figure(layout.width, min(layout.height(1.15), MAX_HEIGHT), nrows=3, ncols=2)
    ax = dict(zip(letters, np.atleast_1d(axes).ravel(), strict=True))
    scratch = _Scratch()
    draw = {
        "a": lambda a: _panel_times(a, D, times, TIME_PANELS["a"]) | {"aligned": _panel_aligned(a, D, model.c0)},
        "b": lambda a: _panel_times(a, D, times, TIME_PANELS["b"]),
        "c": lambda a: _panel_separation(a, D, times, laws, layout),
        "d": lambda a: _panel_law(a, D, times, laws, layout),
        "e": lambda a: _panel_selection(a, selections, layout),
        "f": lambda a: _panel_erf(a, erf_runs),
    }
    # every panel's sidecar data, drawn or not: a main version computes nothing new
    panels = {x: draw[x](ax[x] if x in ax else scratch.axes()) for x in "abcdef"}
    for x in letters:
        style.panel_label(ax[x], layout.label(x))
        if layout.is_main and x in "abcd":
            _d_axis(ax[x], D, narrow=True)
    every = {a[0] for a in ACTIVATIONS}
    drawn = every if {"c", "d"} & set(letters) else {a for x in letters for a in TIME_PANELS.get(x, ())}
    _legend(fig, drawn | ({"aligned"} if "a" in letters else set()))
    rows = [(label, activation_class(name).degree, _expected(name, "ratio")) for label, name, _, _ in ACTIVATIONS]
    panels["key"] = key_numbers(panels, D, times, laws, model, rows, inputs[RELU_LIMITS])
    return fig, panels


class _Scratch:
    """Axes for a panel the version does not draw, so that its sidecar numbers come from the same code."""

    def __init__(self) -> None:
        self.fig: Any = None

    def axes(self) -> Any:
        from matplotlib.figure import Figure

        self.fig = Figure()
        return self.fig.add_subplot()
