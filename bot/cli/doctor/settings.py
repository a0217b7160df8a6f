"""The settings part: the file and the environment load as `companion chat` loads them."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from bot.cli.doctor.check import Check
from bot.core.wording import counted
from bot.errors import ConfigError
from bot.settings import CONFIG_ENV, Settings, load_settings


def check_settings(
    config_path: Path | None, environ: Mapping[str, str] = os.environ
) -> tuple[Check, Settings | None]:
    """The settings as `companion chat` reads them: the file (if any) under the environment."""
    try:
        settings = load_settings(config_path)
    except ConfigError as error:
        if config_path is not None and not config_path.is_file():
            fix = (f"create {config_path} (the repository's config.toml documents every "
                   f"setting), or point --config or {CONFIG_ENV} at an existing file")
        else:
            place = f"{config_path} or the environment" if config_path else "the environment"
            fix = f"correct what the message names, in {place}"
        return Check("settings", False, str(error).replace("\n", "; "), fix), None
    except (OSError, ValueError) as error:  # unreadable: no permission, not UTF-8
        return Check("settings", False, f"cannot read {config_path}: {error}",
                     f"make {config_path} a readable UTF-8 text file"), None
    source = str(config_path.resolve()) if config_path is not None else "defaults, no file"
    overrides = [name for name in environ if name.startswith("COMPANION_") and name != CONFIG_ENV]
    if overrides:  # names only: values can hold passwords (sql.url)
        source += f", with {counted(len(overrides), 'COMPANION_* environment variable')}"
    return Check("settings", True, source), settings
