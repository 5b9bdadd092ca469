"""``gaugecli select``: which of m duplicates learns the teacher feature (claim C6)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from gaugecli.cli import options as opt
from gaugecli.cli import report, session
from gaugecli.cli.errors import bad_parameter, errors
from gaugecli.experiments import params as P

S = P.Select
app = opt.command_app()


@app.command("select", cls=opt.PanelCommand)
@session.with_outputs(sweeps=True)
@session.with_model(features=True)
@session.with_dynamics()
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
    init: opt.Init = S.init.default,
    eps: opt.Perturbation = None,
    init_seed: opt.InitSeed = None,
    init_scale_a: opt.InitScaleA = None,
    init_scale_w: opt.InitScaleW = None,
    mixed_signs: opt.MixedSigns = False,
    max_time: opt.MaxTime = opt.DEFAULT_MAX_TIME,
    model: Any = None,
    dynamics: Any = None,
    outputs: session.Outputs = session.Outputs(),
) -> None:
    """Selection among m duplicates: the +D neuron becomes the owner (claim C6)."""
    with errors():
        from gaugecli.experiments.select import OwnerSweepConfig, SelectConfig

        if sweep and outputs.figure is not None:
            raise bad_parameter("--figure", "draws one run; select --sweep prints its success matrix instead")
        if sweep and (
            clash := opt.given(ctx, "init", "eps", "init_seed", "init_scale_a", "init_scale_w", "mixed_signs")
        ):
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
                init_scale_a=init_scale_a,
                init_scale_w=init_scale_w,
                mixed_signs=mixed_signs,
            )
        outcomes, paths = session.execute(ctx, kind, [config], outputs)
    session.summarize(outcomes, paths, report.owner_sweep if sweep else report.select, outputs.json)
