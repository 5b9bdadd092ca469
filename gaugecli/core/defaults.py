"""The model's defaults, declared once: the initial coefficient ``c0``, the initial angle ``θ0`` to
the teacher and the alignment threshold ``ε_align`` (docs/theory.md, the model), which every function of the core
that takes them defaults to, and the parameters' declarations (``experiments/params.py``) too."""

from __future__ import annotations

import math

C0 = 0.1
"""The initial coefficient ``c0`` of ``f0 = c0 σ(u0·x)`` (docs/theory.md, the model)."""
THETA0 = math.pi / 2
"""The initial angle ``θ0`` of ``u0`` to the teacher: orthogonal, no head start (docs/theory.md, the model)."""
EPS_ALIGN = 0.01
"""The alignment threshold ``ε``: a neuron with ``α ≥ 1 − ε`` counts as aligned (docs/theory.md, the model: ``T_spec``)."""
