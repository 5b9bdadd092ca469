"""``gaugecli simulate``: one configuration, or one per gauge strength D, batched."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from gaugecli.cli import options as opt
from gaugecli.cli import report, session
from gaugecli.cli.errors import bad_parameter, errors
from gaugecli.experiments import params as P

if TYPE_CHECKING:
    from gaugecli.experiments.simulate import SimulateConfig

S = P.Simulate
app = opt.command_app()


@app.command(cls=opt.PanelCommand)
@session.with_outputs(sweeps=False)
@session.with_model(features=True)
@session.with_dynamics()
def simulate(
    ctx: typer.Context,
    gauge: Annotated[list[str], opt.option(S.gauge, repeat=True)] = [S.gauge.default],
    gauge_strength: Annotated[list[str], opt.option(S.strengths, repeat=True)] = list(S.strengths.default),
    m: Annotated[int, opt.option(S.m)] = S.m.default,
    deltas: opt.Deltas = None,
    init: opt.Init = S.init.default,
    eps: opt.Perturbation = None,
    init_seed: opt.InitSeed = None,
    init_scale_a: opt.InitScaleA = None,
    init_scale_w: opt.InitScaleW = None,
    mixed_signs: opt.MixedSigns = False,
    seeds: Annotated[opt.IntList | None, opt.option(P.SEEDS, "--seed")] = None,
    max_time: opt.MaxTime = opt.DEFAULT_MAX_TIME,
    model: Any = None,
    dynamics: Any = None,
    outputs: session.Outputs = session.Outputs(),
) -> None:
    """One configuration: loss, alignment, coefficients, δ, reaction and transport over time.

    Several gauges, -D values and seeds run together as batched ensembles and give one artifact each.
    """
    with errors():
        from gaugecli.experiments.simulate import SimulateConfig

        if deltas is not None and (clash := opt.given(ctx, "gauge", "m", "gauge_strength")):
            raise bad_parameter(
                clash[0], "has no effect with --deltas (m is their number, each neuron its own δ); give one of them"
            )
        configs = [
            SimulateConfig(
                model=model,
                dynamics=dynamics,
                gauge=g,
                strengths=opt.numbers(gauge_strength),
                m=m,
                deltas=deltas,
                seed=seed,
                init=init,
                eps=eps,
                init_seed=init_seed,
                init_scale_a=init_scale_a,
                init_scale_w=init_scale_w,
                mixed_signs=mixed_signs,
            )
            for g in dict.fromkeys(gauge)
            for seed in (dict.fromkeys(seeds) if seeds is not None else [None])
        ]
        runs = [run for config in configs for run in config.runs()]
        for run in runs:
            session.check_duration(run.dynamics, run.model.d, run.m, 1, max_time)
        labels = [_label(r, len(dict.fromkeys(gauge)) > 1, seeds is not None and len(seeds) > 1) for r in runs]
        outcomes, paths = session.execute(
            ctx, "simulate", runs, outputs, labels=labels, rerun=lambda run: _rerun(ctx, run)
        )
    session.summarize(outcomes, paths, report.simulate, outputs.json, each=False)


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
