"""Panel (d) of the lockin figure: T_spec of perturbed duplicates over the size ε of the perturbation.

Select does not move; all −D, unstable on its symmetric set, moves by ~ln(ε)/λ_anti per decade and
changes its winner with the draw, down to ε at round-off (shaded), where the arithmetic decides."""

from __future__ import annotations

from typing import Any

import numpy as np

from gaugecli.plots import style

ROUNDOFF_EPS = 1e-15
"""Perturbations below this are at the round-off of order-one coordinates (ε_machine ≈ 2.2e-16)."""


def perturbation_panel(
    ax: Any, rows: list[dict[str, Any]], references: dict[str, float], styles: dict[str, tuple[str, str, str]]
) -> dict[str, Any]:
    """T_spec of perturbed duplicates over the perturbation size ε (``rows``: the lockin result's
    ``tspec_vs_eps``), relative to each assignment's unperturbed flow (``references``; for all −D
    the flow on the invariant set); ``styles``: colour, marker and label per assignment."""
    out: dict[str, Any] = {}
    if not rows:
        ax.annotate("not scanned", (0.5, 0.5), xycoords="axes fraction", ha="center", color=style.GUIDE)
        return out
    eps = np.array([row["eps"] for row in rows], float)
    for assign, reference in references.items():
        color, marker, label = styles[assign]
        y = np.array([np.nan if row[assign] is None else row[assign] for row in rows]) / reference
        ax.plot(eps, y, color=color, marker=marker, ls="none", alpha=0.8, label=label)
        winners = [row[f"{assign}_owner"] for row in rows]
        out[assign] = style.series(
            eps, y, reference_t_spec=reference, winners=winners, distinct_winners=len(set(winners))
        )
    style.threshold_line(ax, 1.0)
    ax.annotate(  # under the line, between the select points
        "unperturbed",
        (0.76, 1.0),
        xycoords=("axes fraction", "data"),
        xytext=(0, -3),
        textcoords="offset points",
        ha="center",
        va="top",
        color=style.GUIDE,
    )
    lo, hi = eps.min() / 4, eps.max() * 4
    if lo < ROUNDOFF_EPS:
        ax.axvspan(lo, ROUNDOFF_EPS, color=style.GUIDE, alpha=0.15, lw=0)
        ax.annotate(
            "round-off",
            (np.sqrt(lo * ROUNDOFF_EPS), 0.45),
            xycoords=("data", "axes fraction"),
            rotation=90,
            ha="center",
            va="center",
            color=style.GUIDE,
        )
    ax.set(xscale="log", xlim=(lo, hi), xlabel=r"perturbation $\varepsilon$")
    ax.set_ylabel(r"$T_{\rm spec}(\varepsilon)\,/\,T_{\rm spec}(0)$")
    from matplotlib.ticker import LogLocator

    ax.xaxis.set_major_locator(LogLocator(base=10, numticks=5))
    ax.legend(loc="lower left", bbox_to_anchor=(0.18, 0.0))
    return out
