"""``gaugecli lockin``: feature repulsion and spectral lock-in diagnostics (Xu; Tian), select vs aligned
control; with ``--task modular-addition`` the same detector on Tian's modular addition."""

from __future__ import annotations

from typing import Any

import typer

from gaugecli.cli import options as opt
from gaugecli.cli import report, session, signature
from gaugecli.cli.errors import bad_parameter, errors
from gaugecli.experiments import params as P

app = opt.command_app()

QUICK: dict[str, Any] = {
    "modulus": 23,
    "hidden_units": 256,
    "epochs": 150,
    "seeds": (0,),
    "sign_every": 75,
    "gauge_seeds": (0,),
    "gauge_epochs": 300,
}
"""``--quick``: the modular-addition study's size where not given (a few seconds on one core)."""

GAUGE_ONLY = tuple(f for f in P.Lockin.params if f not in P.SHARED_WITH_LOCKIN)
"""lockin's parameters that only the gauge model reads (fields)."""
MODEL_OPTIONS = ("rtol", *P.Model.params)
"""The model's and the solver's options lockin takes (the gauge model's)."""


def _present(ctx: typer.Context, fields: Any, *more: str) -> list[str]:
    """The command's own parameter names among ``fields`` (declared fields, by their identifiers)."""
    from gaugecli.experiments import params as declared

    names = {p.name for p in ctx.command.params}
    ids = [opt.identifier(declared.Lockin.params[f]) if f in declared.Lockin.params else f for f in fields]
    ids += [opt.identifier(declared.Model.params[f]) if f in declared.Model.params else f for f in more]
    return [n for n in ids if n in names]


@app.command(
    cls=opt.PanelCommand,
    epilog=opt.examples(
        "lockin -D 4 --m 3 --seeds 0",
        "lockin --no-control --scan-strength none --json",
        "lockin --task modular-addition --quick",
    ),
)
@signature.with_outputs(sweeps=True)
@signature.with_model(features=False, network=False)
@signature.with_dynamics("rtol")
@signature.with_params(P.LockinSwitch, into="switch")
@signature.with_params(P.Lockin)
@signature.with_params(P.LockinTask, exclude=P.SHARED_WITH_LOCKIN, into="task_params")
def lockin(
    ctx: typer.Context,
    params: Any = None,
    switch: Any = None,
    task_params: Any = None,
    model: Any = None,
    dynamics: Any = None,
    outputs: session.Outputs = session.Outputs(),
) -> None:
    """Repulsion and spectral lock-in diagnostics (Xu, Tian): which signatures gauge selection leaves.

    Select (one +D owner among −D duplicates) against the aligned control (θ0 = 0), in the population
    flow and in finite-sample GD: the rank-2 share σ2/σ1 of dW/dt, Xu's windowed-Gram detector (raw and
    with a round-off floor), Tian's B and its sign rate, the duplicates' separation exponent Λ.

    With --task modular-addition: Tian's modular addition (M = 71, K = 2048, σ = x² and ReLU, Adam,
    30 % of the pairs), grokking runs against controls trained on 10 % of the pairs; per run whether and
    when it groks and the detector fires, the late rank of ΔW, Tian's sign rule. Each run is cached as it
    finishes: an interrupted study resumes per seed.
    """
    with errors():
        from gaugecli.experiments.keywords import build

        quick = switch["small"]
        on_task = switch["task"] == "modular-addition"
        if on_task:
            if clash := opt.given(ctx, *_present(ctx, GAUGE_ONLY, *MODEL_OPTIONS)):
                raise bad_parameter(clash[0], "has no effect with --task modular-addition (the gauge model's)")
            if outputs.figure is not None:
                raise bad_parameter("--figure", "draws the gauge model's runs; the task's figure is `plot xu`")
            values = dict(task_params)
            if quick:
                declared = {field: P.LockinTask.params[field] for field in QUICK}
                typed = set(opt.given(ctx, *(opt.identifier(p) for p in declared.values())))
                values.update({field: QUICK[field] for field, p in declared.items() if p.option not in typed})
            values.update({field: params[field] for field in P.SHARED_WITH_LOCKIN})
            from gaugecli.experiments.lockin_task import TaskLockinConfig, check_memory_budget, cpu_seconds

            config = build(TaskLockinConfig, "lockin", values)
            check_memory_budget(config)
            if not outputs.quiet and not outputs.json:
                from gaugecli.experiments import budget

                report.errors_console().print(
                    f"modular addition: {len(config.points())} runs of {config.epochs} epochs, "
                    f"≈ {budget.duration(cpu_seconds(config))} of CPU (estimated)"
                )
            outcomes, paths = session.execute(ctx, "lockin-task", [config], outputs)
        else:
            if quick:
                raise bad_parameter("--quick", "sizes the modular-addition study; give --task modular-addition")
            task_only = [f for f in P.LockinTask.params if f not in P.SHARED_WITH_LOCKIN]
            if clash := opt.given(ctx, *_present(ctx, [opt.identifier(P.LockinTask.params[f]) for f in task_only])):
                raise bad_parameter(clash[0], "sets the modular-addition study; give --task modular-addition")
            from gaugecli.experiments.lockin import LockinConfig

            config = build(LockinConfig, "lockin", {**params, "model": model, "dynamics": dynamics})
            outcomes, paths = session.execute(ctx, "lockin", [config], outputs)
    session.summarize(
        outcomes, paths, report.lockin_task if on_task else report.lockin, outputs.json, quiet=outputs.quiet
    )
