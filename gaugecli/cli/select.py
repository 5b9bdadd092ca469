"""``gaugecli select``: which of m duplicates learns the teacher feature (claim C6)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from gaugecli.cli import options as opt
from gaugecli.cli import report, session, signature
from gaugecli.cli.errors import bad_parameter, errors
from gaugecli.experiments import params as P

app = opt.command_app()


Sweep = Annotated[
    bool,
    typer.Option("--sweep", help="Owner-success sweep over --ms × every designated o.", rich_help_panel=P.EXPERIMENT),
]
START = ("seeds", *P.Initial.params)
"""The parameters of a run's start and stream, listed after ``--sweep`` and its ``--ms``."""


@app.command(
    "select",
    cls=opt.PanelCommand,
    epilog=opt.examples("select -D 16 --m 5 --owner 2", "select --sweep --ms 2,3,4 --seeds 0,1 --workers 2 --json"),
)
@signature.with_outputs(sweeps=True)
@signature.with_model(features=True)
@signature.with_dynamics()
@signature.with_execution()
@signature.with_params(P.Select, only=START)
@signature.with_params(P.OwnerSweep, only=("ms",))
@signature.with_option("sweep", Sweep, False)
@signature.with_params(P.Select, exclude=START)
def select(
    ctx: typer.Context,
    params: Any = None,
    sweep: bool = False,
    max_time: Any = None,
    model: Any = None,
    dynamics: Any = None,
    outputs: session.Outputs = session.Outputs(),
) -> None:
    """Selection among m duplicates: the +D neuron becomes the owner (claim C6)."""
    with errors():
        from gaugecli.experiments.keywords import build
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
        if params["deltas"] is not None and (clash := opt.given(ctx, "m", "owner", "gauge_strength")):
            raise bad_parameter(
                clash[0], "has no effect with --deltas (m is their number, the owner their argmax); give one of them"
            )
        deltas, seeds = params["deltas"], params["seeds"]
        members = 1 if seeds is None else len(seeds)
        for width in params["ms"] if sweep else [len(deltas) if deltas is not None else params["m"]]:
            session.check_duration(dynamics, model.d, width, members, max_time)
        kind, config_type, declared = (
            ("select-sweep", OwnerSweepConfig, P.OwnerSweep) if sweep else ("select", SelectConfig, P.Select)
        )
        values = {field: params[field] for field in declared.params}  # the sweep: its widths, D and seeds
        config = build(config_type, "select", {**values, "model": model, "dynamics": dynamics})
        outcomes, paths = session.execute(ctx, kind, [config], outputs)
    session.summarize(
        outcomes, paths, report.owner_sweep if sweep else report.select, outputs.json, quiet=outputs.quiet
    )
