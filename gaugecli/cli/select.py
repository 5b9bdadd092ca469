"""``gaugecli select``: which of m duplicates learns the teacher feature (claim C6)."""

from __future__ import annotations

from typing import Annotated

import typer

from gaugecli.cli import options as opt
from gaugecli.cli import report, session
from gaugecli.cli.errors import bad_parameter, errors
from gaugecli.experiments import params as P

S = P.Select
app = opt.command_app()


@app.command("select", cls=opt.PanelCommand)
def select(
    ctx: typer.Context,
    gauge_strength: Annotated[float, opt.option(S.strength)] = S.strength.default,
    m: Annotated[int, opt.option(S.m)] = S.m.default,
    owner: Annotated[int, opt.option(S.owner)] = S.owner.default,
    deltas: opt.Deltas = None,
    sweep: Annotated[
        bool,
        typer.Option(
            "--sweep", help="Owner-success sweep over --ms × every designated o.", rich_help_panel=P.EXPERIMENT
        ),
    ] = False,
    ms: Annotated[opt.IntList, opt.option(P.OwnerSweep.ms)] = P.OwnerSweep.ms.default,
    seeds: Annotated[opt.IntList | None, opt.option(S.seeds)] = None,
    d: opt.Dimension = P.Model.d.default,
    k: opt.TeacherFeatures = P.Model.k.default,
    c0: opt.InitialCoefficient = P.Model.c0.default,
    theta0: opt.InitialAngle = P.Model.theta0.default,
    init: opt.Init = S.init.default,
    eps: opt.Perturbation = None,
    init_seed: opt.InitSeed = None,
    eps_align: opt.EpsAlign = P.Model.eps_align.default,
    mode: opt.DynamicsMode = P.Dynamics.mode.default,
    eta: opt.Step = None,
    n_samples: opt.SampleSize = None,
    batch_size: opt.BatchSize = None,
    batches: opt.Batches = None,
    t_max: opt.Horizon = None,
    rtol: opt.Tolerance = None,
    max_steps: opt.MaxSteps = None,
    device: opt.Device = None,
    max_time: opt.MaxTime = opt.DEFAULT_MAX_TIME,
    out: opt.Out = None,
    figure: opt.FigurePath = None,
    cache_dir: opt.CacheDir = opt.DEFAULT_CACHE,
    cache: opt.UseCache = True,
    config_file: opt.ConfigFile = None,
    workers: opt.Workers = opt.WORKERS.default,
    scheduler: opt.Scheduler = None,
    json: opt.Json = False,
) -> None:
    """Selection among m duplicates: the +D neuron becomes the owner (claim C6)."""
    with errors():
        from gaugecli.experiments.select import OwnerSweepConfig, SelectConfig

        model = opt.model_config(d, k, c0, theta0, eps_align)
        dynamics = opt.dynamics_config(
            mode,
            eta=eta,
            n_samples=n_samples,
            batch_size=batch_size,
            batches=batches,
            t_max=t_max,
            rtol=rtol,
            max_steps=max_steps,
            device=device,
        )
        if sweep and figure is not None:
            raise bad_parameter("--figure", "draws one run; select --sweep prints its success matrix instead")
        if sweep and (clash := opt.given(ctx, "init", "eps", "init_seed")):
            raise bad_parameter(clash[0], "has no effect with --sweep (the sweep starts from exact duplicates)")
        if sweep and (clash := opt.given(ctx, "m", "owner", "deltas")):
            raise bad_parameter(clash[0], "has no effect with --sweep (it runs every m of --ms and every owner)")
        if not sweep and (clash := opt.given(ctx, "ms")):
            raise bad_parameter(clash[0], "sets the widths of --sweep; without it, give one width with --m")
        if deltas is not None and (clash := opt.given(ctx, "m", "owner", "gauge_strength")):
            raise bad_parameter(
                clash[0], "has no effect with --deltas (m is their number, the owner their argmax); give one of them"
            )
        members = 1 if seeds is None else len(seeds)
        for width in ms if sweep else [len(deltas) if deltas is not None else m]:
            session.check_duration(dynamics, model.d, width, members, max_time)
        if sweep:
            kind = "select-sweep"
            config: SelectConfig | OwnerSweepConfig = OwnerSweepConfig(
                model=model,
                dynamics=dynamics,
                ms=tuple(ms),
                strength=gauge_strength,
                seeds=None if seeds is None else tuple(seeds),
            )
        else:
            kind = "select"
            config = SelectConfig(
                model=model,
                dynamics=dynamics,
                m=m,
                strength=gauge_strength,
                owner=owner,
                deltas=deltas,
                seeds=None if seeds is None else tuple(seeds),
                init=init,
                eps=eps,
                init_seed=init_seed,
            )
        outputs = session.Outputs(out, figure, cache_dir, cache, workers, scheduler, json)
        outcomes, paths = session.execute(ctx, kind, [config], outputs)
    session.summarize(outcomes, paths, report.owner_sweep if sweep else report.select, json)
