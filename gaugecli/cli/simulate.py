"""``gaugecli simulate``: one configuration, or one per gauge strength D, batched."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from gaugecli.cli import options as opt
from gaugecli.cli import report, session, signature
from gaugecli.cli.errors import bad_parameter, errors
from gaugecli.experiments import params as P

if TYPE_CHECKING:
    from gaugecli.experiments.simulate import SimulateConfig

app = opt.command_app()


@app.command(
    cls=opt.PanelCommand,
    epilog=opt.examples(
        "simulate -D 4,16 --m 2",
        "simulate --gauge unfavorable -D 16 --out run.json --figure run.png",
        "simulate --mode sgd --eta 0.05 --seeds 0,1 --json",
    ),
)
@signature.with_outputs(sweeps=False)
@signature.with_model(features=True)
@signature.with_dynamics()
@signature.with_execution()
@signature.with_params({"seeds": P.SEEDS})  # one run per seed
@signature.with_params(P.Simulate, exclude=("seed",))
def simulate(
    ctx: typer.Context,
    params: Any = None,
    max_time: Any = None,
    model: Any = None,
    dynamics: Any = None,
    outputs: session.Outputs = session.Outputs(),
) -> None:
    """One configuration: loss, alignment, coefficients, δ, reaction and transport over time.

    Several gauges, -D values and seeds run together as batched ensembles and give one artifact each.
    """
    with errors():
        from gaugecli.experiments.keywords import build
        from gaugecli.experiments.simulate import SimulateConfig

        if params["deltas"] is not None and (clash := opt.given(ctx, "gauge", "m", "gauge_strength")):
            raise bad_parameter(
                clash[0], "has no effect with --deltas (m is their number, each neuron its own δ); give one of them"
            )
        gauges, seeds = dict.fromkeys(params.pop("gauge")), params.pop("seeds")
        configs = [
            build(
                SimulateConfig, "simulate", {**params, "gauge": g, "seed": seed, "model": model, "dynamics": dynamics}
            )
            for g in gauges
            for seed in (dict.fromkeys(seeds) if seeds is not None else [None])
        ]
        runs = [run for config in configs for run in config.runs()]
        for run in runs:
            session.check_duration(run.dynamics, run.model.d, run.m, 1, max_time)
        labels = [_label(r, len(gauges) > 1, seeds is not None and len(seeds) > 1) for r in runs]
        outcomes, paths = session.execute(
            ctx, "simulate", runs, outputs, labels=labels, rerun=lambda run: _rerun(ctx, run)
        )
    session.summarize(outcomes, paths, report.simulate, outputs.json, each=False, quiet=outputs.quiet)


def _rerun(ctx: typer.Context, run: SimulateConfig) -> dict[str, object]:
    """One run of several: its own gauge, D and seed in its rerun file, where those were given."""
    given = set(opt.given(ctx, "gauge", "gauge_strength", "seeds"))
    out: dict[str, object] = {}
    if "--gauge" in given:
        out["gauge"] = [run.gauge]
    if "--gauge-strength" in given:
        out["gauge_strength"] = [run.strengths[0]]
    if "--seeds" in given:
        out["seeds"] = [run.seed]
    return out


def _label(run: SimulateConfig, several_gauges: bool, several_seeds: bool) -> str:
    """How ``--out``/``--figure`` names one of several runs: ``D4``, ``unfavorable-D4`` or ``D4-seed2``."""
    label = f"D{run.strengths[0]:.15g}"
    label = f"{run.gauge}-{label}" if several_gauges else label
    return f"{label}-seed{run.seed}" if several_seeds else label
