"""``gaugecli perturb``: robustness of selection (claim C8)."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

import typer

from gaugecli.cli import options as opt
from gaugecli.cli import report, session
from gaugecli.cli.errors import errors
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
    eps: Annotated[opt.FloatList, _list("--eps", DEFAULT.eps, "Perturbation sizes ε ≥ 0.")] = opt.FloatList(
        DEFAULT.eps
    ),
    gauge_strength: opt.Strengths = list(DEFAULT.strengths),
    kind: Annotated[PerturbKind, typer.Option("--kind", help="adversarial (deterministic) or random.")] = (
        PerturbKind.adversarial if DEFAULT.adversarial else PerturbKind.random
    ),
    seeds: Annotated[
        opt.IntList, _list("--seeds", DEFAULT.seeds, "Seeds of random perturbations.", True)
    ] = opt.IntList(DEFAULT.seeds),
    m: Annotated[int, typer.Option("--m", help="Number of neurons m ≥ 2 (neuron 0 favorable).")] = DEFAULT.m,
    step_strength: Annotated[float, typer.Option("--step-strength", help="D of the step-size sweep.")] = (
        DEFAULT.step_strength
    ),
    step_fractions: Annotated[
        opt.FloatList,
        _list("--step-fractions", DEFAULT.step_fractions, "Steps η as fractions of the stable bound 2/λ_max."),
    ] = opt.FloatList(DEFAULT.step_fractions),
    sample_strength: Annotated[float, typer.Option("--sample-strength", help="D of the sample-size sweep.")] = (
        DEFAULT.sample_strength
    ),
    ns: Annotated[opt.IntList, _list("--ns", DEFAULT.ns, "Sample sizes n.", True)] = opt.IntList(DEFAULT.ns),
    sample_seeds: Annotated[
        opt.IntList, _list("--sample-seeds", DEFAULT.sample_seeds, "Seeds per sample size.", True)
    ] = opt.IntList(DEFAULT.sample_seeds),
    d: opt.Dimension = opt.MODEL.d,
    c0: opt.InitialCoefficient = opt.MODEL.c0,
    theta0: opt.InitialAngle = opt.MODEL.theta0,
    eps_align: opt.EpsAlign = opt.MODEL.eps_align,
    rtol: opt.Tolerance = DEFAULT.rtol,
    out: opt.Out = None,
    figure: opt.FigurePath = None,
    cache_dir: opt.CacheDir = opt.DEFAULT_CACHE,
    cache: opt.UseCache = True,
    workers: opt.Workers = 1,
    scheduler: opt.Scheduler = None,
) -> None:
    """Robustness (claim C8): visible perturbations (ε × D), GD step size η, sample size n."""
    with errors():
        config = PerturbConfig(
            model=opt.model_config(d, 1, c0, theta0, eps_align),
            m=m,
            eps=tuple(eps),
            strengths=tuple(gauge_strength),
            adversarial=kind is PerturbKind.adversarial,
            seeds=tuple(seeds),
            step_strength=step_strength,
            step_fractions=tuple(step_fractions),
            sample_strength=sample_strength,
            ns=tuple(ns),
            sample_seeds=tuple(sample_seeds),
            rtol=rtol,
        )
        session.check_out(out)
        session.check_figure(figure)
        with session.pipeline(cache_dir, cache, workers, scheduler) as pipe:
            (outcome,) = session.run(pipe, "perturb", [config], "perturb")
        path = session.export(outcome, out)
        session.draw(outcome, figure)
    report.perturb(outcome, path)
