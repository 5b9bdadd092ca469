"""Figure 4 — selection among ``m`` duplicates (claim C6).

(a) coefficients ``c_j(t)`` and (b) alignments ``α_j(t)`` of ``m = 5`` duplicates where the
designated neuron ``o`` carries ``+D`` and the others ``−D`` (population flow): the owner
takes the whole coefficient and aligns, the non-owners (identical to each other by
symmetry) are pruned. (c), (d) owner-success matrices over ``(m, o)``: the fraction of runs
whose final owner is the designated neuron — population flow, and finite-sample GD over seeds.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gaugecli.plots import style
from gaugecli.plots._runs import Run, eps_align
from gaugecli.plots.render import Requirement

STRENGTH = 4.0
M = 5
DESIGNATED = 2
"""The designated owner of panels (a), (b): not neuron 0, to show that the gauge, not the index, decides."""
SWEEP_MS = {False: (2, 3, 4, 5, 6, 7, 8), True: (2, 3, 5)}
SAMPLE_MS = {False: (2, 3, 4, 5, 6, 7, 8), True: (2,)}
SAMPLE_SEEDS = {False: (0, 1, 2, 3, 4), True: (0, 1)}
N_SAMPLES = {False: 10_000, True: 2_000}


def requirements(quick: bool) -> list[Requirement]:
    from gaugecli.experiments.common import DynamicsConfig, ModelConfig
    from gaugecli.experiments.select import OwnerSweepConfig, SelectConfig

    model = ModelConfig()
    sample = DynamicsConfig(mode="sample", n_samples=N_SAMPLES[quick])
    return [
        Requirement(
            "select",
            f"flow-m{M}-D{STRENGTH:g}-o{DESIGNATED}",
            SelectConfig(model=model, dynamics=DynamicsConfig(), m=M, strength=STRENGTH, owner=DESIGNATED),
        ),
        Requirement(
            "select-sweep",
            f"flow-D{STRENGTH:g}",
            OwnerSweepConfig(model=model, dynamics=DynamicsConfig(), ms=SWEEP_MS[quick], strength=STRENGTH),
        ),
        Requirement(
            "select-sweep",
            f"sample-D{STRENGTH:g}-n{sample.n_samples}",
            OwnerSweepConfig(
                model=model, dynamics=sample, ms=SAMPLE_MS[quick], strength=STRENGTH, seeds=SAMPLE_SEEDS[quick]
            ),
        ),
    ]


def _by_kind(data: dict[str, Any]) -> tuple[tuple[str, dict] | None, list[tuple[str, dict]]]:
    select, sweeps = None, []
    for name, value in data.items():
        if name.startswith("_") or not isinstance(value, dict):
            continue
        if "success_matrix" in value:
            sweeps.append((name, value))
        elif "runs" in value and select is None:
            select = (name, value)
    return select, sweeps


def _matrix(ax: Any, sweep: dict[str, Any], title: str) -> dict[str, Any]:
    ms = [int(m) for m in sweep["ms"]]
    width = max(ms)
    M_ = np.full((len(ms), width), np.nan)
    for i, row in enumerate(sweep["success_matrix"]):
        M_[i, : len(row)] = [np.nan if v is None else v for v in row]
    counts = np.zeros_like(M_)
    for p in sweep.get("points", []):
        counts[ms.index(int(p["m"])), int(p["designated"])] += 1
    image = ax.imshow(
        np.ma.masked_invalid(M_),
        vmin=0.0,
        vmax=1.0,
        cmap="cividis",
        aspect="auto",
        origin="lower",
        interpolation="none",
    )
    ax.set_facecolor("white")
    for i in range(len(ms)):
        for o in range(width):
            if np.isfinite(M_[i, o]):
                v = M_[i, o]
                ax.text(
                    o,
                    i,
                    f"{v:.2g}" if v not in (0.0, 1.0) else f"{v:.0f}",
                    ha="center",
                    va="center",
                    fontsize=6,
                    color="black" if v > 0.6 else "white",
                )
    ax.set_xticks(range(width))
    ax.set_yticks(range(len(ms)), [str(m) for m in ms])
    ax.set_xlabel(style.LABELS["designated"])
    ax.set_ylabel(style.LABELS["m"])
    ax.set_title(title, fontsize=7, loc="right")
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    return {
        "image": image,
        "sidecar": {
            "ms": ms,
            "matrix": style.tolist(M_),
            "runs_per_cell": style.tolist(counts),
            "strength": sweep.get("strength"),
        },
    }


def build(data: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    select, sweeps = _by_kind(data)
    fig = style.new_figure(style.TWO_COLUMN, 4.6)[0]
    fig.clear()
    grid = fig.add_gridspec(2, 2, height_ratios=[1.0, 0.85])
    ax_c, ax_a = fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[0, 1])
    panels: dict[str, Any] = {"a": {}, "b": {}, "c": {}, "d": {}}

    if select is None:
        raise ValueError("fig4 needs a 'select' result (runs of m duplicates)")
    name, sel = select
    run = Run(sel["runs"][0])
    designated = int(sel["designated"])
    t = run.t[run.t > 0]
    for j in range(run.m):
        is_owner = j == designated
        kw = {
            "color": style.GAUGE_COLORS["favorable" if run.deltas[j] > 0 else "unfavorable"],
            "lw": 1.8 if is_owner else 0.9,
            "zorder": 3 if is_owner else 2,
            "alpha": 1.0 if is_owner else 0.8,
            "ls": "-" if is_owner else (0, (1 + j, 1.5)),
        }
        label = None
        if is_owner:
            label = rf"owner $o={j}$, $\delta=+{run.strength:g}$"
        elif j == min(k for k in range(run.m) if k != designated):
            label = rf"non-owners ($\times{run.m - 1}$, coincide), $\delta=-{run.strength:g}$"
        c, alpha = run.coefficient[run.t > 0, j], run.alignment[run.t > 0, j]
        ax_c.plot(t, c, label=label, **kw)
        ax_a.plot(t, alpha, label=label, **kw)
        panels["a"][f"neuron{j}"] = style.series(t, c, owner=is_owner)
        panels["b"][f"neuron{j}"] = style.series(t, alpha, owner=is_owner)
    thr = 1.0 - eps_align(data, name)
    ax_a.axhline(thr, color=style.REFERENCE_COLOR, ls=":", lw=0.7, zorder=0)
    if run.t_spec is not None:
        ax_a.plot(run.t_spec, thr, marker="o", color=style.GAUGE_COLORS["favorable"], ms=4, ls="none", zorder=4)
        ax_a.annotate(
            rf"$T_{{\rm spec}} = {run.t_spec:.3g}$",
            (run.t_spec, thr),
            xytext=(6, -8),
            textcoords="offset points",
            ha="left",
            va="top",
            fontsize=6.5,
        )
    panels["b"]["t_spec"] = run.t_spec
    panels["b"]["threshold"] = thr
    panels["a"]["designated"] = designated
    panels["a"]["owner"] = run.owner
    panels["a"]["success"] = list(sel.get("success", []))
    panels["a"]["final_owner_coefficient"] = float(run.coefficient[-1, run.owner])
    for ax in (ax_c, ax_a):
        ax.set_xscale("log")
        ax.set_xlabel(style.LABELS["t"])
    ax_c.set_ylabel(style.LABELS["coefficient"])
    ax_a.set_ylabel(style.LABELS["alignment"])
    ax_a.set_ylim(-0.03, 1.03)
    a_star = float(data.get("_configs", {}).get(name, {}).get("model", {}).get("a_star", 1.0))
    ax_c.axhline(a_star, color=style.REFERENCE_COLOR, ls=":", lw=0.7, zorder=0)
    ax_c.text(
        0.02,
        a_star,
        r"$a_*$",
        transform=ax_c.get_yaxis_transform(),
        va="bottom",
        fontsize=6.5,
        color=style.REFERENCE_COLOR,
    )
    panels["a"]["a_star"] = a_star
    handles, labels = ax_c.get_legend_handles_labels()
    order = sorted(range(len(labels)), key=lambda i: not labels[i].startswith("owner"))
    ax_c.legend([handles[i] for i in order], [labels[i] for i in order], loc="center left", fontsize=6.5)
    ax_c.set_title(rf"$m={run.m}$, population flow", fontsize=7, loc="right")
    ax_a.set_title(rf"$m={run.m}$, population flow", fontsize=7, loc="right")
    style.panel_label(ax_c, "a")
    style.panel_label(ax_a, "b")

    # (c), (d): owner-success matrices (population first, then finite sample)
    def mode_of(sweep_name: str) -> str:
        cfg = data.get("_configs", {}).get(sweep_name, {})
        return cfg.get("dynamics", {}).get("mode") or ("sample" if sweep_name.startswith("sample") else "flow")

    sweeps.sort(key=lambda item: (mode_of(item[0]) != "flow", item[0]))
    image = None
    for k, (sweep_name, sweep) in enumerate(sweeps[:2]):
        ax = fig.add_subplot(grid[1, k])
        cfg = data.get("_configs", {}).get(sweep_name, {})
        dyn = cfg.get("dynamics", {})
        if mode_of(sweep_name) == "sample":
            n_seeds = len(cfg.get("seeds", [])) or None
            title = f"finite sample, $n={dyn.get('n_samples')}$" + (f", {n_seeds} seeds" if n_seeds else "")
        else:
            title = "population flow"
        title += rf", $D={float(sweep.get('strength', STRENGTH)):g}$"
        out = _matrix(ax, sweep, title)
        image = out["image"]
        letter = "cd"[k]
        panels[letter] = out["sidecar"] | {"title": title}
        style.panel_label(ax, letter)
    if image is not None:
        cbar = fig.colorbar(image, ax=fig.axes[2:], shrink=0.9, pad=0.02, aspect=25)
        cbar.set_label("owner = designated (fraction of runs)", fontsize=6.5)
        cbar.ax.tick_params(labelsize=6.5)
    return fig, panels
