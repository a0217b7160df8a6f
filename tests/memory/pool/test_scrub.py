"""The pool's scrubber (Presidio, spaCy's parse, the learned look): what says who someone is
goes, what says what the request is stays. Real Presidio, spaCy and MiniLM, and the packaged
look's weights."""

from __future__ import annotations

import re

import pytest

from bot.app.scrubbing import packaged_scrubber
from memory.embeddings.onnx_minilm import OnnxMiniLM
from memory.embeddings.packaged import minilm_tokenizer_file
from memory.embeddings.requantize import requantized_minilm_file
from memory.pool.scrub import PresidioScrubber


@pytest.fixture(scope="module")
def scrubber() -> PresidioScrubber:
    return packaged_scrubber()


def _has(word: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text) is not None


@pytest.mark.parametrize(("text", "gone"), [
    ("I live in Florence and work at Vodafone, suggest a weekend hobby",
     ["Florence", "Vodafone"]),
    ("I'm 41 and my son Pavel turns 9 on 2 April, ideas for his party?", ["41", "Pavel", "9",
                                                                        "2 April"]),
    ("We rent a flat at 17 Canal Street; call me on 0161 496 0731", ["17", "Canal", "0161"]),
    ("paid off 2400 euros of debt this year, I'm so relieved", ["2400"]),
    ("my mum Greta, who just turned 70, loves gardening", ["Greta", "70"]),
    ("Hi from Brno! another word for tired?", ["Brno"]),
    ("34, divorced, two kids, I need a comfort message", ["34"]),  # a number opening it
    ("Acme Corp fired me yesterday, cheer me up", ["Acme"]),  # the detail is the subject
    ("Mercy General pays me 3200 euros a month", ["Mercy", "3200"]),
    ("Write a haiku about Leeds, where I grew up", ["Leeds"]),  # its own clause says whose
    ("my cat Miso turned 10 today!! write her a birthday haiku", ["Miso", "10"]),
    ("I make about 2000 a month and rent is 1900, should I move?", ["2000", "1900"]),
    ("Make a fun reading chart for Tomás, he is 8", ["Tomás", "8"]),
    ("I'm Noor, nursing student. Define 'triage' in 2 sentences", ["Noor"]),
    ("ideas for my housewarming at 12 Calle Mayor, Madrid", ["12", "Calle", "Mayor",
                                                             "Madrid"]),
    # Beside what now stays: an age, a name, a postcode.
    ("my son Idris is 8 and has been off school for 2 weeks", ["Idris", "8"]),
    ("I'm Wren, 44, give me a Spartan workout for 3 weeks", ["Wren", "44"]),
    # Names spaCy misses where chat gives them away; dates and homes around a number.
    ("my sister summer says hi, write her a haiku", ["summer"]),
    ("hey its marco, a rap about socks pls", ["marco"]),
    ("Mateus and I split up, cheer me up", ["Mateus"]),
    ("remind me to call her on her birthday, 2 Nov", ["2", "Nov"]),
    ("my neighbour at number 14 plays drums at night", ["14"]),
    ("my granddaughter Ivy turns 6 on Saturday, a rhyme for her card", ["Ivy", "6",
                                                                       "Saturday"]),
    ("finally paid off the loan, 36 payments of $250", ["36", "250"]),
    ("Hazel says hi! we want a quiz about rivers", ["Hazel"]),
    ("Tunde n me are off to the coast, a packing list?", ["Tunde"]),
    ("hi it's aoife, a poem about rain please", ["aoife"]),
    ("I'm 47, bad back. Gentle stretches for 10 minutes", ["47"]),
    ("just got back to sheffield, cheer me up", ["sheffield"]),
    # What the rules let through and the learned look takes out; a name it never keeps.
    ("ugh bill from accounts yelled at me again, cheer me up", ["bill"]),
    ("I live in Lisbon and want a haiku about Kyoto", ["Lisbon"]),
    ("my parrot Churchill learned a new word!", ["Churchill"]),
])
async def test_what_says_who_someone_is_goes(scrubber: PresidioScrubber, text: str,
                                             gone: list[str]) -> None:
    [scrubbed] = await scrubber.scrub([text])
    assert not [word for word in gone if _has(word, scrubbed)], scrubbed


@pytest.mark.parametrize(("text", "kept"), [
    ("Write a Homeric simile about a storm in 17 syllables", ["Homeric", "17 syllables"]),
    ("write an Italian sonnet about the sea, 14 lines please", ["Italian sonnet", "14 lines"]),
    ("give me a 5-day plan for a trip to Lisbon", ["5-day"]),
    ("I want a morning routine before 7am, 20 minutes a day", ["morning", "7am",
                                                              "20 minutes a day"]),
    ("I'm 52 and want 3 runs a week", ["3 runs"]),
    ("Florentine-style recipe for 4 people, please", ["Florentine-style", "4 people"]),
    # Spans of days and how often, styles, counts after a thing, forms spaCy takes for names.
    ("a keto meal plan for 2 weeks, something new every day", ["2 weeks", "every day"]),
    ("swimming drills 4 times a week, 5 sets of 10 lengths", ["4 times a week",
                                                             "5 sets of 10"]),
    ("a Spartan workout and a Victorian-era insult", ["Spartan", "Victorian-era"]),
    ("a bedtime story, Roald Dahl style", ["Roald Dahl style"]),
    ("a bulking plan, and a lasagne recipe for 6", ["for 6"]),
    ("Limerick about a goat, and a Saturday brunch menu", ["Limerick", "Saturday"]),
    ("an ode in the style of Keats about a winter morning", ["Keats", "winter"]),
    ("I'm tired, a lullaby about the gym please", ["tired", "gym"]),
    # What the rules take out and the learned look keeps as the task's: where a trip goes,
    # what a poem is about, a kind of diet, a budget.
    ("Plan me a 4-day trip to Lisbon in October, under 500 euros", ["Lisbon", "October",
                                                                   "500 euros"]),
    ("write a haiku about Kyoto in spring", ["Kyoto"]),
    ("A Mediterranean diet plan for 2 weeks", ["Mediterranean"]),
    ("ask ben if he wants a 20-minute HIIT workout", ["HIIT"]),
])
async def test_what_says_what_the_request_is_stays(scrubber: PresidioScrubber, text: str,
                                                   kept: list[str]) -> None:
    [scrubbed] = await scrubber.scrub([text])
    assert [word for word in kept if _has(word, scrubbed)] == kept, scrubbed


async def test_a_name_said_in_the_message_goes_from_the_reply_too(
    scrubber: PresidioScrubber
) -> None:
    message, reply = await scrubber.scrub(["I'm Oskar, an antonym for generous?",
                                           "Stingy, Oskar! Or mean, in Oskar's sense."])
    assert "Oskar" not in message + reply


async def test_a_number_said_of_someone_stays_where_it_describes_the_task(
    scrubber: PresidioScrubber
) -> None:
    [scrubbed] = await scrubber.scrub(["I'm 17, write me a haiku of 17 syllables"])
    assert scrubbed.count("17") == 1 and _has("17 syllables", scrubbed), scrubbed


async def test_the_look_reads_the_embedders_own_session_when_it_is_minilm() -> None:
    """A process that embeds with the packaged MiniLM scrubs with the same session (no second
    copy of the model) and the embedder still embeds."""
    embedder = OnnxMiniLM(requantized_minilm_file(), minilm_tokenizer_file())
    try:
        scrubber = packaged_scrubber(embedder)
        [scrubbed] = await scrubber.scrub(["ugh bill from accounts yelled at me again"])
        assert not _has("bill", scrubbed), scrubbed
        [vector] = await embedder.embed(["ugh bill from accounts yelled at me again"])
        assert len(vector) == 384
    finally:
        await embedder.aclose()
