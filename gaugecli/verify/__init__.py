"""``gaugecli verify``: every claim measured at the paper's settings, judged, and reported.

Claims read their runs through the pipeline (so a cached run is reused, and a figure's run is a
claim's run); all needs are resolved together, so simulate runs of every claim form one batch.
"""

from __future__ import annotations

import sys
import types
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from gaugecli.core.frames import Labelled, View
from gaugecli.core.types import Progress
from gaugecli.pipeline import Inputs, Need, Pipeline, resolve
from gaugecli.verify.claim import Check, Claim, ClaimOutcome
from gaugecli.verify.paper import CLAIMS as PAPER_CLAIMS


def all_claims() -> list[Claim]:
    """The paper's claims (C1–C8, docs/theory.md, the model), then the findings of the subcommands added
    since, then the laws beyond the paper, then the gauge under the optimizers, then one layer deeper."""
    from gaugecli.verify.beyond import CLAIMS as BEYOND
    from gaugecli.verify.deep import CLAIMS as DEEP
    from gaugecli.verify.findings import CLAIMS as FINDINGS
    from gaugecli.verify.optimizers import CLAIMS as OPTIMIZERS

    return [*PAPER_CLAIMS, *FINDINGS, *BEYOND, *OPTIMIZERS, *DEEP]


@dataclass(frozen=True)
class VerifyConfig:
    """``quick``: the CI profile (fewer strengths, widths and seeds); ``only``: claim ids to run
    (the others are reported as not run)."""

    quick: bool = False
    only: tuple[str, ...] = ()


@dataclass
class VerifyResult(Labelled):
    VIEW: ClassVar[View] = View(records={"claims": "claim"})
    """The labelled view of this result (:mod:`gaugecli.core.frames`): its dimension names."""
    claims: list[ClaimOutcome] = field(default_factory=list)

    @property
    def failed(self) -> list[ClaimOutcome]:
        return [c for c in self.claims if c.passed is False]


def profile_needs(config: VerifyConfig, claims: Sequence[Claim] | None = None) -> dict[str, Need]:
    """The runs the chosen claims read in ``config``'s profile (before any follow-up run)."""
    chosen = [c for c in (claims if claims is not None else all_claims()) if not config.only or c.id in config.only]
    return {f"{c.id}/{name}": need for c in chosen for name, need in c.needs(config.quick).items()}


def verify(
    config: VerifyConfig, pipeline: Pipeline, progress: Progress | None = None, claims: Sequence[Claim] | None = None
) -> VerifyResult:
    """Measure and judge each claim; a claim whose measurement fails with an error is a failure."""
    claims = list(claims if claims is not None else all_claims())
    chosen = [c for c in claims if not config.only or c.id in config.only]
    inputs, _ = resolve(profile_needs(config, claims), pipeline, progress)
    outcomes = []
    for claim in claims:
        if claim not in chosen:
            outcomes.append(ClaimOutcome(claim.id, claim.statement, None, "", "", None, figure=claim.figure))
            continue
        prefix = f"{claim.id}/"
        own = Inputs(
            {k[len(prefix) :]: v for k, v in inputs.results.items() if k.startswith(prefix)},
            {k[len(prefix) :]: v for k, v in inputs.configs.items() if k.startswith(prefix)},
        )
        outcomes.append(_judge(claim, own, config.quick))
    return VerifyResult(outcomes)


def _judge(claim: Claim, inputs: Inputs, quick: bool) -> ClaimOutcome:
    try:
        check: Check = claim.evaluate(inputs, quick)
    except Exception as exc:  # a claim that cannot be measured has not been verified: report it, go on
        return ClaimOutcome(
            claim.id, claim.statement, None, "", "", False, figure=claim.figure, error=f"{type(exc).__name__}: {exc}"
        )
    return ClaimOutcome(
        claim.id,
        claim.statement,
        check.measured,
        check.expected,
        check.tolerance,
        bool(check.passed),
        check.quantity,
        check.configuration,
        claim.figure,
    )


__all__ = ["Claim", "ClaimOutcome", "VerifyConfig", "VerifyResult", "all_claims", "verify"]


def run(
    config: VerifyConfig | None = None,
    /,
    *,
    cache_dir: Path | str | None = None,
    progress: Progress | None = None,
    **params: Any,
) -> VerifyResult:
    """The Python API's ``gaugecli.verify``: :func:`verify` of ``config`` (or of keywords: ``quick``,
    ``only``) over a :class:`Pipeline` of ``cache_dir`` (``None``: nothing cached)."""
    from gaugecli.experiments.keywords import build

    if config is not None and params:
        raise TypeError(f"verify() takes a config or keywords, not both (got {', '.join(params)})")
    if config is None:
        config = build(VerifyConfig, "verify", params)
    if not isinstance(config, VerifyConfig):
        raise TypeError(f"verify() takes a VerifyConfig (got {type(config).__name__})")
    pipeline = Pipeline(cache_dir, warn=lambda message: warnings.warn(message, stacklevel=3), flag="cache_dir")
    return verify(config, pipeline, progress)


class _CallablePackage(types.ModuleType):
    """This package, callable as :func:`run`: importing ``gaugecli.verify`` makes the package the
    attribute ``gaugecli.verify``, over the API's function of that name, so ``gaugecli.verify(…)``
    must work on either."""

    def __call__(self, *args: Any, **kwargs: Any) -> VerifyResult:
        return run(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
