"""``gaugecli reln``: the gated-linear (ReLN) view of gauge selection, where it holds and where it fails."""

from __future__ import annotations

from typing import Any

import typer

from gaugecli.cli import options as opt
from gaugecli.cli import report, session, signature
from gaugecli.cli.errors import errors
from gaugecli.experiments import params as P

app = opt.command_app()


@app.command(cls=opt.PanelCommand, epilog=opt.examples("reln -D 4 --m 3", "reln --restart 1,2 --levels 10 --json"))
@signature.with_outputs(sweeps=False)
@signature.with_model(features=False, network=False)
@signature.with_dynamics("t_max", "rtol")
@signature.with_params(P.Reln)
def reln(
    ctx: typer.Context,
    params: Any = None,
    model: Any = None,
    dynamics: Any = None,
    outputs: session.Outputs = session.Outputs(),
) -> None:
    """The gated-linear (ReLN) view of gauge selection: where it predicts the gauge effect, where it fails.

    For each -D and both gauges ±D (m = 1) the ReLU flow against the ReLN gated by the teacher's
    half-space (final gate), by the start's (initial gate) and the aligned race; the select run
    (m neurons) against the ReLN with its final activation pattern; ReLNs restarted from the ReLU
    state at t0 with frozen gates; and the fastest fixed gate at each loss level. Population flow only.
    """
    with errors():
        from gaugecli.experiments.keywords import build
        from gaugecli.experiments.reln import RelnConfig

        config = build(RelnConfig, "reln", {**params, "model": model, "dynamics": dynamics})
        outcomes, paths = session.execute(ctx, "reln", [config], outputs)
    session.summarize(outcomes, paths, report.reln, outputs.json, quiet=outputs.quiet)
