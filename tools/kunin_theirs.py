"""Kunin et al.'s own code on the six cells of tools/kunin_cells.py: their ``get_results``
(``two-layer-relu/run_grid.py`` of allanraventos/getrichquick, imported unmodified from a checkout)
at their m = 50, n = 1000, d = 100, lr = 5e-3/τ², for 10⁴ steps, checkpoints 0, 10, 100, 1000, 10⁴.

Their code needs torch, numpy, matplotlib and tqdm: run it in a scratch virtual environment, never
this repository's (it writes ``dummy_results_longer/*.pth`` into the working directory)::

    git clone https://github.com/allanraventos/getrichquick /tmp/getrichquick
    python -m venv /tmp/grq && /tmp/grq/bin/pip install torch numpy matplotlib tqdm
    cd /tmp/getrichquick/two-layer-relu && mkdir -p dummy_results_longer
    /tmp/grq/bin/python /path/to/tools/kunin_theirs.py --seeds 100,101,102 --out theirs.json

Writes one JSON: ``{"code": "allanraventos/getrichquick@<commit>", "runs": [...]}``, each run its
cell, seed and their four measured series, rewritten after every run (an interrupted sweep keeps
what it finished). Their test loss is ``mean (f − y)²`` (twice ours).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

CELLS = ((0.1, -1.0), (0.1, 0.0), (0.1, 1.0), (0.447, -1.0), (0.447, 1.0), (1.995, 0.0))
"""(τ, δ) of the six cells (issue 54): their grid's small scale at three imbalances, its middle scale at
two, and its largest balanced cell."""
CHECKPOINTS = (0, 10, 100, 1_000, 10_000)
BASE_LR = 5e-3
"""Their ``base_lr``: each cell's learning rate is ``BASE_LR/τ²``."""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", required=True, help="their train seeds, e.g. 100,101,102 (theirs are 100…115)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(Path.cwd()))
    import run_grid  # their module, from the working directory (two-layer-relu/)

    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=False).stdout.strip()
    runs = []
    for seed in (int(s) for s in args.seeds.split(",")):
        for scale, delta in CELLS:
            start = time.perf_counter()
            result = run_grid.get_results(
                scale,
                delta,
                seed,
                BASE_LR / scale**2,
                n_iter=CHECKPOINTS[-1],
                n_samples=1_000,
                m=50,
                input_size=100,
                leak_parameter=None,
                checkpoints_to_save=CHECKPOINTS,
            )
            kernel, test, hamming, parameters, _ = result["nn"]
            runs.append(
                {
                    "scale": scale,
                    "delta": delta,
                    "seed": seed,
                    "steps": list(CHECKPOINTS),
                    "kernel_distance": [float(x) for x in kernel],
                    "test_loss": [float(x) for x in test],
                    "hamming_distance": [float(x) for x in hamming],
                    "parameter_distance": [float(x) for x in parameters],
                    "seconds": time.perf_counter() - start,
                }
            )
            args.out.write_text(json.dumps({"code": f"allanraventos/getrichquick@{commit}", "runs": runs}, indent=1))


if __name__ == "__main__":
    main()
