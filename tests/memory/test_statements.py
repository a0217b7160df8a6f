"""Which sentences become memories: statements and concrete suggestions, never small talk."""

from __future__ import annotations

import pytest

from memory.statements import carries_information, self_statements, suggestions, user_facts

SMALL_TALK = [
    "Hey Mel! Good to see you! How have you been?",
    "Yeah, I'm really lucky to have them.",
    "I totally agree, Melanie. I 100% agree, Mel.",
    "Thanks so much, Caroline!",
    "Wow, Caroline, that's awesome!",
    "That sounds like a lot of fun!",
    "Congrats on the new job, John!",
    "I'm so proud of you!",
    "haha ok",
    "👍👍🎉",
    "Merci beaucoup !",
]


@pytest.mark.parametrize("text", SMALL_TALK)
def test_small_talk_is_no_memory(text: str) -> None:
    assert user_facts(text) == []
    assert suggestions(text) == []
    assert self_statements(text) == []


def test_the_users_statements_are_kept_whole() -> None:
    text = ("Hey Mel! I went to a LGBTQ support group yesterday and it was so powerful. "
            "The transgender stories were so inspiring! How about you?")
    assert user_facts(text) == [
        "I went to a LGBTQ support group yesterday and it was so powerful.",
        "The transgender stories were so inspiring!",
    ]
    # Topics quote only what the user says about themselves.
    assert self_statements(text) == [
        "I went to a LGBTQ support group yesterday and it was so powerful."]


@pytest.mark.parametrize("text", [
    "my boss Mr. Santos scheduled ANOTHER meeting at 5pm, I'm losing it",
    "Dr. Okafor said my knee is fine, back to running on Saturday",
    "I paid 3.50 for a coffee at the station",
])
def test_an_abbreviation_or_a_number_does_not_end_a_sentence(text: str) -> None:
    assert user_facts(text) == [text]  # "my boss Mr." alone would be the fact found for "boss"


def test_a_line_break_ends_a_sentence() -> None:
    assert user_facts("I adopted a cat named Miso\nShe is a tabby with one white paw") == [
        "I adopted a cat named Miso", "She is a tabby with one white paw"]


@pytest.mark.parametrize("text", ["Hi, I'm Ana.", "I am Ana", "We're in Porto now."])
def test_one_name_of_the_speakers_life_is_enough(text: str) -> None:
    assert len(user_facts(text)) == 1  # "What is my name?" finds it later


@pytest.mark.parametrize("text", [
    "pipefitter. long days",
    "truck's a f-150. runs fine",
    "new truck. f-150. finally",
])
def test_a_terse_message_is_kept_though_no_piece_of_it_says_enough_alone(text: str) -> None:
    assert user_facts(text) == [text]  # cut into sentences, each piece was dropped


@pytest.mark.parametrize("text", ["Got it! Thanks, Maria. I definitely will.", "lol. ok",
                                  "ok. bye", "new truck. f-150. what do you think?"])
def test_pieces_of_small_talk_or_a_question_are_not_read_whole(text: str) -> None:
    assert user_facts(text) == []


def test_praise_of_the_companion_is_not_a_fact_about_the_user() -> None:
    assert user_facts("You're doing an awesome job looking after your family!") == []
    assert user_facts("Your advice helped me pass my driving test.") == [
        "Your advice helped me pass my driving test."]


def test_the_companions_concrete_suggestions_are_kept() -> None:
    reply = ("That sounds hard. You should read \"Becoming Nicole\" by Amy Ellis Nutt. "
             "It is lovely. Have you tried it? Try a warm bath before bed.")
    assert suggestions(reply) == [
        'You should read "Becoming Nicole" by Amy Ellis Nutt.',
        "Try a warm bath before bed.",
    ]


def test_walls_of_text_and_questions_are_no_facts() -> None:
    assert not carries_information("I " + "really " * 80 + "like long sentences.")
    assert not carries_information("Did I tell you about my trip to Xiamen?")
    assert carries_information("I moved to Xiamen in 2019.")


def test_other_languages_keep_their_statements() -> None:
    assert user_facts("Ich habe eine Katze namens Miso.") == ["Ich habe eine Katze namens Miso."]
    assert user_facts("Danke!") == []


def test_what_the_companion_says_about_itself_is_kept_when_it_can_be_contradicted() -> None:
    reply = ("Oh fun! I love jazz. I think that's a lovely plan. My favourite season is autumn. "
             "I'm so happy for you!")
    assert suggestions(reply) == ["I love jazz.", "My favourite season is autumn."]


def test_what_follows_a_question_about_the_person_frames_it() -> None:
    assert user_facts("whos coming round to mine later? i forgot her name lmao") == []
    assert user_facts("What was my new pastime again? I mentioned it earlier.") == []
    assert user_facts("We moved to Berlin last month. Do you remember where my sister lives?"
                      ) == ["We moved to Berlin last month."]
