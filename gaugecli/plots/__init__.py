"""Figures of the paper, one module per figure (``fig1`` … ``fig7``; ``fig8`` … ``fig12`` beyond it;
and ``reln``, ``lockin``, ``lockin_nulls`` for related work), each declaring the runs it
needs (``requirements``) and drawing them (``build``); :mod:`gaugecli.plots.render` resolves the
runs through the pipeline and writes the files; :mod:`gaugecli.plots.sidecar` checks a
regeneration by data. Importing this package costs nothing until a figure is made.
"""

from __future__ import annotations

FIGURES = (
    "fig1",
    "fig2",
    "fig3",
    "fig4",
    "fig5",
    "fig6",
    "fig7",
    "fig8",
    "fig9",
    "fig10",
    "fig11",
    "fig12",
    "reln",
    "lockin",
    "lockin_nulls",
    "fig13",
    "xu",
    "kunin",
)
OUTSIDE_ALL = ("xu", "kunin")
"""Figures ``plot all`` leaves out: their study costs CPU-hours, so its data are committed with the figure
(figures/data/<figure>) and ``plot xu`` or ``plot kunin`` redraws it from them (or reruns the study)."""

__all__ = ["FIGURES", "OUTSIDE_ALL"]
