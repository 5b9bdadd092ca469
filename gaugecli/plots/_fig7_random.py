"""Panel (e) of fig7 — random visible perturbations (claim C8 a): a table of how many seeds' ``+D``
neuron owns the feature, and how many carry it alone, per D and ε (shares and 95 % Wilson intervals
in the sidecar); and the run it reads (:func:`random_config`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from gaugecli.experiments.perturb.visible import EXCLUSIVE_LEVEL, random_outcomes
from gaugecli.plots import style
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


NOT_ALONE, NOT_OWNED = "0.93", "0.80"
"""(e)'s cell shades: some seed's +D neuron owns but shares the feature (light); some seed's does not own it."""


def reading_text(reading: dict[str, Any]) -> str:
    """(e)'s reading, from :func:`random_outcomes`: the failing starts by cause (how far every seed
    selects is the table's white cells), in short lines to sit under the table."""
    lost, unsettled = reading["failures"]["lost"], reading["failures"]["unsettled"]
    causes = []
    if lost["starts"]:
        causes.append(f"{lost['starts']} where −D owns")
    if unsettled["starts"]:
        causes.append(f"{unsettled['starts']} unwinding")
    if not causes:
        return "no failing start"
    lines = ["failing: " + ", ".join(causes)]
    if unsettled["starts"]:
        low = reading["unsettled_share"][0]
        lines.append(f"unwinding: a cancelling pair, $c_+\\geq{low:.0f}\\,a^*$")
    return "\n".join(lines)


DEFINITION = (
    r"$u_j\propto u_0+\varepsilon\xi_j$, $\xi_j\sim N(0,I_d/d)$" + "\n"
    r"$c_j=(c_0/m)\,\exp(\varepsilon\zeta_j)$, $\zeta_j\sim N(0,1)$"
)
"""What a random ε does (:func:`gaugecli.core.model.gauge.perturbed_duplicates`); exp(·), not e^{εζ_j}:
a subscript inside a superscript would be a script of a script (5 pt)."""


def define_random(ax: Any, layout: Layout, m: int, d: int, seeds: int) -> dict[str, Any]:
    """(e)'s title and x label: the run (m, d, seeds) and the perturbation size."""
    ax.set_title(rf"$m={m}$, $d={d}$, {seeds} seeds", loc="right", fontsize=layout.small)
    ax.set_xlabel(r"random perturbation size $\varepsilon$")
    return {"m": m, "d": d, "seeds": seeds, "u": "u0 + ε ξ, ξ ~ N(0, I/d)", "c": "(c0/m) e^{ε ζ}, ζ ~ N(0, 1)"}


TEXT_ROWS = 2.7
"""(e): the room under the table, in table rows, for the definition and the reading."""


def panel_random(ax: Any, visible: Any, layout: Layout) -> dict[str, Any]:
    """(e) a table: per D (rows) and ε (columns), how many seeds' +D neuron owns the feature and
    how many carry it alone; cells shaded where not every seed does; under it what ε does and the
    failing starts by cause. Shares and 95 % Wilson intervals go to the sidecar."""
    from matplotlib.patches import Rectangle

    reading = random_outcomes(visible)
    eps = np.array(visible.eps, dtype=float)
    strengths = list(visible.strengths)
    out: dict[str, Any] = {"outcomes": reading}
    for row, D in enumerate(strengths):
        rows = reading["by_D"][f"{D:g}"]
        trials = np.array(rows["trials"], dtype=int)
        selects, alone = np.array(rows["selects"], dtype=int), np.array(rows["exclusive"], dtype=int)
        for col in range(eps.size):
            shade = NOT_OWNED if selects[col] < trials[col] else NOT_ALONE if alone[col] < trials[col] else "white"
            ax.add_patch(Rectangle((col - 0.5, row - 0.5), 1.0, 1.0, facecolor=shade, edgecolor="0.75", lw=0.5))
            ax.text(col, row, f"{selects[col]}/{alone[col]}", ha="center", va="center", fontsize=layout.small)
        for key in ("selects", "exclusive"):
            share = np.array(rows[key], dtype=float) / trials
            ci = np.array(rows[f"{key}_wilson"], dtype=float)
            out[f"{key}-D{D:g}"] = {
                "eps": style.tolist(eps),
                "share": style.tolist(share),
                "wilson_low": style.tolist(ci[:, 0]),
                "wilson_high": style.tolist(ci[:, 1]),
            }
    ax.set_xlim(-0.5, eps.size - 0.5)
    ax.set_ylim(len(strengths) - 0.5 + TEXT_ROWS, -0.5)  # D grows downwards, as a table reads
    ax.set_xticks(range(eps.size), [f"{e:g}" for e in eps])
    ax.set_yticks(range(len(strengths)), [f"$D={D:g}$" for D in strengths])
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.xaxis.set_label_position("top")
    ax.xaxis.tick_top()
    level = int(np.log10(EXCLUSIVE_LEVEL))
    ax.set_ylabel("seeds: +D owns / alone")
    text = (
        DEFINITION
        + "\n"
        + rf"alone: $P_{{\rm end}}\leq10^{{{level}}}$; shaded: not every seed"
        + "\n"
        + reading_text(reading)
    )
    style.note(ax, text, (-0.5, len(strengths) - 0.5), layout, offset=(0, -4), va="top", color="0.15")
    return out
