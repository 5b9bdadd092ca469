"""``gaugecli perturb``: robustness of selection (claim C8)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from gaugecli.cli import options as opt
from gaugecli.cli import report, session
from gaugecli.cli.errors import bad_parameter, errors
from gaugecli.experiments import params as P

S = P.Perturb
SWEEP_FLAGS = {
    "visible": ("eps", "gauge_strength", "kind", "seeds", "refine"),
    "step": ("step_strength", "step_fractions", "stability_fractions"),
    "samples": ("sample_strength", "ns", "sample_seeds", "window", "sample_gd"),
    "selection": ("success_ns", "success_seeds", "success_horizon"),
}
"""The options that only one sweep reads: given while that sweep is not run, they are refused."""
app = opt.command_app()


@app.command(cls=opt.PanelCommand)
@session.with_outputs(sweeps=True)
@session.with_model(features=False)
@session.with_dynamics("rtol")
def perturb(
    ctx: typer.Context,
    eps: Annotated[opt.FloatList, opt.option(S.eps)] = S.eps.default,
    gauge_strength: Annotated[list[str], opt.option(S.strengths, repeat=True)] = list(S.strengths.default),
    kind: Annotated[str, opt.option(S.kind)] = S.kind.default,
    seeds: Annotated[opt.IntList, opt.option(S.seeds)] = S.seeds.default,
    m: Annotated[int, opt.option(S.m)] = S.m.default,
    step_strength: Annotated[float, opt.option(S.step_strength)] = S.step_strength.default,
    step_fractions: Annotated[opt.FloatList, opt.option(S.step_fractions)] = S.step_fractions.default,
    stability_fractions: Annotated[opt.FloatList, opt.option(S.stability_fractions)] = S.stability_fractions.default,
    sample_strength: Annotated[float, opt.option(S.sample_strength)] = S.sample_strength.default,
    ns: Annotated[opt.IntList, opt.option(S.ns)] = S.ns.default,
    sample_seeds: Annotated[opt.IntList, opt.option(S.sample_seeds)] = S.sample_seeds.default,
    window: Annotated[float, opt.option(S.window)] = S.window.default,
    sample_gd: Annotated[bool, opt.option(S.sample_gd)] = S.sample_gd.default,
    success_ns: Annotated[opt.IntList, opt.option(S.success_ns)] = S.success_ns.default,
    success_seeds: Annotated[opt.IntList, opt.option(S.success_seeds)] = S.success_seeds.default,
    success_horizon: Annotated[float, opt.option(S.success_horizon)] = S.success_horizon.default,
    refine: Annotated[int, opt.option(S.refine)] = S.refine.default,
    sweeps: Annotated[opt.WordList, opt.option(S.sweeps)] = S.sweeps.default,
    model: Any = None,
    dynamics: Any = None,
    outputs: session.Outputs = session.Outputs(),
) -> None:
    """Robustness (claim C8), one cause per sweep: visible perturbations (ε × D), the GD step η,
    the sample size n (finite-sample flow against the population flow), selection against n."""
    with errors():
        from gaugecli.experiments.perturb import PerturbConfig

        if kind == "adversarial" and (clash := opt.given(ctx, "seeds")):
            raise bad_parameter(clash[0], "has no effect with --kind adversarial (deterministic); use --kind random")
        for sweep, flags in SWEEP_FLAGS.items():
            if sweep not in sweeps and (clash := opt.given(ctx, *flags)):
                raise bad_parameter(clash[0], f"has no effect: the {sweep} sweep is not in --sweeps")
        config = PerturbConfig(
            model=model,
            m=m,
            eps=tuple(eps),
            strengths=opt.numbers(gauge_strength),
            adversarial=kind == "adversarial",
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
            refine=refine,
            sweeps=tuple(sweeps),
            dynamics=dynamics,
        )
        outcomes, paths = session.execute(ctx, "perturb", [config], outputs)
    session.summarize(outcomes, paths, report.perturb, outputs.json)
