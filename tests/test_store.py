"""The storage layer: text encoding, fast validation, typed round trips, the cache."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gaugecli.store.artifacts import ArtifactError, dumps
from gaugecli.store.codec import from_jsonable, to_jsonable
from gaugecli.store.schemas import validate

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10) | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=30,
)

STEADY = settings(deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow])
"""As test_properties.py's: no per-example deadline (Hypothesis's default 200 ms fails an example whose
process a loaded machine paused — a failure by chance, gone on rerun), examples derived from the
test's name rather than a fresh random seed, and no example database shared by xdist workers in the
working directory. Searched beyond it once: 3000 random examples of each test below, none failing."""


@STEADY
@given(json_values)
def test_dumps_is_json_that_reads_back_exactly(value) -> None:
    assert json.loads(dumps(value)) == value


def test_dumps_puts_each_numeric_array_on_one_line() -> None:
    text = dumps({"t": [0.0, 0.5, 1.0], "m": [[1.0, None], [2.0, 3.0]], "label": "x"})
    assert '"t": [0.0,0.5,1.0]' in text and '"m": [[1.0,null],[2.0,3.0]]' in text
    assert text.endswith("}\n")


def _simulate_like() -> dict:
    from gaugecli.experiments.simulate import SimulateConfig, simulate
    from gaugecli.store.artifacts import build_artifact, now

    config = SimulateConfig(model=SimulateConfig().model.__class__(d=3), strengths=(4.0,)).runs()[0]
    return build_artifact("simulate", config, simulate(config)[0], seed=0, started=now())


@pytest.fixture(scope="module")
def artifact() -> dict:
    return _simulate_like()


@pytest.mark.parametrize("where", [0, 1, 7, -1])
def test_validation_sees_a_bad_number_anywhere_in_a_series(artifact: dict, where: int) -> None:
    """The fast path validates the schema on a skeleton; a wrong entry deep in an array is still found."""
    bad = json.loads(json.dumps(artifact))
    bad["result"]["loss"][where] = "0.1"
    with pytest.raises(ArtifactError, match="loss"):
        validate(bad)
    bad = json.loads(json.dumps(artifact))
    bad["result"]["alignment"][where][0] = True
    with pytest.raises(ArtifactError, match="alignment"):
        validate(bad)


def test_a_valid_artifact_validates(artifact: dict) -> None:
    assert validate(artifact) == ("simulate", 1)


def test_validation_sees_a_bad_hash_anywhere_in_a_map(tmp_path) -> None:
    """Arrays of hashes are validated on their first entries once each entry has the hash's form; a wrong
    entry anywhere is still found, and named by its array."""
    from gaugecli.experiments.phase import PhaseConfig, parse_axis
    from gaugecli.pipeline import Pipeline

    config = PhaseConfig(
        "simulate",
        parse_axis("gauge-strength=1:4:3", "simulate"),
        parse_axis("c0=0.1:1:3", "simulate", "y"),
        ("t-spec",),
    )
    artifact = Pipeline(tmp_path).ensure("phase", config).artifact
    assert validate(artifact) == ("phase", 1)
    for (iy, ix), wrong in zip([(0, 0), (1, 2), (-1, -1)], ("A" * 64, "0" * 63, 7), strict=True):
        bad = json.loads(json.dumps(artifact))
        bad["result"]["cell_hashes"][iy][ix] = wrong
        with pytest.raises(ArtifactError, match="cell_hashes"):
            validate(bad)
        bad = json.loads(json.dumps(artifact))
        bad["result"]["chunk_hashes"][iy] = wrong
        with pytest.raises(ArtifactError, match="chunk_hashes"):
            validate(bad)


def _one_pass_matches_two(result: object, config: object) -> None:
    from gaugecli.store.artifacts import build_artifact, encode_artifact, now, result_hash

    started = now()
    artifact, text = encode_artifact("simulate", config, result, seed=3, started=started)
    reference = build_artifact("simulate", config, result, seed=3, started=started)
    for a in (artifact, reference):  # the only field that may differ: when each finished
        a["provenance"]["timestamps"].pop("finished")
    assert artifact == reference  # result_hash included: the same canonical text was hashed
    assert artifact["result_hash"] == result_hash(result)
    assert text == dumps(json.loads(text))
    loaded = json.loads(text)
    loaded["provenance"]["timestamps"].pop("finished")
    assert loaded == artifact


def test_one_pass_encoding_is_build_then_dumps() -> None:
    """encode_artifact shares each array's encoding between the file and the hash; it must
    write the same bytes, and the same result_hash, as build_artifact followed by dumps."""
    from gaugecli.experiments.simulate import SimulateConfig, simulate

    config = SimulateConfig(model=SimulateConfig().model.__class__(d=3), strengths=(4.0,)).runs()[0]
    _one_pass_matches_two(simulate(config)[0], config)


@STEADY
@given(st.dictionaries(st.text(max_size=5), json_values, max_size=5), st.lists(st.floats(allow_nan=True), max_size=6))
def test_one_pass_encoding_is_build_then_dumps_for_any_result(result: dict, series: list[float]) -> None:
    _one_pass_matches_two({**result, "series": np.array(series), "nested": [series, {"x": series}]}, {"d": [1, 2.5]})


@dataclass
class _Inner:
    x: np.ndarray
    y: float | None = None


@dataclass
class _Outer:
    inner: _Inner
    items: list[_Inner] = field(default_factory=list)
    pair: tuple[int, ...] = (1, 2)
    maybe: int | None = None
    table: dict[str, float] = field(default_factory=dict)


def test_typed_round_trip_through_json() -> None:
    value = _Outer(_Inner(np.array([1.0, np.nan, 3.0]), 2.5), [_Inner(np.eye(2))], (3, 4), None, {"a": 1.5})
    back = from_jsonable(_Outer, json.loads(json.dumps(to_jsonable(value))))
    np.testing.assert_array_equal(back.inner.x, value.inner.x)  # NaN → null → NaN
    np.testing.assert_array_equal(back.items[0].x, np.eye(2))
    assert (back.inner.y, back.pair, back.maybe, back.table) == (2.5, (3, 4), None, {"a": 1.5})


def test_a_result_this_version_cannot_read_is_reported_and_recomputed(tmp_path) -> None:
    """An entry written by an older gaugecli (a field missing) is treated as missing, with a warning."""
    from gaugecli.store.cache import Cache

    warnings: list[str] = []
    cache = Cache(tmp_path, warn=warnings.append)
    artifact = {"result": {"inner": {"x": [1.0, 2.0]}}}  # no "items", "pair", …: fine (defaults)
    assert cache.typed("point", {"p": 1}, _Outer, artifact).inner.y is None
    assert cache.typed("point", {"p": 1}, _Outer, {"result": {"items": []}}) is None  # "inner" has no default
    assert len(warnings) == 1 and "older gaugecli" in warnings[0]
