"""Figure 10 — random-start ownership (beyond the paper; ReLU, population flow).

(a) One Gaussian start as a practitioner draws it (``simulate --init gaussian --gauge natural``:
``a_j = |N(0, σ_a²)|``, ``w_j ~ N(0, σ_w² I/d)``, δ as drawn), ``k = 2`` features, ``m = 8`` neurons,
init seed 0: the ownership matrix ``O_jk(t) = c_j α_jk`` over time, one dash pattern per feature —
its final owner, the neurons aligned with the same feature that still carry function (co-aligned:
the split a small gauge leaves unresolved, C7's boundary), and the rest.

(b, c) What predicts the owner (``gaugecli predict``): three rules' accuracy against the δ-spread
ratio ρ for one feature (b) and two (c) among four neurons (:mod:`gaugecli.plots._fig10_accuracy`);
in (c) also whether the two owners are the two neurons of largest δ, whichever feature each takes
(:mod:`gaugecli.experiments.predict.sets`). No δ rule is drawn at ρ = 0, where every δ ties.

Finite samples are figure 11 (:mod:`gaugecli.plots.fig11`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from gaugecli.experiments.predict.sets import owner_sets
from gaugecli.plots import style
from gaugecli.plots._fig10_accuracy import STUDIES, panel_accuracy, predict_config, reading
from gaugecli.plots.readings import Reading
from gaugecli.plots.render import Inputs, Need
from gaugecli.plots.venue import Layout

if TYPE_CHECKING:
    from matplotlib.typing import LineStyleType

MIN_WIDTH = 5.0
"""Narrower than this (inches) the panels are illegible; ``plot --width`` refuses it."""

CLAIM = "beyond: from Gaussian starts the gauge predicts the owner only once δ's spread dominates"
READINGS = (
    Reading(
        "WildOwnerShare",
        "panels/key/wild/owner_share/0",
        ".3f",
        "the first feature's owner's share of it, one Gaussian start (seed 0, k = 2, m = 8)",
    ),
    Reading(
        "CAlphaAtZero",
        "panels/key/predict/k1/rho0/accuracy/c-alpha/0",
        ".0%",
        "accuracy of argmax c·α(0) for one feature at ρ = 0",
    ),
    Reading(
        "DeltaAtHundred",
        "panels/key/predict/k1/rho100/accuracy/delta/0",
        ".0%",
        "accuracy of argmax δ for one feature at ρ = 100",
    ),
    Reading(
        "RaceNatural",
        "panels/key/predict/k1/natural/accuracy/race/0",
        ".0%",
        "accuracy of the race for one feature with δ as drawn",
    ),
    Reading(
        "MatchedRaceAtHundred",
        "panels/key/predict/k2/rho100/accuracy/race-matched/0",
        ".0%",
        "accuracy of the matched race for two features at ρ = 100",
    ),
)
"""The numbers the caption quotes (:mod:`gaugecli.plots.readings`)."""
CAPTION = (
    "**From Gaussian starts the gauge predicts the owner only once δ's spread dominates.** ReLU, "
    "population flow, ρ = σ_δ/σ_vis. "
    "(a) One Gaussian start (k = 2, m = 8): each feature finds an owner, but not alone (the first owner "
    "carries {WildOwnerShare} of its feature). "
    "(b) One feature among four neurons: argmax c·α(0) names the owner in {CAlphaAtZero} at ρ = 0, "
    "argmax δ in {DeltaAtHundred} at ρ = 100; with δ as drawn the race does best ({RaceNatural}). "
    "(c) Two features: the matched race reaches {MatchedRaceAtHundred} at ρ = 100. "
    "Where it stops: at ρ = 0 every δ ties, and no δ rule is drawn."
)
"""The gallery's caption: ``{Name}`` fields are :data:`READINGS`."""
MAIN_PANELS: tuple[str, ...] = ("b", "c")
"""The main-text version: what predicts the owner with one feature (the claim) and with two (its
boundary: no single rule, but the owner set of largest δ)."""
SIDECAR_TOLERANCES = (
    ("b/*", 0.0, 1e-12, "accuracies are counts of owners (integers) and their Wilson intervals"),
    ("c/*", 0.0, 1e-12, "accuracies are counts of owners (integers) and their Wilson intervals"),
)
"""Where a number is exact, and why (first match wins); the rest use the shared defaults."""
WILD_K, WILD_M, WILD_SEED, WILD_HORIZON = 2, 8, 0, 2000.0
"""(a)'s run: the horizon is where its loss is 1e-7 and the co-aligned split has stopped moving (the
sidecar's ``share_change_last_half``: the largest change of any c_j α_jk between the declared time
t = 1000 and the horizon)."""
EARLIEST = 1e-2
"""(a) starts its log time axis here: before it nothing has moved from the draw."""


def _wild_config(quick: bool) -> Any:
    from gaugecli.experiments.config import DynamicsConfig, ModelConfig
    from gaugecli.experiments.simulate import SimulateConfig

    return SimulateConfig(
        model=ModelConfig(k=WILD_K),
        dynamics=DynamicsConfig(t_max=WILD_HORIZON),
        m=WILD_M,
        init="gaussian",
        gauge="natural",
        init_seed=WILD_SEED,
        times=(WILD_HORIZON / 2,),
    )


def needs(quick: bool) -> dict[str, Need]:
    """The random run of (a) and one ``predict`` study per accuracy panel."""
    out = {"wild": Need("simulate", _wild_config(quick))}
    for k, width in STUDIES:
        out[f"predict-k{k}"] = Need("predict", predict_config(k, width, quick))
    return out


def _roles(run: Any, feature: int) -> list[str]:
    """Each neuron's role for ``feature`` at the end: ``owner``, ``co-aligned`` or ``other``."""
    roles = []
    for j in range(len(run.coaligned)):
        if run.owners[feature] == j:
            roles.append("owner")
        elif run.coaligned[j][feature]:
            roles.append("co-aligned")
        else:
            roles.append("other")
    return roles


ROLE_STYLE: dict[str, tuple[str, float]] = {
    "owner": (style.PURPLE, 1.6),
    "co-aligned": (style.ORANGE, 1.1),
    "other": (style.GREY, 0.6),
}
"""A neuron's colour and width by its final role for a feature; the feature is the dash pattern."""
TOP = 1.5
"""(a)'s y axis reaches this high: its note and legend sit above the curves (all below 0.8)."""
FEATURE_DASHES: tuple[LineStyleType, ...] = ("-", (0, (4.0, 1.6)), ":")


def panel_ownership(ax: Any, run: Any, layout: Layout) -> dict[str, Any]:
    """``O_jk(t)`` of every neuron for every feature (one dash pattern each), coloured by the
    neuron's role for that feature at the end."""
    t = np.asarray(run.t, float)
    keep = t >= EARLIEST
    delta = np.asarray(run.imbalance, float)[0]
    out: dict[str, Any] = {}
    lines = [f"at $t={t[-1]:g}$, $c_j\\alpha_{{jk}}$ of"]
    for f in range(WILD_K):
        score = np.asarray(run.ownership, float)[:, :, f]
        roles = _roles(run, f)
        for j, role in sorted(enumerate(roles), key=lambda jr: jr[1] != "other"):  # the others underneath
            color, lw = ROLE_STYLE[role]
            ax.plot(t[keep], score[keep, j], color=color, ls=FEATURE_DASHES[f], lw=lw, zorder=3 if role != "other" else 2)  # fmt: skip
            out.setdefault(f"v{f + 1}", {})[f"neuron{j}"] = style.series(
                t[keep], score[keep, j], role=role, delta=delta[j]
            )
        ends = sorted(((float(score[-1, j]), j) for j, r in enumerate(roles) if r != "other"), reverse=True)
        lines.append(
            f"$v_{f + 1}$: neurons "
            + ", ".join(str(j) for _, j in ends)
            + ": "
            + ", ".join(f"{v:.3f}" for v, _ in ends)
        )
    style.note(ax, "\n".join(lines), (0.02, 0.97), layout, xycoords="axes fraction", va="top", color="0.15")
    handles = [style.line_handle(c, "-", None, role, lw=lw) for role, (c, lw) in ROLE_STYLE.items()]
    handles += [style.line_handle("0.3", FEATURE_DASHES[f], None, f"$v_{f + 1}$") for f in range(WILD_K)]
    handles.insert(3, style.line_handle("none", "none", None, ""))  # two columns: roles, then features
    # the note (left) and the legend (right) above every curve (each stays below 0.8): the axis reaches 1.5
    ax.legend(handles=handles, loc="upper right", ncols=2, handlelength=1.3, columnspacing=0.6, handletextpad=0.4, borderaxespad=0.2)  # fmt: skip
    ax.set_xscale("log")
    ax.set_xlim(EARLIEST, float(t[-1]))
    ax.set_ylim(-0.05, TOP)
    ax.set_yticks([0.0, 0.25, 0.5, 0.75])
    ax.set_xlabel(r"time $t$")
    ax.set_ylabel(r"ownership $c_j\,\alpha_{jk}(t)$")
    return out


def _late_change(run: Any) -> float:
    """``max_jk |O_jk(t_end) − O_jk(t_end/2)|``, both states stored at declared times."""
    t = np.asarray(run.t, float)
    half = int(np.argmin(np.abs(t - WILD_HORIZON / 2)))
    score = np.asarray(run.ownership, float)
    return float(np.max(np.abs(score[-1] - score[half])))


def _wild_title(ax: Any, run: Any, layout: Layout) -> dict[str, Any]:
    """(a)'s title: the draw (the scales are the study's defaults)."""
    delta = np.asarray(run.imbalance, float)[0]
    text = rf"seed {WILD_SEED}, $k={WILD_K}$, $m={WILD_M}$"
    ax.set_title(text, loc="right", fontsize=layout.small)
    return {"seed": WILD_SEED, "k": WILD_K, "m": WILD_M, "delta": style.tolist(delta)}


def _axes(layout: Layout) -> tuple[Any, dict[str, Any]]:
    """The full figure: (a) across the top, (b, c) below; the main version: its panels in one row."""
    if layout.is_main:
        wanted = [p for p in "abc" if layout.wants(p)]
        fig, axes = style.new_figure(layout.width, layout.height(0.5), nrows=1, ncols=len(wanted))
        return fig, dict(zip(wanted, np.atleast_1d(axes), strict=True))
    fig, axes = style.new_figure(layout.width, layout.height(0.82), nrows=2, ncols=2, height_ratios=(0.75, 1.0))
    grid = axes[0, 0].get_gridspec()
    for ax in axes[0]:
        ax.remove()
    return fig, {"a": fig.add_subplot(grid[0, :]), "b": axes[1, 0], "c": axes[1, 1]}


def build(inputs: Inputs, layout: Layout) -> tuple[Any, dict[str, Any]]:
    """Three panels at the layout's width (the main version: those of ``layout.panels``); returns
    the figure and its sidecar panels (the full figure's, whichever are drawn)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig, axes = _axes(layout)
    spare = Figure()  # a panel the main version does not show is drawn here: the sidecar is the full figure's
    FigureCanvasAgg(spare)
    ax = {p: axes[p] if p in axes else spare.add_subplot() for p in "abc"}
    wild = inputs["wild"]
    studies = {k: inputs[f"predict-k{k}"] for k, _ in STUDIES}
    panels = {
        "a": panel_ownership(ax["a"], wild, layout),
        "b": panel_accuracy(ax["b"], studies[1], layout),
        "c": panel_accuracy(ax["c"], studies[2], layout, sets=owner_sets(studies[2], inputs.configs["predict-k2"])),
    }
    panels["a"]["start"] = _wild_title(ax["a"], wild, layout)
    for letter in axes:
        style.panel_label(axes[letter], layout.label(letter))
    panels["key"] = {
        "wild": {
            "seed": WILD_SEED,
            "owners": list(wild.owners),
            "coaligned": [[j for j in range(WILD_M) if wild.coaligned[j][f]] for f in range(WILD_K)],
            "owner_share": [float(np.asarray(wild.ownership, float)[-1, o, f]) for f, o in enumerate(wild.owners)],
            "loss_end": float(wild.loss[-1]),
            "share_change_last_half": _late_change(wild),
        },
        "predict": {f"k{k}": reading(r) for k, r in studies.items()},
    }
    return fig, panels
