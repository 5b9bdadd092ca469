"""Reduced equations: the planar (c, θ) flow, its D → ∞ limits, the linear and ReLN views."""
