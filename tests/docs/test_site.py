"""The documentation: the site builds strictly (every page in the navigation, every link and
anchor found, the settings reference agreeing with config.toml), and the README stays short
with every relative link pointing to a file that exists."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from bot.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
MAX_README_LINES = 250
# [text](target) and ![alt](target), with an optional "title"; not inside code spans.
_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"`[^`\n]*`")


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    site = tmp_path / "site"
    environment = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", "docs/mkdocs.yml",
         "-d", str(site)],
        cwd=ROOT, env=environment, capture_output=True, text=True, timeout=240,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    assert (site / "index.html").is_file()
    assert (site / "images" / "tui.svg").is_file()
    reference = (site / "settings" / "index.html").read_text(encoding="utf-8")
    assert "<!-- settings-reference -->" not in reference


def test_the_settings_reference_names_every_setting() -> None:
    reference = _hook().settings_reference()
    for name, field in Settings.model_fields.items():
        section = field.annotation
        if isinstance(section, type) and hasattr(section, "model_fields"):
            for key in section.model_fields:
                assert f"`{name}.{key}`" in reference
        else:
            assert f"`{name}`" in reference


def test_the_readme_is_short() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines"


def test_every_relative_link_in_the_readme_exists() -> None:
    text = README.read_text(encoding="utf-8")
    anchors = {_slug(heading) for heading in re.findall(r"^#+\s+(.+)$", _prose(text), re.M)}
    checked = 0
    for target in _LINK.findall(_prose(text)):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...
            continue
        path, _, anchor = target.partition("#")
        if not path:
            assert anchor in anchors, f"README.md links to #{anchor}, which is no heading"
            continue
        assert (ROOT / path).exists(), f"README.md links to {target}, which does not exist"
        checked += 1
    assert checked > 0


def _prose(text: str) -> str:
    """The README without code blocks and code spans, where brackets are not links."""
    return _CODE_SPAN.sub("", _FENCE.sub("", text))


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _hook() -> ModuleType:
    path = ROOT / "docs" / "hooks" / "settings_reference.py"
    spec = importlib.util.spec_from_file_location("settings_reference", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
