"""The model and what is measured on it: the teacher, the model (σ, λ), the student's parameters as a
``Network``, the gauge δ and function coordinates, the invariant subspace, and the observables of a state
(alignment, owner, non-owner norm, T_spec, the clock-free gap)."""
