"""``gaugecli phase``: a map of ``simulate`` or ``select`` over any two of their parameters, with
the summary it prints and the heat maps of ``--figure``."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from gaugecli.cli import options as opt
from gaugecli.cli import session, signature
from gaugecli.cli.errors import bad_parameter, errors
from gaugecli.experiments import params as P

if TYPE_CHECKING:
    from gaugecli.experiments.phase import PhaseConfig
    from gaugecli.pipeline import Outcome

app = opt.command_app()


@app.command(
    "phase",
    cls=opt.PanelCommand,
    epilog=opt.examples(
        "phase --preset outcomes --workers 2",
        "phase --x gauge-strength=1:64:7:log --y c0=0.01:0.5:5:log --metric t-spec --json",
    ),
)
@signature.with_outputs(sweeps=True)
@signature.with_model(features=True)
@signature.with_dynamics(exclude=("device",))  # phase's own: the flows' device too
@signature.with_params(P.Phase)
def phase(
    ctx: typer.Context,
    params: Any = None,
    model: Any = None,
    dynamics: Any = None,
    outputs: session.Outputs = session.Outputs(),
) -> None:
    """A map over two parameters: each cell one run of simulate or select, any metrics of it.

    --x and --y name any numeric option of the command without its dashes (gauge-strength, c0, theta0,
    eps, weight-decay, eta, n-samples, …); for simulate also gauge (an explicit δ), for select
    owner-delta and others-delta. Cells are integrated in chunks (a row of the grid as one ensemble
    where the axis moves the initial condition only), each cached as it finishes: an interrupted
    map resumes where it stopped. A preset with two maps (robustness: random and adversarial
    perturbations) writes each, as map-random.json and map-adversarial.json (likewise --figure).
    """
    with errors():
        from gaugecli.experiments.phase import PRESETS, chunks

        given = set(opt.given(ctx, "x", "y", "metric", "kind", "m", "init", "seeds", *P.SIMULATE_ONLY))
        variants: list[tuple[str, dict[str, Any]]] = [("", {})]
        if params["preset"] is not None:  # what the preset sets, unless given
            p = PRESETS[params["preset"]]
            preset = {"kind": p.kind, "x": p.x, "y": p.y, "metrics": p.metrics, "seeds": p.seeds, **dict(p.options)}
            flags = {field: P.Phase.params[field].option for field in preset}
            params.update({k: v for k, v in preset.items() if flags[k] not in given and v is not None})
            model = replace(model, **{k: v for k, v in p.model if not opt.given(ctx, k)})
            dynamics = replace(dynamics, **{k: v for k, v in p.dynamics if not opt.given(ctx, k)})
            if p.variants and "--init" not in given:  # --init picks one of the maps
                variants = [(label, dict(options)) for label, options in p.variants]
        if params["kind"] == "select" and (clash := opt.given(ctx, "gauge")):
            raise bad_parameter(clash[0], "is simulate's: select gives +D to --owner and −D to the others")
        if params["kind"] == "simulate" and (clash := opt.given(ctx, "owner")):
            raise bad_parameter(clash[0], "is select's: use --kind select")
        if params["kind"] == "select" and (clash := opt.given(ctx, *P.SIMULATE_ONLY)):
            raise bad_parameter(clash[0], "is simulate's (Kunin et al.'s setting): use --kind simulate")
        configs = []
        for _, options in variants:
            init = str(options.get("init", params["init"]))
            drawn = params["seeds"] if init != "adversarial" or len(variants) == 1 else None  # deterministic: no seeds
            configs.append(_config({**params, "init": init, "seeds": drawn}, model, dynamics))
        labels = [label for label, _ in variants]
        figures = [session.indexed(outputs.figure, label, len(configs)) for label in labels]
        for figure in figures:
            session.check_figure(figure)
        fresh = [_missing_chunks(chunks(config)[0], outputs) for config in configs]
        outcomes, paths = session.execute(
            ctx, "phase", configs, replace(outputs, figure=None), labels=labels if len(configs) > 1 else None
        )
        for outcome, figure in zip(outcomes, figures, strict=True):
            if figure is not None:
                _draw(outcome, figure)
    computed = iter(fresh)
    session.summarize(
        outcomes, paths, lambda o, path: _summary(o, path, next(computed)), outputs.json, quiet=outputs.quiet
    )


def _config(values: dict[str, Any], model: Any, dynamics: Any) -> PhaseConfig:
    """The map of the options given (``values`` by field of :class:`~gaugecli.experiments.params.Phase`):
    its base run built from the base's parameters (``gauge`` simulate's, ``owner`` select's; ``m``
    not given: the base's default), then the map, each as the Python API builds it."""
    import dataclasses

    from gaugecli.experiments.keywords import build
    from gaugecli.experiments.phase import PhaseConfig, eps_of_axes, parse_axis
    from gaugecli.experiments.select import SelectConfig
    from gaugecli.experiments.simulate import SimulateConfig

    kind = values["kind"]
    own = {f.name for f in dataclasses.fields(PhaseConfig)} | {"preset"}
    unread = {"owner" if kind == "simulate" else "gauge", *(["m"] if values["m"] is None else [])}
    if kind == "select":
        unread |= set(P.SIMULATE_ONLY)
    base = {P.Phase.params[f].name: v for f, v in values.items() if f not in own and f not in unread}
    # an adversarial start needs an ε before an eps axis sets each cell's
    if values["init"] == "adversarial" and values["eps"] is None:
        base["eps"] = eps_of_axes(kind, str(values["x"]), str(values["y"]))
    base_type = SimulateConfig if kind == "simulate" else SelectConfig
    values = dict(values)
    if values["device"] is not None and dynamics.mode is not P.Mode.flow:  # a finite-sample base's torch work
        dynamics = replace(dynamics, device=values["device"])
        values["device"] = None
    run = build(base_type, "phase", {**base, "model": model, "dynamics": dynamics})
    axes = {name: parse_axis(str(values[name]), kind, name) for name in ("x", "y")}
    return build(PhaseConfig, "phase", {**{f: values[f] for f in own - {"preset"} - {"base"}}, **axes, "base": run})


def _missing_chunks(jobs: list[Any], outputs: session.Outputs) -> int:
    """How many of the grid's chunks are not in the cache (all of them with ``--no-cache``)."""
    if not outputs.cache:
        return len(jobs)
    from gaugecli.experiments.phase import chunk_key
    from gaugecli.store.cache import Cache

    cache = Cache(outputs.cache_dir)
    return sum(not cache.path("point", chunk_key(job)).exists() for job in jobs)


def _draw(outcome: Outcome, figure: Path) -> None:
    from gaugecli.cli.report import errors_console
    from gaugecli.plots.phase_map import render

    render(outcome, figure)
    errors_console().print(f"drew {figure}")


def _summary(outcome: Outcome, path: Path | None, fresh: int) -> None:
    """The maps in numbers: each metric's range over the cells (and where it is undefined), the
    outcome classes' counts, how many chunks were computed now."""
    import numpy as np

    from gaugecli.cli import report

    result = outcome.result
    config = outcome.config
    chunks_total = len(result.chunk_cells)
    computed = fresh if outcome.computed else 0
    start = ", adversarial start" if config.run_base.init == "adversarial" else ""
    seeds = f", {len(result.seeds)} seeds per cell (means)" if result.seeds else ""
    title = (
        f"gaugecli phase — {config.kind}{start}: {config.x.text()} × {config.y.text()}, "
        f"{result.cells} cells in {chunks_total} chunks ({computed} computed now){seeds}"
    )
    table = report.new_table(title, ("metric", "min", "median", "max", "undefined"))
    for name in result.metrics:
        values = result.map(name)
        finite = values[np.isfinite(values)]
        if name == "outcome":
            continue
        low, mid, high = (np.min(finite), np.median(finite), np.max(finite)) if finite.size else (None,) * 3
        table.add_row(name, report.fmt(low), report.fmt(mid), report.fmt(high), str(values.size - finite.size))
    out = report.console()
    if table.row_count:
        report.show(table)
    if "outcome" in result.metrics:
        values, counts = np.unique(result.map("outcome"), return_counts=True)
        classes = ", ".join(f"{result.outcomes[int(v)]} {n}" for v, n in zip(values, counts, strict=True))
        out.print(f"outcome (cells per class): {classes}")
    if result.limit_strengths:
        out.print(
            "exponent, constant: the ±D pair at D = " + ", ".join(f"{d:g}" for d in result.limit_strengths)
            + " (C4: T_spec(−D)/T_spec(+D) ≈ C·D^exponent)"
        )  # fmt: skip
    if "owner-probability" in result.maps:
        low, high = result.map("owner-probability-low"), result.map("owner-probability-high")
        out.print(
            f"owner probability: Wilson {result.thresholds['confidence']:.0%} interval per cell, lower bound "
            f"{report.fmt(float(np.min(low)))} … {report.fmt(float(np.max(low)))}, upper "
            f"{report.fmt(float(np.min(high)))} … {report.fmt(float(np.max(high)))}"
        )
    horizon = result.horizon
    out.print(
        f"horizon per cell {report.fmt(float(np.min(horizon)))} … {report.fmt(float(np.max(horizon)))}; "
        f"aligned at α ≥ 1 − {result.thresholds['eps_align']:g}; pruned at P ≤ {result.thresholds['pruned_level']:g}"
    )
    out.print(report.where(outcome, path))
