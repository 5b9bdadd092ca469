"""``gaugecli simulate``: one configuration, or one per gauge strength D, batched."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gaugecli.cli import options as opt
from gaugecli.cli import report, session
from gaugecli.cli.config_file import write_beside
from gaugecli.cli.errors import bad_parameter, errors
from gaugecli.experiments.simulate import SimulateConfig

DEFAULT = SimulateConfig()
app = opt.command_app()


@app.command()
def simulate(
    ctx: typer.Context,
    gauge: Annotated[
        list[str],
        typer.Option(
            "--gauge",
            metavar="GAUGE",
            help="favorable | unfavorable | balanced, or a signed number (explicit δ); repeat for several.",
        ),
    ] = [DEFAULT.gauge],
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
    max_time: opt.MaxTime = opt.DEFAULT_MAX_TIME,
    out: opt.Out = None,
    figure: opt.FigurePath = None,
    cache_dir: opt.CacheDir = opt.DEFAULT_CACHE,
    cache: opt.UseCache = True,
    config_file: opt.ConfigFile = None,
) -> None:
    """One configuration: loss, alignment, coefficients, δ, reaction and transport over time.

    Several -D values (and gauges) run together as batched ensembles and give one artifact each.
    """
    with errors():
        if deltas is not None and gauge != [DEFAULT.gauge]:
            raise bad_parameter("--gauge", "has no effect with --deltas (every neuron has its own δ); give one of them")
        if deltas is not None and (clash := opt.given(ctx, "m", "gauge_strength")):
            raise bad_parameter(
                clash[0], "has no effect with --deltas (m is their number, each neuron its own δ); give one of them"
            )
        configs = [
            SimulateConfig(
                model=opt.model_config(d, k, c0, theta0, eps_align),
                dynamics=opt.dynamics_config(mode, eta, n_samples, t_max, rtol, batch_size, batches, max_steps, device),
                gauge=g,
                strengths=tuple(gauge_strength),
                m=m,
                deltas=deltas,
                seed=seed,
                init=init,
                eps=eps,
                init_seed=init_seed,
            )
            for g in dict.fromkeys(gauge)
        ]
        runs = [run for config in configs for run in config.runs()]
        for run in runs:
            session.check_duration(run.dynamics, run.model.d, run.m, 1, max_time)
        labels = [_label(r, len(configs) > 1) for r in runs]
        outs = [session.indexed(out, label, len(runs)) for label in labels]
        figures = [session.indexed(figure, label, len(runs)) for label in labels]
        for path, fig in zip(outs, figures, strict=True):
            session.check_out(path)
            session.check_figure(fig)
        with session.pipeline(cache_dir, cache) as pipe:
            outcomes = session.run(pipe, "simulate", runs, "simulate")
        paths: list[Path | None] = []
        for outcome, path, fig in zip(outcomes, outs, figures, strict=True):
            paths.append(session.export(outcome, path))
            write_beside(path, ctx, _rerun(ctx, outcome.config))
            session.draw(outcome, fig)
    report.simulate(outcomes, paths)


def _rerun(ctx: typer.Context, run: SimulateConfig) -> dict[str, object]:
    """One run of several: its own gauge and D in its rerun file, where those were given."""
    given = set(opt.given(ctx, "gauge", "gauge_strength"))
    out: dict[str, object] = {}
    if "--gauge" in given:
        out["gauge"] = [run.gauge]
    if "-D" in given:
        out["gauge_strength"] = [run.strengths[0]]
    return out


def _label(run: SimulateConfig, several_gauges: bool) -> str:
    """How ``--out``/``--figure`` names one of several runs: ``D4`` or ``unfavorable-D4``."""
    strength = f"D{run.strengths[0]:.15g}"
    return f"{run.gauge}-{strength}" if several_gauges else strength
