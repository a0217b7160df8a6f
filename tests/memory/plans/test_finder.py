"""Plans found in what people say, with their days (memory/plans/finder.py)."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from memory.english import English
from memory.plans.finder import PlanFinder

MONDAY = date(2026, 3, 9)


@pytest.fixture(scope="module")
def finder() -> PlanFinder:
    return PlanFinder()


@pytest.mark.parametrize(("text", "first", "last"), [
    ("my interview is on Friday, wish me luck", date(2026, 3, 13), date(2026, 3, 13)),
    ("ugh dentist tmrw", date(2026, 3, 10), date(2026, 3, 10)),
    ("we fly to Lisbon next week", date(2026, 3, 16), date(2026, 3, 22)),
    ("the exam went badly but the resit is on the 20th", date(2026, 3, 20), date(2026, 3, 20)),
    ("Back from work. Mum's op is in two days, nervous", date(2026, 3, 11), date(2026, 3, 11)),
    ("got tickets for Saturday!!", date(2026, 3, 14), date(2026, 3, 14)),
    ("Dad's having his hip replaced a week on Tuesday", date(2026, 3, 17), date(2026, 3, 17)),
    ("over easter we drive down to my parents", date(2026, 4, 3), date(2026, 4, 6)),
    ("work christmas party on friday, what do I wear", date(2026, 3, 13), date(2026, 3, 13)),
    ("I go to the gym most mornings but tomorrow is my first session with a trainer",
     date(2026, 3, 10), date(2026, 3, 10)),
    ("interview at 2pm today, wish me luck", MONDAY, MONDAY),
    ("hen do in Dublin from Friday to Sunday", date(2026, 3, 13), date(2026, 3, 15)),
    ("next week I'm in Berlin for a conference, Tuesday to Thursday", date(2026, 3, 17),
     date(2026, 3, 19)),
    ("new job starts next month, on the first", date(2026, 4, 1), date(2026, 4, 1)),
    ("Tomorrow is my first day at the new job and I can't sleep", date(2026, 3, 10),
     date(2026, 3, 10)),
    ("I'm hosting Thanksgiving this year", date(2026, 11, 26), date(2026, 11, 26)),
    # The day first, as the message says elsewhere (12/03 is otherwise the 3rd of December).
    ("my viva is on 12/03 (12 March, I'm in Scotland)", date(2026, 3, 12), date(2026, 3, 12)),
    ("gotta be up at 5 tomorrow, early train", date(2026, 3, 10), date(2026, 3, 10)),
    ("the stag do is the weekend after this one", date(2026, 3, 21), date(2026, 3, 22)),
    ("my essay is due the end of this week", date(2026, 3, 13), date(2026, 3, 15)),
    # Said on a Monday: the Monday after.
    ("exam on monday, I'm terrified", date(2026, 3, 16), date(2026, 3, 16)),
    ("the interview moved to Monday", date(2026, 3, 16), date(2026, 3, 16)),
    ("Over Easter we're staying with my aunt", date(2026, 4, 3), date(2026, 4, 6)),
    ("New Year's Eve party at ours this year", date(2026, 12, 31), date(2026, 12, 31)),
    ("my dad arrives Thursday and stays till Sunday", date(2026, 3, 12), date(2026, 3, 12)),
    ("driving lesson in 3 hours, nervous", MONDAY, MONDAY),
    ("my scan is on the 3rd of next month", date(2026, 4, 3), date(2026, 4, 3)),
    ("moving house in the middle of May", date(2026, 5, 10), date(2026, 5, 20)),
    ("off to Madrid at the end of next week", date(2026, 3, 20), date(2026, 3, 22)),
    ("gig this time next week!!", date(2026, 3, 16), date(2026, 3, 16)),
    ("the 12 week scan is on Thursday", date(2026, 3, 12), date(2026, 3, 12)),
])
def test_a_coming_event_is_a_plan_on_the_days_it_names(
        finder: PlanFinder, text: str, first: date, last: date) -> None:
    [plan] = finder.find(text, MONDAY)
    assert (plan.first_day, plan.last_day) == (first, last)
    assert plan.text in text


@pytest.mark.parametrize("text", [
    "my interview was on Friday",  # over
    "we flew back yesterday",
    "I have yoga every Tuesday",  # a habit
    "church on sunday mornings",
    "if I get the job I'll move next month",  # a hypothetical
    "maybe I'll go to the gym tomorrow, we'll see",
    "what's the weather on Friday?",  # a question
    "tomorrow is another day",  # no event
    "I'm so tired today",
    "I really want to learn the piano",  # no time
    "today is my first day without smoking",  # today alone: the moment
    "I really love christmas",  # the time is what is spoken of
    "the weekend went by way too fast",
    "dialysis mon wed fri, so my week is kind of planned for me",  # a routine
    "the interview tomorrow got cancelled, so annoying",  # called off
    "I'm not going to the party on Saturday after all",
    "back from two weeks in Greece",  # a duration
    "Walked my first half marathon on Sunday!!",  # an opening verb in the past
    "easter break is done, back to the grind",  # finished
    "April is the cruellest month, I swear",  # the time is what is spoken of
    "she keeps saying 'next week' about fixing the sink",  # words said
    "Monday again, ugh, coffee needed.",  # said on a Monday: today
    "my knee has been sore since the weekend",
])
def test_what_is_not_a_coming_event_is_no_plan(finder: PlanFinder, text: str) -> None:
    assert finder.find(text, MONDAY) == []


def test_a_plan_said_at_the_end_of_a_year_lands_in_the_next(finder: PlanFinder) -> None:
    [plan] = finder.find("flying home on the 3rd!", date(2026, 12, 30))
    assert plan.first_day == date(2027, 1, 3)


class CountingEnglish(English):
    """spaCy's English, counting the clauses it is asked to parse."""

    def __init__(self) -> None:
        super().__init__()
        self.parsed: list[str] = []

    def parse(self, text: str, *, entities: bool = True) -> Any:
        self.parsed.append(text)
        return super().parse(text, entities=entities)


@pytest.mark.parametrize("text", [
    "we won 3-0, what a match (ticket msg-38-0)",
    "updated the app to v1.2.3 and it's fine",
])
def test_numbers_that_name_no_day_are_not_parsed(text: str) -> None:
    """A score, a version or a code is no date: the clause is not read for a plan at all
    (the parse is most of a message's CPU for plans)."""
    english = CountingEnglish()
    assert PlanFinder(english=english).find(text, MONDAY) == []
    assert english.parsed == []


def test_a_date_in_numbers_is_read() -> None:
    english = CountingEnglish()
    [plan] = PlanFinder(english=english).find("my exam is on 12/03", MONDAY)
    assert plan.first_day == date(2026, 12, 3)
    assert english.parsed != []
