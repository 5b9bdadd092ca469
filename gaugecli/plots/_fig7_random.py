"""Panel (e) of fig7 — random visible perturbations (SPEC C8 a): the share of seeds whose ``+D``
neuron owns the feature, and the share where it carries it alone, against ε for each D, with 95 %
Wilson intervals; and the run it reads (:func:`random_config`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from gaugecli.experiments.perturb.visible import EXCLUSIVE_LEVEL, random_outcomes
from gaugecli.plots import style
from gaugecli.plots._fig7_samples import _log2_axis
from gaugecli.plots.venue import Layout

if TYPE_CHECKING:
    from gaugecli.experiments.perturb import PerturbConfig


RANDOM_EPS = (0.5, 1.0, 2.0, 4.0, 8.0, 12.0)
"""(e)'s ε grid. ε is a log-coefficient as well as a direction scale: at ε = 12 the 20 seeds'
coefficients ``(c0/m) e^{εζ}`` reach 2·10⁹, and δ = ±D, a difference of squares of that size, is
still held to 7e-6 of D (:func:`~gaugecli.experiments.perturb.visible.gauge_drift`); at ε = 16 they
reach 8·10¹², one start's δ is off by 2e-3 as built and drifts by 0.5–2.4 % of D (round-off: the
share moves with the arithmetic path): the gauge is no longer resolved in float64, and the outcome
no longer the model's."""


def random_config(quick: bool) -> PerturbConfig:
    """(e)'s run: random visible perturbations only (``gaugecli perturb --kind random --sweeps
    visible``), 20 seeds at D = 1, 4, 16 over :data:`RANDOM_EPS` (~12 s on one core: one ensemble
    of 20 seeds per ε). Quick: D = 1, 4 and ε = 1, 8 with 4 of the 20 seeds, among them the
    two that fail at ε = 8 (17 at both D, 18 at D = 1 only), so that the test sees both kinds."""
    from gaugecli.experiments.perturb import PerturbConfig

    if quick:
        return PerturbConfig(
            adversarial=False, sweeps=("visible",), eps=(1.0, 8.0), strengths=(1.0, 4.0), seeds=(16, 17, 18, 19)
        )
    return PerturbConfig(
        adversarial=False, sweeps=("visible",), eps=RANDOM_EPS, strengths=(1.0, 4.0, 16.0), seeds=tuple(range(20))
    )


SPREAD = 0.035
"""The D series sit side by side at each ε: offsets of ``SPREAD`` in log₂ ε per D, so that their
intervals do not hide each other (a sidecar series' ``x`` is where it is drawn, its ``eps`` the
true ε)."""


LEGEND_ROOM = 0.32
"""(e)'s y axis reaches past 1 by this share of its data range: room for the one-row legend."""


def reading_text(reading: dict[str, Any]) -> str:
    """(e)'s reading, from :func:`random_outcomes`: how far every seed selects (and alone), and
    the failing starts by cause."""
    rows = reading["by_D"]

    def upto(key: str) -> str:
        ends = {r[key] for r in rows.values()}
        if len(ends) == 1:
            (end,) = ends
            return "nowhere" if end is None else f"up to $\\varepsilon={end:g}$"
        return ", ".join(f"{'—' if r[key] is None else f'{r[key]:g}'} ($D={D}$)" for D, r in rows.items())

    text = f"every seed: +D owns {upto('all_select_to')}, alone {upto('all_exclusive_to')}"
    lost, unsettled = reading["failures"]["lost"], reading["failures"]["unsettled"]
    parts = []
    if lost["starts"]:
        parts.append(f"{lost['starts']} where −D owns")
    if unsettled["starts"]:
        low = reading["unsettled_share"][0]
        parts.append(f"{unsettled['starts']} unwinding a cancelling pair ($c_+\\geq{low:.0f}\\,a^*$ at the horizon)")
    if parts:
        text += "\nfailing starts: " + "; ".join(parts)
    return text


def define_random(ax: Any, layout: Layout, m: int, seeds: int) -> dict[str, Any]:
    """(e)'s title: what a random ε does (:func:`gaugecli.core.gauge.perturbed_duplicates`)."""
    # exp(·), not e^{εζ_j}: a subscript inside a superscript would be a script of a script (5 pt)
    text = rf"$m={m}$, {seeds} seeds: $u_j\propto u_0+\varepsilon\xi_j$, $c_j=(c_0/m)\,\exp(\varepsilon\zeta_j)$"
    ax.set_title(text, loc="right", fontsize=layout.small)
    ax.set_xlabel(r"random perturbation size $\varepsilon$  ($\xi_j\sim N(0,I_d/d)$, $\zeta_j\sim N(0,1)$)")
    return {"m": m, "seeds": seeds, "u": "u0 + ε ξ, ξ ~ N(0, I/d)", "c": "(c0/m) e^{ε ζ}, ζ ~ N(0, 1)"}


def panel_random(ax: Any, visible: Any, layout: Layout) -> dict[str, Any]:
    """(e) selection (filled) and exclusive selection (hollow) against ε per D, Wilson intervals."""
    reading = random_outcomes(visible)
    eps = np.array(visible.eps, dtype=float)
    colors = style.sequential_colors(len(visible.strengths))
    mid = 0.5 * (len(visible.strengths) - 1)
    out: dict[str, Any] = {"outcomes": reading}
    handles = []
    lows = [1.0]
    for i, (D, color) in enumerate(zip(visible.strengths, colors, strict=True)):
        rows = reading["by_D"][f"{D:g}"]
        trials = np.array(rows["trials"], dtype=float)
        x = eps * 2.0 ** (SPREAD * (i - mid) * 2.0)
        for key, face, ls in (("selects", None, "-"), ("exclusive", "white", ":")):
            share = np.array(rows[key], dtype=float) / trials
            ci = np.array(rows[f"{key}_wilson"], dtype=float)
            lows.append(float(ci[:, 0].min()))
            ax.errorbar(
                x,
                share,
                yerr=[share - ci[:, 0], ci[:, 1] - share],
                color=color,
                ls=ls,
                lw=0.9,
                marker="o" if key == "selects" else "D",
                ms=3.2,
                mfc=face or color,
                mew=0.9,
                capsize=1.2,
                elinewidth=0.7,
                zorder=4 if key == "selects" else 3,
            )
            out[f"{key}-D{D:g}"] = style.series(x, share, eps=eps, wilson_low=ci[:, 0], wilson_high=ci[:, 1])
        handles.append(style.line_handle(color, "-", "o", f"$D={D:g}$"))
    handles += [
        style.line_handle("0.2", "-", "o", "+D owns"),
        style.line_handle(
            "0.2", ":", "D", rf"+D alone, $P_{{\rm end}}\leq10^{{{int(np.log10(EXCLUSIVE_LEVEL))}}}$", mfc="white"
        ),
    ]
    # the legend in one row above every point (all shares ≤ 1): the axis reaches LEGEND_ROOM of
    # its range past 1
    bottom = max(0.0, min(lows) - 0.12)
    ax.legend(handles=handles, loc="upper center", ncols=len(handles), handlelength=2.0, borderaxespad=0.2)
    _log2_axis(ax, eps)
    ax.set_xlim(eps[0] / 1.4, eps[-1] * 1.4)
    ax.set_ylim(bottom, 1.0 + LEGEND_ROOM * (1.0 - bottom))
    ax.axhline(1.0, color=style.GUIDE, lw=0.6, ls="-", zorder=1)
    style.note(ax, reading_text(reading), (0.015, 0.04), layout, xycoords="axes fraction", va="bottom", color="0.15")
    ax.set_ylabel("share of seeds")
    return out
