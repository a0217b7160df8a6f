"""The tolerant parser: whatever shape the model answers in, only grounded topics come out."""

import pytest

from jobs.summarize.parsing import parse_merged, parse_topics
from tests.jobs.chats import three_subject_chat

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


def test_a_realistic_window_does_not_ground_an_invention() -> None:
    window = "\n".join(user for user, _ in three_subject_chat(50))
    invented = ("1. The host and I talked about cars, and the host said he drives a red Ferrari "
                "every week.\n2. The host and I talked about his wife, and the host said they "
                "got divorced last year.")
    assert parse_topics(invented, window) == []
    real = ("1. The host and I talked about hobbies, and the host said he plays table tennis "
            "every Tuesday at the club because he admires Zhendong Fan.")
    assert [d.label for d in parse_topics(real, window)] == ["hobbies"]


def test_bold_labels_wrapped_items_and_trailing_dots_are_read() -> None:
    output = ("1. **Hobbies:** The host and I talked about hobbies, and the host said he likes\n"
              "   table tennis because he admires Zhendong Fan.\n"
              "2. The host and I talked about work, and the host said he works night shifts...")
    drafts = parse_topics(output, SAID)
    assert [d.label for d in drafts] == ["hobbies", "work"]
    assert drafts[0].description.endswith("because he admires Zhendong Fan.")


def test_a_merge_answer_keeps_its_whole_sentence_even_wrapped() -> None:
    sources = ("The host likes table tennis because of Zhendong Fan.\n"
               "The host dislikes table tennis now.\nThe host has learned how to swim.")
    answer = ("Here is the summary:\n1. The host and I talked about hobbies. The host liked "
              "table tennis because of Zhendong Fan,\nbut now dislikes it, and has learned how "
              "to swim.")
    merged = parse_merged(answer, sources)
    assert merged is not None
    assert merged.startswith("The host and I talked about hobbies.")
    assert merged.endswith("has learned how to swim.")
