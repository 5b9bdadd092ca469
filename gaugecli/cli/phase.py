"""``gaugecli phase``: a map of ``simulate`` or ``select`` over any two of their parameters, with
the summary it prints and the heat maps of ``--figure``."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from gaugecli.cli import options as opt
from gaugecli.cli import session
from gaugecli.cli.errors import bad_parameter, errors
from gaugecli.experiments import params as P

if TYPE_CHECKING:
    from gaugecli.experiments.phase import PhaseConfig
    from gaugecli.pipeline import Outcome

F = P.Phase
app = opt.command_app()


@app.command("phase", cls=opt.PanelCommand)
@session.with_outputs(sweeps=True)
@session.with_model(features=True)
@session.with_dynamics()
def phase(
    ctx: typer.Context,
    x: Annotated[str, opt.option(F.x)] = F.x.default,
    y: Annotated[str, opt.option(F.y)] = F.y.default,
    metric: Annotated[list[str], opt.option(F.metrics, repeat=True)] = list(F.metrics.default),
    kind: Annotated[str, opt.option(F.kind)] = F.kind.default,
    preset: Annotated[str | None, opt.option(F.preset)] = None,
    gauge: Annotated[str, opt.option(P.Simulate.gauge)] = P.Simulate.gauge.default,
    gauge_strength: Annotated[float, opt.option(P.GAUGE_STRENGTH)] = P.GAUGE_STRENGTH.default,
    m: Annotated[int | None, opt.option(F.m)] = None,
    owner: Annotated[int, opt.option(P.Select.owner)] = P.Select.owner.default,
    init: opt.Init = P.Initial.init.default,
    eps: opt.Perturbation = None,
    init_seed: opt.InitSeed = None,
    limit_d: Annotated[opt.FloatList, opt.option(F.limit_strengths)] = opt.FloatList(F.limit_strengths.default),
    seeds: Annotated[opt.IntList | None, opt.option(F.seeds)] = None,
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

        given = set(opt.given(ctx, "x", "y", "metric", "kind", "m", "init"))
        variants: list[tuple[str, dict[str, Any]]] = [("", {})]
        if preset is not None:
            p = PRESETS[preset]
            kind = kind if "--kind" in given else p.kind
            x = x if "--x" in given else p.x
            y = y if "--y" in given else p.y
            metric = metric if "--metric" in given else list(p.metrics)
            preset_m = dict(p.options).get("m")
            m = m if "--m" in given or not isinstance(preset_m, int) else preset_m
            if p.variants and "--init" not in given:  # --init picks one of the maps
                variants = [(label, dict(options)) for label, options in p.variants]
        if kind == "select" and (clash := opt.given(ctx, "gauge")):
            raise bad_parameter(clash[0], "is simulate's: select gives +D to --owner and −D to the others")
        if kind == "simulate" and (clash := opt.given(ctx, "owner")):
            raise bad_parameter(clash[0], "is select's: use --kind select")
        configs = []
        for _, options in variants:
            chosen = str(options.get("init", init))
            drawn = None if chosen == "adversarial" and len(variants) > 1 else seeds  # deterministic: no seeds
            configs.append(
                _config(
                    kind,
                    str(x),
                    str(y),
                    metric,
                    gauge,
                    gauge_strength,
                    m,
                    owner,
                    chosen,
                    eps,
                    init_seed,
                    tuple(limit_d),
                    drawn,
                    model,
                    dynamics,
                )
            )
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
    session.summarize(outcomes, paths, lambda o, path: _summary(o, path, next(computed)), outputs.json)


def _config(
    kind: str,
    x: str,
    y: str,
    metrics: list[str],
    gauge: str,
    strength: float,
    m: int | None,
    owner: int,
    init: str,
    eps: float | None,
    init_seed: int | None,
    limit_strengths: tuple[float, ...],
    seeds: list[int] | tuple[int, ...] | None,
    model: Any,
    dynamics: Any,
) -> PhaseConfig:
    from gaugecli.experiments.phase import PhaseConfig, eps_of_axes, parse_axis
    from gaugecli.experiments.select import SelectConfig
    from gaugecli.experiments.simulate import SimulateConfig

    if init == "adversarial" and eps is None:  # its start needs an ε before an eps axis sets each cell's
        eps = eps_of_axes(kind, x, y)
    common = {"model": model, "dynamics": dynamics, "init": init, "eps": eps, "init_seed": init_seed}
    base: Any
    if kind == "simulate":
        base = SimulateConfig(gauge=gauge, strengths=(strength,), m=1 if m is None else m, **common)
    else:
        base = SelectConfig(strength=strength, m=5 if m is None else m, owner=owner, **common)
    return PhaseConfig(
        kind,
        parse_axis(x, kind, "x"),
        parse_axis(y, kind, "y"),
        tuple(metrics),
        base,
        limit_strengths=limit_strengths,
        seeds=None if seeds is None else tuple(seeds),
    )


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
