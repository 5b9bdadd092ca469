"""Provenance that tells the truth (issue 19): the commit recorded is gaugecli's own — never that
of a repository a copy happens to lie in — the command line is recorded, and a figure's sidecar
carries provenance that ``--compare`` and byte-for-byte reruns leave out of the data."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import jsonschema
import pytest

import gaugecli
from gaugecli.plots import render as R
from gaugecli.plots.sidecar import compare_sidecars
from gaugecli.store.artifacts import now, provenance, read_artifact, stable_provenance
from gaugecli.store.schemas import kinds, load_schema

PACKAGE = Path(gaugecli.__file__).resolve().parent
PRINT_PROVENANCE = (
    "import json, gaugecli; from gaugecli.store.artifacts import stable_provenance; "
    "print(json.dumps({'file': gaugecli.__file__, **stable_provenance()}))"
)


def _clean_env(**extra: str) -> dict[str, str]:
    """This environment without GIT_* variables (a hook's GIT_DIR would redirect every git call)."""
    return {**{k: v for k, v in os.environ.items() if not k.startswith("GIT_")}, **extra}


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        capture_output=True,
        text=True,
        check=True,
        env=_clean_env(),
    )
    return done.stdout.strip()


def _foreign_repo(root: Path) -> tuple[Path, str]:
    """A git repository of another project, with one commit: ``(its top, its HEAD)``."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root.mkdir()
    _git(root, "init", "-q")
    (root / "pyproject.toml").write_text('[project]\nname = "someone-else"\n')
    _git(root, "add", "pyproject.toml")
    _git(root, "commit", "-q", "-m", "theirs")
    return root, _git(root, "rev-parse", "HEAD")


def _copied_provenance(site: Path) -> dict:
    """``stable_provenance()`` in a fresh interpreter importing the copy of gaugecli in ``site``."""
    done = subprocess.run(
        [sys.executable, "-c", PRINT_PROVENANCE],
        capture_output=True,
        text=True,
        check=True,
        cwd=site,
        env=_clean_env(PYTHONPATH=str(site)),
    )
    prov = json.loads(done.stdout)
    assert Path(prov["file"]).resolve().is_relative_to(site.resolve()), prov["file"]  # the copy, not the checkout
    return prov


def _copy_package(site: Path) -> None:
    shutil.copytree(PACKAGE, site / "gaugecli", ignore=shutil.ignore_patterns("__pycache__", "_build_info.py"))


@pytest.mark.parametrize("where", [".", ".venv/lib/python3/site-packages"])
def test_a_copy_inside_another_repository_names_none_of_its_commits(tmp_path: Path, where: str) -> None:
    # at the top of the foreign work tree (its pyproject.toml is not gaugecli's), or installed in
    # a virtual environment inside it (not the top of any work tree)
    repo, head = _foreign_repo(tmp_path / "theirs")
    site = repo / where
    _copy_package(site)
    prov = _copied_provenance(site)
    assert prov["git_commit"] != head
    assert prov["git_commit"] is None and prov["git_dirty"] is None  # no stamp in the copy either


def test_a_commit_stamped_at_build_time_is_used_outside_a_checkout(tmp_path: Path) -> None:
    repo, head = _foreign_repo(tmp_path / "theirs")
    _copy_package(repo)
    (repo / "gaugecli" / "_build_info.py").write_text('COMMIT = "0123abcd"\nDIRTY = False\n')
    prov = _copied_provenance(repo)
    assert (prov["git_commit"], prov["git_dirty"]) == ("0123abcd", False) and head != "0123abcd"


def test_inside_the_checkout_the_commit_is_its_head() -> None:
    root = PACKAGE.parent
    if shutil.which("git") is None or not (root / ".git").exists():
        pytest.skip("gaugecli is not running from its git checkout")
    top = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--show-toplevel"], capture_output=True, text=True, env=_clean_env()
    )
    if top.returncode != 0 or Path(top.stdout.strip()).resolve() != root:
        pytest.skip("gaugecli is not running from the top of its git checkout")
    prov = stable_provenance()
    assert prov["git_commit"] == _git(root, "rev-parse", "HEAD")
    assert isinstance(prov["git_dirty"], bool)  # its value follows edits made while the tests run


def test_the_command_line_and_the_plotting_versions_are_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "argv", ["gaugecli", "plot", "fig1", "--quick"])
    prov = provenance(0, now())
    assert prov["command_line"] == ["gaugecli", "plot", "fig1", "--quick"]
    assert prov["matplotlib"] == metadata.version("matplotlib")
    assert prov["tueplots"] == metadata.version("tueplots")
    # and through a real command, in the artifact it writes (a small run: about a second)
    args = ["simulate", "--m", "1", "--d", "3", "--rtol", "1e-6", "--out", "a.json", "--cache-dir", "C"]
    subprocess.run([sys.executable, "-m", "gaugecli", *args], cwd=tmp_path, capture_output=True, check=True)
    recorded = read_artifact(tmp_path / "a.json", "simulate")["provenance"]["command_line"]
    assert recorded[1:] == args and recorded[0].endswith("__main__.py")


@pytest.mark.parametrize("kind", kinds())
def test_provenance_old_and_new_validates_and_a_wrong_type_does_not(kind: str) -> None:
    schema = load_schema(kind)["properties"]["provenance"]
    new = provenance(None, now())
    old = {k: v for k, v in new.items() if k not in ("git_dirty", "command_line", "matplotlib", "tueplots")}
    validator = jsonschema.Draft7Validator(schema)
    assert validator.is_valid(new) and validator.is_valid(old)  # the new keys are optional
    assert not validator.is_valid({**new, "command_line": "gaugecli plot"})
    assert not validator.is_valid({**new, "git_dirty": "yes"})


def _sidecar(path: Path, argv: list[str], monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(sys, "argv", argv)
    config = {"figure": "fig1", "quick": True, "requirements": {"run": "0" * 64}}
    panels = {"a": {"loss": [1.0, 0.5, None], "label": "L"}}
    return R.write_sidecar(path, "fig1", config, {"run": "0" * 64}, panels)


_BLOCK = re.compile(r'^ "provenance": \{\n.*?^ \},\n', re.MULTILINE | re.DOTALL)


def test_sidecar_provenance_is_left_out_of_comparison_and_of_byte_identity(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sidecar says what made it (version, commit, packages) but not when nor by which command:
    ``plot fig1`` and ``plot all`` write the same bytes; ``--compare`` ignores the block anyway."""
    a = _sidecar(tmp_path / "a.json", ["gaugecli", "plot", "fig1"], monkeypatch)
    b = _sidecar(tmp_path / "b.json", ["gaugecli", "plot", "all", "--out-dir", "x"], monkeypatch)
    first, second = read_artifact(a, "figure"), read_artifact(b, "figure")
    assert "command_line" not in first["provenance"] and first["provenance"]["gaugecli"]
    assert "timestamps" not in first["provenance"] and "seed" not in first["provenance"]  # nothing of when
    assert a.read_bytes() == b.read_bytes()
    edited = {**second, "provenance": {**second["provenance"], "git_commit": "0" * 40}}
    assert compare_sidecars(first, edited) == []
    text = a.read_text()
    assert "provenance" not in _BLOCK.sub("", text)
