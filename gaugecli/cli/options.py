"""Options shared by the subcommands (SPEC §5), as ``Annotated`` aliases.

Defaults are never written here: each command's signature takes them from its config
dataclass (``d: Dimension = MODEL.d``), so the help text, the command and the experiment
run with one and the same default. Comma-separated lists (``--deltas 2,-1,0.5``) are parsed by
:func:`floats` and :func:`integers`, the one ``parser=`` of every list option.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated

import typer

from gaugecli.core.budget import DEFAULT_MAX_STEPS
from gaugecli.experiments.common import DynamicsConfig, Mode, ModelConfig

MODEL = ModelConfig()
DYNAMICS = DynamicsConfig()


class FloatList(tuple[float, ...]):
    """A comma-separated list of finite numbers."""


class IntList(tuple[int, ...]):
    """A comma-separated list of integers ≥ 0."""


def floats(text: str | tuple[float, ...]) -> FloatList:
    if isinstance(text, tuple):  # a default from a config dataclass
        return FloatList(text)
    parts = [p.strip() for p in text.split(",")]
    message = f"must be a comma-separated list of numbers such as 2,-1,0.5 (got {text!r})"
    if not text.strip() or any(not p for p in parts):
        raise typer.BadParameter(message)
    try:
        values = tuple(float(p) for p in parts)
    except ValueError:
        raise typer.BadParameter(message) from None
    if not all(math.isfinite(v) for v in values):
        raise typer.BadParameter(f"every entry must be a finite number (got {text!r})")
    return FloatList(values)


def integers(text: str | tuple[int, ...]) -> IntList:
    if isinstance(text, tuple):
        return IntList(text)
    message = f"must be a comma-separated list of integers ≥ 0 (got {text!r})"
    try:
        values = tuple(int(p.strip()) for p in text.split(","))
    except ValueError:
        raise typer.BadParameter(message) from None
    if not values or any(v < 0 for v in values):
        raise typer.BadParameter(message)
    return IntList(values)


def given(ctx: typer.Context, *names: str) -> list[str]:
    """The flags (``--m``) of the parameters ``names`` that the user gave (on the command line or in
    a ``--config`` file), as opposed to left at their defaults — for options that another option
    makes meaningless."""
    from typer._click.core import ParameterSource  # typer ≥ 0.29 vendors click

    flags = {p.name: p.opts[0] for p in ctx.command.params}
    typed = (ParameterSource.COMMANDLINE, ParameterSource.DEFAULT_MAP)  # on the line, or in --config
    return [flags[n] for n in names if ctx.get_parameter_source(n) in typed]


def command_app() -> typer.Typer:
    """The Typer app of one subcommand, in the root app's plain-help, no-traceback style."""
    return typer.Typer(rich_markup_mode=None, pretty_exceptions_enable=False, add_completion=False)


def file_path(text: str | Path) -> Path:
    """A path that names a file: ``newdir/`` (a folder) is refused rather than written as a file."""
    if isinstance(text, Path):
        return text
    if not text.strip():
        raise typer.BadParameter("give a file path such as run.json")
    if text.endswith(("/", "\\")):
        raise typer.BadParameter(f"{text} names a folder; give a file path such as {text}run.json")
    return Path(text)


def shown(values: tuple[float, ...] | tuple[int, ...]) -> str:
    """How a list default reads in ``--help``: ``0,0.2,0.4``."""
    return ",".join(f"{v:g}" for v in values)


# -- the model (SPEC §1) -------------------------------------------------------------------
Strengths = Annotated[
    list[float],
    typer.Option(
        "-D", "--gauge-strength", metavar="D", help="Gauge strength D > 0 (units of a*²‖v‖²); repeat for several."
    ),
]
Strength = Annotated[
    float, typer.Option("-D", "--gauge-strength", metavar="D", help="Gauge strength D > 0 (units of a*²‖v‖²).")
]
Dimension = Annotated[int, typer.Option("--d", help="Input dimension d ≥ 2.")]
TeacherFeatures = Annotated[int, typer.Option("--k", help="Number of teacher features k ≥ 1.")]
InitialCoefficient = Annotated[float, typer.Option("--c0", help="Initial coefficient c0 > 0 of f0 = c0 relu(u0·x).")]
InitialAngle = Annotated[
    float,
    typer.Option(
        "--theta0", help="Initial angle θ0 ∈ [0, π) to the teacher.", show_default=f"π/2 = {MODEL.theta0:.6g}"
    ),
]
EpsAlign = Annotated[float, typer.Option("--eps-align", help="α ≥ 1 − ε counts as aligned; ε ∈ (0, 1).")]
Deltas = Annotated[
    FloatList | None,
    typer.Option(
        "--deltas",
        parser=floats,
        metavar="δ1,δ2,…",
        help="Per-neuron δ, e.g. 2,-1,0.5 (fixes m; the owner is argmax δ).",
    ),
]

Init = Annotated[
    str,
    typer.Option(
        "--init",
        help="Initial condition: duplicates (m copies of u0, c0/m each; SPEC §1) or random "
        "(seeded random unit directions, c0/m each).",
    ),
]
Perturbation = Annotated[
    float | None,
    typer.Option(
        "--eps",
        help="Make the duplicates visibly different: u_j ∝ u0 + ε ξ_j, c_j = (c0/m) e^(ε ζ_j), "
        "ξ, ζ Gaussian (seeded by --init-seed); ε ∈ [1e-12, 1] (smaller is round-off).",
    ),
]
InitSeed = Annotated[
    int | None,
    typer.Option("--init-seed", help="Seed ≥ 0 of --init random or of the --eps perturbation.", show_default="0"),
]

# -- the dynamics (SPEC §1, §6) --------------------------------------------------------------
DynamicsMode = Annotated[
    Mode,
    typer.Option(
        "--mode",
        help="flow: population gradient flow; gd: GD on the population loss; sample: gradient flow on the "
        "empirical loss L_n; sample-gd: full-batch GD on L_n; sgd: minibatch SGD.",
    ),
]
Step = Annotated[
    float | None,
    typer.Option("--eta", help="GD/SGD step η > 0 (default: chosen so that the T_spec error is ≤ 1 %)."),
]
SampleSize = Annotated[
    int | None,
    typer.Option("--n-samples", help="Sample size n ≥ 1 (sample, sample-gd, resampled sgd).", show_default="10000"),
]
BatchSize = Annotated[int | None, typer.Option("--batch-size", help="SGD minibatch size B ≥ 1.", show_default="100")]
Batches = Annotated[
    str | None,
    typer.Option(
        "--batches",
        help="SGD batches: fresh (new Gaussian points each step) or resampled (from a fixed sample of --n-samples).",
        show_default="resampled with --n-samples, else fresh",
    ),
]
Device = Annotated[
    str | None,
    typer.Option(
        "--device",
        help="Where the finite-sample torch work runs (sample, sample-gd, sgd): cpu, cuda, or auto "
        "(a CUDA GPU if torch sees one, else the CPU).",
        show_default="auto",
    ),
]
Horizon = Annotated[float | None, typer.Option("--t-max", help="Horizon t > 0 (default: until convergence).")]
Tolerance = Annotated[
    float | None,
    typer.Option(
        "--rtol",
        help="Relative tolerance of the flow solver, in [1e-13, 1e-2) (flow and sample).",
        show_default="1e-10 flow, 1e-4 sample",
    ),
]
FlowTolerance = Annotated[
    float, typer.Option("--rtol", help="Relative tolerance of the population flow solver, in [1e-13, 1e-2).")
]
MaxSteps = Annotated[
    int | None,
    typer.Option(
        "--max-steps",
        help="Step budget of gd, sample-gd and sgd: a run needing more steps (t-max/η) is refused before it starts.",
        show_default=f"{DEFAULT_MAX_STEPS:.0e}",
    ),
]
MaxTime = Annotated[
    float,
    typer.Option(
        "--max-time",
        min=0.0,
        metavar="SECONDS",
        help="Refuse a run estimated to take longer than this before it starts (a finite sample too "
        "large to keep in memory); raise it to accept a long run on purpose.",
    ),
]
DEFAULT_MAX_TIME = 3600.0
Seed = Annotated[
    int | None, typer.Option("--seed", help="Seed ≥ 0 of the sample or batch stream (sample, sample-gd, sgd).")
]
Seeds = Annotated[
    IntList | None,
    typer.Option("--seeds", parser=integers, metavar="S1,S2,…", help="Seeds ≥ 0 (stochastic modes), e.g. 0,1,2."),
]

# -- where results go ------------------------------------------------------------------------
Out = Annotated[
    Path | None,
    typer.Option(
        "--out",
        parser=file_path,
        metavar="PATH",
        help="Also write the artifact to PATH (it is always cached in --cache-dir).",
    ),
]
FigurePath = Annotated[
    Path | None,
    typer.Option(
        "--figure",
        parser=file_path,
        metavar="PATH",
        help="Also draw this artifact's figure to PATH (.pdf, .png or .svg).",
    ),
]
CacheDir = Annotated[
    Path, typer.Option("--cache-dir", help="The run cache: runs and sweep points by config hash; reruns reuse them.")
]
UseCache = Annotated[
    bool, typer.Option("--cache/--no-cache", help="Reuse cached runs and points (--no-cache recomputes them).")
]
Workers = Annotated[int, typer.Option("--workers", min=1, help="Local worker processes for the sweep's points (≥ 1).")]
Scheduler = Annotated[
    str | None, typer.Option("--scheduler", help="Run the sweep's points on a Dask cluster: tcp://HOST:PORT.")
]
DEFAULT_CACHE = Path("runs")


def _load_config(ctx: typer.Context, param: typer.CallbackParam, value: Path | None) -> Path | None:
    from gaugecli.cli.config_file import load

    return load(ctx, param, value)


ConfigFile = Annotated[
    Path | None,
    typer.Option(
        "--config",
        metavar="RUN.TOML",
        is_eager=True,
        callback=_load_config,
        help="Read options from a TOML file (keys: the flags without dashes, e.g. gauge-strength = [4.0]); "
        "options on the command line override it. --out run.json also writes run.toml, which reruns it.",
    ),
]


def model_config(d: int, k: int, c0: float, theta0: float, eps_align: float) -> ModelConfig:
    return ModelConfig(d=d, k=k, c0=c0, theta0=theta0, eps_align=eps_align)


def dynamics_config(
    mode: Mode,
    eta: float | None = None,
    n_samples: int | None = None,
    t_max: float | None = None,
    rtol: float | None = None,
    batch_size: int | None = None,
    batches: str | None = None,
    max_steps: int | None = None,
    device: str | None = None,
) -> DynamicsConfig:
    """The dynamics as given: an option left out stays ``None`` (the mode's default applies)."""
    return DynamicsConfig(
        mode=mode,
        eta=eta,
        n_samples=n_samples,
        batch_size=batch_size,
        batches=batches,
        t_max=t_max,
        rtol=rtol,
        max_steps=max_steps,
        device=device,
    )
