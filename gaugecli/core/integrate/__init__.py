"""Integrators: gradient flow with its save policy and tolerance, gradient descent and its step."""
