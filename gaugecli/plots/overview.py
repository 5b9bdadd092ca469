"""The figure a subcommand draws for its own result (``--figure PATH``), as its experiment's spec
names it (``figure``).

``simulate`` and ``select`` get an overview of one run (:func:`draw_run`, :func:`draw_select`) —
loss, per-neuron alignment ``α_j(t)`` and coefficient ``c_j(t)``, and the dissipation ``R(t)``,
``T(t)``; ``prune``, ``perturb``, ``reln`` and ``lockin`` get the paper's figure of their kind
(fig5, fig7, reln, lockin) drawn from the result just computed instead of the default configuration's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from gaugecli.experiments.spec import experiment, resolve
from gaugecli.pipeline import Inputs, Outcome
from gaugecli.plots import style
from gaugecli.plots.venue import Layout, layout

FLOOR = 1e-30
"""Values at or below this are not drawn on the log axes (exact zeros, underflow)."""


def build_run(run: Any, title: str, sizes: Layout) -> tuple[Any, dict[str, Any]]:
    """Four panels of one run (:class:`gaugecli.core.analyses.observables.RunObservables`)."""
    fig, axes = style.new_figure(sizes.width, sizes.height(0.8), nrows=2, ncols=2)
    ax_loss, ax_align, ax_coef, ax_diss = axes.ravel()
    m = run.alignment.shape[1]
    deltas = run.imbalance[0]
    colors = style.sequential_colors(m) if m > 1 else [style.GAUGE_COLORS[style.gauge_of(float(deltas[0]))]]
    panels: dict[str, Any] = {"a": {}, "b": {}, "c": {}, "d": {}}

    t, y = style.positive(run.t, run.loss, FLOOR)
    ax_loss.plot(t, y, color=style.THEORY, label="population")
    panels["a"]["loss"] = style.series(t, y)
    if run.empirical_loss is not None:
        t, y = style.positive(run.t, np.asarray(run.empirical_loss, float), FLOOR)
        ax_loss.plot(t, y, color=style.GUIDE, ls="--", label=r"empirical $\mathcal{L}_n$")
        panels["a"]["empirical_loss"] = style.series(t, y)
    ax_loss.set(xscale="log", yscale="log", xlabel=style.LABELS["t"], ylabel=style.LABELS["loss"])
    ax_loss.legend(loc="lower left")

    for j in range(m):
        owner = j == run.owner
        label = f"$j={j}$, $\\delta={deltas[j]:+.3g}$" + (" (owner)" if owner else "")
        ax_align.plot(run.t, run.alignment[:, j], color=colors[j], lw=1.8 if owner else 1.0, label=label)
        ax_coef.plot(run.t, run.coefficient[:, j], color=colors[j], lw=1.8 if owner else 1.0)
        panels["b"][f"alignment_{j}"] = style.series(run.t, run.alignment[:, j])
        panels["c"][f"coefficient_{j}"] = style.series(run.t, run.coefficient[:, j])
    if run.t_spec is not None:
        style.threshold_line(ax_align, run.t_spec, rf"$T_{{\rm spec}}={run.t_spec:.4g}$", axis="x")
    ax_align.set(xscale="log", xlabel=style.LABELS["t"], ylabel=style.LABELS["alignment"])
    if m <= 6:
        ax_align.legend(loc="upper left")
    ax_coef.set(xscale="log", xlabel=style.LABELS["t"], ylabel=style.LABELS["coefficient"])

    for key, label, kw in (
        ("grad_norm_sq", r"$\|\nabla\mathcal{L}\|^2$", {"color": "0.7", "lw": 2.4}),
        ("reaction", "reaction $R(t)$", {"color": style.THEORY}),
        ("transport", "transport $T(t)$", {"color": style.GUIDE, "ls": "--"}),
    ):
        t, y = style.positive(run.t, getattr(run, key), FLOOR)
        ax_diss.plot(t, y, label=label, **kw)
        panels["d"][key] = style.series(t, y)
    ax_diss.set(xscale="log", yscale="log", xlabel=style.LABELS["t"], ylabel=style.LABELS["dissipation"])
    ax_diss.legend(loc="lower left")
    for ax, letter in zip(axes.ravel(), "abcd", strict=True):
        style.panel_label(ax, letter)
    fig.suptitle(title)
    return fig, panels


def draw_run(outcome: Outcome, sizes: Layout) -> Any:
    """The overview of the one run an outcome holds (:func:`build_run`)."""
    fig, _ = build_run(outcome.result, f"gaugecli {outcome.kind}", sizes)
    return fig


def draw_select(outcome: Outcome, sizes: Layout) -> Any:
    """The overview of a selection's first run, titled with its designated owner."""
    result = outcome.result
    fig, _ = build_run(result.runs[0], f"gaugecli {outcome.kind} — designated owner {result.designated}", sizes)
    return fig


def _paper_figure(figure: str, outcome: Outcome, sizes: Layout) -> Any:
    """The paper figure ``figure`` (a module of :mod:`gaugecli.plots`), built from this outcome's
    result as its one need."""
    from importlib import import_module

    module = import_module(f"gaugecli.plots.{figure}")
    name = next(iter(module.needs(False)))  # the figure's first need is the run of its kind
    fig, _ = module.build(Inputs({name: outcome.result}, {name: outcome.config}), sizes)
    return fig


def render_outcome(outcome: Outcome, path: Path) -> Path:
    """Draw the figure of a freshly computed (or cached) outcome to ``path`` (format from its suffix)."""
    from gaugecli.plots.render import freeze_layout, save_figure
    from gaugecli.store.artifacts import package_version

    spec = experiment(outcome.kind)
    figure = None if spec is None else spec.figure
    if figure is None:
        raise ValueError(f"no figure for {outcome.kind} results: the command prints its summary")
    sizes = layout()
    with style.context(sizes):
        fig = resolve(figure)(outcome, sizes) if ":" in figure else _paper_figure(figure, outcome, sizes)
        freeze_layout(fig)
        save_figure(
            fig,
            path,
            title=f"gaugecli {outcome.kind}",
            subject=f"config hash {outcome.artifact['config_hash']}",
            version=package_version(),
            flag="--figure",
        )
    return path


__all__ = ["build_run", "draw_run", "draw_select", "render_outcome"]
