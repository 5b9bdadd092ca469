"""The spec of ``gaugecli prune``: the non-owners' function vanishes (claim C7)."""

from __future__ import annotations

from gaugecli.experiments.spec import Experiment

SPEC = Experiment(
    name="prune",
    help="Functional pruning: the non-owner norm P(t) → 0 (claim C7), unless non-owners have δ > 0.",
    config="gaugecli.experiments.prune:PruneConfig",
    result="gaugecli.experiments.prune:PruneResult",
    compute="gaugecli.experiments.prune:prune",
    runner=True,
    fields=(
        ("model", "gaugecli.experiments.params:Model"),
        ("dynamics", "gaugecli.experiments.params:Dynamics"),
        (None, "gaugecli.experiments.params:Prune"),
    ),
    prefetch_rank=6,
    summary="gaugecli.cli.report:prune",
    figure="fig5",
    api_doc="""``gaugecli prune``: the non-owners' function vanishes (claim C7), and when it does not.""",
    api_returns="PruneResult",
)

SPECS = (SPEC,)
