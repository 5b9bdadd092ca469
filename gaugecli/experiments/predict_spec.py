"""The spec of ``gaugecli predict``: who owns each feature from random starts, and what predicts it."""

from __future__ import annotations

from typing import Any

from gaugecli.experiments.spec import Experiment


def seed(config: Any) -> int | None:
    """The first seed of the study's runs."""
    return config.first_seed


SPEC = Experiment(
    name="predict",
    help="Who owns each feature from random starts, and what predicts it: δ, alignment, c·α, speed, race.",
    config="gaugecli.experiments.predict:PredictConfig",
    result="gaugecli.experiments.predict:PredictResult",
    compute="gaugecli.experiments.predict:predict",
    runner=True,
    keyed=True,
    seed=seed,
    fields=(("model", "gaugecli.experiments.params:Model"), (None, "gaugecli.experiments.params:Predict")),
    prefetch_rank=0,
    summary="gaugecli.cli.report:predict",
    api_doc="""``gaugecli predict``: the owner of each feature from Gaussian starts against each predictor, with
    Wilson intervals (keywords: ``ks``, ``widths``, ``spreads``, ``runs``, ``init_scale_a``, ``d``, …).""",
    api_returns="PredictResult",
)

SPECS = (SPEC,)
