"""Figure 7 — robustness of selection (claim C8).

(a) probability that the favorable neuron still becomes the owner under a visible
perturbation of size ε of the duplicates (adversarial: the favorable neuron starts farther
from the teacher and smaller), over (ε, D), with the threshold ε*(D) overlaid;
(b) ``|T_spec^GD − T_spec^flow|`` against the step η on log–log axes with its fitted slope (≈ 1);
(c) the finite-sample deviation from the population trajectory against n with its fitted
slope, and an ``n^{-1/2}`` reference.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gaugecli.plots import style
from gaugecli.plots.render import Requirement

QUICK = {
    "eps": (0.0, 0.5, 1.0, 1.5),
    "strengths": (1.0, 16.0),
    "seeds": (0,),
    "refine": 2,
    "step_fractions": (0.01, 0.02, 0.04),
    "stability_fractions": (0.3, 1.5),
    "ns": (500, 2000, 8000),
    "sample_seeds": (0, 1),
    "success_ns": (16, 64),
    "success_seeds": (0, 1),
}


SIDECAR_TOLERANCES = (("*/probability*", 0.0, 1e-12, "selection frequencies are exact fractions of the seeds"),)
"""Per-series tolerances of the regeneration check (:mod:`gaugecli.plots.sidecar`)."""


def requirements(quick: bool) -> list[Requirement]:
    from gaugecli.experiments.common import ModelConfig
    from gaugecli.experiments.perturb import PerturbConfig

    config = PerturbConfig(model=ModelConfig(), **(QUICK if quick else {}))
    kind = "adversarial" if config.adversarial else "random"
    return [Requirement("perturb", f"{kind}-m{config.m}", config)]


def _edges(centers: np.ndarray, log: bool) -> np.ndarray:
    """Cell edges around sorted ``centers`` (geometric midpoints when ``log``)."""
    c = np.log(centers) if log else np.asarray(centers, float)
    if c.size == 1:
        mid = np.array([c[0] - 0.5, c[0] + 0.5])
    else:
        inner = 0.5 * (c[1:] + c[:-1])
        mid = np.concatenate([[c[0] - (inner[0] - c[0])], inner, [c[-1] + (c[-1] - inner[-1])]])
    return np.exp(mid) if log else mid


def build(data: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    result = next(
        (v for k, v in data.items() if not k.startswith("_") and isinstance(v, dict) and "visible" in v), None
    )
    if result is None:
        raise ValueError("fig7 needs a 'perturb' result (visible, step, samples)")
    fig, (ax_v, ax_s, ax_n) = style.new_figure(style.TWO_COLUMN, 2.6, ncols=3, width_ratios=[1.2, 1.0, 1.0])
    fig.get_layout_engine().set(wspace=0.06)
    panels: dict[str, Any] = {"a": {}, "b": {}, "c": {}}

    # (a) selection probability over (ε, D)
    vis = result["visible"]
    eps = style.as_array(vis["eps"])
    Ds = style.as_array(vis["strengths"])
    prob = style.as_array(vis["probability"]).reshape(len(Ds), len(eps))
    image = ax_v.pcolormesh(
        _edges(eps, log=False), _edges(Ds, log=True), prob, vmin=0.0, vmax=1.0, cmap="cividis", shading="flat"
    )
    ax_v.set_yscale("log", base=2)
    ax_v.set_yticks(Ds, [f"{D:g}" for D in Ds])
    ax_v.minorticks_off()
    thr = np.array([np.nan if e is None else e for e in vis["threshold"]], dtype=float)
    ok = np.isfinite(thr)
    ax_v.plot(
        thr[ok],
        Ds[ok],
        color="white",
        marker="o",
        mec="black",
        mew=0.6,
        ms=4,
        lw=1.2,
        label=r"threshold $\varepsilon^*(D)$",
    )
    for D in Ds[~ok]:  # selection never failed on the grid: ε* beyond it
        ax_v.annotate(
            "",
            (eps.max() + 0.5 * (eps[-1] - eps[-2] if eps.size > 1 else 0.5), D),
            (eps.max(), D),
            arrowprops={"arrowstyle": "->", "color": "white", "lw": 1.0},
        )
    ax_v.set_xlabel(style.LABELS["eps"] + f" ({vis.get('kind', 'adversarial')})")
    ax_v.set_ylabel(style.LABELS["D"])
    if np.any(~ok):
        ax_v.plot(
            [], [], ls="none", marker=r"$\rightarrow$", color="black", ms=7, label=r"$\varepsilon^*$ beyond the grid"
        )
    ax_v.legend(loc="lower left", fontsize=6.5, frameon=True, facecolor="white", framealpha=0.85, edgecolor="none")
    cbar = fig.colorbar(image, ax=ax_v, pad=0.02, aspect=25)
    cbar.set_label(style.LABELS["probability"], fontsize=6.5)
    cbar.ax.tick_params(labelsize=6.5)
    panels["a"] = {
        "kind": vis.get("kind"),
        "eps": style.tolist(eps),
        "strengths": style.tolist(Ds),
        "probability": style.tolist(prob),
        "threshold": style.series(thr[ok], Ds[ok]),
    }
    style.panel_label(ax_v, "a")

    # (b) T_spec error against the GD step
    step = result["step"]
    etas = style.as_array(step["etas"])
    err = style.as_array(step["error"])
    x, y = style.positive(etas, err)
    slope, intercept = style.loglog_fit(x, y)
    ax_s.plot(x, y, ls="none", marker="o", color=style.BLUE, label="population GD")
    fit_y = np.exp(intercept) * x**slope if x.size else x
    ax_s.plot(x, fit_y, color=style.BLUE, ls="--", lw=0.9, label=rf"fit: slope ${slope:.2f}$")
    diverged = [bool(d) for d in step.get("diverged", [])]
    if any(diverged):
        ax_s.text(0.97, 0.05, f"{sum(diverged)} step(s) diverged", transform=ax_s.transAxes, ha="right", fontsize=6)
    ax_s.set_xscale("log")
    ax_s.set_yscale("log")
    ax_s.set_xlabel(style.LABELS["eta"])
    ax_s.set_ylabel(style.LABELS["tspec_error"])
    ax_s.legend(loc="upper left", fontsize=6.5)
    ax_s.set_title(rf"$D={float(step['strength']):g}$", fontsize=7, loc="right")
    panels["b"] = {
        "error": style.series(x, y),
        "fit": style.series(x, fit_y, slope=slope, intercept=intercept),
        "slope_reported": step.get("slope"),
        "t_spec_flow": step.get("t_spec_flow"),
    }
    style.tidy_log_axis(ax_s)
    style.panel_label(ax_s, "b")

    # (c) finite-sample deviation against n
    samples = result["samples"]
    ns = style.as_array(samples["ns"])
    dev = style.as_array(samples["deviation"])
    per_seed = samples.get("deviation_per_seed")
    if per_seed and len(per_seed[0]) > 1:
        for n, row in zip(ns, per_seed, strict=True):
            r = style.as_array(row)
            ax_n.plot(np.full(r.shape, n), r, ls="none", marker=".", ms=3, color=style.SKY, alpha=0.7, zorder=1)
    x, y = style.positive(ns, dev)
    slope_n, intercept_n = style.loglog_fit(x, y)
    n_seeds = len(per_seed[0]) if per_seed else 1
    mean_label = f"mean of {n_seeds} seeds" if n_seeds > 1 else "one seed"
    ax_n.plot(x, y, ls="none", marker="s", color=style.BLUE, label=mean_label, zorder=3)
    fit_n = np.exp(intercept_n) * x**slope_n if x.size else x
    ax_n.plot(x, fit_n, color=style.BLUE, ls="--", lw=0.9, label=rf"fit: slope ${slope_n:.2f}$")
    ref = y[0] * (x / x[0]) ** -0.5 if x.size else x
    ax_n.plot(x, ref, color=style.REFERENCE_COLOR, ls=":", lw=0.9, label=r"$\propto n^{-1/2}$")
    ax_n.set_xscale("log")
    ax_n.set_yscale("log")
    ax_n.set_xlabel(style.LABELS["n"])
    ax_n.set_ylabel(r"deviation $\sup_t\|f_{\theta_n} - f_{\theta_\infty}\|_{L^2}$")
    ax_n.legend(loc="lower left", fontsize=6.5, handlelength=1.5, borderaxespad=0.2)
    ax_n.set_title(rf"$D={float(samples['strength']):g}$", fontsize=7, loc="right")
    panels["c"] = {
        "deviation": style.series(x, y),
        "fit": style.series(x, fit_n, slope=slope_n, intercept=intercept_n),
        "reference": style.series(x, ref, slope=-0.5),
        "slope_reported": samples.get("slope"),
    }
    style.tidy_log_axis(ax_n)
    style.panel_label(ax_n, "c")
    return fig, panels
