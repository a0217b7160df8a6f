"""Whether a word is a first name somewhere: one clue, among others, that a word in a message to
share names a person ("ask ben", "its jesica"), which spaCy's small model often reads as a
common word. Many first names are common words too ("Summer", "Grace", "Will"): the list only
says the word may be a name, and the learned look (`memory.pool.tagger`) weighs it with the rest.

The names (`first_names.txt.gz`, 20,569 of them in Latin letters, 60 KB) come from the person
providers of every locale of the Faker package (MIT); `python -m memory.pool.first_names`
writes the list again from it (`pip install faker==40.63.0` first; it is not a dependency).
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

NAMES_FILE = Path(__file__).with_name("first_names.txt.gz")
_LATIN = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿĀ-žȘ-ț']{2,}")
_LISTS = ("first_names", "first_names_male", "first_names_female", "first_names_nonbinary",
          "first_names_unisex")


def first_names(names_file: Path = NAMES_FILE) -> frozenset[str]:
    """Every first name of the list, in lower case (blocking: a few ms)."""
    return frozenset(gzip.decompress(names_file.read_bytes()).decode().splitlines())


def _from_faker() -> list[str]:
    import importlib
    import pkgutil

    import faker.providers.person  # only to write the list again (not a dependency)

    names: set[str] = set()
    for module in pkgutil.iter_modules(faker.providers.person.__path__):
        provider = importlib.import_module(f"faker.providers.person.{module.name}").Provider
        for listed in (provider.__dict__.get(name) for name in _LISTS):
            if isinstance(listed, list | tuple | dict):
                names |= {part.lower() for name in listed
                          for part in re.split(r"[\s-]+", str(name)) if _LATIN.fullmatch(part)}
    return sorted(names)


if __name__ == "__main__":
    listed = _from_faker()
    NAMES_FILE.write_bytes(gzip.compress("\n".join(listed).encode(), mtime=0))
    print(f"{len(listed)} names in {NAMES_FILE}")
