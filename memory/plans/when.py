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
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

import regex

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
_DURATION = re.compile(r"^\W*(?:a|an|\d+|one|two|three|four|five|six|seven|eight|nine|ten|few|"
                       r"several)\s+(?:days?|weeks?|months?|years?|hours?)\b", re.I)
_WEEKEND = re.compile(r"\b(?:(this|next|last|the|on the|over the|at the)\s+)?weekend\b", re.I)
_PART_OF_MONTH = re.compile(
    rf"\b(?:(early|mid|late|(?:the\s+)?end\s+of|the\s+start\s+of|the\s+beginning\s+of)"
    rf"[\s-]*(?:(?:the|this)\s+month|(next)\s+month|({_MONTHS})))\b", re.I)
_WEEK_AFTER_NEXT = re.compile(r"\b(?:the\s+)?week\s+after\s+next\b", re.I)
_REST_OF_WEEK = re.compile(r"\b(?:later|end\s+of)\s+this\s+week\b", re.I)
_HOLIDAY = re.compile(r"\b(christmas eve|christmas day|xmas day|christmas|xmas|"
                      r"new year'?s eve|new year'?s day)\b", re.I)
_DAY_OF_MONTH = re.compile(
    rf"\b(?:on\s+)?the\s+(\d{{1,2}})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?(?:{_MONTHS})\b)", re.I)
# Phrases whose direction is fixed: they name coming days whatever the verb's tense.
_AHEAD = re.compile(r"\b(?:tomorrow|next|in\s+(?:a|an|\d+|[a-z]+)\s+(?:days?|weeks?|"
                    r"months?|fortnight)|this\s+(?:coming|weekend)|"
                    r"coming|from now|day after)\b", re.I)


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
    """Reads the time phrases of texts (dateparser, English, loaded on first use)."""

    def __init__(self) -> None:
        self._parser: Any = None

    def days_in(self, text: str, said_on: date) -> list[Days]:
        """Every time phrase of `text` with the days it names, read as of `said_on`. Blocking
        (dateparser is pure Python): call it from a worker thread."""
        spelled = spelled_out(text)
        found = list(_calendar_phrases(spelled, said_on))
        taken = [(d.start, d.end) for d in found]
        for phrase, start in self._phrases(spelled, said_on):
            end = start + len(phrase)
            if any(start < e and s < end for s, e in taken):
                continue
            days = self._days(phrase, said_on, start)
            if days is not None:
                found.append(days)
        return sorted(found, key=lambda d: d.start)

    def _phrases(self, text: str, said_on: date) -> Iterator[tuple[str, int]]:
        from dateparser.search import search_dates

        # search_dates finds nothing in some texts that end in a comma or an emoji: marks and
        # symbols become spaces, so places in the text stay where they are.
        text = _MARKS.sub(lambda m: " " * len(m.group(0)), text)
        hits = search_dates(text, languages=["en"], settings=self._settings(said_on)) or []
        position = 0
        for phrase, _ in hits:
            start = text.find(phrase, position)
            if start < 0:
                continue
            position = start + len(phrase)
            bare = phrase.strip(" ,.!?").lower()
            if bare not in _NOT_ALONE and not _DURATION.match(bare):
                yield phrase, start

    def _days(self, phrase: str, said_on: date, start: int) -> Days | None:
        """The days dateparser reads `phrase` as: one day, or a calendar week or month when the
        phrase names one ("next week", "in May"); None for a year or what it cannot read."""
        data = self._date_data(phrase, said_on)
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

    def _date_data(self, phrase: str, said_on: date) -> Any:
        from dateparser.date import DateDataParser

        # search_dates misreads some phrases it finds ("the day after tomorrow" as tomorrow);
        # the parser reads each alone correctly.
        return DateDataParser(languages=["en"], settings=self._settings(said_on)
                              ).get_date_data(phrase)

    @staticmethod
    def _settings(said_on: date) -> dict[str, Any]:
        return {"RELATIVE_BASE": datetime(said_on.year, said_on.month, said_on.day, 12),
                "PREFER_DATES_FROM": "future", "RETURN_TIME_AS_PERIOD": True}


def spelled_out(text: str) -> str:
    """`text` with texting spellings written out ("tmrw" as "tomorrow"). The places of the
    phrases found are places in this text."""
    return _SPELLING.sub(lambda m: _SPELLED[m.lastgroup or ""], text)


def _calendar_phrases(text: str, said_on: date) -> Iterator[Days]:
    for match in _WEEKEND.finditer(text):
        if (match.group(1) or "").lower() == "last":
            yield _days(said_on - timedelta(days=7), said_on - timedelta(days=7), match,
                        ahead=False)  # in the past: no plan, and not read again
            continue
        saturday = said_on + timedelta(days=(5 - said_on.weekday()) % 7)
        if said_on.weekday() == 6:  # said on a Sunday: "this weekend" is today
            saturday = said_on - timedelta(days=1)
        if (match.group(1) or "").lower() == "next":
            saturday += timedelta(days=7)
        yield _days(max(saturday, said_on), saturday + timedelta(days=1), match, ahead=True)
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
        yield _days(min(said_on + timedelta(days=1), sunday), sunday, match, ahead=True)
    for match in _HOLIDAY.finditer(text):
        yield _holiday(match, said_on)
    for match in _DAY_OF_MONTH.finditer(text):
        day = _next_day_of_month(said_on, int(match.group(1)))
        if day is not None:
            yield _days(day, day, match, ahead=False)


# The days of a month that "early", "mid", "late" and "end of" name.
_PARTS = {"ear": (1, 10), "mid": (10, 20), "lat": (20, 31), "end": (24, 31), "sta": (1, 10),
          "beg": (1, 10)}


def _holiday(match: re.Match[str], said_on: date) -> Days:
    """Christmas (24 to 26 December; Christmas Day the 25th), its eve, New Year's Eve and Day:
    this year's, or next year's once past."""
    name = match.group(1).lower()
    if "new" in name:
        month_day = (12, 31) if "eve" in name else (1, 1)
    else:
        month_day = (12, 24) if "eve" in name else (12, 25)
    day = date(said_on.year, *month_day)
    if day < said_on and not (name in ("christmas", "xmas") and day + timedelta(days=1)
                              >= said_on):
        day = day.replace(year=said_on.year + 1)
    first, last = day, day
    if name in ("christmas", "xmas"):
        first, last = day - timedelta(days=1), day + timedelta(days=1)
    return _days(max(first, said_on), last, match, ahead=False)


def _days(first: date, last: date, match: re.Match[str], *, ahead: bool) -> Days:
    return Days(first, last, match.group(0), match.start(), match.end(), ahead)


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
