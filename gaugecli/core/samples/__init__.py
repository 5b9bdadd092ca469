"""Finite samples: the empirical loss L_n, its derivatives, SGD batches."""
