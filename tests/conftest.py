"""Shared test set-up: one BLAS/OpenMP thread per test process (``pytest -n 2`` runs two),
as the CLI does; set before numpy is first imported by a test module."""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import pytest  # noqa: E402  (after the thread counts: pytest's plugins may import numpy)
from _quick_runs import QuickRuns, session_root  # noqa: E402


@pytest.fixture(scope="session")
def quick_runs(tmp_path_factory: pytest.TempPathFactory) -> QuickRuns:
    """Each figure's quick-profile runs, computed once per session for every file and worker
    (tests/_quick_runs.py)."""
    return QuickRuns(session_root(tmp_path_factory))


FIRST = ("tests/test_figure_runs.py::test_a_warm_cache_draws_figures_without_integrating",)
"""Collected first: they compute figures' quick runs afresh and hand them to ``quick_runs`` (each
test_figN.py and test_layout.py then reads them), and, long, they are better begun than left for
last on one ``pytest -n`` worker while the other idles."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: not item.nodeid.startswith(FIRST))  # stable: the rest keep their order
