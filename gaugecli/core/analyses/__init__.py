"""Analyses of a trajectory: observables, ownership, pruning, separation, lock-in, symmetry."""
