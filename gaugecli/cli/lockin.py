"""``gaugecli lockin``: feature repulsion and spectral lock-in diagnostics (Xu; Tian), select vs aligned control."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from gaugecli.cli import options as opt
from gaugecli.cli import report, session
from gaugecli.cli.errors import errors
from gaugecli.experiments import params as P

S = P.Lockin
app = opt.command_app()


@app.command(cls=opt.PanelCommand)
@session.with_outputs(sweeps=False)
@session.with_model(features=False, network=False)
@session.with_dynamics("rtol")
def lockin(
    ctx: typer.Context,
    gauge_strength: Annotated[list[str], opt.option(S.strengths, repeat=True)] = list(S.strengths.default),
    m: Annotated[int, opt.option(S.m)] = S.m.default,
    owner: Annotated[int, opt.option(S.owner)] = S.owner.default,
    assign: Annotated[opt.WordList, opt.option(S.assignments)] = S.assignments.default,
    control: Annotated[bool, opt.option(S.control)] = S.control.default,
    per: Annotated[int, opt.option(S.per)] = S.per.default,
    span: Annotated[float, opt.option(S.span)] = S.span.default,
    window: Annotated[int, opt.option(S.window)] = S.window.default,
    lag: Annotated[int, opt.option(S.lag)] = S.lag.default,
    threshold: Annotated[float, opt.option(S.threshold)] = S.threshold.default,
    burn_in: Annotated[int, opt.option(S.burn_in)] = S.burn_in.default,
    floor: Annotated[float, opt.option(S.floor)] = S.floor.default,
    ridge: Annotated[float, opt.option(S.ridge)] = S.ridge.default,
    seeds: Annotated[opt.IntList, opt.option(S.seeds)] = S.seeds.default,
    n_samples: Annotated[int, opt.option(S.n_samples)] = S.n_samples.default,
    steps_per_unit: Annotated[int, opt.option(S.steps_per_unit)] = S.steps_per_unit.default,
    x2: Annotated[bool, opt.option(S.quadratic)] = S.quadratic.default,
    x2_step_fraction: Annotated[float, opt.option(S.quadratic_step_fraction)] = S.quadratic_step_fraction.default,
    scan_strengths: Annotated[opt.FloatList, opt.option(S.scan_strengths)] = S.scan_strengths.default,
    scan_pers: Annotated[opt.IntList, opt.option(S.scan_pers)] = S.scan_pers.default,
    scan_eps: Annotated[opt.FloatList, opt.option(S.scan_eps)] = S.scan_eps.default,
    store_every: Annotated[int, opt.option(S.store_every)] = S.store_every.default,
    model: Any = None,
    dynamics: Any = None,
    outputs: session.Outputs = session.Outputs(),
) -> None:
    """Repulsion and spectral lock-in diagnostics (Xu, Tian): which signatures gauge selection leaves.

    Select (one +D owner among −D duplicates) against the aligned control (θ0 = 0), in the population
    flow and in finite-sample GD: the rank-2 share σ2/σ1 of dW/dt, Xu's windowed-Gram detector (raw and
    with a round-off floor), Tian's B and its sign rate, the duplicates' separation exponent Λ.
    """
    with errors():
        from gaugecli.experiments.lockin import LockinConfig

        config = LockinConfig(
            model=model,
            m=m,
            owner=owner,
            strengths=opt.numbers(gauge_strength),
            assignments=tuple(assign),
            control=control,
            per=per,
            span=span,
            window=window,
            lag=lag,
            threshold=threshold,
            burn_in=burn_in,
            floor=floor,
            ridge=ridge,
            dynamics=dynamics,
            seeds=tuple(seeds),
            n_samples=n_samples,
            steps_per_unit=steps_per_unit,
            quadratic=x2,
            quadratic_step_fraction=x2_step_fraction,
            scan_strengths=tuple(scan_strengths),
            scan_pers=tuple(scan_pers),
            scan_eps=tuple(scan_eps),
            store_every=store_every,
        )
        outcomes, paths = session.execute(ctx, "lockin", [config], outputs)
    session.summarize(outcomes, paths, report.lockin, outputs.json)
