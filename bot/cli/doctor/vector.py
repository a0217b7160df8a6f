"""The vector part: the chroma server answers, or the embedded store can be written."""

from __future__ import annotations

from bot.cli.doctor.check import Check, Where
from bot.cli.doctor.paths import nearest_existing, writable_folder
from bot.cli.doctor.timeouts import NETWORK_TIMEOUT
from bot.network import root_cause
from bot.settings import Settings


async def check_vector(settings: Settings, where: Where) -> Check:
    """The chroma server answers its heartbeat, or the embedded store's folder is writable."""
    if settings.vector.url:
        return await _check_chroma_server(settings.vector.url, where)
    folder = settings.resolved_data_dir / "chroma"
    existing = nearest_existing(folder)
    if not writable_folder(existing):
        return Check("vector", False, f"cannot write the embedded store: {existing} is not a "
                     "writable folder", f"make it writable, or change {where('data_dir')}")
    later = "" if folder.exists() else " (created when Companion starts)"
    return Check("vector", True, f"embedded chromadb in {folder}{later}")


async def _check_chroma_server(url: str, where: Where) -> Check:
    import httpx

    base = url.rstrip("/")
    fix = (f"start it (e.g. chroma run --path /data --port 8000), correct {where('vector.url')}, "
           "or empty vector.url to use the embedded store")
    try:
        async with httpx.AsyncClient(timeout=NETWORK_TIMEOUT) as client:
            beat = await client.get(f"{base}/api/v2/heartbeat")
            version = await client.get(f"{base}/api/v2/version") if beat.is_success else None
    except httpx.HTTPError as error:
        return Check("vector", False, f"cannot reach the chroma server at {url} "
                     f"({root_cause(error)})", fix)
    if version is None:
        return Check("vector", False, f"{url} answered {beat.status_code} to chroma's heartbeat "
                     "(/api/v2/heartbeat): not a chroma 1.x server?", fix)
    named = f" {version.json()}" if version.is_success else ""
    return Check("vector", True, f"chroma server{named} at {url} answers")
