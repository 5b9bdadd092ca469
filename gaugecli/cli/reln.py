"""``gaugecli reln``: the gated-linear (ReLN) view of gauge selection, where it holds and where it fails."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from gaugecli.cli import options as opt
from gaugecli.cli import report, session
from gaugecli.cli.errors import errors
from gaugecli.experiments import params as P

S = P.Reln
app = opt.command_app()


@app.command(cls=opt.PanelCommand)
@session.with_outputs(sweeps=False)
@session.with_model(features=False, network=False)
@session.with_dynamics("t_max", "rtol")
def reln(
    ctx: typer.Context,
    gauge_strength: Annotated[list[str], opt.option(S.strengths, repeat=True)] = list(S.strengths.default),
    m: Annotated[int, opt.option(S.m)] = S.m.default,
    owner: Annotated[int, opt.option(S.owner)] = S.owner.default,
    select_strength: Annotated[float, opt.option(S.select_strength)] = S.select_strength.default,
    restart: Annotated[opt.FloatList, opt.option(S.restart)] = S.restart.default,
    levels: Annotated[opt.FloatList, opt.option(S.levels)] = S.levels.default,
    envelope_levels: Annotated[opt.FloatList, opt.option(S.envelope_levels)] = S.envelope_levels.default,
    psi_step: Annotated[float, opt.option(S.psi_step)] = S.psi_step.default,
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
        from gaugecli.experiments.reln import RelnConfig

        config = RelnConfig(
            model=model,
            dynamics=dynamics,
            strengths=opt.numbers(gauge_strength),
            m=m,
            select_strength=select_strength,
            owner=owner,
            restart=tuple(restart),
            levels=tuple(levels),
            envelope_levels=tuple(envelope_levels),
            psi_step=psi_step,
        )
        outcomes, paths = session.execute(ctx, "reln", [config], outputs)
    session.summarize(outcomes, paths, report.reln, outputs.json)
