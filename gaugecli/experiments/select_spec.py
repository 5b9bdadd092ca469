"""The specs of ``gaugecli select``: one selection among m duplicates, and (``--sweep``) the
owner-success sweep over m, a kind of its own."""

from __future__ import annotations

from typing import Any

from gaugecli.experiments.spec import Experiment

MODEL, DYNAMICS = "gaugecli.experiments.params:Model", "gaugecli.experiments.params:Dynamics"


def api_configs(config: Any, params: dict[str, Any], build: Any) -> tuple[str, list[Any], bool]:
    """A ``SelectConfig``, or with an ``OwnerSweepConfig`` (keywords: ``sweep=True``) the sweep."""
    from gaugecli.experiments.select import OwnerSweepConfig, SelectConfig

    sweep = isinstance(config, OwnerSweepConfig) or bool(params.pop("sweep", False))
    config = build(config, OwnerSweepConfig if sweep else SelectConfig, SELECT.api_name, params)
    return (SWEEP if sweep else SELECT).name, [config], False


SELECT = Experiment(
    name="select",
    help="Selection among m duplicates: the +D neuron becomes the owner (claim C6).",
    config="gaugecli.experiments.select:SelectConfig",
    result="gaugecli.experiments.select:SelectResult",
    compute="gaugecli.experiments.select:select",
    fields=(("model", MODEL), ("dynamics", DYNAMICS), (None, "gaugecli.experiments.params:Select")),
    prefetch_rank=3,
    summary="gaugecli.cli.report:select",
    figure="gaugecli.plots.overview:draw_select",
    api_doc="""``gaugecli select``: which of m duplicates owns the teacher feature (a ``SelectResult``);
    with an ``OwnerSweepConfig`` (keywords: ``sweep=True, ms=(2, 3, …)``) the owner-success sweep
    ``gaugecli select --sweep`` (an ``OwnerSweepResult``).""",
    api_returns="SelectResult | OwnerSweepResult",
    api_configs=api_configs,
)

SWEEP = Experiment(
    name="select-sweep",
    help="The owner-success sweep over m: how often the designated neuron owns the feature.",
    config="gaugecli.experiments.select:OwnerSweepConfig",
    result="gaugecli.experiments.select:OwnerSweepResult",
    compute="gaugecli.experiments.select:owner_sweep",
    runner=True,
    command=SELECT.name,
    fields=(("model", MODEL), ("dynamics", DYNAMICS), (None, "gaugecli.experiments.params:OwnerSweep")),
    rerun_flags={"sweep": True},
    prefetch_rank=2,
    summary="gaugecli.cli.report:owner_sweep",
    api=None,
)

SPECS = (SELECT, SWEEP)
