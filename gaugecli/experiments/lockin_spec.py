"""The specs of ``gaugecli lockin``: repulsion and spectral lock-in diagnostics on the gauge model,
and (``--task modular-addition``) on Tian's modular addition, a kind of its own."""

from __future__ import annotations

from typing import Any

from gaugecli.experiments.spec import Experiment, no_seed


def api_configs(config: Any, params: dict[str, Any], build: Any) -> tuple[str, list[Any], bool]:
    """A ``LockinConfig``, or with a ``TaskLockinConfig`` (keywords: ``task="modular-addition"``) the
    modular-addition study."""
    from gaugecli.experiments.lockin import LockinConfig
    from gaugecli.experiments.lockin_task import TaskLockinConfig

    task = params.pop("task", "gauge")
    on_task = isinstance(config, TaskLockinConfig) or task == "modular-addition"
    config = build(config, TaskLockinConfig if on_task else LockinConfig, SPEC.api_name, params)
    return (TASK if on_task else SPEC).name, [config], False


SPEC = Experiment(
    name="lockin",
    help="Repulsion and spectral lock-in diagnostics (Xu, Tian): which signatures gauge selection leaves.",
    config="gaugecli.experiments.lockin:LockinConfig",
    result="gaugecli.experiments.lockin:LockinResult",
    compute="gaugecli.experiments.lockin:lockin",
    fields=(
        ("model", "gaugecli.experiments.params:Model"),
        ("dynamics", "gaugecli.experiments.params:Dynamics"),
        (None, "gaugecli.experiments.params:Lockin"),
    ),
    prefetch_rank=5,
    summary="gaugecli.cli.report:lockin",
    figure="lockin",
    api_doc="""``gaugecli lockin``: feature repulsion and spectral lock-in diagnostics, select vs aligned control
    (a ``LockinResult``); with a ``TaskLockinConfig`` (keywords: ``task="modular-addition"``) the same
    diagnostics on Tian's modular addition, ``gaugecli lockin --task modular-addition`` (a ``TaskLockinResult``).""",
    api_returns="LockinResult | TaskLockinResult",
    api_configs=api_configs,
)

TASK = Experiment(
    name="lockin-task",
    help="Xu's lock-in detector and Tian's sign rule on modular addition: grokking runs against controls.",
    config="gaugecli.experiments.lockin_task:TaskLockinConfig",
    result="gaugecli.experiments.lockin_task:TaskLockinResult",
    compute="gaugecli.experiments.lockin_task:lockin_task",
    runner=True,
    seed=no_seed,
    command=SPEC.name,
    fields=((None, "gaugecli.experiments.params:LockinTask"),),
    rerun_flags={"task": "modular-addition"},
    summary="gaugecli.cli.report:lockin_task",
    api=None,
)

SPECS = (SPEC, TASK)
