"""Figures of the paper, one module per figure (``fig1`` … ``fig7``), each
``build(data) -> (Figure, sidecar)`` reading artifact results only.

:mod:`gaugecli.plots.render` ties them to the artifact cache; its public names are
re-exported here lazily (all but ``render`` itself, whose name is the module's: call
``gaugecli.plots.render.render``), so importing this package costs nothing until a figure is made.
"""

from __future__ import annotations

import importlib
from typing import Any

FIGURES = ("fig1", "fig2", "fig3", "fig4", "fig5", "fig6", "fig7")

_EXPORTS = {
    "Requirement": "gaugecli.plots.render",
    "UnknownFigureError": "gaugecli.plots.render",
    "requirements": "gaugecli.plots.render",
    "ensure_artifact": "gaugecli.plots.render",
    "artifact_path": "gaugecli.plots.render",
    "compare_sidecars": "gaugecli.plots.render",
    "SERIES_TOLERANCES": "gaugecli.plots.render",
    "ONE_COLUMN": "gaugecli.plots.style",
    "TWO_COLUMN": "gaugecli.plots.style",
}

__all__ = sorted([*_EXPORTS, "FIGURES"])


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'gaugecli.plots' has no attribute {name!r}")


def __dir__() -> list[str]:
    return __all__
