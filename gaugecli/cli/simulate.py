"""``gaugecli simulate``: one configuration, or one per gauge strength D, batched."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gaugecli.cli import options as opt
from gaugecli.cli import report, session
from gaugecli.cli.errors import errors
from gaugecli.experiments.simulate import SimulateConfig

DEFAULT = SimulateConfig()
app = opt.command_app()


@app.command()
def simulate(
    gauge: Annotated[
        str, typer.Option("--gauge", help="favorable | unfavorable | balanced, or a signed number (explicit δ).")
    ] = DEFAULT.gauge,
    gauge_strength: opt.Strengths = list(DEFAULT.strengths),
    m: Annotated[int, typer.Option("--m", help="Number of student neurons m ≥ 1 (all in the same gauge).")] = DEFAULT.m,
    deltas: opt.Deltas = None,
    d: opt.Dimension = opt.MODEL.d,
    k: opt.TeacherFeatures = opt.MODEL.k,
    c0: opt.InitialCoefficient = opt.MODEL.c0,
    theta0: opt.InitialAngle = opt.MODEL.theta0,
    init: opt.Init = DEFAULT.init,
    eps: opt.Perturbation = None,
    init_seed: opt.InitSeed = None,
    mode: opt.DynamicsMode = opt.DYNAMICS.mode,
    eta: opt.Step = None,
    n_samples: opt.SampleSize = None,
    batch_size: opt.BatchSize = None,
    batches: opt.Batches = None,
    t_max: opt.Horizon = opt.DYNAMICS.t_max,
    seed: opt.Seed = None,
    eps_align: opt.EpsAlign = opt.MODEL.eps_align,
    rtol: opt.Tolerance = None,
    max_steps: opt.MaxSteps = None,
    device: opt.Device = None,
    out: opt.Out = None,
    figure: opt.FigurePath = None,
    cache_dir: opt.CacheDir = opt.DEFAULT_CACHE,
    cache: opt.UseCache = True,
) -> None:
    """One configuration: loss, alignment, coefficients, δ, reaction and transport over time.

    Several -D values run together as one batched ensemble and give one artifact each.
    """
    with errors():
        config = SimulateConfig(
            model=opt.model_config(d, k, c0, theta0, eps_align),
            dynamics=opt.dynamics_config(mode, eta, n_samples, t_max, rtol, batch_size, batches, max_steps, device),
            gauge=gauge,
            strengths=tuple(gauge_strength),
            m=m,
            deltas=deltas,
            seed=seed,
            init=init,
            eps=eps,
            init_seed=init_seed,
        )
        runs = config.runs()
        outs = [session.indexed(out, f"D{r.strengths[0]:.15g}", len(runs)) for r in runs]
        figures = [session.indexed(figure, f"D{r.strengths[0]:.15g}", len(runs)) for r in runs]
        for path, fig in zip(outs, figures, strict=True):
            session.check_out(path)
            session.check_figure(fig)
        with session.pipeline(cache_dir, cache) as pipe:
            outcomes = session.run(pipe, "simulate", runs, "simulate")
        paths: list[Path | None] = []
        for outcome, path, fig in zip(outcomes, outs, figures, strict=True):
            paths.append(session.export(outcome, path))
            session.draw(outcome, fig)
    report.simulate(outcomes, paths)
