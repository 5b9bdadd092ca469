"""Figure 4 — selection among ``m`` duplicates, where it holds and where it stops (claim C6).

Population flow from the complete initial function (docs/theory.md, the model), ``m = 5``, time in units of the
run's ``T_spec`` (log axis: selection takes ~``T_spec``, pruning orders of magnitude longer).

(a), (b) the select run: neuron ``o = 2`` at ``+D``, the others at ``−D`` (``D = 4``). (a) the
    coefficients ``c_j(t)``: the owner takes the whole feature (``c → a*``), the non-owners
    (identical to each other by symmetry: one line) are pruned. (b) the signed angle ``φ_j`` of
    each neuron from v in the invariant plane ``span(v, u0)`` (degrees, symlog:
    :mod:`gaugecli.plots._fig4_angle`), where ``α_j = cos φ_j``: the owner passes through v (a sign
    change, at the crossing time, located on the dense output) and turns back from its largest
    overshoot on the other side while the non-owners still carry function (P ≈ 0.1), returning to
    v as they are pruned (sidecar ``overshoot``); ``|φ| = arccos(1 − ε_align)`` marks ``T_spec``.
(c), (d) mixed per-neuron δ = (−2, 4, 0, −4, 2) (the configuration of ``gaugecli verify``'s
    C6): the owner is ``argmax_j δ_j``; the ``δ = +2`` neuron co-aligns and keeps a share of
    the coefficient (claim C7: pruning needs ``δ ≤ 0``), the others stay unaligned. (c) also
    draws, in units of c (divided by ``‖σ(v·x)‖ = 1/√2``), the non-owner norm P(t) — it ends
    at the co-aligned neuron's share — and ``P_U(t)``, the function the three unaligned neurons
    carry together: the δ = −2 neuron is pruned, but the δ = 0 and δ = −4 neurons keep
    ``c ≈ ±0.02`` — of opposite signs, in one direction — and cancel (``P_U`` ends ~1e-3 of
    ``Σ|c_j|``): a cancelling pair, pruned as a function and not as parameters. Once the
    residual vanishes the pair feels no gradient, so nothing drives its c to 0. (d) their signed
    angles, as (b). One colour per δ, every two ≥ :data:`MIN_MIXED_DELTA_E` apart (CIEDE2000).
(e) the gauge gap: the owner at ``δ_o = δ_r + g`` and the four others at ``δ_r`` for
    ``δ_r ∈ {−4, 0, +4}`` (unfavorable, balanced, favorable others), ``g`` from ``1e-4`` to 8, and
    the exact tie ``g = 0`` (no unique owner: docs/theory.md §9, counted as no selection). y: the owner's
    coefficient at the end of the run, ``c_o/a*`` (1 = exclusive selection). Filled markers:
    the unique owner is ``argmax δ`` (every positive gap); crosses: ties (for ``δ_r = −4`` the
    tied group is unstable and round-off splits it, docs/theory.md §9). Against ``−D`` others selection is
    exclusive at every gap but slows as the gap closes (``T_spec`` grows like ``ln(1/g)``: key
    number ``-4-t_spec_per_efold``); against balanced or favorable others the owner is still
    ``argmax δ`` but shares the feature with the co-aligned others.
(f) the paper's owner-success matrix: every width m = 2 … 8 and every designated o < m (o at +D,
    D = 4, the others at −D; ``select --sweep``, the run ``gaugecli verify`` checks for C6): a dot
    where o is the unique owner, the cell's colour its ``T_spec``. Exact duplicates under the
    population flow are deterministic, so each cell is one run (no seeds); ``T_spec`` does not
    depend on o (the others are interchangeable) and falls with m (each neuron starts at c0/m).
    Selection from finite samples, against n, is fig7 (d); random visible perturbations fig7 (a).

Key numbers (sidecar): the owners, their ``T_spec`` and final coefficients; (c)'s P and ``P_U``
and the unaligned neurons' final c; per gap family the
success counts, the owner's final coefficient, ``T_spec`` and ``P(end)`` against g, the success
rates at positive gaps and at ties; the owner-success matrix, its ``T_spec`` and their spread over o.
"""

from __future__ import annotations

import math
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from gaugecli.core.kernels.arccos import angular_profile
from gaugecli.plots import style
from gaugecli.plots._fig4_angle import panel_angle, plane_angles
from gaugecli.plots._fig4_boundary import (
    DESIGNATED,
    REST,
    STRENGTH,
    M,
    _panel_gap,
    _panel_owner_matrix,
)
from gaugecli.plots._fig4_readings import CAPTION as CAPTION
from gaugecli.plots._fig4_readings import CLAIM as CLAIM
from gaugecli.plots._fig4_readings import READINGS as READINGS
from gaugecli.plots._fig4_readings import SIDECAR_TOLERANCES as SIDECAR_TOLERANCES
from gaugecli.plots.render import Inputs, Need
from gaugecli.plots.venue import Layout

if TYPE_CHECKING:
    from gaugecli.experiments.select import OwnerSweepConfig


MIN_WIDTH = 5.0
"""Narrower than this (inches) the panels are illegible; ``plot --width`` refuses it."""


MIXED = (-2.0, 4.0, 0.0, -4.0, 2.0)
"""Mixed per-neuron δ of (c), (d): the configuration ``gaugecli verify`` checks for C6 (a shared run)."""
GAPS = {False: (0.0, 1e-4, 1e-2, 0.1, 1.0, 8.0), True: (0.0, 0.1)}
"""(e): the gauge gaps g = δ_o − δ_r (0: the exact tie)."""


def owner_sweep_config(quick: bool) -> OwnerSweepConfig:
    """(f)'s sweep: the one ``gaugecli verify`` runs for C6 (quick: m = 2, 3, 5)."""
    from gaugecli.experiments.select import OwnerSweepConfig

    return OwnerSweepConfig(ms=(2, 3, 5) if quick else (2, 3, 4, 5, 6, 7, 8), strength=STRENGTH)


MIXED_COLORS = {4.0: style.PLUS, 2.0: style.SKY, 0.0: style.BALANCED, -2.0: style.PURPLE, -4.0: style.MINUS}
"""(c), (d): one colour per δ, every two at least :data:`MIN_MIXED_DELTA_E` apart (δ = −2 was orange,
CIEDE2000 17 from δ = −4's vermillion: read as one colour; purple is 41.5 from it)."""
MIN_MIXED_DELTA_E = 20.0
"""The smallest CIEDE2000 between two series of (c) or (d) (tested; measured 21.9, +4 against +2)."""
MIXED_MARKERS = {4.0: "o", 2.0: "D", 0.0: "^", -2.0: "v", -4.0: "s"}


def _gap_name(rest: float, gap: float) -> str:
    return f"gap{rest:+g}-g{gap:g}"


def _gap_deltas(rest: float, gap: float) -> tuple[float, ...]:
    """δ of the gap sweep: the owner (index :data:`DESIGNATED`) at ``rest + gap``, the others at ``rest``."""
    return tuple(rest + gap if j == DESIGNATED else rest for j in range(M))


def _gap_runs(quick: bool) -> list[tuple[float, float]]:
    """``(δ_r, g)`` of the gap sweep that are not the select run itself (``δ_r = −D``, ``g = 2D``)."""
    return [(r, g) for r in REST for g in GAPS[quick] if not (r == -STRENGTH and g == 2 * STRENGTH)]


def needs(quick: bool) -> dict[str, Need]:
    """The select run (m = 5, D = 4, o = 2), the mixed-δ run, one select run per gap point
    (population flow, the model's defaults), and the owner sweep of (f) (shared with ``gaugecli verify``)."""
    from gaugecli.experiments.select import SelectConfig

    out = {
        "select": Need("select", SelectConfig(m=M, strength=STRENGTH, owner=DESIGNATED)),
        "mixed": Need("select", SelectConfig(deltas=MIXED)),
    }
    for rest, gap in _gap_runs(quick):
        out[_gap_name(rest, gap)] = Need("select", SelectConfig(deltas=_gap_deltas(rest, gap)))
    out["sweep"] = Need("select-sweep", owner_sweep_config(quick))
    return out


# ------------------------------------------------------------------------------------------
# helpers


def _time_axis(ax: Any, x_max: float) -> None:
    ax.set_xscale("log")
    ax.set_xlim(1e-2, x_max)
    ax.set_xlabel(r"$t\,/\,T_{\rm spec}$")
    style.threshold_line(ax, 1.0, axis="x")


def _window(run: Any) -> tuple[np.ndarray, np.ndarray]:
    """Indices with ``t/T_spec ≥ 1e-2`` (the log axis' left edge) and ``t/T_spec`` there."""
    x = run.t / run.t_spec
    keep = np.flatnonzero(x >= 1e-2)
    if keep.size and keep[0] > 0:  # one sample before the edge, so that lines reach it
        keep = np.concatenate([[keep[0] - 1], keep])
    return keep, x[keep]


# ------------------------------------------------------------------------------------------
# panels


def _panel_select_coefficients(ax: Any, run: Any, designated: int, layout: Layout) -> dict[str, Any]:
    keep, x = _window(run)
    others = [j for j in range(run.coefficient.shape[1]) if j != designated]
    out: dict[str, Any] = {"designated": designated, "unique_owner": run.owner, "t_spec": run.t_spec}
    owner_c = run.coefficient[keep, designated]
    other_c = run.coefficient[keep, others[0]]
    ax.plot(x, owner_c, color=style.PLUS, lw=1.6, marker="o", markevery=(0.3, 0.25), ms=3.0)
    ax.plot(x, other_c, color=style.MINUS, lw=1.2, ls=(0, (4, 1.5)), marker="s", markevery=(0.1, 0.25), ms=3.0)
    out["owner"] = style.series(x, owner_c, neuron=designated)
    out["nonowner"] = style.series(x, other_c, neuron=others[0])
    out["nonowner_spread"] = float(np.max(np.ptp(run.coefficient[:, others], axis=1)))
    out["final_owner_coefficient"] = float(run.coefficient[-1, designated])
    out["final_nonowner_coefficient"] = float(np.max(np.abs(run.coefficient[-1, others])))
    out["c0"] = float(run.coefficient[0].sum())
    style.threshold_line(ax, 1.0)
    style.note(ax, r"$a_*$", (0.01, 1.0), layout, offset=(0, 1), xycoords=("axes fraction", "data"), va="bottom")
    style.note(ax, rf"owner $o={designated}$, $\delta=+{STRENGTH:g}$", (0.012, 0.62), layout, color=style.PLUS)
    style.note(
        ax,
        f"{len(others)} non-owners, $\\delta=-{STRENGTH:g}$\n(identical: one line)",
        (0.012, 0.2),
        layout,
        color=style.MINUS,
    )
    _time_axis(ax, float(x[-1]))
    ax.set_ylim(-0.03, 1.1)
    ax.set_ylabel(r"coefficient $c_j$")
    ax.set_title(rf"$m={M}$, $D={STRENGTH:g}$", loc="right", fontsize=layout.small)
    style.panel_label(ax, "a")
    return out


def _panel_select_alignment(
    ax: Any, run: Any, config: Any, designated: int, eps_align: float, layout: Layout
) -> dict[str, Any]:
    """(b) the signed angle of the owner and of the non-owners (one line: identical by symmetry)
    in the invariant plane, the owner's crossing of v and its largest overshoot; the alignment
    numbers the README quotes from the stored run."""
    others = [j for j in range(run.alignment.shape[1]) if j != designated]
    angles = plane_angles(config, designated)
    # the non-owners are identical (symmetry): one line, as in (a)
    styles = [{"color": style.PLUS, "lw": 1.6}, {"color": style.MINUS, "lw": 1.2, "ls": (0, (4, 1.5))}]
    x_of = partial(_window_times, t_spec=run.t_spec)
    out = panel_angle(
        ax, angles, x_of, styles, ["owner", "nonowner"], run.t_spec, layout, columns=[designated, others[0]]
    )
    # T_spec: where α = 1 − ε_align, i.e. |φ| = arccos(1 − ε_align)
    at_spec = math.degrees(math.acos(1.0 - eps_align))
    style.threshold_line(ax, at_spec)
    ax.plot([1.0], [at_spec], ls="none", marker="o", mfc="white", mec=style.THEORY, ms=4.5, zorder=5)
    style.note(ax, r"$T_{\rm spec}$", (1.0, at_spec), layout, offset=(-3, -3), ha="right", va="top", color=style.THEORY)
    style.note(ax, "owner", (3.0, 0.3), layout, color=style.PLUS)
    style.note(
        ax,
        f"{len(others)} non-owners",
        (0.98, 90.0),
        layout,
        offset=(0, -3),
        xycoords=("axes fraction", "data"),
        ha="right",
        va="top",
        color=style.MINUS,
    )
    _time_axis(ax, float(_window_times(run.t, run.t_spec)[1][-1]))
    ax.set_title(rf"$m={M}$, $D={STRENGTH:g}$", loc="right", fontsize=layout.small)
    style.panel_label(ax, "b")
    return out | {
        "spec_angle_degrees": at_spec,
        "final_owner_misalignment": float(1.0 - run.alignment[-1, designated]),
        "max_nonowner_alignment": float(np.max(run.alignment[:, others])),
        "final_nonowner_alignment": float(np.max(run.alignment[-1, others])),
        "alignment_check": _alignment_check(angles, run),
    }


def _window_times(t: np.ndarray, t_spec: float) -> tuple[np.ndarray, np.ndarray]:
    """Indices with ``t/T_spec ≥ 1e-2`` (and one before) and ``t/T_spec`` there."""
    x = t / t_spec
    keep = np.flatnonzero(x >= 1e-2)
    if keep.size and keep[0] > 0:
        keep = np.concatenate([[keep[0] - 1], keep])
    return keep, x[keep]


def _alignment_check(angles: dict[str, Any], run: Any) -> float:
    """The largest ``|cos φ_j − α_j|`` on the stored run's grid: the integration again against the
    stored run (the same solver and grid: round-off)."""
    if angles["t"].shape != run.t.shape or not np.allclose(angles["t"], run.t, rtol=1e-12, atol=0.0):
        return math.inf
    return float(np.max(np.abs(np.cos(angles["phi"]) - run.alignment)))


def _mixed_title(deltas: tuple[float, ...]) -> str:
    return r"$\delta=(" + ", ".join(f"{d:g}".replace("-", "-") for d in deltas) + ")$"


def _mixed_style(delta: float, owner: bool) -> dict[str, Any]:
    return {
        "color": MIXED_COLORS[delta],
        "marker": MIXED_MARKERS[delta],
        "markevery": (0.05 + 0.04 * (delta + 4.0), 0.25),
        "ms": 3.0,
        "lw": 1.6 if owner else 1.1,
        "ls": "-" if owner else (0, (4, 1.5)) if delta > 0 else (0, (1.5, 1.2)),
        "zorder": 3 if owner else 2,
    }


def _panel_mixed_coefficients(
    ax: Any, run: Any, deltas: tuple[float, ...], eps_align: float, layout: Layout
) -> dict[str, Any]:
    keep, x = _window(run)
    owner = int(np.argmax(deltas))
    out: dict[str, Any] = {
        "deltas": list(deltas),
        "argmax_delta": owner,
        "owner": run.owner,
        "t_spec": run.t_spec,
        "final_coefficient": style.tolist(run.coefficient[-1]),
        "final_alignment": style.tolist(run.alignment[-1]),
    }
    for j, delta in enumerate(deltas):
        y = run.coefficient[keep, j]
        ax.plot(x, y, **_mixed_style(delta, j == owner))
        out[f"neuron{j}"] = style.series(x, y, delta=delta)
    out["function"] = _mixed_function(ax, run, keep, x, eps_align, layout)
    ends = {j: float(run.coefficient[-1, j]) for j in range(len(deltas))}
    # direct labels at the right edge, the unaligned three (ends within 0.03 of 0) stacked
    placed: list[float] = []
    for j in sorted(ends, key=lambda k: -deltas[k]):
        y = ends[j]
        while any(abs(y - p) < 0.085 for p in placed):
            y -= 0.085
        placed.append(y)
        style.note(
            ax,
            rf"$\delta={deltas[j]:+g}$".replace("+0", "0"),
            (1.0, y),
            layout,
            offset=(2, 0),
            xycoords=("axes fraction", "data"),
            color=MIXED_COLORS[deltas[j]],
        )
    style.threshold_line(ax, 1.0)
    _time_axis(ax, float(x[-1]))
    ax.set_ylim(-0.25, 1.1)
    ax.set_ylabel(r"coefficient $c_j$")
    ax.set_title(_mixed_title(deltas), loc="right", fontsize=layout.small)
    style.panel_label(ax, "c")
    return out


UNIT_NORM = math.sqrt(angular_profile(0.0))
"""``‖σ(v·x)‖`` for a unit ``v`` (ReLU: ``1/√2``): a norm divided by it is in units of ``c``."""


def _mixed_function(
    ax: Any, run: Any, keep: np.ndarray, x: np.ndarray, eps_align: float, layout: Layout
) -> dict[str, Any]:
    """(c)'s function norms, in units of ``c``: P(t) (every non-owner) and the function the
    neurons that end unaligned carry together. P ends at the co-aligned neuron's ``c``; the
    unaligned group's ends near 0 although two of its members keep ``|c| ≈ 0.02`` with opposite
    signs — a cancelling pair of one direction, not two pruned neurons."""
    P = run.nonowner_norm[keep] / UNIT_NORM
    ax.plot(x, P, color="k", lw=0.7, ls=(0, (5, 2)), zorder=4)
    out: dict[str, Any] = {"unit_norm": UNIT_NORM, "P_over_unit": style.series(x, P)}
    at = int(np.searchsorted(x, 0.015))  # near the left edge, where every curve is flat
    style.note(ax, r"$P/\Vert\sigma\Vert$", (float(x[at]), float(P[at])), layout, offset=(0, 3), va="bottom", color="k")
    if run.unaligned_norm is not None:
        unaligned = np.flatnonzero(run.alignment[-1] < 1.0 - eps_align)
        group = run.unaligned_norm[keep] / UNIT_NORM
        ax.plot(x, group, color="k", lw=0.9, ls=(0, (1, 1.2)), zorder=4)
        peak = int(np.argmax(group))
        style.note(
            ax, r"$P_U/\Vert\sigma\Vert$", (float(x[peak]), float(group[peak])), layout, offset=(4, 4), color="k"
        )
        c_end = run.coefficient[-1, unaligned]
        out["unaligned"] = {
            "neurons": [int(j) for j in unaligned],
            "final_coefficient": style.tolist(c_end),
            "sum_abs_final_coefficient": float(np.sum(np.abs(c_end))),
            "final_group_norm_over_unit": float(group[-1]),
            "series": style.series(x, group),
        }
    return out


def _panel_mixed_alignment(
    ax: Any, run: Any, config: Any, deltas: tuple[float, ...], eps_align: float, layout: Layout
) -> dict[str, Any]:
    """(d) the signed angles of the mixed-δ run, the owner's crossing and largest overshoot."""
    owner = int(np.argmax(deltas))
    angles = plane_angles(config, owner)
    styles = [_mixed_style(delta, j == owner) for j, delta in enumerate(deltas)]
    out = panel_angle(
        ax,
        angles,
        partial(_window_times, t_spec=run.t_spec),
        styles,
        [f"neuron{j}" for j in range(len(deltas))],
        run.t_spec,
        layout,
    )
    style.threshold_line(ax, math.degrees(math.acos(1.0 - eps_align)))
    out["crossing_times"] = style.tolist(np.asarray(run.crossing_times) / run.t_spec)
    out["alignment_check"] = _alignment_check(angles, run)
    _time_axis(ax, float(_window_times(run.t, run.t_spec)[1][-1]))
    ax.set_title(_mixed_title(deltas), loc="right", fontsize=layout.small)
    style.panel_label(ax, "d")
    return out


MAIN_PANELS: tuple[str, ...] = ("a", "b", "f")
"""The main-text version (the referee's choice): the owner takes the feature (a), passes through v
and turns back (b), and owns at every width and index (f)."""


def _axes(layout: Layout) -> tuple[Any, dict[str, Any], Any]:
    """The figure, its axes by letter, and a scratch figure for the panels a main-text version does
    not draw (the sidecar stays the full figure's), or ``None``."""
    if layout.panels is None:
        fig, grid = style.new_figure(layout.width, layout.height(1.12), nrows=3, ncols=2)
        return fig, dict(zip("abcdef", grid.ravel(), strict=True)), None
    letters = [p for p in layout.panels if p in "abcdef"]
    # two panels a row at the full figure's panel width (its direct labels need it); a third spans
    # the row under them
    rows = [letters[:2]] + ([[p] * 2 for p in letters[2:3]] if len(letters) > 2 else [])
    fig, _ = style.new_figure(layout.width, layout.height(0.4 * len(rows)))
    fig.clear()
    axes = fig.subplot_mosaic(rows if len(letters) > 1 else [letters])
    scratch, _ = style.new_figure(layout.width, layout.height(1.12))
    scratch.clear()
    axes |= {p: scratch.add_subplot(3, 2, i + 1) for i, p in enumerate("abcdef") if p not in axes}
    return fig, axes, scratch


def build(inputs: Inputs, layout: Layout) -> tuple[Any, dict[str, Any]]:
    """Six panels in three rows at the layout's width, or the panels ``layout.panels`` in one row;
    the sidecar is the full figure's either way."""
    select, mixed = inputs["select"], inputs["mixed"]
    for name, result in (("select", select), ("mixed", mixed)):
        if result.runs[0].t_spec is None:
            raise ValueError(f"fig4: the {name} run never specialized; time is read in units of T_spec")
    eps_align = float(inputs.configs["select"].model.eps_align)
    # the gap grid of whichever profile was resolved; (δ_r = −D, g = 2D) is the select run itself
    gap_runs = {(r, g): select.runs[0] for r, g in [(-STRENGTH, 2 * STRENGTH)]}
    for r in REST:
        for g in sorted(set(GAPS[False]) | set(GAPS[True])):
            if _gap_name(r, g) in inputs.results:
                gap_runs[r, g] = inputs[_gap_name(r, g)].runs[0]
    if (REST[1], 2 * STRENGTH) not in gap_runs:  # a profile without g = 2D (quick)
        gap_runs.pop((-STRENGTH, 2 * STRENGTH))
    fig, axes, scratch = _axes(layout)
    panels: dict[str, Any] = {
        "a": _panel_select_coefficients(axes["a"], select.runs[0], select.designated, layout),
        "b": _panel_select_alignment(
            axes["b"], select.runs[0], inputs.configs["select"], select.designated, eps_align, layout
        ),
        "c": _panel_mixed_coefficients(axes["c"], mixed.runs[0], MIXED, eps_align, layout),
        "d": _panel_mixed_alignment(axes["d"], mixed.runs[0], inputs.configs["mixed"], MIXED, eps_align, layout),
        "e": _panel_gap(axes["e"], gap_runs, layout),
        "f": _panel_owner_matrix(axes["f"], inputs["sweep"], layout),
    }
    for letter in "abcdef":
        if layout.wants(letter):
            style.panel_label(axes[letter], layout.label(letter))
    if scratch is not None:
        scratch.clear()
    return fig, panels
