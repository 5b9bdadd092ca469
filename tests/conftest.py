"""Shared test set-up: one BLAS/OpenMP thread per test process (``pytest -n 2`` runs two),
as the CLI does; set before numpy is first imported by a test module."""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
