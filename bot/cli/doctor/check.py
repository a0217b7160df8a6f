"""What doctor says about one part (`Check`), and where a setting can be changed (`Where`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Check:
    """What doctor found about one part.

    `ok` is None when the part was not checked, or is not set up and not needed. A part that
    fails but is not `needed_for_chat` is a warning: the chat works without it.
    """

    part: str
    ok: bool | None
    detail: str
    fix: str = ""
    needed_for_chat: bool = True

    @property
    def status(self) -> str:
        if self.ok is None:
            return "--"
        if self.ok:
            return "OK"
        return "FAIL" if self.needed_for_chat else "WARN"

    @property
    def blocks_chat(self) -> bool:
        return self.needed_for_chat and not self.ok

    def line(self) -> str:
        fix = f" — fix: {self.fix}" if self.fix else ""
        # One line per part, whatever the messages underneath spread over several.
        text = " ".join(f"{self.detail}{fix}".split())
        return f"{self.part:<11}{self.status:<6}{text}"


@dataclass(frozen=True)
class Where:
    """Where a setting can be changed: the environment variable that set it, else the file."""

    config_path: Path | None
    environ: Mapping[str, str]

    def __call__(self, setting: str) -> str:
        env_name = "COMPANION_" + setting.upper().replace(".", "__")
        if env_name in self.environ:
            return f"{setting} (set by the environment variable {env_name})"
        if self.config_path is not None:
            return f"{setting} in {self.config_path}"
        return f"{setting} (in config.toml, or the environment variable {env_name})"
