"""The tolerant parser: whatever shape the model answers in, only grounded topics come out."""

import pytest

from jobs.parsing import parse_merged, parse_topics

SAID = """I like table tennis because I admire Zhendong Fan.
I work night shifts as a nurse at the city hospital.
My cat Miso is sick and I am worried."""


def _labels(output: str) -> list[str]:
    return [d.label for d in parse_topics(output, SAID)]


def test_numbered_list_as_in_table_two() -> None:
    output = (
        "1. The host and I talked about hobbies, and the host said: he likes table tennis "
        "because he admires Zhendong Fan.\n"
        "2. The host and I talked about work, and the host said: he works night shifts as a "
        "nurse."
    )
    drafts = parse_topics(output, SAID)
    assert [d.label for d in drafts] == ["hobbies", "work"]
    assert drafts[1].description.endswith("works night shifts as a nurse.")


def test_bullets_bold_labels_and_prose() -> None:
    bullets = ("- **Hobbies**: The host and I talked about hobbies, and the host said he likes "
               "table tennis.\n* The host and I talked about pets; the host said his cat Miso "
               "is sick.")
    assert _labels(bullets) == ["hobbies", "pets"]
    prose = ("The host and I talked about hobbies, and the host said he likes table tennis. "
             "The host and I talked about work, and the host said he is a nurse.")
    assert _labels(prose) == ["hobbies", "work"]


def test_a_topic_without_a_label_gets_one_from_its_text() -> None:
    [draft] = parse_topics("He is worried because his cat Miso is sick.", SAID)
    assert draft.label in {"miso", "cat", "sick", "worried"}


@pytest.mark.parametrize(
    "output",
    [
        "1. The host and I talked about **, and the host said:**\n" * 28,  # SmolLM2's echo
        "1. The host and I talked about * *, and the host said:**",
        "The host and I talked about {topic}, and the host said: {summary}",
        "asdf qwer zxcv\n\n!!!",
        "",
        "Mia: That's great! What else do you like?",  # the chat continued instead
        "1. The host and I talked about cars, and the host said he drives a red Ferrari.",
    ],
)
def test_templates_garbage_and_inventions_give_nothing(output: str) -> None:
    assert parse_topics(output, SAID) == []


def test_merge_answer_keeps_the_first_grounded_sentence() -> None:
    sources = "The host likes table tennis.\nThe host now prefers swimming."
    answer = ("Sure! Here it is:\n1. The host and I talked about hobbies, and the host said he "
              "liked table tennis but now prefers swimming.")
    assert parse_merged(answer, sources) == (
        "The host and I talked about hobbies, and the host said he liked table tennis but now "
        "prefers swimming."
    )
    assert parse_merged("1. The host and I talked about *, and the host said:**", sources) is None
