"""``gaugecli lockin``: feature repulsion and spectral lock-in diagnostics (Xu; Tian), select vs aligned control."""

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
    epilog=opt.examples("lockin -D 4 --m 3 --seeds 0", "lockin --no-control --scan-strength none --json"),
)
@signature.with_outputs(sweeps=False)
@signature.with_model(features=False, network=False)
@signature.with_dynamics("rtol")
@signature.with_params(P.Lockin)
def lockin(
    ctx: typer.Context,
    params: Any = None,
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
        from gaugecli.experiments.keywords import build
        from gaugecli.experiments.lockin import LockinConfig

        config = build(LockinConfig, "lockin", {**params, "model": model, "dynamics": dynamics})
        outcomes, paths = session.execute(ctx, "lockin", [config], outputs)
    session.summarize(outcomes, paths, report.lockin, outputs.json, quiet=outputs.quiet)
