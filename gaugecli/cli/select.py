"""``gaugecli select``: which of m duplicates learns the teacher feature (claim C6)."""

from __future__ import annotations

from typing import Annotated

import typer

from gaugecli.cli import options as opt
from gaugecli.cli import report, session
from gaugecli.cli.config_file import write_beside
from gaugecli.cli.errors import bad_parameter, errors
from gaugecli.experiments.select import OwnerSweepConfig, SelectConfig

DEFAULT = SelectConfig()
SWEEP = OwnerSweepConfig()
app = opt.command_app()


@app.command("select")
def select(
    ctx: typer.Context,
    gauge_strength: opt.Strength = DEFAULT.strength,
    m: Annotated[int, typer.Option("--m", help="Number of duplicates m ≥ 1.")] = DEFAULT.m,
    owner: Annotated[int, typer.Option("--owner", help="Designated owner o ∈ [0, m−1]: gets +D, others −D.")] = (
        DEFAULT.owner
    ),
    deltas: opt.Deltas = None,
    sweep: Annotated[bool, typer.Option("--sweep", help="Owner-success sweep over --ms × every designated o.")] = False,
    ms: Annotated[
        opt.IntList,
        typer.Option(
            "--ms",
            parser=opt.integers,
            metavar="LIST",
            help="Widths m ≥ 2 for --sweep.",
            show_default=opt.shown(SWEEP.ms),
        ),
    ] = opt.IntList(SWEEP.ms),
    seeds: opt.Seeds = None,
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
    workers: opt.Workers = 1,
    scheduler: opt.Scheduler = None,
) -> None:
    """Selection among m duplicates: the +D neuron becomes the owner (claim C6)."""
    with errors():
        model = opt.model_config(d, k, c0, theta0, eps_align)
        dynamics = opt.dynamics_config(mode, eta, n_samples, t_max, rtol, batch_size, batches, max_steps, device)
        if sweep and figure is not None:
            raise bad_parameter("--figure", "draws one run; select --sweep prints its success matrix instead")
        given = [flag for flag, on in (("--init", init != DEFAULT.init), ("--eps", eps is not None)) if on]
        given += ["--init-seed"] if init_seed is not None else []
        if sweep and given:
            raise bad_parameter(given[0], "has no effect with --sweep (the sweep starts from exact duplicates)")
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
        session.check_out(out)
        session.check_figure(figure)
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
        with session.pipeline(cache_dir, cache, workers, scheduler) as pipe:
            (outcome,) = session.run(pipe, kind, [config], "select")
        path = session.export(outcome, out)
        write_beside(out, ctx)
        session.draw(outcome, figure)
    (report.owner_sweep if sweep else report.select)(outcome, path)
