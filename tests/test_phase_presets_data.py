"""docs/data/phase-presets.json (tools/phase_presets.py), the readings docs/howto/phase-maps.md quotes of
the phase presets: its counts tally with the maps' sizes, and the threshold D*(ε) is read as defined."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("phase_presets", ROOT / "tools" / "phase_presets.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["phase_presets"] = module
    spec.loader.exec_module(module)
    return module


P = _tool()
NUMBERS = json.loads(P.OUT.read_text(encoding="utf-8"))["numbers"]
CLASSES = ("exclusive", "shared", "unpruned", "lost", "no_owner", "symmetric")


def test_the_threshold_is_the_smallest_strength_from_which_every_larger_one_is_exclusive() -> None:
    exclusive = np.array(
        [
            [1, 0, 0, 1],  # D index 0
            [1, 0, 1, 1],
            [1, 1, 0, 1],  # a gap at index 2 in column 2: its threshold is above it
            [1, 1, 1, 1],
        ],
        bool,
    )
    assert P._threshold(exclusive).tolist() == [0, 2, 3, 0]
    assert P._threshold(np.zeros((3, 2), bool)).tolist() == [3, 3]  # never exclusive: past the last row


def test_every_map_s_classes_add_up_to_its_cells() -> None:
    """An independent tally: the outcome classes partition each map, and the seeded map ran every cell once
    per seed."""
    for prefix in ("outcomes", "robustness.random", "robustness.adversarial"):
        assert sum(NUMBERS[f"{prefix}.{c}"] for c in CLASSES) == NUMBERS[f"{prefix}.cells"], prefix
    assert NUMBERS["robustness.seeds.runs"] == NUMBERS["robustness.random.cells"] * len(P.SEEDS)
    listed = {n.rsplit(".", 1)[0] for n in NUMBERS if n.startswith("robustness.adversarial.") and n.endswith(".eps")}
    assert len(listed) == NUMBERS["robustness.adversarial.cells"] - NUMBERS["robustness.adversarial.exclusive"]
    assert NUMBERS["sensitivity.exponent_min"] <= NUMBERS["sensitivity.exponent_max"]
    assert NUMBERS["sensitivity.constant_min"] <= NUMBERS["sensitivity.constant_max"]
