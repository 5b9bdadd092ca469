"""``gaugecli deep``: the paper's experiment one hidden layer deeper (duplicates in hidden layer 1 or 2)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from gaugecli.cli import options as opt
from gaugecli.cli import session, signature
from gaugecli.cli.errors import errors
from gaugecli.experiments import params as P

if TYPE_CHECKING:
    from gaugecli.pipeline import Outcome

app = opt.command_app()


@app.command(
    cls=opt.PanelCommand,
    epilog=opt.examples("deep --layer 1", "deep --layer 2 --other-gauge -4 -D 1,2,4,8 --json"),
)
@signature.with_outputs(sweeps=False)
@signature.with_params(P.Deep)
def deep(ctx: typer.Context, params: Any = None, outputs: session.Outputs = session.Outputs()) -> None:
    """The paper's experiment one hidden layer deeper: duplicates in hidden layer 1 or 2, who owns the feature.

    A two-hidden-layer ReLU network f(x) = aᵀσ(W₂σ(W₁x)) and a teacher of the same form, trained on a
    fixed Gaussian sample (the population loss has no closed form past the first layer). The m
    duplicates of the chosen hidden layer get the balance +D (the owner) and −D (the others), set by
    rescalings that change no prediction; the other layer's neurons get --other-gauge. Printed: the
    owner after the flow (and after GD), each balance's drift, the separation T_spec(−D)/T_spec(+D) of
    one neuron with its local slopes over D, and the contest of both layers' gauges.
    """
    with errors():
        from gaugecli.experiments.deep import DeepConfig
        from gaugecli.experiments.keywords import build

        config = build(DeepConfig, "deep", params)
        outcomes, paths = session.execute(ctx, "deep", [config], outputs)
    session.summarize(outcomes, paths, summary, outputs.json, quiet=outputs.quiet)


def summary(outcome: Outcome, path: Path | None) -> None:
    """The owner, the balances' drift, the separation's local slopes and the contest."""
    from gaugecli.cli.report import console, fmt, where

    r, c = outcome.result, outcome.config
    out = console()
    out.print(
        f"gaugecli deep — layer {c.layer}: m = {c.m} duplicates, +D = {fmt(c.select_strength, 'g')} to neuron {c.owner},"
        f" the other layer at δ = {fmt(c.other_gauge, 'g')}; d = {c.d}, n = {c.n_samples} samples"
    )
    owner = "none aligned" if r.selected < 0 else f"neuron {r.selected}"
    out.print(
        f"selection (flow, to t = {fmt(r.t_stop, '.3g')}): owner {owner}"
        f" ({'the designated one' if r.owns else 'NOT the designated one'}); alignments"
        f" {', '.join(fmt(a, '.3f') for a in r.alignment)}; L_n = {fmt(r.loss_end, '.2e')} ± {fmt(r.loss_error, '.1e')} (Monte Carlo)"
    )
    out.print(
        f"balances along the flow: max drift {', '.join(fmt(d, '.1e') for d in r.drift)} (layer 1, 2)"
        f" — {'hold' if r.holds else 'DRIFT'} (tolerance {fmt(r.drift_tolerance, '.1e')})"
    )
    gd_owner = "none aligned" if r.gd_selected < 0 else f"neuron {r.gd_selected}"
    out.print(
        f"gradient descent (η = {fmt(r.gd_eta, 'g')}): owner {gd_owner}; balance drift"
        f" {', '.join(fmt(d, '.1e') for d in r.gd_drift)} (first step {fmt(r.gd_step_drift, '.1e')} = η²(‖g_out‖² − ‖g_in‖²))"
    )
    if len(r.strengths):
        slopes = ", ".join(fmt(s, ".2f") for s in r.ratio_slopes)
        out.print(
            f"separation (m = 1): D = {', '.join(fmt(D, 'g') for D in r.strengths)}:"
            f" T_spec(−D)/T_spec(+D) = {', '.join(fmt(x, '.3g') for x in r.ratio)}; local slopes {slopes}"
        )
    if r.contest_owner != -1 or r.contest_share_1.size:
        out.print(
            f"contest (duplicates in both layers; +D to neuron {c.owner} of layer 1 and to neuron {c.m - 1} of layer 2):"
            f" layer 1's owner {r.contest_owner}, layer 2's carrier {r.contest_carrier}"
            f" (share {fmt(float(r.contest_share_2[r.contest_carrier]), '.3f')})"
        )
    out.print(where(outcome, path))
