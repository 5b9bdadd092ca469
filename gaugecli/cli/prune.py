"""``gaugecli prune``: the non-owners' function vanishes (claim C7), and when it does not."""

from __future__ import annotations

from typing import Any

import typer

from gaugecli.cli import options as opt
from gaugecli.cli import report, session, signature
from gaugecli.cli.errors import errors
from gaugecli.experiments import params as P

app = opt.command_app()


@app.command(
    cls=opt.PanelCommand,
    epilog=opt.examples(
        "prune -D 4,16 --ms 2,3 --no-sample", "prune --n-samples 2000 --seeds 0,1 --quiet --out prune.json"
    ),
)
@signature.with_outputs(sweeps=True)
@signature.with_model(features=False)
@signature.with_dynamics("rtol")
@signature.with_params(P.Prune)
def prune(
    ctx: typer.Context,
    params: Any = None,
    model: Any = None,
    dynamics: Any = None,
    outputs: session.Outputs = session.Outputs(),
) -> None:
    """Functional pruning: the non-owner norm P(t) falls below 1e-6 (claim C7), unless non-owners have δ > 0."""
    with errors():
        from gaugecli.experiments.keywords import build
        from gaugecli.experiments.prune import PruneConfig

        config = build(PruneConfig, "prune", {**params, "model": model, "dynamics": dynamics})
        outcomes, paths = session.execute(ctx, "prune", [config], outputs)
    session.summarize(outcomes, paths, report.prune, outputs.json, quiet=outputs.quiet)
