"""``gaugecli predict``: which neuron learns each teacher feature from a random start, and how often
each predictor names it, with Wilson intervals, as the spread of δ grows against the visible one."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from gaugecli.cli import options as opt
from gaugecli.cli import report, session, signature
from gaugecli.cli.errors import errors
from gaugecli.experiments import params as P

app = opt.command_app()

QUICK: dict[str, Any] = {"ks": (1, 2), "m_per_k": (1, 4), "spreads": (0.0, 100.0), "runs": 20}
"""``--quick``: the options it sets where they are not given (a few seconds on one core)."""


Quick = Annotated[
    bool,
    typer.Option(
        "--quick",
        help="A small study in seconds: --ks 1,2 --m-per-k 1,4 --spreads 0,100 --runs 20 where not given.",
        rich_help_panel=P.EXPERIMENT,
    ),
]


@app.command(
    "predict",
    cls=opt.PanelCommand,
    epilog=opt.examples(
        "predict --quick", "predict --ks 1 --m-per-k 4 --spreads none --runs 20 --n-samples 64,256 --batch-size 32"
    ),
)
@signature.with_outputs(sweeps=True)
@signature.with_option("quick", Quick, False)
@signature.with_params(P.Dynamics, only=("t_max",))
@signature.with_params(P.Predict, only=("rtol",))
@signature.with_params(P.Model, only=("d", "eps_align"))  # its model's
@signature.with_params(P.Predict, exclude=("rtol",))
def predict(
    ctx: typer.Context,
    params: Any = None,
    quick: bool = False,
    outputs: session.Outputs = session.Outputs(),
) -> None:
    """Who owns each teacher feature from a Gaussian start, and what predicts it.

    Every cell (k features, m = (m/k)·k neurons, a δ-spread ratio ρ) draws --runs starts a_j = |ã_j|
    (ã_j itself with --mixed-signs), ã_j ~ N(0, σ_a²), w_j ~ N(0, σ_w² I/d), with δ_j ~ N(0, ρ² σ_vis²) set apart from the visible function
    (σ_vis = σ_a σ_w/√d, the spread of c_j α_jk) or, with --natural, δ as drawn. Each run's owner of
    each feature is compared with the neuron named by argmax δ (in the feature's basin), argmax α,
    argmax c·α, the largest initial angular speed toward the feature, and the race of the reduced
    equations. With --n-samples every cell is also trained on the empirical loss L_n of each n (a sample
    per seed, the same starts), and with --batch-size also by minibatch SGD on those samples (step
    --eta). Chunks of seeds are cached as they finish: an interrupted study resumes
    where it stopped.
    """
    with errors():
        from gaugecli.experiments.keywords import build
        from gaugecli.experiments.predict import PredictConfig, chunks

        if quick:
            typed = {flag.lstrip("-").replace("-", "_") for flag in opt.given(ctx, *QUICK)}
            params.update({name: value for name, value in QUICK.items() if name not in typed})
        config = build(PredictConfig, "predict", params)  # d and eps_align: its model's
        fresh = _missing_chunks(chunks(config)[0], outputs)
        outcomes, paths = session.execute(ctx, "predict", [config], outputs)
    session.summarize(
        outcomes, paths, lambda o, path: report.predict(o, path, fresh), outputs.json, quiet=outputs.quiet
    )


def _missing_chunks(jobs: list[Any], outputs: session.Outputs) -> int:
    """How many of the study's chunks are not in the cache (all of them with ``--no-cache``)."""
    if not outputs.cache:
        return len(jobs)
    from gaugecli.experiments.predict import chunk_key
    from gaugecli.store.cache import Cache

    cache = Cache(outputs.cache_dir)
    return sum(not cache.path("point", chunk_key(job)).exists() for job in jobs)
