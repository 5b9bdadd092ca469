"""The package's page on the index and what it points to: ``[project.urls]`` (documentation, source,
issues, changelog) in the installed metadata, CHANGELOG.md in the Keep a Changelog form with the
version of ``gaugecli/_version.py`` released on CITATION.cff's date, and docs/install.md naming exactly
the extras pyproject.toml declares. README.md's own links: tests/test_readme.py."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

from test_readme import URLS, _nav, site_url

import gaugecli

ROOT = Path(__file__).resolve().parents[1]
CHANGELOG = ROOT / "CHANGELOG.md"
# Keep a Changelog 1.1.0: a release heading, and the kinds of change a release lists
RELEASE = re.compile(r"^## \[(Unreleased|\d+\.\d+\.\d+)\](?: - (\d{4}-\d{2}-\d{2}))?$", re.MULTILINE)
KINDS = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def test_the_project_urls_are_declared_and_installed() -> None:
    assert set(URLS) == {"Documentation", "Source", "Issues", "Changelog"}
    assert all(url.startswith("https://") for url in URLS.values())
    assert URLS["Changelog"] == site_url("changelog.md") and URLS["Issues"] == URLS["Source"] + "/issues"
    installed = dict(entry.split(", ", 1) for entry in metadata.metadata("gaugecli").get_all("Project-URL") or [])
    assert installed == URLS, "the installed metadata is older than pyproject.toml: reinstall (make .venv/.installed)"


def test_the_changelog_page_is_the_changelog_and_in_the_nav() -> None:
    assert (ROOT / "docs" / "changelog.md").read_text(encoding="utf-8").strip() == '--8<-- "CHANGELOG.md"'
    assert {"changelog.md", "install.md"} <= _nav()


def test_the_changelog_keeps_a_changelog_and_releases_this_version() -> None:
    """Unreleased first, then releases newest first with ISO dates; the newest is ``__version__``,
    dated as CITATION.cff's ``date-released``; every section is one of the six kinds; every heading has
    its compare link at the foot."""
    text = CHANGELOG.read_text(encoding="utf-8")
    releases = RELEASE.findall(text)
    assert releases[0] == ("Unreleased", "")
    versions = [tuple(int(p) for p in v.split(".")) for v, _ in releases[1:]]
    dates = [d for _, d in releases[1:]]
    assert versions == sorted(versions, reverse=True) and dates == sorted(dates, reverse=True) and all(dates)
    assert releases[1][0] == gaugecli.__version__
    cff = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert f'date-released: "{releases[1][1]}"' in cff
    kinds = set(re.findall(r"^### (.+)$", text, re.MULTILINE))
    assert kinds and kinds <= KINDS, kinds - KINDS
    for version, _ in releases:
        assert re.search(rf"^\[{re.escape(version)}\]: {re.escape(URLS['Source'])}/", text, re.MULTILINE), version


def test_the_install_page_names_every_extra_and_no_other() -> None:
    page = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    named = set(re.findall(r"^\| `([a-z]+)` \|", page, re.MULTILINE))
    assert named == set(extras)
    assert "https://download.pytorch.org/whl/cpu" in page and "make test" in page and "make figures" in page
    assert f"git clone {URLS['Source']}.git" in page


def test_the_citation_names_the_same_addresses() -> None:
    cff = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert f'repository-code: "{URLS["Source"]}"' in cff and f'url: "{URLS["Documentation"]}"' in cff
