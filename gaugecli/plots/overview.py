"""The figure a subcommand renders for its own artifact (``--figure PATH``).

``simulate`` and ``select`` get an overview of one run — loss, per-neuron alignment
``α_j(t)`` and coefficient ``c_j(t)``, and the dissipation ``R(t)``, ``T(t)``;
``prune`` and ``perturb`` get the paper's figure of their kind (fig5, fig7) and ``reln`` the
``reln`` figure, drawn from the artifact just written instead of the cached defaults.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gaugecli.plots import style
from gaugecli.plots._runs import Run

FLOOR = 1e-30


def build_run(raw: dict[str, Any], title: str) -> tuple[Any, dict[str, Any]]:
    """Four panels of one run dict (a ``simulate`` result or an entry of ``select``'s runs)."""
    run = Run(raw)
    fig, axes = style.new_figure(style.TWO_COLUMN, 4.6, nrows=2, ncols=2)
    ax_loss, ax_align, ax_coef, ax_diss = axes.ravel()
    colors = style.sequential_colors(run.m) if run.m > 1 else [style.GAUGE_COLORS[style.gauge_of(run.deltas[0])]]
    panels: dict[str, Any] = {"a": {}, "b": {}, "c": {}, "d": {}}

    t, y = style.positive(run.t, run.loss, FLOOR)
    ax_loss.plot(t, y, color="0.15", label="population")
    panels["a"]["loss"] = style.series(t, y)
    if raw.get("empirical_loss") is not None:
        t, y = style.positive(run.t, run.get("empirical_loss"), FLOOR)
        ax_loss.plot(t, y, color="0.5", ls="--", label="empirical $\\mathcal{L}_n$")
        panels["a"]["empirical_loss"] = style.series(t, y)
    ax_loss.set(xscale="log", yscale="log", xlabel=style.LABELS["t"], ylabel=style.LABELS["loss"])
    ax_loss.legend(loc="lower left")

    for j in range(run.m):
        lw = 1.8 if j == run.owner else 1.0
        label = f"$j={j}$, $\\delta={run.deltas[j]:+.3g}$" + (" (owner)" if j == run.owner else "")
        ax_align.plot(run.t, run.alignment[:, j], color=colors[j], lw=lw, label=label)
        ax_coef.plot(run.t, run.coefficient[:, j], color=colors[j], lw=lw)
        panels["b"][f"alignment_{j}"] = style.series(run.t, run.alignment[:, j])
        panels["c"][f"coefficient_{j}"] = style.series(run.t, run.coefficient[:, j])
    if run.t_spec is not None:
        ax_align.axvline(run.t_spec, color=style.REFERENCE_COLOR, ls=":", lw=0.8)
        ax_align.annotate(
            f"$T_{{\\rm spec}}={run.t_spec:.4g}$",
            (run.t_spec, 0.5),
            xytext=(4, 0),
            textcoords="offset points",
            fontsize=6,
        )
    ax_align.set(xscale="log", xlabel=style.LABELS["t"], ylabel=style.LABELS["alignment"])
    ax_align.legend(loc="upper left", fontsize=5.5)
    ax_coef.set(xscale="log", xlabel=style.LABELS["t"], ylabel=style.LABELS["coefficient"])

    for key, label, kw in (
        ("grad_norm_sq", r"$\|\nabla\mathcal{L}\|^2$", {"color": "0.7", "lw": 2.4}),
        ("reaction", style.LABELS["reaction"] + " reaction", {"color": style.GAUGE_COLORS["unfavorable"]}),
        ("transport", style.LABELS["transport"] + " transport", {"color": style.GAUGE_COLORS["favorable"], "ls": "--"}),
    ):
        t, y = style.positive(run.t, run.get(key), FLOOR)
        ax_diss.plot(t, y, label=label, **kw)
        panels["d"][key] = style.series(t, y)
    ax_diss.set(xscale="log", yscale="log", xlabel=style.LABELS["t"], ylabel=style.LABELS["dissipation"])
    ax_diss.legend(loc="lower left")
    for ax, letter in zip(axes.ravel(), "abcd", strict=True):
        style.panel_label(ax, letter)
    fig.suptitle(title, fontsize=7)
    return fig, panels


def _reln_figure(artifact: dict[str, Any]) -> Any:
    """The ``reln`` figure of this artifact: its typed result through the figure's own ``build``."""
    from gaugecli.experiments.reln import RelnConfig, RelnResult
    from gaugecli.plots import reln
    from gaugecli.plots.render import Inputs
    from gaugecli.plots.venue import layout
    from gaugecli.store.codec import from_jsonable

    sizes = layout()
    inputs = Inputs(
        {"reln": from_jsonable(RelnResult, artifact["result"])},
        {"reln": from_jsonable(RelnConfig, artifact["config"])},
    )
    with style.context(sizes):
        fig, _ = reln.build(inputs, sizes)
    return fig


def render_artifact(kind: str, artifact: dict[str, Any], path: Path) -> Path:
    """Draw the figure of a freshly written artifact to ``path`` (format from its suffix)."""
    from gaugecli.plots import fig7
    from gaugecli.plots.render import save_figure
    from gaugecli.store.artifacts import package_version

    result = artifact["result"]
    with style.context():
        if kind == "simulate":
            fig, _ = build_run(result, f"gaugecli simulate — config {artifact['config_hash'][:10]}")
        elif kind == "select":
            fig, _ = build_run(result["runs"][0], f"gaugecli select — designated owner {result['designated']}")
        elif kind == "reln":
            fig = _reln_figure(artifact)
        elif kind == "prune":  # fig5, on the new protocol: its one need is named "prune"
            fig = _typed_figure(kind, artifact, module="fig5")
        elif kind == "perturb":
            data = {"artifact": result, "_configs": {"artifact": artifact["config"]}}
            fig, _ = fig7.build(data)
        elif kind == "lockin":  # a figure on the new protocol: typed inputs at the default venue's sizes
            fig = _typed_figure(kind, artifact)
        else:
            raise ValueError(f"no figure for {kind} artifacts: the command prints its summary")
        fig.canvas.draw()
        save_figure(
            fig,
            path,
            title=f"gaugecli {kind}",
            subject=f"config hash {artifact['config_hash']}",
            version=package_version(),
            flag="--figure",
        )
    return path


def _typed_figure(kind: str, artifact: dict[str, Any], module: str | None = None) -> Any:
    """``plots/<module or kind>.py``'s ``build`` on the artifact's typed config and result, as the
    input named ``kind`` (figures on the new protocol)."""
    from importlib import import_module

    from gaugecli.pipeline import kind as experiment_kind
    from gaugecli.plots.render import Inputs
    from gaugecli.plots.venue import layout
    from gaugecli.store.codec import from_jsonable

    k, sizes = experiment_kind(kind), layout()
    config = from_jsonable(k.config_type, artifact["config"])
    inputs = Inputs({kind: from_jsonable(k.result_type, artifact["result"])}, {kind: config})
    with style.context(sizes):
        fig, _ = import_module(f"gaugecli.plots.{module or kind}").build(inputs, sizes)
    return fig


__all__ = ["build_run", "render_artifact"]
