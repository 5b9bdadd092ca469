"""``gaugecli perturb``: robustness of selection (claim C8)."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

import typer

from gaugecli.cli import options as opt
from gaugecli.cli import report, session
from gaugecli.cli.config_file import write_beside
from gaugecli.cli.errors import bad_parameter, errors
from gaugecli.experiments.perturb import PerturbConfig

DEFAULT = PerturbConfig()
app = opt.command_app()


class PerturbKind(str, Enum):
    adversarial = "adversarial"
    random = "random"


def _list(
    flag: str, values: tuple[float, ...] | tuple[int, ...], help: str, ints: bool = False
) -> typer.models.OptionInfo:
    return typer.Option(
        flag, parser=opt.integers if ints else opt.floats, help=help, show_default=opt.shown(values), metavar="LIST"
    )


@app.command()
def perturb(
    ctx: typer.Context,
    eps: Annotated[
        opt.FloatList,
        _list("--eps", DEFAULT.eps, "Perturbation sizes ε: angles in [0, π − θ0) (adversarial) or ≥ 0 (random)."),
    ] = opt.FloatList(DEFAULT.eps),
    gauge_strength: opt.Strengths = list(DEFAULT.strengths),
    kind: Annotated[PerturbKind, typer.Option("--kind", help="adversarial (deterministic) or random.")] = (
        PerturbKind.adversarial if DEFAULT.adversarial else PerturbKind.random
    ),
    seeds: Annotated[
        opt.IntList, _list("--seeds", DEFAULT.seeds, "Seeds ≥ 0 of random perturbations (--kind random).", True)
    ] = opt.IntList(DEFAULT.seeds),
    m: Annotated[int, typer.Option("--m", help="Number of neurons m ≥ 2 (neuron 0 favorable).")] = DEFAULT.m,
    step_strength: Annotated[float, typer.Option("--step-strength", help="D of the step-size sweep.")] = (
        DEFAULT.step_strength
    ),
    step_fractions: Annotated[
        opt.FloatList,
        _list("--step-fractions", DEFAULT.step_fractions, "GD steps η as fractions of T_spec^flow, in (0, 0.1] (≥ 3)."),
    ] = opt.FloatList(DEFAULT.step_fractions),
    stability_fractions: Annotated[
        opt.FloatList,
        _list(
            "--stability-fractions",
            DEFAULT.stability_fractions,
            "GD steps as fractions of the stability bound 2/λ_max: does selection survive large steps (> 1 diverges)?",
        ),
    ] = opt.FloatList(DEFAULT.stability_fractions),
    sample_strength: Annotated[float, typer.Option("--sample-strength", help="D of the sample-size sweep.")] = (
        DEFAULT.sample_strength
    ),
    ns: Annotated[
        opt.IntList, _list("--ns", DEFAULT.ns, "Sample sizes n ≥ 1 (at least two) of the finite-sample flows.", True)
    ] = opt.IntList(DEFAULT.ns),
    sample_seeds: Annotated[
        opt.IntList, _list("--sample-seeds", DEFAULT.sample_seeds, "Seeds per sample size (≥ 2).", True)
    ] = opt.IntList(DEFAULT.sample_seeds),
    window: Annotated[
        float, typer.Option("--window", help="Horizon of the sample sweep, in units of T_spec^flow.")
    ] = DEFAULT.window,
    sample_gd: Annotated[
        bool,
        typer.Option("--sample-gd/--no-sample-gd", help="Also check the sample sweep with GD on L_n at η and η/2."),
    ] = DEFAULT.sample_gd,
    success_ns: Annotated[
        opt.IntList, _list("--success-ns", DEFAULT.success_ns, "Sample sizes of the selection-vs-n sweep.", True)
    ] = opt.IntList(DEFAULT.success_ns),
    success_seeds: Annotated[
        opt.IntList, _list("--success-seeds", DEFAULT.success_seeds, "Seeds per size of the selection sweep.", True)
    ] = opt.IntList(DEFAULT.success_seeds),
    success_horizon: Annotated[
        float,
        typer.Option(
            "--success-horizon", help="Horizon of the selection sweep, in units of T_spec^flow, in (0, 1000]."
        ),
    ] = DEFAULT.success_horizon,
    d: opt.Dimension = opt.MODEL.d,
    c0: opt.InitialCoefficient = opt.MODEL.c0,
    theta0: opt.InitialAngle = opt.MODEL.theta0,
    eps_align: opt.EpsAlign = opt.MODEL.eps_align,
    rtol: opt.FlowTolerance = DEFAULT.rtol,
    out: opt.Out = None,
    figure: opt.FigurePath = None,
    cache_dir: opt.CacheDir = opt.DEFAULT_CACHE,
    cache: opt.UseCache = True,
    config_file: opt.ConfigFile = None,
    workers: opt.Workers = 1,
    scheduler: opt.Scheduler = None,
) -> None:
    """Robustness (claim C8), one cause per sweep: visible perturbations (ε × D), the GD step η,
    the sample size n (finite-sample flow against the population flow), selection against n."""
    with errors():
        if kind is PerturbKind.adversarial and (clash := opt.given(ctx, "seeds")):
            raise bad_parameter(clash[0], "has no effect with --kind adversarial (deterministic); use --kind random")
        config = PerturbConfig(
            model=opt.model_config(d, 1, c0, theta0, eps_align),
            m=m,
            eps=tuple(eps),
            strengths=tuple(gauge_strength),
            adversarial=kind is PerturbKind.adversarial,
            seeds=tuple(seeds),
            step_strength=step_strength,
            step_fractions=tuple(step_fractions),
            stability_fractions=tuple(stability_fractions),
            sample_strength=sample_strength,
            ns=tuple(ns),
            sample_seeds=tuple(sample_seeds),
            window=window,
            sample_gd=sample_gd,
            success_ns=tuple(success_ns),
            success_seeds=tuple(success_seeds),
            success_horizon=success_horizon,
            rtol=rtol,
        )
        session.check_out(out)
        session.check_figure(figure)
        with session.pipeline(cache_dir, cache, workers, scheduler) as pipe:
            (outcome,) = session.run(pipe, "perturb", [config], "perturb")
        path = session.export(outcome, out)
        write_beside(out, ctx)
        session.draw(outcome, figure)
    report.perturb(outcome, path)
