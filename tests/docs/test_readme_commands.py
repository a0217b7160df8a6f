"""The README's commands are the ones that work: the two commands name what exists (the setup
and test scripts, `companion chat`), and the scripted conversation of its tour runs as written,
offline, with what the person reads holding what they said."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
COMPANION = ROOT / ".venv" / "bin" / "companion"


def _section(title: str) -> str:
    return README.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def _commands(section: str) -> list[str]:
    """The command lines of a section's bash blocks, without their comments."""
    blocks = re.findall(r"```bash\n(.*?)```", section, re.DOTALL)
    return [line.split("  #")[0].strip() for block in blocks for line in block.splitlines()
            if line.strip()]


def test_the_two_commands_name_what_exists() -> None:
    setup_and_chat, test_suite = _commands(_section("Two commands"))
    assert setup_and_chat == "bash .ci/setup && .venv/bin/companion chat"
    assert test_suite == "bash .ci/run"
    for script in (".ci/setup", ".ci/run"):
        assert (ROOT / script).is_file()
    chat = subprocess.run([str(COMPANION), "chat", "--help"], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert chat.returncode == 0, chat.stderr


@pytest.mark.real_model
def test_the_tours_scripted_conversation_runs_as_written(tmp_path: Path) -> None:
    [line] = [c for c in _commands(_section("A five-minute tour")) if "companion say" in c]
    feed, command = (part.strip() for part in line.split("|"))
    message_lines = shlex.split(feed)[1].encode().decode("unicode_escape")
    argv = shlex.split(command)
    assert argv[0] == ".venv/bin/companion"
    environment = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
    environment["COMPANION_DATA_DIR"] = str(tmp_path)  # offline defaults, a fresh folder
    said = subprocess.run([str(COMPANION), *argv[1:]], input=message_lines, text=True,
                          capture_output=True, timeout=600, cwd=tmp_path, env=environment)
    assert said.returncode == 0, said.stderr
    # The second message asks what the first told: the memory shown under the reply holds it.
    assert re.search(r"From my memory, #\d+ in /why: .*Ana", said.stdout), said.stdout
