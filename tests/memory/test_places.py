"""Place names in what a person says: a town or country written with a capital, in any
position, of one word or several; common words and months are no places."""

from __future__ import annotations

import asyncio

import pytest

from memory.places import Places


@pytest.fixture(scope="module")
def places() -> Places:
    return asyncio.run(Places().load())


@pytest.mark.parametrize("text", [
    "Gothenburg is so windy today, my umbrella died",
    "gonna drive it to my abuela's in San Antonio this weekend",
    "Galway's lashing rain as usual",
    "I am from Germany but I live in Munich since two years",
])
def test_a_place_is_found_wherever_it_is_said(places: Places, text: str) -> None:
    assert places.named_in(text)


@pytest.mark.parametrize("text", [
    "Okay, that's enough procrastinating for now.",
    "my birthday is on March 3rd, mark it down lol",
    "nice, the garden looks lovely after the rain",  # a town's name, but not written as one
    "The bees were in a foul mood this morning",
])
def test_common_words_are_no_places(places: Places, text: str) -> None:
    assert not places.named_in(text)


async def test_asking_before_loading_is_a_mistake() -> None:
    with pytest.raises(RuntimeError):
        Places().named_in("Paris")
