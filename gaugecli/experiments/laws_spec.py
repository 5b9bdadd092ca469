"""The spec of ``gaugecli laws``: the conservation laws of gradient flow for an architecture."""

from __future__ import annotations

from gaugecli.experiments.spec import Experiment, no_seed

SPEC = Experiment(
    name="laws",
    help="Count the conservation laws of gradient flow for a fully connected architecture (Lie algebra rank).",
    config="gaugecli.experiments.laws:LawsConfig",
    result="gaugecli.experiments.laws:LawsResult",
    compute="gaugecli.experiments.laws:laws",
    seed=no_seed,
    fields=((None, "gaugecli.experiments.params:Laws"),),
    # a figure's laws runs in one prefetch task: torch.func's first call in a process imports
    # torch._dynamo (≈ 2 CPU-s), which every worker that ran one paid (fig13's four: both workers)
    prefetch_slice=4,
    summary="gaugecli.cli.laws:summary",
    api_doc="""``gaugecli laws``: the number of independent conservation laws of gradient flow for a fully
connected architecture, beside the known ones, checked along a flow.""",
    api_returns="LawsResult",
)

SPECS = (SPEC,)
