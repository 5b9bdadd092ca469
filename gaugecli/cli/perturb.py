"""``gaugecli perturb``: robustness of selection (claim C8)."""

from __future__ import annotations

from typing import Any

import typer

from gaugecli.cli import options as opt
from gaugecli.cli import report, session, signature
from gaugecli.cli.errors import bad_parameter, errors
from gaugecli.experiments import params as P

app = opt.command_app()


@app.command(
    cls=opt.PanelCommand,
    epilog=opt.examples(
        "perturb --sweeps visible --eps 0,0.5,1 -D 4,16",
        "perturb --sweeps samples --n-samples 500,1000 --sample-seeds 0,1 --json",
    ),
)
@signature.with_outputs(sweeps=True)
@signature.with_model(features=False)
@signature.with_dynamics("rtol")
@signature.with_params(P.Perturb)
def perturb(
    ctx: typer.Context,
    params: Any = None,
    model: Any = None,
    dynamics: Any = None,
    outputs: session.Outputs = session.Outputs(),
) -> None:
    """Robustness (claim C8), one cause per sweep: visible perturbations (ε × D), the GD step η,
    the sample size n (finite-sample flow against the population flow), selection against n."""
    with errors():
        from gaugecli.experiments.keywords import build
        from gaugecli.experiments.perturb import PerturbConfig
        from gaugecli.experiments.perturb_spec import read_kind

        if params["kind"] == "adversarial" and (clash := opt.given(ctx, "seeds")):
            raise bad_parameter(clash[0], "has no effect with --kind adversarial (deterministic); use --kind random")
        for sweep, flags in P.SWEEP_PARAMS.items():
            if sweep not in params["sweeps"] and (clash := opt.given(ctx, *flags)):
                raise bad_parameter(clash[0], f"has no effect: the {sweep} sweep is not in --sweeps")
        config = build(PerturbConfig, "perturb", {**read_kind(params), "model": model, "dynamics": dynamics})
        outcomes, paths = session.execute(ctx, "perturb", [config], outputs)
    session.summarize(outcomes, paths, report.perturb, outputs.json, quiet=outputs.quiet)
