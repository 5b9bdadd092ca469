"""``gaugecli reln``: the gated-linear (ReLN) view of gauge selection, where it holds and where it fails."""

from __future__ import annotations

from typing import Annotated

import typer

from gaugecli.cli import options as opt
from gaugecli.cli import report, session
from gaugecli.cli.config_file import write_beside
from gaugecli.cli.errors import errors
from gaugecli.experiments.reln import RelnConfig

DEFAULT = RelnConfig()
app = opt.command_app()


def _list(flag: str, values: tuple[float, ...], help: str) -> typer.models.OptionInfo:
    return typer.Option(flag, parser=opt.floats, metavar="LIST", help=help, show_default=opt.shown(values))


@app.command()
def reln(
    ctx: typer.Context,
    gauge_strength: opt.Strengths = list(DEFAULT.strengths),
    m: Annotated[int, typer.Option("--m", help="Neurons m ≥ 2 of the select comparison.")] = DEFAULT.m,
    owner: Annotated[
        int, typer.Option("--owner", help="Designated owner o ∈ [0, m−1] of the select comparison: +D, others −D.")
    ] = DEFAULT.owner,
    select_strength: Annotated[
        float, typer.Option("--select-strength", help="Gauge strength D > 0 of the select comparison.")
    ] = DEFAULT.select_strength,
    restart: Annotated[
        opt.FloatList,
        _list("--restart", DEFAULT.restart, "Restart times t0 in units of the ReLU run's T_spec, in (0, 100]."),
    ] = opt.FloatList(DEFAULT.restart),
    levels: Annotated[
        opt.FloatList,
        _list("--levels", DEFAULT.levels, "Loss-reduction factors > 1 a restarted ReLN must reach: L(t0)/factor."),
    ] = opt.FloatList(DEFAULT.levels),
    envelope_levels: Annotated[
        opt.FloatList,
        _list("--envelope-levels", DEFAULT.envelope_levels, "Loss levels ℓ > 0 of the fixed-gate envelope."),
    ] = opt.FloatList(DEFAULT.envelope_levels),
    psi_step: Annotated[
        float,
        typer.Option("--psi-step", help="Step of the envelope's gate angles ψ ∈ [0°, 90°], degrees in [0.1, 45]."),
    ] = DEFAULT.psi_step,
    d: opt.Dimension = opt.MODEL.d,
    c0: opt.InitialCoefficient = opt.MODEL.c0,
    theta0: opt.InitialAngle = opt.MODEL.theta0,
    eps_align: opt.EpsAlign = opt.MODEL.eps_align,
    mode: opt.DynamicsMode = opt.DYNAMICS.mode,
    t_max: opt.Horizon = opt.DYNAMICS.t_max,
    rtol: opt.Tolerance = None,
    out: opt.Out = None,
    figure: opt.FigurePath = None,
    cache_dir: opt.CacheDir = opt.DEFAULT_CACHE,
    cache: opt.UseCache = True,
    config_file: opt.ConfigFile = None,
) -> None:
    """The gated-linear (ReLN) view of gauge selection: where it predicts the gauge effect, where it fails.

    For each -D and both gauges ±D (m = 1) the ReLU flow against the ReLN gated by the teacher's
    half-space (final gate), by the start's (initial gate) and the aligned race; the select run
    (m neurons) against the ReLN with its final activation pattern; ReLNs restarted from the ReLU
    state at t0 with frozen gates; and the fastest fixed gate at each loss level. Population flow only.
    """
    with errors():
        config = RelnConfig(
            model=opt.model_config(d, 1, c0, theta0, eps_align),
            dynamics=opt.dynamics_config(mode, t_max=t_max, rtol=rtol),
            strengths=tuple(gauge_strength),
            m=m,
            select_strength=select_strength,
            owner=owner,
            restart=tuple(restart),
            levels=tuple(levels),
            envelope_levels=tuple(envelope_levels),
            psi_step=psi_step,
        )
        session.check_out(out)
        session.check_figure(figure)
        with session.pipeline(cache_dir, cache) as pipe:
            (outcome,) = session.run(pipe, "reln", [config], "reln")
        path = session.export(outcome, out)
        write_beside(out, ctx)
        session.draw(outcome, figure)
    report.reln(outcome, path)
