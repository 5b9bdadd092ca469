"""``gaugecli prune``: the non-owners' function vanishes (claim C7), and when it does not."""

from __future__ import annotations

from typing import Annotated

import typer

from gaugecli.cli import options as opt
from gaugecli.cli import report, session
from gaugecli.cli.config_file import write_beside
from gaugecli.cli.errors import errors
from gaugecli.experiments.prune import PruneConfig

DEFAULT = PruneConfig()
app = opt.command_app()


@app.command()
def prune(
    ctx: typer.Context,
    gauge_strength: opt.Strengths = list(DEFAULT.strengths),
    ms: Annotated[
        opt.IntList,
        typer.Option(
            "--ms", parser=opt.integers, metavar="LIST", help="Widths m ≥ 2.", show_default=opt.shown(DEFAULT.ms)
        ),
    ] = opt.IntList(DEFAULT.ms),
    sample: Annotated[bool, typer.Option("--sample/--no-sample", help="Also run finite-sample training.")] = (
        DEFAULT.sample
    ),
    n_samples: Annotated[
        int | None,
        typer.Option(
            "--n-samples", help="Sample size n ≥ 1 of the finite-sample rows (the flow on L_n).", show_default="10000"
        ),
    ] = None,
    seeds: opt.Seeds = None,
    coalign_strength: Annotated[
        float, typer.Option("--coalign-strength", help="D of the co-alignment contrast (m=3; non-owners ±).")
    ] = DEFAULT.coalign_strength,
    sweep_deltas: Annotated[
        opt.FloatList,
        typer.Option(
            "--sweep-deltas",
            parser=opt.floats,
            metavar="δ1,δ2,…",
            help="The non-owner's δ in the boundary sweep (m=2, owner at +coalign-strength); each ≤ that δ.",
            show_default=opt.shown(DEFAULT.sweep_deltas),
        ),
    ] = opt.FloatList(DEFAULT.sweep_deltas),
    d: opt.Dimension = opt.MODEL.d,
    c0: opt.InitialCoefficient = opt.MODEL.c0,
    theta0: opt.InitialAngle = opt.MODEL.theta0,
    eps_align: opt.EpsAlign = opt.MODEL.eps_align,
    rtol: opt.FlowTolerance = DEFAULT.rtol,
    out: opt.Out = None,
    figure: opt.FigurePath = None,
    cache_dir: opt.CacheDir = opt.DEFAULT_CACHE,
    cache: opt.UseCache = True,
    config_file: opt.ConfigFile = None,
    workers: opt.Workers = 1,
    scheduler: opt.Scheduler = None,
) -> None:
    """Functional pruning: the non-owner norm P(t) falls below 1e-6 (claim C7), unless non-owners have δ > 0."""
    with errors():
        config = PruneConfig(
            model=opt.model_config(d, 1, c0, theta0, eps_align),
            strengths=tuple(gauge_strength),
            ms=tuple(ms),
            sample=sample,
            n_samples=n_samples,
            seeds=None if seeds is None else tuple(seeds),
            coalign_strength=coalign_strength,
            sweep_deltas=tuple(sweep_deltas),
            rtol=rtol,
        )
        session.check_out(out)
        session.check_figure(figure)
        with session.pipeline(cache_dir, cache, workers, scheduler) as pipe:
            (outcome,) = session.run(pipe, "prune", [config], "prune")
        path = session.export(outcome, out)
        write_beside(out, ctx)
        session.draw(outcome, figure)
    report.prune(outcome, path)
