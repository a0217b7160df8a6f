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


# Another person's life, then the speaker's own.
@pytest.mark.parametrize(("text", "someone_else"), [
    ("my buddy Ray switched to Android", True),
    ("Betty next door has been sent to a new doctor", True),
    ("she finally moved to Leeds", True),
    ("Hmm, my roommate works for Aldi now", True),
    ("switched to Android, my friends are confused", False),
    ("my girlfriend Zoe is the funniest person I know", False),
    ("two kids keep me very busy", False),
    ("Daisy is our new puppy", False),
    ("my mum had a baby at 44, which means I now have four siblings", False),
    ("we moved to Vienna in May", False),
])
def test_whose_life_a_statement_is_about(reader: ValueReader, text: str,
                                         someone_else: bool) -> None:
    [values] = reader.read_now([text])
    assert values.someone_else is someone_else
