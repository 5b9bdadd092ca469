"""``gaugecli prune``: the non-owners' function vanishes (claim C7), and when it does not."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from gaugecli.cli import options as opt
from gaugecli.cli import report, session
from gaugecli.cli.errors import errors
from gaugecli.experiments import params as P

S = P.Prune
app = opt.command_app()


@app.command(cls=opt.PanelCommand)
@session.with_outputs(sweeps=True)
@session.with_model(features=False)
@session.with_dynamics("rtol")
def prune(
    ctx: typer.Context,
    gauge_strength: Annotated[list[str], opt.option(S.strengths, repeat=True)] = list(S.strengths.default),
    ms: Annotated[opt.IntList, opt.option(S.ms)] = S.ms.default,
    sample: Annotated[bool, opt.option(S.sample)] = S.sample.default,
    n_samples: Annotated[int | None, opt.option(S.n_samples)] = None,
    seeds: Annotated[opt.IntList | None, opt.option(S.seeds)] = None,
    coalign_strength: Annotated[float, opt.option(S.coalign_strength)] = S.coalign_strength.default,
    sweep_deltas: Annotated[opt.FloatList, opt.option(S.sweep_deltas)] = S.sweep_deltas.default,
    model: Any = None,
    dynamics: Any = None,
    outputs: session.Outputs = session.Outputs(),
) -> None:
    """Functional pruning: the non-owner norm P(t) falls below 1e-6 (claim C7), unless non-owners have δ > 0."""
    with errors():
        from gaugecli.experiments.prune import PruneConfig

        config = PruneConfig(
            model=model,
            strengths=opt.numbers(gauge_strength),
            ms=tuple(ms),
            sample=sample,
            n_samples=n_samples,
            seeds=None if seeds is None else tuple(seeds),
            coalign_strength=coalign_strength,
            sweep_deltas=tuple(sweep_deltas),
            dynamics=dynamics,
        )
        outcomes, paths = session.execute(ctx, "prune", [config], outputs)
    session.summarize(outcomes, paths, report.prune, outputs.json)
