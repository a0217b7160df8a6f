"""What a statement says its subject's value is, by its entities (spaCy's packaged small
English model): the value it gives now, and the one it says is over."""

from __future__ import annotations

import pytest

from memory.beliefs.values import ValueReader


@pytest.fixture(scope="module")
def reader() -> ValueReader:
    return ValueReader()


def test_a_change_says_which_value_is_over(reader: ValueReader) -> None:
    [values] = reader.read_now(["we're not in Rome any more, it's Vienna now"])
    assert ("place", "vienna") in values.now and ("place", "rome") not in values.now
    assert ("place", "rome") in values.before


def test_a_move_from_a_place_ends_it(reader: ValueReader) -> None:
    [values] = reader.read_now(["We moved from Leeds to Bristol in May."])
    assert "bristol" in {text for _, text in values.now}
    assert "leeds" in {text for _, text in values.before}


def test_two_names_for_one_partner_differ_and_the_same_name_agrees(reader: ValueReader) -> None:
    kim, sam, kim_again = reader.read_now(["Kim and I got engaged in June",
                                           "I'm seeing someone called Sam",
                                           "Kim cooked for me tonight"])
    assert sam.differs(kim)
    assert not kim_again.differs(kim)


def test_values_of_different_kinds_do_not_differ(reader: ValueReader) -> None:
    osaka, sushi = reader.read_now(["Home for me is Osaka.",
                                    "We brought a kitten called Sushi home"])
    assert not sushi.differs(osaka)


@pytest.mark.parametrize("text", [
    "my buddy Ray switched to Android",
    "Betty next door has been sent to a new doctor",
    "she finally moved to Leeds",
    "Hmm, my roommate works for Aldi now",
])
def test_another_persons_life_is_someone_elses(reader: ValueReader, text: str) -> None:
    [values] = reader.read_now([text])
    assert values.someone_else


@pytest.mark.parametrize("text", [
    "switched to Android, my friends are confused",
    "my girlfriend Zoe is the funniest person I know",
    "two kids keep me very busy",
    "Daisy is our new puppy",
    "my mum had a baby at 44, which means I now have four siblings",
    "we moved to Vienna in May",
])
def test_the_speakers_own_life_is_theirs(reader: ValueReader, text: str) -> None:
    [values] = reader.read_now([text])
    assert not values.someone_else
