"""``gaugecli lockin``: feature repulsion and spectral lock-in diagnostics (Xu; Tian), select vs aligned control."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer

from gaugecli.cli import options as opt
from gaugecli.cli import report, session
from gaugecli.cli.config_file import write_beside
from gaugecli.cli.errors import errors
from gaugecli.experiments.lockin import ASSIGNMENTS, LockinConfig

DEFAULT = LockinConfig()
app = opt.command_app()


class Assignments(tuple[str, ...]):
    """A comma-separated list of gauge assignments."""


def _assignments(text: str | tuple[str, ...]) -> Assignments:
    """Split on commas; the config checks the names (and says which are allowed)."""
    return Assignments(text if isinstance(text, tuple) else (p.strip() for p in text.split(",")))


def _floats_or_none(text: str | tuple[float, ...]) -> opt.FloatList:
    """A scan's values, or ``none`` to skip the scan."""
    return opt.FloatList(()) if isinstance(text, str) and text.strip().lower() == "none" else opt.floats(text)


def _integers_or_none(text: str | tuple[int, ...]) -> opt.IntList:
    return opt.IntList(()) if isinstance(text, str) and text.strip().lower() == "none" else opt.integers(text)


def _scan(
    flag: str, parser: Callable[[str], Any], help: str, default: tuple[float, ...] | tuple[int, ...]
) -> typer.models.OptionInfo:
    return typer.Option(flag, parser=parser, metavar="LIST|none", help=help, show_default=opt.shown(default))


@app.command()
def lockin(
    ctx: typer.Context,
    gauge_strength: Annotated[
        list[float],
        typer.Option(
            "-D",
            "--gauge-strength",
            metavar="D",
            help="Gauge strength D > 0 of the flow runs; repeat for several (the first also sets the "
            "finite-sample runs and the scans).",
            show_default=opt.shown(DEFAULT.strengths),
        ),
    ] = list(DEFAULT.strengths),
    m: Annotated[int, typer.Option("--m", help="Number of duplicates m ≥ 2.")] = DEFAULT.m,
    owner: Annotated[
        int, typer.Option("--owner", help="The neuron o ∈ [0, m−1] that select gives +D (reversed: −D).")
    ] = DEFAULT.owner,
    assign: Annotated[
        Assignments,
        typer.Option(
            "--assign",
            parser=_assignments,
            metavar="LIST",
            help=f"Gauge assignments of the flow runs, among {', '.join(ASSIGNMENTS)} (select required).",
            show_default=",".join(DEFAULT.assignments),
        ),
    ] = Assignments(DEFAULT.assignments),
    control: Annotated[
        bool, typer.Option("--control/--no-control", help="Also run the aligned control (select started at θ0 = 0).")
    ] = DEFAULT.control,
    per: Annotated[int, typer.Option("--per", help="Epochs per T_spec (the epoch is T_spec/per), ≥ 2.")] = DEFAULT.per,
    span: Annotated[float, typer.Option("--span", help="Horizon in units of T_spec, ≥ 1.")] = DEFAULT.span,
    window: Annotated[
        int, typer.Option("--window", help="Xu's detector: updates per windowed Gram matrix, ≥ 3.")
    ] = DEFAULT.window,
    lag: Annotated[int, typer.Option("--lag", help="Xu's detector: epochs of the log-gap slope, ≥ 1.")] = DEFAULT.lag,
    threshold: Annotated[
        float, typer.Option("--threshold", help="Xu's detector fires where the log-gap slope exceeds this.")
    ] = DEFAULT.threshold,
    burn_in: Annotated[
        int, typer.Option("--burn-in", help="Xu's detector: first epoch (≥ 0) at which it may fire.")
    ] = DEFAULT.burn_in,
    floor: Annotated[
        float,
        typer.Option("--floor", help="Round-off floor of the floored detector: λ3 ← max(λ3, floor·λ1), in (0, 1)."),
    ] = DEFAULT.floor,
    ridge: Annotated[
        float, typer.Option("--ridge", help="Tian's ridge η relative to the features' mean variance, > 0.")
    ] = DEFAULT.ridge,
    seeds: Annotated[
        opt.IntList,
        typer.Option(
            "--seeds",
            parser=opt.integers,
            metavar="S1,S2,…",
            help="Seeds ≥ 0 of the finite-sample runs and the perturbation scan, e.g. 0,1,2.",
        ),
    ] = opt.IntList(DEFAULT.seeds),
    n_samples: Annotated[
        int, typer.Option("--n-samples", help="Sample size n ≥ 2 of the finite-sample runs.")
    ] = DEFAULT.n_samples,
    steps_per_unit: Annotated[
        int, typer.Option("--steps-per-unit", help="ReLU finite sample: at least this many GD steps per T_spec, ≥ 1.")
    ] = DEFAULT.steps_per_unit,
    x2: Annotated[
        bool, typer.Option("--x2/--no-x2", help="Add the σ = x² finite-sample runs (Xu's contrast; ≈ 20 s more).")
    ] = DEFAULT.quadratic,
    x2_step_fraction: Annotated[
        float, typer.Option("--x2-step-fraction", help="σ = x² GD step as a fraction in (0, 1) of the stable step.")
    ] = DEFAULT.quadratic_step_fraction,
    scan_strengths: Annotated[
        opt.FloatList,
        _scan(
            "--scan-strengths", _floats_or_none, "D of the rank-2 collapse scan (none: skip).", DEFAULT.scan_strengths
        ),
    ] = opt.FloatList(DEFAULT.scan_strengths),
    scan_pers: Annotated[
        opt.IntList,
        _scan(
            "--scan-pers",
            _integers_or_none,
            "Epochs per T_spec of the resolution scan (none: skip).",
            DEFAULT.scan_pers,
        ),
    ] = opt.IntList(DEFAULT.scan_pers),
    scan_eps: Annotated[
        opt.FloatList,
        _scan(
            "--scan-eps",
            _floats_or_none,
            "Sizes ε in (0, 1] of the perturbations of the duplicates, one draw per seed (none: skip).",
            DEFAULT.scan_eps,
        ),
    ] = opt.FloatList(DEFAULT.scan_eps),
    store_every: Annotated[
        int, typer.Option("--store-every", help="Keep every k-th epoch (k ≥ 1) in the stored series.")
    ] = DEFAULT.store_every,
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
) -> None:
    """Repulsion and spectral lock-in diagnostics (Xu, Tian): which signatures gauge selection leaves.

    Select (one +D owner among −D duplicates) against the aligned control (θ0 = 0), in the population
    flow and in finite-sample GD: the rank-2 share σ2/σ1 of dW/dt, Xu's windowed-Gram detector (raw and
    with a round-off floor), Tian's B and its sign rate, the duplicates' separation exponent Λ.
    """
    with errors():
        config = LockinConfig(
            model=opt.model_config(d, 1, c0, theta0, eps_align),
            m=m,
            owner=owner,
            strengths=tuple(gauge_strength),
            assignments=tuple(assign),
            control=control,
            per=per,
            span=span,
            window=window,
            lag=lag,
            threshold=threshold,
            burn_in=burn_in,
            floor=floor,
            ridge=ridge,
            rtol=rtol,
            seeds=tuple(seeds),
            n_samples=n_samples,
            steps_per_unit=steps_per_unit,
            quadratic=x2,
            quadratic_step_fraction=x2_step_fraction,
            scan_strengths=tuple(scan_strengths),
            scan_pers=tuple(scan_pers),
            scan_eps=tuple(scan_eps),
            store_every=store_every,
        )
        session.check_out(out)
        session.check_figure(figure)
        with session.pipeline(cache_dir, cache) as pipe:
            (outcome,) = session.run(pipe, "lockin", [config], "lockin")
        path = session.export(outcome, out)
        write_beside(out, ctx)
        session.draw(outcome, figure)
    report.lockin(outcome, path)
