"""The ``gaugecli`` command line: parse → config → experiment → artifact → summary.

Heavy libraries (numpy, scipy, torch, matplotlib) are imported inside the commands,
so ``gaugecli --help`` and ``--version`` start fast.
"""

from __future__ import annotations

import contextlib
import math
import sys
from collections.abc import Callable, Iterator
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import click
import typer
from typer.core import TyperGroup


class _OneLineErrors(TyperGroup):
    """Usage and runtime errors as a single ``Error: …`` line on stderr, no traceback.

    Exit codes: 2 for usage errors (bad options), 1 for runtime failures, 130 on Ctrl-C.
    """

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        try:
            rv = super().main(*args, standalone_mode=False, **kwargs)
        except click.UsageError as exc:
            hint = ""
            if isinstance(exc, click.BadParameter) and exc.param is not None:
                hint = f"Invalid value for {exc.param.get_error_hint(exc.ctx) if exc.ctx else exc.param.name}: "
            click.echo(f"Error: {hint}{exc.format_message()}".replace("\n", " "), err=True)
            code = 2
        except click.ClickException as exc:
            click.echo(f"Error: {exc.format_message()}".replace("\n", " "), err=True)
            code = exc.exit_code
        except click.Abort:
            click.echo("Aborted.", err=True)
            code = 130
        else:
            code = rv if isinstance(rv, int) else 0
        if not standalone_mode:
            return code
        sys.exit(code)


app = typer.Typer(
    name="gaugecli",
    cls=_OneLineErrors,
    help="Reproduce 'Hidden Gauge Controls Feature Specialization in ReLU Networks'.",
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    no_args_is_help=True,
    add_completion=False,
)


def _version_callback(value: bool) -> None:
    if value:
        from importlib import metadata

        typer.echo(f"gaugecli {metadata.version('gaugecli')}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version_callback, is_eager=True, help="Print the version.")
    ] = False,
) -> None:
    """Gauge-controlled feature specialization in a Gaussian teacher–student ReLU model."""


# ------------------------------------------------------------------------------------------
# error translation and terminal output


class _Failure(click.ClickException):
    exit_code = 1


@contextlib.contextmanager
def _errors() -> Iterator[None]:
    """Map the core's errors onto one-line CLI errors with the right exit code."""
    from gaugecli.artifacts import ArtifactError
    from gaugecli.experiments.common import ConfigError
    from gaugecli.integrate import NumericalFault

    try:
        yield
    except ConfigError as exc:
        flag = "--" + exc.param.replace("_", "-")
        raise click.UsageError(f"Invalid value for '{flag}': {str(exc).split(': ', 1)[1]}") from None
    except (NumericalFault, ArtifactError) as exc:
        raise _Failure(str(exc)) from None


@contextlib.contextmanager
def _progress(label: str) -> Iterator[Callable[[float], None] | None]:
    """A rich progress bar on an interactive stderr; nothing otherwise."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description}"), BarColumn(), TimeElapsedColumn(), console=Console(stderr=True), transient=True
    ) as bar:
        task = bar.add_task(label, total=1.0)
        last = [0.0]

        def update(fraction: float) -> None:
            if fraction - last[0] >= 1e-3 or fraction >= 1.0:
                last[0] = fraction
                bar.update(task, completed=fraction)

        yield update


def _console() -> Any:
    from rich.console import Console

    return Console(soft_wrap=True)


def _fmt(x: float | None, spec: str = ".4g") -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def _parse_floats(text: str | None, param: str) -> tuple[float, ...] | None:
    if text is None:
        return None
    from gaugecli.experiments.common import ConfigError

    parts = [p.strip() for p in text.split(",")]
    if not text.strip() or any(not p for p in parts):
        raise ConfigError(param, f"must be a comma-separated list of numbers such as 2,-1,0.5 (got {text!r})")
    try:
        values = tuple(float(p) for p in parts)
    except ValueError:
        raise ConfigError(param, f"must be a comma-separated list of numbers such as 2,-1,0.5 (got {text!r})") from None
    if not all(math.isfinite(v) for v in values):
        raise ConfigError(param, f"every entry must be a finite number (got {text!r})")
    return values


def _parse_ints(text: str, param: str, low: int = 0) -> tuple[int, ...]:
    from gaugecli.experiments.common import ConfigError

    try:
        values = tuple(int(p.strip()) for p in text.split(","))
    except ValueError:
        raise ConfigError(param, f"must be a comma-separated list of integers ≥ {low} (got {text!r})") from None
    if not values or any(v < low for v in values):
        raise ConfigError(param, f"must be a comma-separated list of integers ≥ {low} (got {text!r})")
    return values


# ------------------------------------------------------------------------------------------
# options shared by the subcommands (SPEC §5)


class ModeChoice(str, Enum):
    flow = "flow"
    gd = "gd"
    sample = "sample"


StrengthOpt = Annotated[
    list[float] | None,
    typer.Option("-D", "--gauge-strength", help="Gauge strength D > 0 (units of a*²‖v‖²); repeat to sweep."),
]
DOpt = Annotated[int, typer.Option("--d", help="Input dimension d ≥ 2.")]
KOpt = Annotated[int, typer.Option("--k", help="Number of teacher features k ≥ 1.")]
C0Opt = Annotated[float, typer.Option("--c0", help="Initial coefficient c0 > 0 of f0 = c0 relu(u0·x).")]
Theta0Opt = Annotated[float, typer.Option("--theta0", help="Initial angle θ0 ∈ [0, π) to the teacher.")]
ModeOpt = Annotated[ModeChoice, typer.Option("--mode", help="flow (population gradient flow), gd or sample.")]
EtaOpt = Annotated[float | None, typer.Option("--eta", help="GD step η > 0 (default: a tenth of the stable bound).")]
NSamplesOpt = Annotated[int, typer.Option("--n-samples", help="Sample size n ≥ 1 for --mode sample.")]
TMaxOpt = Annotated[float | None, typer.Option("--t-max", help="Horizon t > 0 (default: until convergence).")]
SeedOpt = Annotated[int, typer.Option("--seed", help="Seed ≥ 0 of the finite sample.")]
EpsOpt = Annotated[float, typer.Option("--eps-align", help="α ≥ 1 − ε counts as aligned; ε ∈ (0, 1).")]
RtolOpt = Annotated[float, typer.Option("--rtol", help="Relative tolerance of the flow solver, in (0, 1e-2).")]
OutOpt = Annotated[Path | None, typer.Option("--out", help="Artifact path (default: runs/<command>-<hash>.json).")]


def _model(d: int, k: int, c0: float, theta0: float, eps_align: float) -> Any:
    from gaugecli.experiments.common import ModelConfig

    return ModelConfig(d=d, k=k, c0=c0, theta0=theta0, eps_align=eps_align)


def _dynamics(mode: ModeChoice, eta: float | None, n_samples: int, t_max: float | None, rtol: float) -> Any:
    from gaugecli.experiments.common import DynamicsConfig

    return DynamicsConfig(mode=mode.value, eta=eta, n_samples=n_samples, t_max=t_max, rtol=rtol)


def _default_path(command: str, config: Any, label: str = "") -> Path:
    from gaugecli.artifacts import config_hash

    return Path("runs") / f"{command}{'-' + label if label else ''}-{config_hash(config)[:10]}.json"


# ------------------------------------------------------------------------------------------
# simulate


@app.command()
def simulate(
    gauge: Annotated[
        str, typer.Option("--gauge", help="favorable | unfavorable | balanced, or a signed number (explicit δ).")
    ] = "favorable",
    gauge_strength: StrengthOpt = None,
    m: Annotated[int, typer.Option("--m", help="Number of student neurons m ≥ 1 (all in the same gauge).")] = 1,
    deltas: Annotated[
        str | None, typer.Option("--deltas", help="Per-neuron δ, e.g. 2,-1,0.5 (fixes m; overrides --gauge).")
    ] = None,
    d: DOpt = 16,
    k: KOpt = 1,
    c0: C0Opt = 0.1,
    theta0: Theta0Opt = math.pi / 2,
    mode: ModeOpt = ModeChoice.flow,
    eta: EtaOpt = None,
    n_samples: NSamplesOpt = 10_000,
    t_max: TMaxOpt = None,
    seed: SeedOpt = 0,
    eps_align: EpsOpt = 0.01,
    rtol: RtolOpt = 1e-10,
    out: OutOpt = None,
) -> None:
    """One configuration: loss, alignment, coefficients, δ, reaction/transport over time.

    Several -D values run together as one batched ensemble and write one artifact each.
    """
    with _errors():
        from gaugecli.artifacts import build_artifact, check_writable, now, write_artifact
        from gaugecli.experiments.simulate import SimulateConfig
        from gaugecli.experiments.simulate import simulate as run

        config = SimulateConfig(
            model=_model(d, k, c0, theta0, eps_align),
            dynamics=_dynamics(mode, eta, n_samples, t_max, rtol),
            gauge=gauge,
            strengths=tuple(gauge_strength or (4.0,)),
            m=m,
            deltas=_parse_floats(deltas, "deltas"),
            seed=seed,
        )
        runs = config.runs()
        paths = [_run_path(out, r, len(runs)) for r in runs]
        for p in paths:
            check_writable(p)
        started = now()
        with _progress("simulate") as progress:
            results = run(config, progress)
        for path, run_config, obs in zip(paths, runs, results, strict=True):
            write_artifact(path, build_artifact("simulate", run_config, obs, seed=seed, started=started))
    _summary_table(runs, results, paths)


def _run_path(out: Path | None, config: Any, n_runs: int) -> Path:
    label = f"{config.gauge}-D{config.strengths[0]:g}" if config.deltas is None else "deltas"
    if out is None:
        return _default_path("simulate", config, label)
    if n_runs == 1:
        return out
    return out.with_name(f"{out.stem}-D{config.strengths[0]:g}{out.suffix or '.json'}")


def _summary_table(configs: list[Any], results: list[Any], paths: list[Path]) -> None:
    from rich.table import Table

    from gaugecli.observables import resolved_residual

    table = Table(title="gaugecli simulate", show_lines=False)
    for col in ("δ", "T_spec", "final loss", "owner", "δ drift", "R+T resid."):
        table.add_column(col, justify="right")
    for config, obs, path in zip(configs, results, paths, strict=True):
        deltas = obs.imbalance[0]
        label = ",".join(f"{x:+.4g}" for x in deltas) if len(deltas) <= 4 else f"{deltas[0]:+.4g},… (m={len(deltas)})"
        table.add_row(
            label,
            _fmt(obs.t_spec),
            _fmt(obs.final_loss, ".3e"),
            str(obs.owner),
            _fmt(obs.imbalance_drift, ".1e"),
            _fmt(resolved_residual(obs), ".1e"),
        )
    console = _console()
    console.print(table)
    for path in paths:
        console.print(f"wrote {path}")


def main() -> None:
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
