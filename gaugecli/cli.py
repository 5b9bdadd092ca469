"""The ``gaugecli`` command line: parse → config → experiment → artifact → summary.

Heavy libraries (numpy, scipy, torch, matplotlib) are imported inside the commands,
so ``gaugecli --help`` and ``--version`` start fast.
"""

from __future__ import annotations

import contextlib
import math
import signal
import sys
from collections.abc import Callable, Iterator
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer
from typer import Abort
from typer.core import TyperGroup

try:  # typer ≥ 0.2x vendors its own click: its parser raises these, not the click package's
    from typer._click.exceptions import ClickException, UsageError
except ImportError:  # pragma: no cover - older typer uses the click package
    from click.exceptions import ClickException, UsageError


class _OneLineErrors(TyperGroup):
    """Usage and runtime errors as a single ``Error: …`` line on stderr, no traceback.

    Exit codes: 2 for usage errors (bad options), 1 for runtime failures, 130 on Ctrl-C.
    """

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        try:
            rv = super().main(*args, standalone_mode=False, **kwargs)
        except UsageError as exc:  # BadParameter's message already names the parameter
            typer.echo(f"Error: {exc.format_message()}".replace("\n", " "), err=True)
            code = 2
        except ClickException as exc:
            typer.echo(f"Error: {exc.format_message()}".replace("\n", " "), err=True)
            code = exc.exit_code
        except Abort:
            typer.echo("Aborted.", err=True)
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


class _Failure(ClickException):
    exit_code = 1


@contextlib.contextmanager
def _errors() -> Iterator[None]:
    """Map the core's errors onto one-line CLI errors with the right exit code."""
    from gaugecli.store.artifacts import ArtifactError
    from gaugecli.run.executors import ExecutorError
    from gaugecli.experiments.common import ConfigError
    from gaugecli.core.integrate import NumericalFault

    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        yield
    except KeyboardInterrupt:
        raise _Interrupted(
            "interrupted; no partial artifact was written, finished sweep points are kept — "
            "run the same command again to resume"
        ) from None
    except ConfigError as exc:
        flag = "--" + exc.param.replace("_", "-")
        raise UsageError(f"Invalid value for '{flag}': {str(exc).split(': ', 1)[1]}") from None
    except (NumericalFault, ArtifactError, ExecutorError) as exc:
        raise _Failure(str(exc)) from None
    finally:
        signal.signal(signal.SIGTERM, previous)


def _raise_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


class _Interrupted(ClickException):
    exit_code = 130


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


def escape(text: str) -> str:
    """Rich markup-escape: artifact paths and messages may contain ``[``."""
    from rich.markup import escape as _escape

    return _escape(text)


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
    typer.Option(
        "-D",
        "--gauge-strength",
        help="Gauge strength D > 0 (units of a*²‖v‖²); repeat for several. "
        "Default: 4 (simulate); 4, 16, 64 (prune); 1, 4, 16, 64 (perturb).",
    ),
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
WorkersOpt = Annotated[
    int, typer.Option("--workers", min=1, help="Local worker processes for the sweep's points (≥ 1).")
]
SchedulerOpt = Annotated[
    str | None, typer.Option("--scheduler", help="Run the sweep's points on a Dask cluster: tcp://HOST:PORT.")
]
PointsOpt = Annotated[
    Path, typer.Option("--points-dir", help="Where finished sweep points are kept; a rerun resumes from them.")
]
FigureOpt = Annotated[
    Path | None, typer.Option("--figure", help="Also draw this artifact's figure to PATH (.pdf, .png or .svg).")
]
ResumeOpt = Annotated[bool, typer.Option("--resume/--no-resume", help="Reuse finished points from --points-dir.")]


def _model(d: int, k: int, c0: float, theta0: float, eps_align: float) -> Any:
    from gaugecli.experiments.common import ModelConfig

    return ModelConfig(d=d, k=k, c0=c0, theta0=theta0, eps_align=eps_align)


def _dynamics(mode: ModeChoice, eta: float | None, n_samples: int, t_max: float | None, rtol: float) -> Any:
    from gaugecli.experiments.common import DynamicsConfig

    return DynamicsConfig(mode=mode.value, eta=eta, n_samples=n_samples, t_max=t_max, rtol=rtol)


def _default_path(command: str, config: Any, label: str = "") -> Path:
    from gaugecli.store.artifacts import config_hash

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
    figure: FigureOpt = None,
) -> None:
    """One configuration: loss, alignment, coefficients, δ, reaction/transport over time.

    Several -D values run together as one batched ensemble and write one artifact each.
    """
    with _errors():
        from gaugecli.store.artifacts import check_writable
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
        figures = [None if figure is None else _indexed(figure, r, len(runs)) for r in runs]
        for p in paths:
            check_writable(p)
        for f in figures:
            _check_figure(f)
        results, started = _run("simulate", lambda p: run(config, p))
        for path, run_config, obs, fig in zip(paths, runs, results, figures, strict=True):
            _write(path, "simulate", run_config, obs, seed, started, fig)
    _summary_table(results, paths)


def _run_path(out: Path | None, config: Any, n_runs: int) -> Path:
    from gaugecli.experiments.simulate import parse_gauge

    gauge = parse_gauge(config.gauge)
    if config.deltas is not None:
        label = "deltas"
    elif isinstance(gauge, float):  # an explicit δ: D plays no part
        label = f"delta{gauge:+.15g}"
    else:
        label = f"{gauge.value}-D{config.strengths[0]:.15g}"
    if out is None:
        return _default_path("simulate", config, label)
    return _indexed(out, config, n_runs)


def _indexed(path: Path, config: Any, n_runs: int) -> Path:
    """``path`` itself for one run; ``stem-D{D}.suffix`` when several -D values run."""
    if n_runs == 1:
        return path
    # 15 significant digits: nearby strengths (4 and 4.000001) never share a file
    return path.with_name(f"{path.stem}-D{config.strengths[0]:.15g}{path.suffix or '.json'}")


def _summary_table(results: list[Any], paths: list[Path]) -> None:
    from rich.table import Table

    from gaugecli.core.observables import resolved_residual

    table = Table(title="gaugecli simulate", show_lines=False)
    for col in ("δ", "T_spec", "final loss", "owner", "δ drift", "R+T resid."):
        table.add_column(col, justify="right")
    for obs in results:
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


# ------------------------------------------------------------------------------------------
# select


@app.command("select")
def select_cmd(
    gauge_strength: Annotated[float, typer.Option("-D", "--gauge-strength", help="Gauge strength D > 0.")] = 4.0,
    m: Annotated[int, typer.Option("--m", help="Number of duplicates m ≥ 1.")] = 5,
    owner: Annotated[int, typer.Option("--owner", help="Designated owner o ∈ [0, m−1]: gets +D, others −D.")] = 0,
    deltas: Annotated[
        str | None, typer.Option("--deltas", help="Per-neuron δ, e.g. 2,-1,0.5 (fixes m; owner = argmax δ).")
    ] = None,
    sweep: Annotated[
        bool, typer.Option("--sweep", help="Owner-success sweep over --ms × every designated o (fig4).")
    ] = False,
    ms: Annotated[str, typer.Option("--ms", help="Widths m for --sweep, e.g. 2,3,4,5,6,7,8.")] = "2,3,4,5,6,7,8",
    seeds: Annotated[str, typer.Option("--seeds", help="Seeds of the finite samples (mode sample), e.g. 0,1,2.")] = "0",
    d: DOpt = 16,
    k: KOpt = 1,
    c0: C0Opt = 0.1,
    theta0: Theta0Opt = math.pi / 2,
    mode: ModeOpt = ModeChoice.flow,
    eta: EtaOpt = None,
    n_samples: NSamplesOpt = 10_000,
    t_max: TMaxOpt = None,
    eps_align: EpsOpt = 0.01,
    rtol: RtolOpt = 1e-10,
    out: OutOpt = None,
    figure: FigureOpt = None,
    workers: WorkersOpt = 1,
    scheduler: SchedulerOpt = None,
    points_dir: PointsOpt = Path("runs/points"),
    resume: ResumeOpt = True,
) -> None:
    """Selection among m duplicates: the +D neuron becomes the owner (claim C6)."""
    with _errors():
        from gaugecli.experiments import select as sel

        model = _model(d, k, c0, theta0, eps_align)
        dynamics = _dynamics(mode, eta, n_samples, t_max, rtol)
        seed_list = _parse_ints(seeds, "seeds")
        if sweep and figure is not None:
            raise UsageError("Invalid value for '--figure': select --sweep draws with `gaugecli plot fig4`")
        if sweep:
            config: Any = sel.OwnerSweepConfig(
                model=model,
                dynamics=dynamics,
                ms=_parse_ints(ms, "ms", low=2),
                strength=gauge_strength,
                seeds=seed_list,
            )
            path = _prepare(out, "select-sweep", config)
            with _runner(workers, scheduler, points_dir, resume) as runner:
                result, started = _run("select --sweep", lambda p: sel.owner_sweep(config, p, runner))
            _write(path, "select-sweep", config, result, seed_list[0], started)
            _print_owner_sweep(result, path)
            return
        config = sel.SelectConfig(
            model=model,
            dynamics=dynamics,
            m=m,
            strength=gauge_strength,
            owner=owner,
            deltas=_parse_floats(deltas, "deltas"),
            seeds=seed_list,
        )
        path = _prepare(out, "select", config)
        _check_figure(figure)
        result, started = _run("select", lambda p: sel.select(config, p))
        _write(path, "select", config, result, seed_list[0], started, figure)
    _print_select(result, path)


def _print_select(result: Any, path: Path) -> None:
    from rich.table import Table

    table = Table(title=f"gaugecli select — designated owner {result.designated}")
    for col in ("seed", "owner", "ok", "T_spec", "P(end)", "loss(end)", "c_o", "α_o"):
        table.add_column(col, justify="right")
    for seed, run, ok in zip(result.seeds, result.runs, result.success, strict=True):
        o = run.owner
        table.add_row(
            str(seed),
            str(o),
            "yes" if ok else "NO",
            _fmt(run.t_spec),
            _fmt(float(run.nonowner_norm[-1]), ".2e"),
            _fmt(run.final_loss, ".2e"),
            _fmt(float(run.coefficient[-1, o]), ".5f"),
            _fmt(float(run.alignment[-1, o]), ".5f"),
        )
    console = _console()
    console.print(table)
    console.print(f"wrote {path}")


def _print_owner_sweep(result: Any, path: Path) -> None:
    from rich.table import Table

    width = max(result.ms)
    table = Table(title=f"owner success (fraction of runs whose owner is the designated o), D={result.strength:g}")
    table.add_column("m", justify="right")
    for o in range(width):
        table.add_column(f"o={o}", justify="right")
    for m, row in zip(result.ms, result.success_matrix, strict=True):
        table.add_row(str(m), *[f"{x:.2f}" for x in row], *[""] * (width - m))
    console = _console()
    console.print(table)
    total = sum(p.success for p in result.points)
    console.print(f"{total}/{len(result.points)} runs selected the designated neuron; wrote {path}")


# ------------------------------------------------------------------------------------------
# prune


@app.command()
def prune(
    gauge_strength: StrengthOpt = None,
    ms: Annotated[str, typer.Option("--ms", help="Widths m ≥ 2, e.g. 2,5.")] = "2,5",
    sample: Annotated[bool, typer.Option("--sample/--no-sample", help="Also run finite-sample GD.")] = True,
    n_samples: NSamplesOpt = 10_000,
    seeds: Annotated[str, typer.Option("--seeds", help="Seeds of the finite samples, e.g. 0,1.")] = "0",
    coalign_strength: Annotated[
        float, typer.Option("--coalign-strength", help="D of the co-alignment contrast (m=3; non-owners ±).")
    ] = 4.0,
    d: DOpt = 16,
    c0: C0Opt = 0.1,
    theta0: Theta0Opt = math.pi / 2,
    eps_align: EpsOpt = 0.01,
    rtol: RtolOpt = 1e-10,
    out: OutOpt = None,
    figure: FigureOpt = None,
    workers: WorkersOpt = 1,
    scheduler: SchedulerOpt = None,
    points_dir: PointsOpt = Path("runs/points"),
    resume: ResumeOpt = True,
) -> None:
    """Functional pruning: the non-owner norm P(t) falls below 1e-6 (claim C7), unless non-owners have δ > 0."""
    with _errors():
        from gaugecli.experiments.prune import PruneConfig
        from gaugecli.experiments.prune import prune as run

        config = PruneConfig(
            model=_model(d, 1, c0, theta0, eps_align),
            strengths=tuple(gauge_strength or (4.0, 16.0, 64.0)),
            ms=_parse_ints(ms, "ms", low=2),
            sample=sample,
            n_samples=n_samples,
            seeds=_parse_ints(seeds, "seeds"),
            coalign_strength=coalign_strength,
            rtol=rtol,
        )
        path = _prepare(out, "prune", config)
        _check_figure(figure)
        with _runner(workers, scheduler, points_dir, resume) as runner:
            result, started = _run("prune", lambda p: run(config, p, runner))
        _write(path, "prune", config, result, config.seeds[0], started, figure)
    from rich.table import Table

    table = Table(title=f"gaugecli prune — time at which P(t) ≤ {result.level:g}")
    for col in ("D", "m", "mode", "seed", "owner", "t(P ≤ 1e-6)", "P(end)"):
        table.add_column(col, justify="right")
    for p in result.points:
        table.add_row(
            f"{p.strength:g}", str(p.m), p.mode, str(p.seed), str(p.owner), _fmt(p.time_below), _fmt(p.final, ".1e")
        )
    console = _console()
    console.print(table)
    co = result.coalignment
    console.print(
        f"non-owners δ={co.deltas_pruned[1]:+g}: P(end)={co.pruned.nonowner_norm[-1]:.1e} (pruned); "
        f"δ={co.deltas_coaligned[1]:+g}: P(end)={co.coaligned.nonowner_norm[-1]:.3f}, "
        f"c={', '.join(f'{x:.3f}' for x in co.coaligned.coefficient[-1])} (co-aligned, coefficient shared)"
    )
    console.print(f"wrote {path}")


# ------------------------------------------------------------------------------------------
# perturb


class PerturbKind(str, Enum):
    adversarial = "adversarial"
    random = "random"


@app.command()
def perturb(
    eps: Annotated[str, typer.Option("--eps", help="Perturbation sizes ε ≥ 0.")] = "0,0.1,0.2,0.4,0.6,0.8,1,1.2,1.4",
    gauge_strength: StrengthOpt = None,
    kind: Annotated[PerturbKind, typer.Option("--kind", help="adversarial (deterministic) or random.")] = (
        PerturbKind.adversarial
    ),
    seeds: Annotated[str, typer.Option("--seeds", help="Seeds of random perturbations.")] = "0,1,2,3,4,5,6,7",
    m: Annotated[int, typer.Option("--m", help="Number of neurons m ≥ 2 (neuron 0 favorable).")] = 2,
    step_strength: Annotated[float, typer.Option("--step-strength", help="D of the step-size sweep.")] = 4.0,
    step_fractions: Annotated[
        str, typer.Option("--step-fractions", help="Steps η as fractions of the stable bound 2/λ_max.")
    ] = "0.01,0.02,0.04,0.08,0.16,0.32",
    sample_strength: Annotated[float, typer.Option("--sample-strength", help="D of the sample-size sweep.")] = 4.0,
    ns: Annotated[str, typer.Option("--ns", help="Sample sizes n.")] = "500,1000,2000,4000,8000,16000,32000",
    sample_seeds: Annotated[str, typer.Option("--sample-seeds", help="Seeds per sample size.")] = "0,1,2,3,4",
    d: DOpt = 16,
    c0: C0Opt = 0.1,
    theta0: Theta0Opt = math.pi / 2,
    eps_align: EpsOpt = 0.01,
    rtol: RtolOpt = 1e-10,
    out: OutOpt = None,
    figure: FigureOpt = None,
    workers: WorkersOpt = 1,
    scheduler: SchedulerOpt = None,
    points_dir: PointsOpt = Path("runs/points"),
    resume: ResumeOpt = True,
) -> None:
    """Robustness (claim C8): visible perturbations (ε × D), GD step size η, sample size n."""
    with _errors():
        from gaugecli.experiments.perturb import PerturbConfig
        from gaugecli.experiments.perturb import perturb as run

        config = PerturbConfig(
            model=_model(d, 1, c0, theta0, eps_align),
            m=m,
            eps=_parse_floats(eps, "eps") or (),
            strengths=tuple(gauge_strength or (1.0, 4.0, 16.0, 64.0)),
            adversarial=kind is PerturbKind.adversarial,
            seeds=_parse_ints(seeds, "seeds"),
            step_strength=step_strength,
            step_fractions=_parse_floats(step_fractions, "step_fractions") or (),
            sample_strength=sample_strength,
            ns=_parse_ints(ns, "ns", low=1),
            sample_seeds=_parse_ints(sample_seeds, "sample_seeds"),
            rtol=rtol,
        )
        path = _prepare(out, "perturb", config)
        _check_figure(figure)
        with _runner(workers, scheduler, points_dir, resume) as runner:
            result, started = _run("perturb", lambda p: run(config, p, runner))
        _write(path, "perturb", config, result, config.seeds[0], started, figure)
    from rich.table import Table

    v, st, sm = result.visible, result.step, result.samples
    table = Table(title=f"gaugecli perturb — {v.kind} visible perturbations")
    table.add_column("D", justify="right")
    table.add_column("ε*(D)", justify="right")
    table.add_column("P(select) at ε = " + ", ".join(f"{e:g}" for e in v.eps), justify="left")
    for D, thr, row in zip(v.strengths, v.threshold, v.probability, strict=True):
        table.add_row(
            f"{D:g}", _fmt(thr) if thr is not None else f"> {max(v.eps):g}", " ".join(f"{p:.2f}" for p in row)
        )
    console = _console()
    console.print(table)
    console.print(
        f"GD (D={st.strength:g}, stable bound η*={st.stable_bound:.4g}): |T_spec^GD − T_spec^flow| ∝ η^{_fmt(st.slope, '.3f')}"
        f" (expected 1); selection held for {sum(st.success)}/{len(st.success)} step sizes"
    )
    console.print(
        f"finite sample (D={sm.strength:g}): sup_t |L(θ_n) − L(θ_∞)| ∝ n^{_fmt(sm.slope, '.3f')} (expected −0.5); "
        f"selection held in {sum(map(sum, sm.success))}/{sum(map(len, sm.success))} runs"
    )
    console.print(f"wrote {path}")


# ------------------------------------------------------------------------------------------
# plot and validate


@app.command()
def plot(
    figure: Annotated[str, typer.Argument(help="fig1 … fig7, or all.")],
    cache_dir: Annotated[Path, typer.Option("--cache-dir", help="Where artifacts are found and cached.")] = Path(
        "runs"
    ),
    out_dir: Annotated[Path, typer.Option("--out-dir", help="Where figures are written.")] = Path("figures"),
    format: Annotated[str, typer.Option("--format", help="Comma-separated: pdf, png, svg.")] = "pdf,png",
    quick: Annotated[bool, typer.Option("--quick", help="Coarser grids and fewer seeds (for tests).")] = False,
    compare: Annotated[
        Path | None,
        typer.Option("--compare", help="Folder of committed figN.json: fail if a regenerated series drifted."),
    ] = None,
) -> None:
    """Render publication figures (computing and caching any artifact they need)."""
    from gaugecli.plots.render import FIGURES

    ids = list(FIGURES) if figure == "all" else [figure]
    if any(i not in FIGURES for i in ids):
        raise UsageError(f"Invalid value for 'FIGURE': unknown figure {figure!r}; valid: {', '.join(FIGURES)}, all")
    formats = tuple(f.strip().lower() for f in format.split(",") if f.strip())
    bad = [f for f in formats if f not in ("pdf", "png", "svg")]
    if not formats or bad:
        raise UsageError(f"Invalid value for '--format': must be a list of pdf, png, svg (got {format!r})")
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"Invalid value for '--out-dir': {out_dir} is a file, not a folder")
    if cache_dir.exists() and not cache_dir.is_dir():
        raise UsageError(f"Invalid value for '--cache-dir': {cache_dir} is a file, not a folder")
    if compare is not None and not compare.is_dir():
        raise UsageError(f"Invalid value for '--compare': {compare} is not a folder of figN.json sidecars")
    console = _console()
    drift: list[str] = []
    with _errors():
        from gaugecli.plots.render import render

        for fig_id in ids:
            with _progress(fig_id) as progress:
                paths = render(
                    fig_id,
                    cache_dir,
                    out_dir,
                    formats=formats,
                    quick=quick,
                    warn=lambda msg: console.print(f"[yellow]warning:[/] {escape(msg)}"),
                    progress=progress,
                )
            console.print(f"{fig_id}: " + ", ".join(str(p) for p in paths))
            if compare is not None:
                drift += _compare_sidecar(compare / f"{fig_id}.json", out_dir / f"{fig_id}.json")
    if compare is not None:
        for line in drift:
            console.print(f"[red]drift:[/] {escape(line)}")
        if drift:
            raise _Failure(f"{len(drift)} series drifted from the committed figures in {compare}")
        console.print(f"every regenerated series matches {compare} within its stated tolerance")


def _compare_sidecar(committed: Path, regenerated: Path) -> list[str]:
    import json

    from gaugecli.plots.render import compare_sidecars

    if not committed.exists():
        return [f"{committed.stem}: no committed sidecar {committed}"]
    return compare_sidecars(json.loads(committed.read_text()), json.loads(regenerated.read_text()))


@app.command()
def validate(files: Annotated[list[Path], typer.Argument(help="Artifact files to check.")]) -> None:
    """Check artifacts against their JSON Schema; print kind and schema version."""
    from gaugecli.store.artifacts import ArtifactError, read_artifact
    from gaugecli.store.schemas import parse_schema_name

    bad = 0
    for path in files:
        try:
            artifact = read_artifact(path)
        except ArtifactError as exc:
            typer.echo(f"INVALID {exc}")
            bad += 1
            continue
        kind, version = parse_schema_name(artifact["schema"])
        typer.echo(f"valid   {path}: {kind} artifact, schema version {version}")
    if bad:
        raise _Failure(f"{bad} of {len(files)} artifacts are invalid")


# ------------------------------------------------------------------------------------------
# shared plumbing of the commands


def _prepare(out: Path | None, kind: str, config: Any) -> Path:
    from gaugecli.store.artifacts import check_writable

    path = out if out is not None else _default_path(kind, config)
    check_writable(path)
    return path


@contextlib.contextmanager
def _runner(workers: int, scheduler: str | None, points_dir: Path, resume: bool) -> Iterator[Any]:
    """The sweep runner the options ask for: local processes or Dask, storing every point."""
    from gaugecli.run.executors import make_executor
    from gaugecli.run.sweep import make_runner

    if points_dir.exists() and not points_dir.is_dir():
        raise UsageError(f"Invalid value for '--points-dir': {points_dir} is a file, not a folder")
    console = _console()
    with make_executor(scheduler, workers) as executor:
        yield make_runner(
            executor, points_dir, warn=lambda msg: console.print(f"[yellow]warning:[/] {escape(msg)}"), reuse=resume
        )


def _run(label: str, fn: Callable[[Any], Any]) -> tuple[Any, Any]:
    """Run ``fn(progress)`` under a progress bar; return its result and the start time."""
    from gaugecli.store.artifacts import now

    started = now()
    with _progress(label) as progress:
        return fn(progress), started


def _write(
    path: Path, kind: str, config: Any, result: Any, seed: int | None, started: Any, figure: Path | None = None
) -> None:
    """Write the artifact atomically and, if asked, draw its figure from what was written."""
    from gaugecli.store.artifacts import build_artifact, write_artifact

    artifact = build_artifact(kind, config, result, seed=seed, started=started)
    write_artifact(path, artifact)
    if figure is not None:
        from gaugecli.plots.overview import render_artifact

        render_artifact(kind, artifact, figure)  # already plain JSON values (to_jsonable)
        _console().print(f"drew {figure}")


def _check_figure(figure: Path | None) -> None:
    from gaugecli.store.artifacts import check_writable

    if figure is None:
        return
    if figure.suffix.lower() not in (".pdf", ".png", ".svg"):
        raise UsageError(f"Invalid value for '--figure': {figure} must end in .pdf, .png or .svg")
    check_writable(figure)


_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def main() -> None:
    """Console entry point. BLAS/OpenMP default to one thread unless the user set them:
    our matrices are small (a dense LU of ≤ 400 unknowns, sample GD of a few neurons),
    and on 2 shared cores threaded BLAS was measured 4-10× slower (README, Benchmarks)."""
    import os

    for var in _THREAD_VARIABLES:
        os.environ.setdefault(var, "1")
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
