"""The spec of ``gaugecli reln``: the gated-linear (ReLN) view of gauge selection."""

from __future__ import annotations

from gaugecli.experiments.spec import Experiment, own_seed

SPEC = Experiment(
    name="reln",
    help="The gated-linear (ReLN) view of gauge selection: where it predicts the gauge effect, where it fails.",
    config="gaugecli.experiments.reln:RelnConfig",
    result="gaugecli.experiments.reln:RelnResult",
    compute="gaugecli.experiments.reln:run_reln",
    seed=own_seed,
    fields=(
        ("model", "gaugecli.experiments.params:Model"),
        ("dynamics", "gaugecli.experiments.params:Dynamics"),
        (None, "gaugecli.experiments.params:Reln"),
    ),
    prefetch_rank=4,
    summary="gaugecli.cli.report:reln",
    figure="reln",
    api_doc="""``gaugecli reln``: the gated-linear (ReLN) view of gauge selection, where it holds and fails.""",
    api_returns="RelnResult",
)

SPECS = (SPEC,)
