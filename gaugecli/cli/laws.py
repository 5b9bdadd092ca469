"""``gaugecli laws``: the conservation laws of gradient flow for a fully connected architecture."""

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
    epilog=opt.examples("laws --layer-widths 3,4,3,1", "laws --layer-widths 3,2,2,3 --activation linear --json"),
)
@signature.with_outputs(sweeps=False)
@signature.with_params(P.Laws)
def laws(ctx: typer.Context, params: Any = None, outputs: session.Outputs = session.Outputs()) -> None:
    """Count the conservation laws of gradient flow for a fully connected architecture (Lie algebra rank).

    The number of independent conservation laws is D − r, r the rank of the Lie algebra generated
    by the gradients of the network's reparametrization (path products for relu and leaky-relu, the
    end-to-end map for linear), computed by autodiff at random points (Marcotte, Gribonval & Peyré,
    2023). Printed beside the known laws (relu: ‖incoming‖² − ‖outgoing‖² per hidden neuron;
    linear: W_iW_iᵀ − W_{i+1}ᵀW_{i+1} per hidden layer), which are then checked along a gradient flow.
    """
    with errors():
        from gaugecli.experiments.keywords import build
        from gaugecli.experiments.laws import LawsConfig

        config = build(LawsConfig, "laws", params)
        outcomes, paths = session.execute(ctx, "laws", [config], outputs)
    session.summarize(outcomes, paths, summary, outputs.json, quiet=outputs.quiet)


def summary(outcome: Outcome, path: Path | None) -> None:
    """The count, the known laws beside it, the rank's gap and the flow's drift."""
    from gaugecli.cli.report import console, fmt, where

    r, c = outcome.result, outcome.config
    known = "n_i(n_i+1)/2 per hidden layer" if r.linear else "one per hidden neuron"
    out = console()
    out.print(
        f"gaugecli laws — {','.join(map(str, c.layer_widths))} {c.activation}{' with bias' if c.bias else ''}:"
        f" D = {r.n_params} parameters, φ of length N = {r.n_paths}"
    )
    out.print(
        f"conservation laws: {r.n_laws} (D − rank {r.rank}; rank after each level of brackets"
        f" {', '.join(map(str, r.level_ranks))}; gap σ_r/σ_r+1 = {fmt(r.gap, '.2e')}, tolerance"
        f" {fmt(r.rank_tolerance, '.0e')}·σ_max, {c.points} points)"
    )
    out.print(
        f"known laws ({known}): {r.n_known}, {r.known_independent} independent;"
        f" largest sine to the laws found {fmt(r.known_angle, '.1e')}"
    )
    out.print(
        "others: none — the count meets the known laws, so it is exact"
        if r.others == 0
        else f"others: up to {r.others} beyond the known ones (the count is an upper bound)"
    )
    verdict = "hold" if r.holds else "DRIFT"
    out.print(
        f"gradient flow (loss {fmt(r.loss_start, '.4f')} → {fmt(r.loss_end, '.4f')}, θ moved {fmt(100 * r.moved, '.1f')} %):"
        f" the known laws {verdict}, max drift {fmt(r.max_relative_drift, '.1e')}·max‖θ‖²"
        f" (tolerance {fmt(r.tolerance / r.scale, '.0e')})"
    )
    out.print(where(outcome, path))
