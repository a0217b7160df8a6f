"""Which sentences of a message tell of a plan: one event of the person's life on coming days
("ugh dentist tmrw", "the resit is on the 20th", "we fly to Lisbon next week").

Each clause is read alone. It tells of a plan when a time phrase in it names days from the day
it was said on (`memory.plans.when`) and spaCy's parse says the event is to come and is one
event:

- the verb the phrase hangs on is not in the past, unless the phrase looks ahead ("tomorrow")
  or is where the event is aimed ("booked for Saturday", "it moved to Friday");
- it is not under "if", "might" or "maybe" (a hypothetical), nor negated or called off ("I'm not
  going to the party on Saturday after all", "the interview tomorrow got cancelled");
- it is not a repeat ("every Tuesday", "on Mondays", "Sunday mornings");
- it is no question ("what's the weather on Friday?") and no state ("I'm so tired today");
- the time is when something happens, not what a feeling is about ("I love christmas") or a
  kind of thing ("the christmas party");
- today counts only for a later part of it ("tonight", "at 2pm today"): "today" alone is
  mostly about the moment, and so is a weekday named on that weekday ("Monday again.");
- the time is not behind ("sore since the weekend"), finished ("easter weekend is done") or
  words someone said ("keeps saying 'next week'").

"12/03" is the 12th of March when the message also names March and not December.

A clause with no time word (a weekday, a month, "tomorrow", a date-like number) is not read
further.
The time phrases are found by dateparser and by spaCy's DATE and TIME entities. English only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import regex

from memory.english import English
from memory.plans.when import HOLIDAY, DateReader, Days, day_first, spelled_out
from memory.questions import is_question
from memory.statements import split_sentences

FURTHEST = timedelta(days=400)  # a plan further ahead than this is no plan to follow up
_HYPOTHETICAL_MARKS = frozenset(("if", "unless", "whether", "once"))
_HYPOTHETICAL_AUX = frozenset(("might", "could", "would", "may", "should", "'d", "must"))
_REPEATED = frozenset(("every", "each", "always", "usually", "often", "sometimes", "normally",
                       "weekly", "daily", "nightly", "every other"))
_FUTURE_AUX = frozenset(("will", "'ll", "wo", "shall", "gonna"))
# Verbs of feeling: a time as their object is what is spoken of ("I love christmas").
_FEELINGS = frozenset(("like", "likes", "love", "loves", "hate", "hates", "enjoy", "enjoys",
                       "miss", "dread", "dreads", "prefer", "adore", "detest"))
_HEDGES = frozenset(("maybe", "perhaps", "possibly", "probably", "hopefully"))
_CONDITION = re.compile(r"^\W*(?:if|unless|in case|should)\b", re.I)
_DAY_OR_MONTH = r"(?:0?[1-9]|[12]\d|3[01])"
# The words without which a clause names no day: read no further (a cheap first look).
_TIME_WORD = re.compile(
    r"\b(?:(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|satur|sun)(?:day)?s?|sat|weds|"
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|"
    r"today|tonight|tomorrow|yesterday|weeks?|weekends?|months?|years?|fortnight|days?|"
    r"mornings?|afternoons?|evenings?|nights?|christmas|xmas|easter|thanksgiving|halloween|"
    r"valentine|new year|boxing|later|soon)\b"
    # Numbers that can be a day or a time: "the 12th", "3/4", "2026-12-03", "at 4", "2pm", "in
    # 10 days". A pair is read only where both numbers can be a day or a month and it stands
    # alone: a score ("3-0"), a version ("v1.2") or a code ("msg-38-0") names no day.
    r"|\d(?:st|nd|rd|th)\b|(?<![\w/.-])" + _DAY_OR_MONTH + r"[/.-]" + _DAY_OR_MONTH + r"(?!\d)"
    r"|\b\d{4}-\d\d?-\d\d?\b"
    r"|\b(?:at|on|by|in|from|until|till)\s+\d|\d\s*(?:am|pm)\b"
    r"|\bon\s+the\s+[a-z]+(?:st|nd|rd|th)\b",
    re.I)
_SYMBOLS = regex.compile(r"[\p{So}\p{Sk}\p{Cs}]+")  # emoji: spaCy takes them for nouns
# What makes a plan of today: a later part of the day ("tonight", "at 2pm today"), not "today"
# alone, which is mostly about the moment ("I'm tired today").
_LATER_TODAY = re.compile(r"\b(?:tonight|this (?:afternoon|evening)|later|noon|at \d{1,2}"
                          r"|in (?:an|a few|a couple of|\d+|[a-z]+) (?:hours?|hrs?))\b"
                          r"|\b\d{1,2}(?:[:.]\d\d)?\s*(?:am|pm)\b", re.I)
# Where a clause ends: punctuation, a dash, or an emoji or other symbol.
_CLAUSE_END = regex.compile(r"[,;:!?…()\[\]]+|\s[-\u2013\u2014]+\s|\s*[\p{So}\p{Sk}]+\s*")


@dataclass(frozen=True, slots=True)
class FoundPlan:
    """A sentence that tells of a plan, as said, and the days the plan is on."""

    text: str
    first_day: date
    last_day: date


@dataclass(frozen=True, slots=True)
class _Reading:
    """What holds for every sentence of one message."""

    said_on: date
    others_said: bool  # the message says more than one sentence
    day_first: bool  # "12/03" is the 12th of March


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
        sentences = split_sentences(text)
        reading = _Reading(said_on, others_said=len(sentences) > 1, day_first=day_first(text))
        for sentence in sentences:
            plan = self._plan_in(sentence, reading)
            if plan is not None:
                found.append(plan)
        return found

    def _plan_in(self, sentence: str, reading: _Reading) -> FoundPlan | None:
        """The sentence's first clause that places a coming event. Each clause is read alone
        ("we're off to Seville mid-April, any tips?" asks in its second clause only); a clause
        after one that opens with "if" is a consequence, not a plan."""
        clauses = _clauses(sentence)
        for number, clause in enumerate(clauses):
            if _CONDITION.match(clause):
                return None
            spelled = spelled_out(clause.lower() if clause.isupper() else clause)
            if is_question(clause) or not _TIME_WORD.search(spelled):
                continue  # no time word: neither dateparser nor spaCy is asked
            days = self._event_days(_SYMBOLS.sub(" ", spelled).strip(), reading,
                                    others_said=reading.others_said or len(clauses) > 1)
            if days is not None:
                first, last = self._narrowed(days, clauses[number + 1:], reading.day_first)
                return FoundPlan(sentence, first, last)
        return None

    def _narrowed(self, days: Days, later: list[str], day_first: bool) -> tuple[date, date]:
        """The days, or fewer of them that a later clause names ("next week I'm in Berlin,
        Tuesday to Thursday"; "new job starts next month, on the first")."""
        for clause in later:
            spelled = spelled_out(clause)
            if not _TIME_WORD.search(spelled):
                continue
            # Read from the plan's first day.
            for inner in self._dates.days_in(spelled, days.first, day_first=day_first):
                if days.first <= inner.first and inner.last <= days.last and (
                        inner.last - inner.first < days.last - days.first):
                    return inner.first, inner.last
        return days.first, days.last

    def _event_days(self, clause: str, reading: _Reading, *, others_said: bool
                    ) -> Days | None:
        """The first of the clause's time phrases that places a coming event. spaCy's DATE and
        TIME entities are read too, where dateparser's search finds nothing it can read.
        `others_said`: the message says more than this clause (what "it" may stand for).
        spaCy, most of the work, reads the clause only when a phrase may be to come, and finds
        its entities only when dateparser found nothing."""
        said_on = reading.said_on
        doc: Any = None
        found = self._dates.days_in(clause, said_on, day_first=reading.day_first)
        if not found:
            doc = self._english.parse(_first_word_lowered(clause))
            hints = [(e.start_char, e.end_char) for e in doc.ents
                     if e.label_ in ("DATE", "TIME")]
            found = self._dates.days_at(clause, said_on, hints, day_first=reading.day_first)
        coming = [days for days in found
                  if said_on <= days.first and days.last - said_on <= FURTHEST
                  and (days.last > said_on or _LATER_TODAY.search(days.phrase))
                  and not _today_by_name(days, said_on) and not _quoted(clause, days)]
        if coming and doc is None:
            doc = self._english.parse(_first_word_lowered(clause), entities=False)
        for days in coming:
            span = doc.char_span(days.start, days.end, alignment_mode="expand")
            if span is not None and _to_come(doc, span, days, others_said=others_said,
                                             alone=len(coming) == 1):
                return days
        return None


def _first_word_lowered(clause: str) -> str:
    """The clause with its first word in lower case, as inside a sentence: spaCy's small model
    takes a capitalized opening verb for an order ("Ran my first 10k on Saturday" reads as
    "Run!"). "I" keeps its capital; the length is unchanged, so offsets hold."""
    first = re.match(r"[A-Z][a-z]+\b(?!')", clause)
    return clause if first is None else clause[0].lower() + clause[1:]


def _today_by_name(days: Days, said_on: date) -> bool:
    """A clause that opens with the weekday it is said on is about today ("Monday again.",
    "thursday is quiz night"), not the same weekday after ("exam on Monday", "it moved to
    Monday")."""
    return (days.start == 0 and (days.first - said_on).days == 7
            and bool(_WEEKDAY_ALONE.match(days.phrase)))


_WEEKDAY_ALONE = re.compile(r"^(?:mon|tues|wednes|thurs|fri|satur|sun)day$", re.I)


def _quoted(clause: str, days: Days) -> bool:
    """"keeps saying 'next week' about my raise": the time is words spoken, not a day."""
    before, after = clause[:days.start].rstrip(), clause[days.end:].lstrip()
    opened = days.phrase[:1] in _QUOTES or before[-1:] in _QUOTES
    closed = days.phrase[-1:] in _QUOTES or after[:1] in _QUOTES
    return opened and closed


_QUOTES = frozenset("'\"\u2018\u2019\u201c\u201d")


def _clauses(sentence: str) -> list[str]:
    """The sentence's clauses, each with the mark that ends it ("any tips?" keeps its "?")."""
    clauses, start = [], 0
    for end in _CLAUSE_END.finditer(sentence):
        clauses.append(sentence[start:end.end()])
        start = end.end()
    clauses.append(sentence[start:])
    return [c.strip() for c in clauses if any(ch.isalnum() for ch in c)]


def _to_come(doc: Any, span: Any, days: Days, *, others_said: bool, alone: bool) -> bool:
    """The phrase places one coming event: not a repeat, a hypothetical, something called off,
    the past or a state; and it is when something happens, not what a feeling is about ("I
    love christmas") or a kind of thing ("the christmas party")."""
    verb = _verb_of(span.root)
    if span.root.dep_ == "dobj" and verb.lower_ in _FEELINGS:
        return False
    if span.root.dep_ == "compound" and HOLIDAY.search(span.text) and not alone:
        return False  # "the christmas party on friday" is on Friday
    if _repeated(doc, span, verb) or _hypothetical(doc, verb) or _called_off(verb):
        return False
    before = doc[span.start - 1].lower_ if span.start > 0 else ""
    if before == "since":  # "limping since the weekend": the time is behind
        return False
    # "booked for Saturday", "moved to Friday": the time is where the event is aimed.
    aimed = before in ("for", "to", "till", "until", "by")
    if _past(verb) and (not (days.ahead or aimed) or _was(verb)):
        return False
    return not _a_state(doc, verb, span, others_said=others_said)



def _verb_of(token: Any) -> Any:
    """The verb a phrase hangs on (or the sentence's root when none: "dentist tomorrow")."""
    for ancestor in (token, *token.ancestors):
        if ancestor.pos_ in ("VERB", "AUX"):
            return ancestor
    return token.sent.root


def _repeated(doc: Any, span: Any, verb: Any) -> bool:
    """"every Tuesday", "always on Sundays", "on Mondays", "Sunday mornings", "dialysis mon
    wed fri": a habit. Only what goes with the phrase's own verb counts ("I go to the gym most
    mornings but tomorrow is my first session" plans the session)."""
    own = [t for t in doc if t in span or _verb_of(t) == verb]
    if any(t.lower_ in _REPEATED or t.lower_ in _PLURAL_TIMES for t in own):
        return True
    # Another weekday besides the phrase's own: a week's routine, unless a coming week is named
    # ("from Friday to Sunday" is one phrase) or the other day ends a stay ("arrives Friday and
    # stays till Tuesday").
    if not _DAY_FORMS.intersection(re.findall(r"[a-z]+", span.text.lower())):
        return False  # spaCy may split a day ("wed" as "we'd"): its words are read
    others = [t for t in doc if t not in span and t.lower_ in _DAY_FORMS
              and not (t.i > 0 and doc[t.i - 1].lower_ in _UNTIL)]
    return bool(others) and not any(t.lower_ in ("next", "this") for t in doc)


_DAY_FORMS = frozenset(
    [d for name in ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
     for d in (name, name[:3])] + ["tues", "thurs", "weds"])


_UNTIL = frozenset(("till", "until", "til", "to", "through"))
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
        return bool(verb.lower_ != "got")  # "this week has been a lot"; "I've got": "I have"
    if verb.tag_ == "VBN" and not auxiliaries and verb.dep_ == "ROOT":
        return True  # a participle alone is said of the past ("passed on the second try")
    if _over(verb):
        return True
    chain = [verb, *auxiliaries, *_governing(verb)]
    return any("Past" in t.morph.get("Tense") and "Fin" in t.morph.get("VerbForm")
               for t in chain)


def _over(verb: Any) -> bool:
    """"easter weekend is DONE", "the exams are over": what is finished is past."""
    if verb.lower_ in _FINISHED and any(c.dep_ in ("auxpass", "aux") for c in verb.children):
        return True
    return verb.lemma_ == "be" and any(c.lower_ in _FINISHED and c.dep_ in (
        "acomp", "advmod", "prt", "prep", "attr") and not any(c.children)  # not "over Easter"
        for c in verb.children)


_FINISHED = frozenset(("done", "over", "finished", "through"))


def _governing(verb: Any) -> list[Any]:
    """The verbs `verb` completes ("have" in "was supposed to have"), up to its clause's."""
    heads: list[Any] = []
    while verb.dep_ in ("xcomp", "aux", "auxpass") and verb.head is not verb:
        verb = verb.head
        heads.extend((verb, *(c for c in verb.children if c.dep_ in ("aux", "auxpass"))))
    return heads


def _called_off(verb: Any) -> bool:
    """"I'm not going to the party on Saturday after all", "the interview tomorrow got
    cancelled": no event any more ("can't wait" is no negation of the plan)."""
    chain = [verb, *_governing(verb)]
    if any(t.lower_.startswith(("cancel", "scrap", "postpone")) for t in chain):
        return True
    return any(child.dep_ == "neg" for t in chain for child in t.children
               if t.lower_ != "wait")


def _was(verb: Any) -> bool:
    """"was" or "were" on the verb's way up: "it was supposed to be tomorrow", "the date
    tonight was fine": over, whatever the time phrase says."""
    return any(t.lower_ in ("was", "were")
               for head in (verb, *_governing(verb)) for t in (head, *head.children))


def _a_state(doc: Any, verb: Any, span: Any, *, others_said: bool) -> bool:
    """No event: nothing but the time is named ("happy friday!!", "I'm so tired today",
    "Friday feels so far away"), or the time is what is spoken of ("tomorrow is another day",
    "next week is gonna be so busy")."""
    named = [t for t in doc if t.pos_ in ("NOUN", "PROPN", "VERB") and t not in span
             and t.is_alpha and t.lower_ not in _TIME_NOUNS]
    if not named:  # unless it stands for what was said before ("got a court date, it's...")
        return not others_said or span.root.dep_ in ("nsubj", "nsubjpass")
    if span.root.dep_ not in ("nsubj", "nsubjpass"):
        return False
    return not any(t.pos_ in ("NOUN", "PROPN") and t.lower_ not in _TIME_NOUNS
                   for t in verb.subtree if t not in span)


_TIME_NOUNS = frozenset(("day", "days", "week", "weeks", "month", "time", "lol", "lmao", "omg",
                         "feel", "feels", "feeling", "gonna", "gon", "going", "get", "got"))
