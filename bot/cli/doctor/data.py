"""The data part: the data folder can be written (or created), and how much it holds."""

from __future__ import annotations

import asyncio
import os
from contextlib import suppress
from pathlib import Path

from bot.cli.doctor.check import Check, Where
from bot.cli.doctor.paths import nearest_existing, writable_folder
from bot.core.wording import counted
from bot.settings import Settings


async def check_data(settings: Settings, where: Where) -> Check:
    """The data folder (SQLite, the embedded store, the log, exports) and its size."""
    folder = settings.resolved_data_dir
    if not folder.exists():
        existing = nearest_existing(folder)
        if not writable_folder(existing):
            return Check("data", False, f"{folder} cannot be created: {existing} is not "
                         "writable", f"change {where('data_dir')} to a folder you can write")
        return Check("data", True, f"{folder} (created when Companion starts)")
    if not writable_folder(folder):
        return Check("data", False, f"{folder} is not a writable folder",
                     f"make it writable, or change {where('data_dir')}")
    size = await asyncio.to_thread(_folder_size, folder)
    return Check("data", True, f"{folder}, {_human_size(size)}")


def _folder_size(folder: Path) -> int:
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            with suppress(OSError):  # a file removed while counting (a SQLite journal, say)
                total += os.lstat(os.path.join(root, name)).st_size
    return total


def _human_size(size: int) -> str:
    """1.2 MB: decimal units, as file managers and `du --si` show them."""
    if size < 1000:
        return counted(size, "byte")
    scaled = float(size)
    for unit in ("KB", "MB", "GB", "TB"):
        scaled /= 1000
        if scaled < 1000 or unit == "TB":
            break
    return f"{scaled:.1f} {unit}"
