"""``gaugecli simulate``: one configuration, or one per gauge strength D, batched."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

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
def simulate(
    ctx: typer.Context,
    gauge: Annotated[list[str], opt.option(S.gauge, repeat=True)] = [S.gauge.default],
    gauge_strength: Annotated[list[str], opt.option(S.strengths, repeat=True)] = list(S.strengths.default),
    m: Annotated[int, opt.option(S.m)] = S.m.default,
    deltas: opt.Deltas = None,
    d: opt.Dimension = P.Model.d.default,
    k: opt.TeacherFeatures = P.Model.k.default,
    c0: opt.InitialCoefficient = P.Model.c0.default,
    theta0: opt.InitialAngle = P.Model.theta0.default,
    init: opt.Init = S.init.default,
    eps: opt.Perturbation = None,
    init_seed: opt.InitSeed = None,
    eps_align: opt.EpsAlign = P.Model.eps_align.default,
    mode: opt.DynamicsMode = P.Dynamics.mode.default,
    eta: opt.Step = None,
    n_samples: opt.SampleSize = None,
    batch_size: opt.BatchSize = None,
    batches: opt.Batches = None,
    t_max: opt.Horizon = None,
    seeds: Annotated[opt.IntList | None, opt.option(P.SEEDS, "--seed")] = None,
    rtol: opt.Tolerance = None,
    max_steps: opt.MaxSteps = None,
    device: opt.Device = None,
    max_time: opt.MaxTime = opt.DEFAULT_MAX_TIME,
    out: opt.Out = None,
    figure: opt.FigurePath = None,
    cache_dir: opt.CacheDir = opt.DEFAULT_CACHE,
    cache: opt.UseCache = True,
    config_file: opt.ConfigFile = None,
    json: opt.Json = False,
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
        model = opt.model_config(d, k, c0, theta0, eps_align)
        dynamics = opt.dynamics_config(
            mode,
            eta=eta,
            n_samples=n_samples,
            batch_size=batch_size,
            batches=batches,
            t_max=t_max,
            rtol=rtol,
            max_steps=max_steps,
            device=device,
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
            )
            for g in dict.fromkeys(gauge)
            for seed in (dict.fromkeys(seeds) if seeds is not None else [None])
        ]
        runs = [run for config in configs for run in config.runs()]
        for run in runs:
            session.check_duration(run.dynamics, run.model.d, run.m, 1, max_time)
        labels = [_label(r, len(dict.fromkeys(gauge)) > 1, seeds is not None and len(seeds) > 1) for r in runs]
        outputs = session.Outputs(out, figure, cache_dir, cache, json=json)
        outcomes, paths = session.execute(
            ctx, "simulate", runs, outputs, labels=labels, rerun=lambda run: _rerun(ctx, run)
        )
    session.summarize(outcomes, paths, report.simulate, json, each=False)


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
