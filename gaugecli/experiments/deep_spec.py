"""The spec of ``gaugecli deep``: the paper's experiment one hidden layer deeper."""

from __future__ import annotations

from typing import Any

from gaugecli.experiments.spec import Experiment


def sample_seed(config: Any) -> int | None:
    """The seed an artifact's provenance records: the fixed sample's."""
    return getattr(config, "sample_seed", None)


SPEC = Experiment(
    name="deep",
    help="The paper's experiment one hidden layer deeper: duplicates in hidden layer 1 or 2, who owns the feature.",
    config="gaugecli.experiments.deep:DeepConfig",
    result="gaugecli.experiments.deep:DeepResult",
    compute="gaugecli.experiments.deep:deep",
    seed=sample_seed,
    fields=((None, "gaugecli.experiments.params:Deep"),),
    summary="gaugecli.cli.deep:summary",
    api_doc="""``gaugecli deep``: duplicates in one hidden layer of a two-hidden-layer ReLU network trained on
a fixed Gaussian sample, the favorable gauge to one: the selection (by flow and by GD, each balance
over time), the separation T_spec(−D)/T_spec(+D) of one neuron with its local slopes, and the
contest of both layers' gauges.""",
    api_returns="DeepResult",
)

SPECS = (SPEC,)
