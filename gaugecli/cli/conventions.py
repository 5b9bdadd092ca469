"""One flag name per concept, across every command: the table docs/development.md prints and
tests/test_cli_conventions.py holds every command's options to.

Each :class:`Concept` names one thing a user sets, its one flag (a ``{part}`` in it stands for the
part of a study the value belongs to: ``--step-strength`` is the D of perturb's step sweep), and the
spellings that would name the same thing (a regular expression over long flags): an option that
matches a concept's spellings must be that concept's flag. A flag takes a comma-separated list
where the command runs several values (``-D 4,16``, ``--n-samples 500,1000``) and one value where
it runs one: the name is the concept's, not its count's. The former spellings are read for one
release with a deprecation line on stderr (:func:`gaugecli.cli.flags.renamed_args`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Concept:
    """``what`` is set by ``flag`` (``{part}``: the part of a study it belongs to); ``spellings``
    matches every long flag that would name it; ``former`` are the flags it replaced."""

    what: str
    flag: str
    spellings: str
    former: tuple[str, ...] = ()

    def canonical(self, option: str) -> bool:
        """``option`` is this concept's flag (for any part, where the flag has one)."""
        pattern = re.escape(self.flag).replace(re.escape("{part}"), "[a-z0-9]+(?:-[a-z0-9]+)*")
        return re.fullmatch(pattern, option) is not None

    def names(self, option: str) -> bool:
        """``option`` is spelled as a name of this concept."""
        return re.search(self.spellings, option) is not None


CONCEPTS: tuple[Concept, ...] = (
    Concept("gauge strength D (also -D)", "--gauge-strength", r"^--(gauge-)?strengths?$|^--(big-d|ds)$"),
    Concept(
        "D of one part of a study (co-alignment, step sweep, sample sweep, select stage, collapse scan)",
        "--{part}-strength",
        r"-strengths?$",
        former=("--scan-strengths",),
    ),
    Concept("seeds of the runs, one run each", "--seeds", r"^--seeds?$", former=("--seed",)),
    Concept("seeds of one part of a study", "--{part}-seeds", r".-seeds$"),
    Concept("one seed of one part (the initial draw)", "--{part}-seed", r"^--(init|draw|start)-seeds?$"),
    Concept(
        "first of consecutive seeds, with a count (predict's --runs starts)",
        "--first-seed",
        r"first-seeds?$|seed-(offset|start)$",
    ),
    Concept(
        "sample size n (sample sizes, where a command runs several)",
        "--n-samples",
        r"^--(ns|n|n-samples?|samples?-sizes?|num-samples)$",
        former=("--ns",),
    ),
    Concept(
        "sample sizes of one part of a study",
        "--{part}-n-samples",
        r".-(ns|n-samples|sample-sizes?)$",
        ("--success-ns",),
    ),
    Concept("student width m (one network)", "--m", r"^--(m|neurons|n-neurons)$"),
    Concept("student widths m of a sweep", "--ms", r"^--(ms|widths|m-list)$"),
    Concept(
        "neurons per teacher feature m/k",
        "--m-per-k",
        r"^--(m-per-k|ms-per-k|widths|width-per-feature)$",
        ("--widths",),
    ),
    Concept("teacher features k (one teacher)", "--k", r"^--(k|features|n-features)$"),
    Concept("teacher features k of a study", "--ks", r"^--(ks|k-list)$"),
    Concept("GD/SGD step η", "--eta", r"^--(sgd-)?(eta|step-size|lr|learning-rate)$", former=("--sgd-eta",)),
    Concept(
        "step η of one part of a study (predict's population cells under --optimizer)",
        "--{part}-eta",
        r"^--(?!sgd-)[a-z0-9-]+-(eta|step-size|lr|learning-rate)$",
    ),
    Concept("SGD minibatch size B", "--batch-size", r"(^--|-)batch(-size)?$", former=("--sgd-batch",)),
    Concept("horizon t", "--t-max", r"^--(t-max|tmax|t|horizon|t-end)$"),
    Concept("flow solver tolerance", "--rtol", r"rtol$|^--tol(erance)?$"),
    Concept("the run cache", "--cache-dir", r"^--(cache-dir|runs?-dir|cache-path)$"),
    Concept("reuse the cache", "--cache", r"^--(no-)?(cache|reuse)$"),
    Concept("JSON lines on stdout", "--json", r"^--(json|jsonl|as-json)$"),
    Concept("no summary", "--quiet", r"^--(quiet|silent|no-summary)$"),
    Concept("where the artifact is written", "--out", r"^--(out|output|out-file)$"),
    Concept("where the artifact's figure is drawn", "--figure", r"^--(figure|fig|plot)$"),
    Concept("options from a TOML file", "--config", r"^--(config|config-file|toml)$"),
    Concept("local worker processes", "--workers", r"^--(workers|jobs|n-jobs|processes)$"),
    Concept("the quick (CI) profile", "--quick", r"^--(quick|fast)$"),
)
"""Every concept and its one flag (docs/development.md, "One flag per concept", prints this table)."""
