"""When something happens: the days a time phrase names, read against the day it was said.

dateparser finds and reads the phrases ("Friday", "tomorrow night", "in two weeks", "on the 5th
of June", "next month"). A phrase that names a calendar week or a month ("next week", "in May")
names all its days. Read here, because dateparser does not read them or reads them wrongly: the
weekend, the end or middle of a month, Christmas and New Year, a day of the month alone ("on the
12th", which dateparser takes for December) and texting spellings ("tmrw", "2moro").
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

import regex
from dateutil.easter import easter

_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|"
           "december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")
# Texting spellings dateparser does not know, and what they stand for.
_SPELLINGS = {
    "tomorrow": r"tmrw|tmr|tmrow|tmw|tomoz|tomorow|tommorow|tommorrow|2morrow|2moro|2mrw|2mro",
    "tonight": r"tonite|2nite|2night",
    "next": r"nxt",
    "weekend": r"wknd|wkend|w/e",
    "Thursday": r"thurs|thur|thu",
    "Wednesday": r"weds",
    "Saturday": r"sat(?=\s+(?:morning|night|evening|afternoon)\b)",
    "2": r"a\s+couple\s+(?:of\s+)?(?=days|weeks)",
    "New Year's Eve": r"nye",
}
_SPELLING = re.compile("|".join(rf"(?P<w{i}>\b(?:{forms}))(?!\w)"
                                for i, forms in enumerate(_SPELLINGS.values())), re.IGNORECASE)
_SPELLED = {f"w{i}": word for i, word in enumerate(_SPELLINGS)}
_MARKS = regex.compile(r"[,;!?…()\[\]\"“”*~]|[\p{So}\p{Sk}\p{Cs}]")
# Words dateparser reads as dates that, alone, are ordinary words ("we", "may", "second").
_NOT_ALONE = frozenset(("we", "may", "sun", "sat", "mar", "now", "second", "march", "mon", "a",
                        "the", "on", "at", "in", "day", "week", "month", "year", "date", "time",
                        "one day", "some day", "someday", "the day", "a day"))
# A duration alone ("5 days of pastel de nata") places nothing; "in 5 days" does.
_DURATION = re.compile(r"^\W*(?:(?:from|for|after|of|the)\s+)?"
                       r"(?:a|an|\d+|one|two|three|four|five|six|seven|eight|nine|ten|few|"
                       r"several)\s+(?:days?|weeks?|months?|years?|hours?|minutes?|mins?)\b",
                       re.I)
# A time of day with no day: when something happens today, or every day, not a day.
_CLOCK_ONLY = re.compile(r"^\W*(?:at\s+|by\s+|around\s+)?\d{1,2}(?:[:.]\d\d)?\s*(?:am|pm|h)?"
                         r"(?:\s+now)?\W*$", re.I)
_WEEKEND = re.compile(r"\b(?:(this|next|last|the|on the|over the|at the)\s+)?weekend\b"
                      r"(?:\s+of\s+the\s+(\d{1,2})(?:st|nd|rd|th)"
                      r"|\s+after\s+(this(?:\s+one)?|next))?", re.I)
_DAY_NAMES = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
# British: "a week on Tuesday", "Tuesday week": the Tuesday after the coming one.
_WEEK_ON = re.compile(rf"\b(?:a\s+week\s+on\s+({_DAY_NAMES})|({_DAY_NAMES})\s+week)\b", re.I)
_PART_OF_MONTH = re.compile(
    rf"\b(?:(early|mid|late|(?:the\s+)?end\s+of|the\s+start\s+of|the\s+beginning\s+of"
    rf"|(?:the\s+)?middle\s+of)"
    rf"[\s-]*(?:(?:the|this)\s+month|(next)\s+month|({_MONTHS})))\b", re.I)
_WEEK_AFTER_NEXT = re.compile(r"\b(?:the\s+)?week\s+after\s+next\b", re.I)
_REST_OF_WEEK = re.compile(r"\b(later|(?:the\s+)?end\s+of)\s+(this|next)\s+week\b", re.I)
_WEEK_FROM_NOW = re.compile(r"\b(?:this\s+time\s+next\s+week|a\s+week\s+(?:from\s+)?today)\b",
                            re.I)
_DAY_OF_NEXT_MONTH = re.compile(
    r"\b(?:on\s+)?the\s+(\d{1,2})(?:st|nd|rd|th)\s+of\s+(this|next)\s+month\b", re.I)
HOLIDAY = re.compile(r"\b(christmas eve|christmas day|xmas day|christmas|xmas|"
                      r"new year'?s eve|new year'?s day|boxing day|easter sunday|"
                      r"easter monday|good friday|easter weekend|easter|thanksgiving|halloween|"
                      r"valentine'?s(?: day)?)\b", re.I)
_DAY_OF_MONTH = re.compile(
    rf"\b(?:on\s+)?the\s+(\d{{1,2}})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?(?:{_MONTHS})\b)", re.I)
# Phrases whose direction is fixed: they name coming days whatever the verb's tense.
_AHEAD = re.compile(r"\b(?:tomorrow|tonight|next|in\s+(?:a|an|\d+|[a-z]+)\s+(?:days?|weeks?|"
                    r"months?|fortnight)|this\s+(?:coming|weekend|afternoon|evening)|"
                    r"coming|from now|day after)\b", re.I)
_ORDINALS = ("first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
             "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth "
             "twentieth").split()
# "on the first": a day of the month in words (with "on": "the first time" is no day).
_DAY_IN_WORDS = re.compile(rf"\bon\s+the\s+({'|'.join(_ORDINALS)})\b"
                           rf"(?!\s+(?:of\s+)?(?:{_MONTHS})\b)", re.I)
# "from Friday to Sunday", "Tuesday to Thursday": the days from one to the other.
_DAY_RANGE = re.compile(rf"\b(?:from\s+)?({_DAY_NAMES})\s+(?:to|till|until|through|-|\u2013)\s+"
                        rf"({_DAY_NAMES})\b", re.I)


@dataclass(frozen=True, slots=True)
class Days:
    """The days a phrase of a text names: from `first` to `last`. `start` and `end` are the
    phrase's place in the text; `ahead`: the phrase itself says the days are to come."""

    first: date
    last: date
    phrase: str
    start: int
    end: int
    ahead: bool


class DateReader:
    """Reads the time phrases of texts (dateparser, English, imported on first use)."""

    def days_in(self, text: str, said_on: date, *, day_first: bool = False) -> list[Days]:
        """Every time phrase of `text` that dateparser or the calendar rules find, with the
        days it names, read as of `said_on`. `day_first`: "12/03" is the 12th of March (see
        `day_first`). Blocking (dateparser is pure Python): call it from a worker thread."""
        found: list[Days] = []
        for named in sorted(_calendar_phrases(text, said_on), key=lambda d: (d.start, -d.end)):
            if not any(d.start <= named.start and named.end <= d.end for d in found):
                found.append(named)  # "the 25th" in "the weekend of the 25th" is read with it
        return self._read(said_on, self._phrases(text, said_on, day_first), found,
                          day_first)

    def days_at(self, text: str, said_on: date, places: Sequence[tuple[int, int]], *,
                day_first: bool = False) -> list[Days]:
        """The days named by the phrases at `places` in `text` (spaCy's DATE and TIME
        entities, where `days_in` found nothing), read as of `said_on`."""
        return self._read(said_on, [(text[start:end], start) for start, end in places],
                          [], day_first)

    def _read(self, said_on: date, phrases: Iterable[tuple[str, int]],
              found: list[Days], day_first: bool) -> list[Days]:
        """`found` and the days of each phrase that lies outside those already read."""
        taken = [(d.start, d.end) for d in found]
        for phrase, start in phrases:
            end = start + len(phrase)
            if any(start < e and s < end for s, e in taken):
                continue
            days = self._days(phrase, said_on, start, day_first)
            if days is not None:
                found.append(days)
                taken.append((start, end))
        return sorted(found, key=lambda d: d.start)

    def _phrases(self, text: str, said_on: date, day_first: bool
                 ) -> Iterator[tuple[str, int]]:
        from dateparser.search import search_dates

        # search_dates finds nothing in some texts that end in a comma or an emoji: marks and
        # symbols become spaces, so places in the text stay where they are.
        text = _MARKS.sub(lambda m: " " * len(m.group(0)), text)
        hits = search_dates(text, languages=["en"],
                            settings=self._settings(said_on, day_first)) or []
        position = 0
        for phrase, _ in hits:
            start = text.find(phrase, position)
            if start < 0:
                continue
            position = start + len(phrase)
            phrase = _TRAILING_JOIN.sub("", phrase)  # "Friday and" is "Friday"
            if _a_time(phrase):
                yield phrase, start

    def _days(self, phrase: str, said_on: date, start: int, day_first: bool
              ) -> Days | None:
        """The days dateparser reads `phrase` as: one day, or a calendar week or month when the
        phrase names one ("next week", "in May"); None for a year, a time of day alone ("at
        5pm") or what it cannot read."""
        if not _a_time(phrase) or _CLOCK_ONLY.match(phrase):
            return None
        data = self._date_data(phrase, said_on, day_first)
        if data.date_obj is None:
            return None
        day = data.date_obj.date()
        lowered = phrase.lower()
        if data.period == "week" and re.search(r"\b(?:this|next|coming)\s+week\b", lowered):
            first = max(said_on, day - timedelta(days=day.weekday()))
            last = day + timedelta(days=6 - day.weekday())
        elif data.period == "month" and not re.search(r"\d", lowered):
            first = max(said_on, day.replace(day=1))
            last = day.replace(day=calendar.monthrange(day.year, day.month)[1])
        elif data.period in ("year", "month"):
            return None
        else:
            first = last = day
        return Days(first, last, phrase, start, start + len(phrase),
                    bool(_AHEAD.search(phrase)))

    def _date_data(self, phrase: str, said_on: date, day_first: bool) -> Any:
        from dateparser.date import DateDataParser

        # search_dates misreads some phrases it finds ("the day after tomorrow" as tomorrow);
        # the parser reads each alone correctly.
        return DateDataParser(languages=["en"], settings=self._settings(said_on, day_first)
                              ).get_date_data(phrase)

    @staticmethod
    def _settings(said_on: date, day_first: bool) -> dict[str, Any]:
        return {"RELATIVE_BASE": datetime(said_on.year, said_on.month, said_on.day, 12),
                "PREFER_DATES_FROM": "future", "RETURN_TIME_AS_PERIOD": True,
                "DATE_ORDER": "DMY" if day_first else "MDY"}


_TRAILING_JOIN = re.compile(r"\s+(?:and|or|but|then)$", re.I)


def day_first(text: str) -> bool:
    """Whether the text writes the day first in a date such as "12/03": it also names the
    month that reading gives and not the other ("on 12/03 (that's 12 March)")."""
    named = {_month_number(m.group(0)) for m in _MONTH_NAME.finditer(text)}
    for match in _NUMERIC_DATE.finditer(text):
        first, second = int(match.group(1)), int(match.group(2))
        if second in named and first not in named:
            return True
    return False


_MONTH_NAME = re.compile(rf"\b(?:{_MONTHS})\b", re.I)
_NUMERIC_DATE = re.compile(r"\b(\d{1,2})[/.](\d{1,2})\b")


def spelled_out(text: str) -> str:
    """`text` with texting spellings written out ("tmrw" as "tomorrow"). The places of the
    phrases found are places in this text."""
    return _SPELLING.sub(lambda m: _SPELLED[m.lastgroup or ""], text)


def _calendar_phrases(text: str, said_on: date) -> Iterator[Days]:
    for match in _WEEKEND.finditer(text):
        which = (match.group(1) or "").lower()
        if which == "last":
            yield _days(said_on - timedelta(days=7), said_on - timedelta(days=7), match,
                        ahead=False)  # in the past: no plan, and not read again
            continue
        if match.group(2):  # "the weekend of the 25th"
            day = _next_day_of_month(said_on, int(match.group(2)))
            if day is not None:
                saturday = day - timedelta(days=(day.weekday() - 5) % 7 if day.weekday() >= 5
                                           else -(5 - day.weekday()))
                yield _days(max(saturday, said_on), saturday + timedelta(days=1), match,
                            ahead=False)
            continue
        saturday = said_on + timedelta(days=(5 - said_on.weekday()) % 7)
        if said_on.weekday() == 6:  # said on a Sunday: "this weekend" is today
            saturday = said_on - timedelta(days=1)
        if which == "next":
            saturday += timedelta(days=7)
        if match.group(3):  # "the weekend after this one", "the weekend after next"
            saturday += timedelta(days=7 if match.group(3).lower().startswith("this") else 14)
        yield _days(max(saturday, said_on), saturday + timedelta(days=1), match,
                    ahead=which in ("this", "next"))
    for match in _WEEK_ON.finditer(text):
        name = (match.group(1) or match.group(2)).lower()
        weekday = _DAY_NAMES.split("|").index(name)
        coming = said_on + timedelta(days=(weekday - said_on.weekday()) % 7 or 7)
        later = coming + timedelta(days=7)
        yield _days(later, later, match, ahead=True)
    for match in _PART_OF_MONTH.finditer(text):
        month = _month(said_on, match.group(2), match.group(3))
        part = match.group(1).lower().removeprefix("the ")
        first, last = _PARTS[part[:3]]
        last_day = _last_day(month)
        if part.startswith("end"):  # its last week
            first = last_day.day - 6
        yield _days(max(said_on, month.replace(day=first)),
                    max(said_on, min(last_day, month.replace(day=min(last, last_day.day)))),
                    match, ahead=False)
    for match in _WEEK_AFTER_NEXT.finditer(text):
        monday = said_on - timedelta(days=said_on.weekday()) + timedelta(days=14)
        yield _days(monday, monday + timedelta(days=6), match, ahead=True)
    for match in _REST_OF_WEEK.finditer(text):
        sunday = said_on + timedelta(days=6 - said_on.weekday())
        if match.group(2).lower() == "next":
            sunday += timedelta(days=7)
        opening = min(said_on + timedelta(days=1), sunday)
        if match.group(1).lower() != "later":  # its end: Friday to Sunday
            opening = max(said_on, sunday - timedelta(days=2))
        yield _days(opening, sunday, match, ahead=True)
    for match in _WEEK_FROM_NOW.finditer(text):  # "this time next week"
        yield _days(said_on + timedelta(days=7), said_on + timedelta(days=7), match, ahead=True)
    for match in HOLIDAY.finditer(text):
        yield _holiday(match, said_on)
    for match in _DAY_OF_MONTH.finditer(text):
        day = _next_day_of_month(said_on, int(match.group(1)))
        if day is not None:
            yield _days(day, day, match, ahead=False)
    for match in _DAY_OF_NEXT_MONTH.finditer(text):  # "on the 19th of next month"
        month = _month(said_on, match.group(2), None)
        if int(match.group(1)) <= _last_day(month).day:
            day = month.replace(day=int(match.group(1)))
            yield _days(day, day, match, ahead=match.group(2).lower() == "next")
    for match in _DAY_IN_WORDS.finditer(text):
        day = _next_day_of_month(said_on, _ORDINALS.index(match.group(1).lower()) + 1)
        if day is not None:
            yield _days(day, day, match, ahead=False)
    for match in _DAY_RANGE.finditer(text):
        opening = _coming(said_on, match.group(1))
        yield _days(opening, _coming(opening, match.group(2)), match, ahead=False)


# The days of a month that "early", "mid", "late" and "end of" name.
_PARTS = {"ear": (1, 10), "mid": (10, 20), "lat": (20, 31), "end": (24, 31), "sta": (1, 10),
          "beg": (1, 10)}


def _holiday(match: re.Match[str], said_on: date) -> Days:
    """A holiday's days: this year's, or next year's once they are past. Christmas is 24 to 26
    December (Christmas Day the 25th), Easter Good Friday to Easter Monday, Thanksgiving the
    fourth Thursday of November (the United States')."""
    name = match.group(1).lower().replace("\u2019", "'")
    for year in (said_on.year, said_on.year + 1):
        first, last = _holiday_days(name, year)
        if last >= said_on:
            return _days(max(first, said_on), last, match, ahead=False)
    return _days(first, last, match, ahead=False)


def _holiday_days(name: str, year: int) -> tuple[date, date]:
    if name.startswith(("easter", "good friday")):
        sunday = easter(year)
        return {"easter sunday": (sunday, sunday),
                "easter monday": (sunday + timedelta(days=1), sunday + timedelta(days=1)),
                "good friday": (sunday - timedelta(days=2), sunday - timedelta(days=2)),
                "easter weekend": (sunday - timedelta(days=1), sunday),
                }.get(name, (sunday - timedelta(days=2), sunday + timedelta(days=1)))
    if name == "thanksgiving":
        first_thursday = 1 + (3 - date(year, 11, 1).weekday()) % 7
        day = date(year, 11, first_thursday + 21)
        return day, day
    fixed = {"christmas eve": (12, 24), "christmas day": (12, 25), "xmas day": (12, 25),
             "new year's eve": (12, 31), "new years eve": (12, 31), "new year's day": (1, 1),
             "new years day": (1, 1), "boxing day": (12, 26), "halloween": (10, 31)}
    if name in fixed:
        day = date(year, *fixed[name])
        return day, day
    if name.startswith("valentine"):
        return date(year, 2, 14), date(year, 2, 14)
    return date(year, 12, 24), date(year, 12, 26)  # Christmas


def _a_time(phrase: str) -> bool:
    """Not a word dateparser reads as a date that alone is an ordinary word ("we", "may"),
    nor a duration alone ("5 days of pastel de nata", "back from two weeks in Greece"), nor
    an ordinal alone ("our 25th anniversary")."""
    bare = phrase.strip(" ,.!?").lower()
    return (bare not in _NOT_ALONE and not _DURATION.match(bare)
            and not _ORDINAL_ALONE.match(bare))


_ORDINAL_ALONE = re.compile(r"^\d{1,2}(?:st|nd|rd|th)$")


def _days(first: date, last: date, match: re.Match[str], *, ahead: bool) -> Days:
    return Days(first, last, match.group(0), match.start(), match.end(), ahead)


def _coming(day: date, name: str) -> date:
    """The first day named `name` ("friday") on or after `day`."""
    weekday = _DAY_NAMES.split("|").index(name.lower())
    return day + timedelta(days=(weekday - day.weekday()) % 7)


def _month(said_on: date, relative: str | None, name: str | None) -> date:
    """The first day of the month meant: this one, the next, or the named one (this year's,
    or next year's once it is over)."""
    this = said_on.replace(day=1)
    if relative and relative.lower() == "next":
        return _last_day(this) + timedelta(days=1)
    if not name:
        return this
    number = _month_number(name)
    month = date(said_on.year, number, 1)
    return month if _last_day(month) >= said_on else month.replace(year=said_on.year + 1)


def _month_number(name: str) -> int:
    prefix = name.lower()[:3]
    return next(i for i in range(1, 13) if calendar.month_name[i].lower().startswith(prefix))


def _last_day(month: date) -> date:
    return month.replace(day=calendar.monthrange(month.year, month.month)[1])


def _next_day_of_month(said_on: date, number: int) -> date | None:
    """The coming day with this number: this month's, or next month's once it has passed."""
    year, month = said_on.year, said_on.month
    for _ in range(3):  # the 31st skips months without one
        if number <= calendar.monthrange(year, month)[1]:
            day = date(year, month, number)
            if day >= said_on:
                return day
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return None
