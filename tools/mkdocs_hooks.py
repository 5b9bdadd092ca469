"""mkdocs hooks of the documentation site (mkdocs.yml): what the site carries besides docs/.

* **KaTeX, offline.** The math is typeset in the page by KaTeX (:data:`KATEX_VERSION`), whose files
  come from the npm registry at build time (``npm pack katex@VERSION``: npm checks the tarball's
  integrity), unpacked once into ``build/katex-VERSION/`` and copied into the site under
  ``assets/katex/``. Nothing is fetched when the site is viewed, and nothing is vendored in the
  repository. ``GAUGECLI_KATEX_DIR`` may name an unpacked ``katex`` package instead (a machine without npm).
* **The committed figures** (figures/*.png, *.pdf, *.json), copied as they are: the site never
  regenerates a figure.
* **The figure gallery** is docs/gallery.md, written from the figures' sidecars by
  ``tools/gallery.py`` (``make docs``); this hook only copies the files it links.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
KATEX_VERSION = "0.19.1"
FIGURES = ROOT / "figures"


def katex_dir() -> Path:
    """The unpacked ``katex`` npm package (its ``dist/`` folder is what the site needs)."""
    given = os.environ.get("GAUGECLI_KATEX_DIR")
    if given:
        if not (Path(given) / "dist" / "katex.min.js").is_file():
            raise RuntimeError(f"GAUGECLI_KATEX_DIR={given} has no dist/katex.min.js (an unpacked katex package)")
        return Path(given)
    cache = ROOT / "build" / f"katex-{KATEX_VERSION}"
    if (cache / "dist" / "katex.min.js").is_file():
        return cache
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError(
            f"the site's math needs KaTeX {KATEX_VERSION} from the npm registry: install npm "
            "(Debian: apt-get install npm), or set GAUGECLI_KATEX_DIR to an unpacked katex package"
        )
    cache.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache.parent) as tmp:
        subprocess.run(
            [npm, "pack", f"katex@{KATEX_VERSION}", "--silent", "--pack-destination", tmp],
            check=True,
            capture_output=True,
            timeout=300,
        )
        [tgz] = Path(tmp).glob("katex-*.tgz")
        with tarfile.open(tgz) as tar:
            tar.extractall(tmp, filter="data")
        unpacked = Path(tmp) / "package"
        if not (unpacked / "dist" / "katex.min.js").is_file():
            raise RuntimeError(f"katex@{KATEX_VERSION} from npm has no dist/katex.min.js")
        unpacked.rename(cache)  # atomic: a concurrent or interrupted build never sees half a package
    return cache


# -- the mkdocs hooks ------------------------------------------------------------------------------


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.exceptions import PluginError
    from mkdocs.structure.files import File

    def add(src_uri: str, path: Path) -> None:
        files.append(File.generated(config, src_uri, abs_src_path=str(path)))

    try:
        katex = katex_dir()
    except (RuntimeError, subprocess.SubprocessError, OSError) as err:
        raise PluginError(str(err)) from None
    dist = katex / "dist"
    for name in ("katex.min.js", "katex.min.css", "contrib/auto-render.min.js"):
        add(f"assets/katex/{name}", dist / name)
    for font in sorted((dist / "fonts").iterdir()):
        add(f"assets/katex/fonts/{font.name}", font)
    add("assets/katex/LICENSE", katex / "LICENSE")

    for path in sorted(FIGURES.iterdir()):
        if path.suffix in {".png", ".pdf", ".json"}:
            add(f"figures/{path.name}", path)
    add("assets/scaling.png", ROOT / "benchmarks" / "scaling.png")
    return files
