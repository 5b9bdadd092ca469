"""Which arithmetic the closed forms take: the compiled loops of :mod:`gaugecli.core.population.fused` where they
apply, or numpy everywhere (the same numbers to a few ulps; the numpy route checks the compiled one).

The choice is the caller's: the package reads ``GAUGECLI_FUSED`` once as it loads
(``gaugecli/__init__.py``) and sets it here, so the core reads no environment."""

from __future__ import annotations

_fused = True


def use_fused(enabled: bool) -> None:
    """Take the compiled loops where they apply (``True``, the default) or numpy everywhere."""
    global _fused
    _fused = bool(enabled)


def fused_enabled() -> bool:
    """Whether the compiled loops are taken where they apply (:func:`use_fused`)."""
    return _fused
