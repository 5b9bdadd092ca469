"""``gaugecli reln``: the gated-linear (ReLN) view of gauge selection, where it holds and where it fails."""

from __future__ import annotations

from typing import Annotated

import typer

from gaugecli.cli import options as opt
from gaugecli.cli import report, session
from gaugecli.cli.errors import errors
from gaugecli.experiments import params as P

S = P.Reln
app = opt.command_app()


@app.command(cls=opt.PanelCommand)
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
    d: opt.Dimension = P.Model.d.default,
    c0: opt.InitialCoefficient = P.Model.c0.default,
    theta0: opt.InitialAngle = P.Model.theta0.default,
    eps_align: opt.EpsAlign = P.Model.eps_align.default,
    t_max: opt.Horizon = None,
    rtol: opt.Tolerance = None,
    out: opt.Out = None,
    figure: opt.FigurePath = None,
    cache_dir: opt.CacheDir = opt.DEFAULT_CACHE,
    cache: opt.UseCache = True,
    config_file: opt.ConfigFile = None,
    json: opt.Json = False,
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
            model=opt.model_config(d, 1, c0, theta0, eps_align),
            dynamics=opt.dynamics_config(P.Mode.flow, t_max=t_max, rtol=rtol),
            strengths=opt.numbers(gauge_strength),
            m=m,
            select_strength=select_strength,
            owner=owner,
            restart=tuple(restart),
            levels=tuple(levels),
            envelope_levels=tuple(envelope_levels),
            psi_step=psi_step,
        )
        outputs = session.Outputs(out, figure, cache_dir, cache, json=json)
        outcomes, paths = session.execute(ctx, "reln", [config], outputs)
    session.summarize(outcomes, paths, report.reln, json)
