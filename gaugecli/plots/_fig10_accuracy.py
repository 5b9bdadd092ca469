"""Panels (b, c) of fig10 — what predicts the owner of a feature from a Gaussian start, as the spread
of δ grows against the visible spread (``gaugecli predict``).

Each panel is one study: ``k`` features, ``m = 4`` neurons, ``runs`` seeds per ρ = σ_δ/σ_vis and with
δ as the draw gives it (``natural``, drawn apart at its expected ρ, hollow markers); three rules'
accuracy (the share of the (run, feature) pairs with an owner where the rule names that owner) with
its 95 % Wilson interval: (b) argmax δ, argmax ``c·α(0)`` and the race; (c) argmax δ, the matched
race and whether the two owners are the two neurons of largest δ. The other rules' accuracies are in
the sidecar's ``key/predict``. The dashed line is chance, ``1/m`` (dotted: a set's, ``1/C(m, k)``).

At ρ = 0 every δ is 0: the δ rules tie (argmax δ names a neuron only where the feature's basin holds
one alone — by geometry, not by δ — and the top-k set never), so no δ rule is drawn there; the
sidecar's ``omitted`` says so and how many pairs the rule named.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from gaugecli.plots import style
from gaugecli.plots.venue import Layout

if TYPE_CHECKING:
    from gaugecli.experiments.predict import PredictConfig

SPREADS = {False: (0.0, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0), True: (0.0, 100.0)}
RUNS = {False: 100, True: 10}
STUDIES = ((1, 4), (2, 2))
"""``(k, m/k)``: one feature among four neurons, two features among four neurons."""
COLORS = {
    "delta": style.ORANGE,
    "alignment": style.PURPLE,
    "c-alpha": style.BROWN,
    "angular-speed": style.SKY,
    "race": style.THEORY,
    "race-matched": style.GREY,
}
"""One colour per predictor (none of the gauges' three)."""
LABELS = {
    "delta": r"argmax $\delta$",
    "alignment": r"argmax $\alpha(0)$",
    "c-alpha": r"argmax $c\,\alpha(0)$",
    "angular-speed": r"fastest turn",
    "race": "race",
    "race-matched": "race, matched",
}
DRAWN = {1: ("delta", "c-alpha", "race"), 2: ("delta", "race-matched")}
"""The rules each panel draws (by k); at k = 2 the third is the owner set of largest δ."""
SET_MARKER = "s"
"""The owner set's marker (hollow: the rules' hollow markers are δ as drawn, and argmax δ's is a circle)."""
LEGEND_ROOM = 0.55
"""A panel reaches below 0 by this much: its legend sits there, under every point."""
ZERO_AT = 0.1
"""ρ = 0 has no logarithm: it is drawn at ρ = 0.1, left of a break in the axis."""


def predict_config(k: int, width: int, quick: bool) -> PredictConfig:
    """The study of one panel (``gaugecli predict --ks k --m-per-k width --spreads … --runs …``)."""
    from gaugecli.experiments.predict import PredictConfig

    return PredictConfig(ks=(k,), widths=(width,), spreads=SPREADS[quick], runs=RUNS[quick])


def _position(rho: np.ndarray) -> np.ndarray:
    return np.where(rho > 0, rho, ZERO_AT)


def _defined(name: str, rows: list[Any]) -> np.ndarray:
    """Which rows a rule is drawn at: a δ rule not at ρ = 0, where every δ ties."""
    return np.array([not (name == "delta" and r.spread == 0.0) for r in rows], bool)


def panel_accuracy(ax: Any, result: Any, layout: Layout, sets: list[Any] | None = None) -> dict[str, Any]:
    """One study's accuracies against ρ (module docstring); with ``sets`` (one
    :class:`~gaugecli.experiments.predict.sets.OwnerSets` per row) the share of runs whose owners
    are the top ``k`` of δ (dashed, hollow; chance dotted); returns the sidecar panel."""
    drawn = [r for r in result.rows if r.spread is not None]
    natural = [r for r in result.rows if r.spread is None]
    rho = np.array([r.spread for r in drawn], float)
    k, m = drawn[0].k, drawn[0].m
    out: dict[str, Any] = {"k": k, "m": m, "runs": len(result.seeds), "natural_ratio": natural[0].ratio if natural else None}  # fmt: skip
    names = DRAWN[k]
    spread = len(names) + (sets is not None)
    handles = []
    for i, name in enumerate(names):
        offset = 1.07 ** (i - 0.5 * (spread - 1))  # side by side: the intervals stay apart
        color, marker = COLORS[name], style.SEQUENCE_MARKERS[i]
        for rows, x, face, tag in ((drawn, _position(rho) * offset, color, ""), (natural, np.array([r.ratio for r in natural]) * offset, "white", "natural-")):  # fmt: skip
            keep = _defined(name, rows)
            rows, x = [r for r, ok in zip(rows, keep, strict=True) if ok], x[keep]
            if not rows:
                continue
            acc = np.array([np.nan if r.accuracy[name] is None else r.accuracy[name] for r in rows], float)
            low = np.array([np.nan if r.low[name] is None else r.low[name] for r in rows], float)
            high = np.array([np.nan if r.high[name] is None else r.high[name] for r in rows], float)
            ax.errorbar(x, acc, yerr=[acc - low, high - acc], color=color, ls="-" if not tag else "none", lw=0.9, marker=marker, ms=3.2, mfc=face, mew=0.8, capsize=1.0, elinewidth=0.6)  # fmt: skip
            counts = {"correct": [r.correct[name] for r in rows], "owned": [r.owned for r in rows]}
            out[f"{tag}{name}"] = style.series(x, acc, wilson_low=low, wilson_high=high, rho=[r.ratio for r in rows], **counts)  # fmt: skip
        handles.append(style.line_handle(color, "-", marker, LABELS[name]))
    tied = [r for r in drawn if r.spread == 0.0]
    if tied:
        named = sum(q != -1 for q_row in tied[0].picks["delta"] for q in q_row)
        out["omitted"] = {"delta": {"rho": 0.0, "why": "every δ is 0 (a tie)", "named": named, "pairs": tied[0].pairs}}
    if sets is not None:
        out["owner_sets"] = _draw_sets(ax, result, sets, offset=1.07 ** (len(names) - 0.5 * (spread - 1)))
        handles.append(style.line_handle(COLORS["delta"], "--", SET_MARKER, rf"owners: top-{k} $\delta$", mfc="white"))
    ax.axhline(1.0 / m, color=style.GUIDE, ls="--", lw=0.8, zorder=1)
    handles.append(style.line_handle("0.3", "none", "o", r"$\delta$ as drawn", mfc="white"))
    handles.append(style.line_handle(style.GUIDE, "--", None, f"chance 1/{m}"))
    if sets is not None:
        handles.append(style.line_handle(style.GUIDE, ":", None, f"set 1/{round(1 / sets[0].chance)}"))
    ax.set_xscale("log")
    ticks = [ZERO_AT, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0]
    ax.set_xticks(ticks)
    ax.set_xticklabels(["0", "0.3", "1", "3", "10", "30", "100"])
    ax.minorticks_off()
    style.axis_break(ax, ZERO_AT, 0.3)  # between ρ = 0 and ρ > 0
    ax.set_xlim(ZERO_AT / 1.5, 150.0)
    ax.set_ylim(-LEGEND_ROOM, 1.05)
    ax.set_yticks([0.0, 0.25, 0.5, 0.75, 1.0])
    ax.set_xlabel(r"$\delta$ spread ratio $\rho=\sigma_\delta/\sigma_{\rm vis}$")
    ax.set_ylabel(f"share naming the owner ($k={k}$)" if sets is None else f"share of runs ($k={k}$)")
    ax.set_title(f"$m={m}$, {len(result.seeds)} seeds per $\\rho$", loc="right", fontsize=layout.small)
    ax.legend(handles=handles, loc="lower center", ncols=2, handlelength=1.5, columnspacing=0.8, handletextpad=0.4, borderaxespad=0.2)  # fmt: skip
    return out


def _draw_sets(ax: Any, result: Any, sets: list[Any], offset: float) -> dict[str, Any]:
    """The share of runs whose owners are the top ``k`` of δ against ρ (and at natural δ), with its
    Wilson interval and chance; ``sets`` holds one entry per row of ``result``, in its order. The
    top-k of ``c·α`` is in the sidecar only."""
    rows = [(r, c) for r, c in zip(result.rows, sets, strict=True) if not (r.spread == 0.0)]  # ρ = 0: δ ties
    drawn = [c for r, c in rows if r.spread is not None]
    natural = [c for r, c in rows if r.spread is None]
    at = {
        "": _position(np.array([r.spread for r, _ in rows if r.spread is not None], float)),
        "natural-": np.array([r.ratio for r, _ in rows if r.spread is None], float),
    }
    out: dict[str, Any] = {}
    for chosen, tag, ls in ((drawn, "", "--"), (natural, "natural-", "none")):
        if not chosen:
            continue
        share = np.array([np.nan if c.share("delta") is None else c.share("delta") for c in chosen], float)
        low, high = np.array([c.low["delta"] for c in chosen]), np.array([c.high["delta"] for c in chosen])
        xs = at[tag] * offset
        ax.errorbar(xs, share, yerr=[share - low, high - share], color=COLORS["delta"], ls=ls, lw=0.9, marker=SET_MARKER, ms=3.2, mfc="white", mew=0.8, capsize=1.0, elinewidth=0.6)  # fmt: skip
        counts = {"correct": [c.correct["delta"] for c in chosen], "runs": [c.runs for c in chosen]}
        out[f"{tag}delta"] = style.series(xs, share, wilson_low=low, wilson_high=high, **counts)
    out["c-alpha"] = {  # not drawn: three rules per panel
        "rho": [r.spread for r, _ in zip(result.rows, sets, strict=True)],
        "share": [c.share("c-alpha") for c in sets],
        "correct": [c.correct["c-alpha"] for c in sets],
        "runs": [c.runs for c in sets],
    }
    chance = sets[0].chance
    ax.axhline(chance, color=style.GUIDE, ls=":", lw=0.8, zorder=1)
    out["chance"] = chance
    return out


def reading(result: Any) -> dict[str, Any]:
    """The numbers the README quotes: per ρ (and natural δ), each predictor's accuracy and interval,
    and which predictors are best there (all that tie at the top)."""
    out: dict[str, Any] = {}
    for r in result.rows:
        key = "natural" if r.spread is None else f"rho{r.spread:g}"
        scores = {n: r.accuracy[n] for n in result.predictors if r.accuracy[n] is not None}
        out[key] = {
            "rho": r.ratio,
            "owned": r.owned,
            "pairs": r.pairs,
            "accuracy": {n: [r.accuracy[n], r.low[n], r.high[n]] for n in result.predictors},
            "best": [n for n in scores if scores[n] == max(scores.values())],  # every rule tied at the top
        }
    return out


__all__ = ["RUNS", "SPREADS", "STUDIES", "panel_accuracy", "predict_config", "reading"]
