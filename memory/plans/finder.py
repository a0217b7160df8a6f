"""Which sentences of a message tell of a plan: one event of the person's life on coming days
("ugh dentist tmrw", "the resit is on the 20th", "we fly to Lisbon next week").

Each clause is read alone. It tells of a plan when a time phrase in it names days from the day
it was said on (`memory.plans.when`) and spaCy's parse says the event is to come and is one
event:

- the verb the phrase hangs on is not in the past, unless the phrase looks ahead ("tomorrow")
  or is where the event is aimed ("booked for Saturday", "it moved to Friday");
- it is not under "if", "might" or "maybe" (a hypothetical);
- it is not a repeat ("every Tuesday", "on Mondays", "Sunday mornings");
- it is no question ("what's the weather on Friday?") and no state ("I'm so tired today").

English only, as the time phrases are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import regex

from memory.english import English
from memory.plans.when import DateReader, Days, spelled_out
from memory.questions import is_question
from memory.statements import split_sentences

FURTHEST = timedelta(days=400)  # a plan further ahead than this is no plan to follow up
_HYPOTHETICAL_MARKS = frozenset(("if", "unless", "whether", "once"))
_HYPOTHETICAL_AUX = frozenset(("might", "could", "would", "may", "should", "'d", "must"))
_REPEATED = frozenset(("every", "each", "always", "usually", "often", "sometimes", "normally",
                       "weekly", "daily", "nightly", "every other"))
_FUTURE_AUX = frozenset(("will", "'ll", "wo", "shall", "gonna"))
_HEDGES = frozenset(("maybe", "perhaps", "possibly", "probably", "hopefully"))
_CONDITION = re.compile(r"^\W*(?:if|unless|in case|should)\b", re.I)
# Where a clause ends: punctuation, a dash, or an emoji or other symbol.
_CLAUSE_END = regex.compile(r"[,;:!?…()\[\]]+|\s[-\u2013\u2014]+\s|\s*[\p{So}\p{Sk}]+\s*")


@dataclass(frozen=True, slots=True)
class FoundPlan:
    """A sentence that tells of a plan, as said, and the days the plan is on."""

    text: str
    first_day: date
    last_day: date


class PlanFinder:
    """Finds plans in messages, with spaCy's small English model (`memory.english`)."""

    def __init__(self, english: English | None = None, dates: DateReader | None = None
                 ) -> None:
        self._english = english or English()
        self._dates = dates or DateReader()

    def find(self, text: str, said_on: date) -> list[FoundPlan]:
        """The plans `text` tells of, said on `said_on`: at most one per sentence. Blocking:
        call it from a worker thread."""
        found = []
        for number, sentence in enumerate(split_sentences(text)):
            plan = self._plan_in(sentence, said_on, said_before=number > 0)
            if plan is not None:
                found.append(plan)
        return found

    def _plan_in(self, sentence: str, said_on: date, *, said_before: bool
                 ) -> FoundPlan | None:
        """The sentence's first clause that places a coming event. Each clause is read alone
        ("we're off to Seville mid-April, any tips?" asks in its second clause only); a clause
        after one that opens with "if" is a consequence, not a plan."""
        for clause in _clauses(sentence):
            if _CONDITION.match(clause):
                return None
            if is_question(clause):
                continue
            spelled = spelled_out(clause.lower() if clause.isupper() else clause)
            coming = [days for days in self._dates.days_in(spelled, said_on)
                      if said_on <= days.first and days.last - said_on <= FURTHEST]
            days = (self._event_days(spelled, coming, said_before=said_before)
                    if coming else None)
            said_before = True
            if days is not None:
                return FoundPlan(sentence, days.first, days.last)
        return None

    def _event_days(self, clause: str, coming: list[Days], *, said_before: bool
                    ) -> Days | None:
        """The first of the clause's time phrases that places a coming event."""
        doc = self._english.parse(clause)
        for days in coming:
            span = doc.char_span(days.start, days.end, alignment_mode="expand")
            if span is not None and _to_come(doc, span, days, said_before=said_before):
                return days
        return None



def _clauses(sentence: str) -> list[str]:
    """The sentence's clauses, each with the mark that ends it ("any tips?" keeps its "?")."""
    clauses, start = [], 0
    for end in _CLAUSE_END.finditer(sentence):
        clauses.append(sentence[start:end.end()])
        start = end.end()
    clauses.append(sentence[start:])
    return [c.strip() for c in clauses if any(ch.isalnum() for ch in c)]


def _to_come(doc: Any, span: Any, days: Days, *, said_before: bool) -> bool:
    """The phrase places one coming event: not a repeat, a hypothetical, the past or a state."""
    verb = _verb_of(span.root)
    if _repeated(doc, span) or _hypothetical(doc, verb):
        return False
    # "booked for Saturday", "moved to Friday": the time is where the event is aimed.
    aimed = span.start > 0 and doc[span.start - 1].lower_ in ("for", "to", "till", "until",
                                                              "by")
    if _past(verb) and (not (days.ahead or aimed) or _was(verb)):
        return False
    return not _a_state(doc, verb, span, said_before=said_before)


def _verb_of(token: Any) -> Any:
    """The verb a phrase hangs on (or the sentence's root when none: "dentist tomorrow")."""
    for ancestor in (token, *token.ancestors):
        if ancestor.pos_ in ("VERB", "AUX"):
            return ancestor
    return token.sent.root


def _repeated(doc: Any, span: Any) -> bool:
    """"every Tuesday", "always on Sundays", "on Mondays", "Sunday mornings": a habit."""
    if any(t.lower_ in _REPEATED for t in doc):
        return True
    return any(t.lower_ in _PLURAL_TIMES for t in doc)


_PLURAL_TIMES = frozenset(f"{day}days" for day in (
    "mon", "tues", "wednes", "thurs", "fri", "satur", "sun")) | frozenset((
        "weekends", "mornings", "nights", "evenings", "afternoons"))


def _hypothetical(doc: Any, verb: Any) -> bool:
    """Under "if", a "might" or a "maybe": not yet a plan."""
    if any(t.lower_ in _HEDGES for t in doc):
        return True
    for head in (verb, *verb.ancestors):
        for child in head.children:
            if child.dep_ == "mark" and child.lower_ in _HYPOTHETICAL_MARKS:
                return True
            if child.dep_ == "aux" and child.lower_ in _HYPOTHETICAL_AUX:
                return True
            if child.dep_ == "advcl" and any(g.dep_ == "mark" and g.lower_ in
                                             _HYPOTHETICAL_MARKS for g in child.children):
                return True
    return False


def _past(verb: Any) -> bool:
    """The verb, or one it depends on, is in the past ("we flew back", "my interview was on
    Friday", "I was supposed to ..."), with no "will" of its own."""
    auxiliaries = [c for c in verb.children if c.dep_ in ("aux", "auxpass")]
    if any(a.lower_ in _FUTURE_AUX for a in auxiliaries):
        return False
    if verb.tag_ == "VBN" and any(a.lower_ in ("has", "have", "'s", "'ve", "had")
                                  for a in auxiliaries):
        return True  # "this week has been a lot"
    chain = [verb, *auxiliaries, *_governing(verb)]
    return any("Past" in t.morph.get("Tense") and "Fin" in t.morph.get("VerbForm")
               for t in chain)


def _governing(verb: Any) -> list[Any]:
    """The verbs `verb` completes ("have" in "was supposed to have"), up to its clause's."""
    heads: list[Any] = []
    while verb.dep_ in ("xcomp", "aux", "auxpass") and verb.head is not verb:
        verb = verb.head
        heads.extend((verb, *(c for c in verb.children if c.dep_ in ("aux", "auxpass"))))
    return heads


def _was(verb: Any) -> bool:
    """"was" or "were" on the verb's way up: "it was supposed to be tomorrow", "the date
    tonight was fine": over, whatever the time phrase says."""
    return any(t.lower_ in ("was", "were")
               for head in (verb, *_governing(verb)) for t in (head, *head.children))


def _a_state(doc: Any, verb: Any, span: Any, *, said_before: bool) -> bool:
    """No event: nothing but the time is named ("happy friday!!", "I'm so tired today",
    "Friday feels so far away"), or the time is what is spoken of ("tomorrow is another day",
    "next week is gonna be so busy")."""
    named = [t for t in doc if t.pos_ in ("NOUN", "PROPN", "VERB") and t not in span
             and t.is_alpha and t.lower_ not in _TIME_NOUNS]
    if not named:  # unless "it" stands for what was said before ("got a court date, it's...")
        return not (said_before and any(t.lower_ in ("it", "that", "this") and
                                         t.dep_ in ("nsubj", "nsubjpass") for t in doc))
    return span.root.dep_ in ("nsubj", "nsubjpass") and not any(
        t.pos_ in ("NOUN", "PROPN") and t.lower_ not in _TIME_NOUNS for t in verb.subtree
        if t not in span)


_TIME_NOUNS = frozenset(("day", "days", "week", "weeks", "month", "time", "lol", "lmao", "omg",
                         "feel", "feels", "feeling", "gonna", "going", "get", "got"))
