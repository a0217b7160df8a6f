"""Whether a detail found in a text says something of a person, or describes the task.

Presidio and spaCy find places, peoples, dates, numbers, organisations and capitalized words
wherever they are. Most say who someone is, and all of them go, but for what a request is made
of, which identifies no one:

- a form of writing, however spaCy tags it ("Limerick about a cat", "Ode to coffee");
- a span of days or how often ("for 2 weeks", "a 30-day challenge", "every month", "3 times a
  week"), a time of day or a duration ("before 7am");
- a weekday ("a Saturday brunch"), a small number that counts a thing ("17 syllables", "4 sets
  of 12", "a recipe for 4"), a word that says what kind of thing ("a Homeric simile", "a
  Spartan workout") or names a style ("Parisian-style", "Victorian-era", "Roald Dahl style").

Weekdays, counts, kinds and styles stay unless the sentence's grammar (spaCy's parse) ties them
to a person: going up from the detail through the words it depends on, a person is met (a
pronoun, a name, something possessed: "my 3 kids") or a verb whose subject is one ("I'm 17",
"paid off 200 euros"), before a thing nobody owns. Names, places, organisations and every other
number go even in a request ("a haiku about Kyoto" loses Kyoto): spaCy's small model misreads
names as common words often enough that a wider rule let details through (10 of 154 on a set
written apart). Years are no span of days ("34 years" is an age); a day of a month ("2 Nov")
and the number of a home ("from number 12") always go.
"""

from __future__ import annotations

import re

from spacy.tokens import Doc, Span, Token

# What may describe the task; every other kind of detail is always a person's.
DESCRIBES_A_TASK = frozenset({"LOCATION", "NRP", "DATE_TIME", "NUMBER", "PROPER_NOUN",
                              "ORGANIZATION"})
_SUBJECTS = frozenset({"nsubj", "nsubjpass", "csubj", "expl"})
_PEOPLE_PRONOUNS = frozenset({"i", "me", "my", "mine", "we", "us", "our", "you", "your", "he",
                              "him", "his", "she", "her", "they", "them", "their", "'m",
                              "myself"})
_CURRENCY = re.compile(r"[$€£¥₹]|\b(?:euros?|dollars?|pounds|quid|bucks|yen|rupees?|francs?"
                       r"|pesos?|reais|zlotys?|kr|usd|eur|gbp|k)\b", re.IGNORECASE)
_TENSED = frozenset({"VBD", "VBN", "VBG", "VBZ", "VBP"})
_WHO = frozenset({"who", "whom", "whose"})
_RELATIVE = frozenset({"that", "which"})
_MONTH = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b",
                    re.IGNORECASE)
LONG_NUMBER = 7  # digits: a phone or account number, a full date
MAX_COUNT_DIGITS = 3  # a count of a task's things ("17 syllables"); a larger number is kept out
_DIGITS = re.compile(r"\d+")
# What a time of day or a duration says itself with (spaCy also calls "10 today" a time).
_CLOCK = re.compile(r"\d[:.]\d\d|\d\s?(?:am|pm|h)\b|\b(?:morning|evening|night|noon|"
                    r"midnight|afternoon|dawn|dusk|bedtime|minutes?|mins?|hours?|hrs?|seconds?)"
                    r"\b", re.IGNORECASE)
# A span of days, weeks or months, how often, or a season ("for 2 weeks", "30-day", "every
# month", "a summer poem"): no one's date. Years are left out: "34 years" is an age.
_SPAN_OF_DAYS = re.compile(
    r"(?:(?:for|over|in)\s+)?(?:(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|"
    r"twelve|a few|a couple of|several|\d{1,3})[\s-]+(?:days?|weeks?|months?|nights?)"
    r"(?:\s+(?:a|per)\s+(?:day|week|month))?|(?:every|each|per|a)\s+(?:day|week|month|"
    r"morning|evening|night)|daily|weekly|monthly|nightly"
    r"|(?:this\s+|next\s+|last\s+|in\s+)?(?:the\s+)?(?:spring|summer|autumn|fall|winter))",
    re.IGNORECASE)
_WEEKDAY = re.compile(r"(?:on\s+)?(?:a\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)days?",
                      re.IGNORECASE)
_HOW_OFTEN = re.compile(r"\s+times?\s+(?:a|per|each|every)\s+(?:day|week|month)\b", re.I)
_NUMBER_RUN = re.compile(r"\+?\d[\d\s().,/-]*\d|\d")
_VERBS = frozenset({"VERB", "AUX"})
_MODIFIERS = frozenset({"amod", "compound", "nmod", "nummod"})


def spreads(entity_type: str, doc: Doc, start: int, end: int) -> bool:
    """Whether the words of a person's detail are taken out wherever else they are said: a
    name, a place, a contact ("I'm Ana" and "Hi Ana!"); not a number, a date or an adjective
    ("she's Irish" beside "an Irish blessing"), which are judged where they stand."""
    if entity_type in {"NUMBER", "DATE_TIME", "NRP"}:
        return False
    span = doc.char_span(start, end, alignment_mode="expand")
    return (span is None or entity_type not in DESCRIBES_A_TASK
            or (_named(span) != "NORP" and any(t.pos_ in {"PROPN", "NOUN"} for t in span)))


def a_persons(entity_type: str, doc: Doc, start: int, end: int) -> bool:
    """Whether the detail of `entity_type` found at `doc.text[start:end]` is a person's."""
    span = doc.char_span(start, end, alignment_mode="expand")
    if span is None or not len(span):
        return True
    if _a_form(span):
        return False  # "Limerick about a cat": spaCy takes it for a name
    if entity_type not in DESCRIBES_A_TASK and not (
            entity_type == "PERSON" and (all(t.pos_ == "ADJ" for t in span) or _a_style(span))):
        return True  # a "Shakespearean" sonnet, "Keats style", is no person
    if (_long_number(doc.text, start, end) or _calendar_date(span)
            or _numbered_home(doc.text, start) or _an_age(doc.text, start)):
        return True  # a phone, an account, a day of the year, a house: whatever the grammar
    entity = _entity_of(span)
    if entity is not None and entity.label_ == "TIME" and _CLOCK.search(entity.text):
        return False  # a time of day or a duration ("before 7am", "20 minutes a day")
    if entity is not None and entity.label_ == "DATE" and _SPAN_OF_DAYS.fullmatch(entity.text):
        return False  # "for 2 weeks", "a 30-day challenge", "every month": no one's date
    if entity is not None and entity.label_ == "DATE" and _WEEKDAY.fullmatch(entity.text):
        return _tied_to_a_person(span.root)  # "a Saturday brunch", not "turns 5 on Saturday"
    if _HOW_OFTEN.match(span.doc.text, span.end_char):
        return False  # "3 times a week"
    if all(token.pos_ in {"PRON", "AUX", "PART"} for token in span):  # "I'm" after a comma
        return False
    if entity_type not in {"NUMBER", "DATE_TIME"} and _capitalized_common_word(span):
        return False
    if _a_style(span):  # from the whole name: "Roald" is not tied to a person by "Dahl"
        return _tied_to_a_person((entity or span).root)
    if _counts_a_thing(span) or _qualifies_a_thing(span):
        return _tied_to_a_person(span.root, money=_money(span))
    return True  # names, places, organisations, other numbers and dates: when in doubt, out


def _counts_a_thing(span: Span) -> bool:
    """A small number that counts or sizes a thing: "17 syllables", "a 5-day plan", "3 sets",
    "4 sets of 12", "a recipe for 4" (not "turned 10 today", "rent is 1900", "12 Calle Mayor",
    "1,500 calories": a larger number may be a sum in a currency not known here)."""
    root = span.root
    digits = _DIGITS.findall(span.text)
    if not digits or (root.head.pos_ != "NOUN" and root.dep_ != "pobj"):
        return False
    if root.dep_ == "pobj":  # "sets of 12", "a table for 4": a small number after a thing
        thing = root.head.head
        return (len(digits) == 1 and len(digits[0]) <= 2 and root.head.lower_ in ("of", "for")
                and thing.pos_ == "NOUN" and not _owned(thing))
    return (all(len(run) <= MAX_COUNT_DIGITS for run in digits) and "," not in span.text
            and root.dep_ in {"nummod", "compound"}
            and root.head.dep_ not in {"npadvmod", "tmod"} and not _of_money(root.head))


def _of_money(thing: Token) -> bool:
    """"48 payments of $389": what is counted is sums of money, someone's."""
    return any(child.lower_ == "of" and any(_money(grand.doc[grand.i:grand.i + 1])
                                            for grand in child.children)
               for child in thing.children)


def _qualifies_a_thing(span: Span) -> bool:
    """An adjective that says what kind of thing is asked for: "a Homeric simile", "an
    Italian sonnet", "a Florentine-style recipe" (a proper noun never: it may be a name)."""
    root = span.root
    kind = all(token.pos_ == "ADJ" for token in span) or (
        all(token.pos_ == "PROPN" for token in span) and _named(span) in _KINDS)
    return kind and root.dep_ in {"amod", "compound"} and root.head.pos_ == "NOUN"


# What spaCy calls a word that may say what kind of thing ("a Spartan workout", "a Homeric
# simile"); never a person, a place or an organisation.
_KINDS = frozenset({"NORP", "PRODUCT", "EVENT", "WORK_OF_ART", "LANGUAGE"})


def _a_style(span: Span) -> bool:
    """A word that names a style, as the words around it say: "Parisian-style", "Mexican-
    inspired", "Victorian-era", "Keats style", "in the style of Roald Dahl"."""
    text = span.doc.text
    return (_STYLED.match(text, span.start_char) is not None
            or _STYLE_OF.search(text, 0, span.start_char) is not None)


_STYLED = re.compile(r"(?:[\w'\u2019.]+\s){0,2}[\w'\u2019.]+(?:-|\s)"
                     r"(?:style|styled|inspired|era|themed)\b", re.IGNORECASE)


_STYLE_OF = re.compile(r"\bin\s+the\s+style\s+of\s+(?:the\s+)?$", re.IGNORECASE)


def _a_form(span: Span) -> bool:
    """A form of writing, capitalized ("Haiku about rain", "Ode to coffee"): no one's name."""
    words = [t.lower_ for t in span if not t.is_punct]
    return bool(words) and all(word in FORMS for word in words)


# Forms a request asks for (the pool's word tutor and companion write them).
FORMS = frozenset("""
haiku haikus tanka limerick limericks sonnet sonnets ode odes poem poems villanelle acrostic
elegy ballad fable fables story essay rap song riddle riddles joke jokes toast speech letter
cinquain ghazal sestina epigram couplet couplets quatrain verse lullaby eulogy anagram
anagrams pun puns rhyme rhymes simile metaphor tongue twister sonnet
""".split())


def _long_number(text: str, start: int, end: int) -> bool:
    """Part of a run of digits (spaces, dashes, dots and slashes between them) of at least
    `LONG_NUMBER` digits: "+44 7700 900123", "14/02/1995", not "10,000 steps"."""
    run = _NUMBER_RUN.search(text, max(0, start - 40), min(len(text), end + 40))
    while run is not None and run.end() <= start:
        run = _NUMBER_RUN.search(text, run.end(), min(len(text), end + 40))
    return (run is not None and run.start() < end
            and sum(c.isdigit() for c in run.group()) >= LONG_NUMBER)


def _calendar_date(span: Span) -> bool:
    """A day of a month ("12 October", "june 5th", "2 Nov"): a birthday, a wedding, an
    operation."""
    entity = _entity_of(span)
    if (entity is not None and entity.label_ == "DATE" and _MONTH.search(entity.text)
            is not None and any(c.isdigit() for c in entity.text)):
        return True
    text = span.doc.text
    around = text[max(0, span.start_char - 12):span.end_char + 12]
    return any(m.start() <= span.start_char - max(0, span.start_char - 12) < m.end()
               for m in _DAY_OF_MONTH.finditer(around))


DAY_OF_MONTH = (
    r"\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|"
    r"nov|dec)[a-z]*\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+"
    r"\d{1,2}(?:st|nd|rd|th)?\b")
_DAY_OF_MONTH = re.compile(DAY_OF_MONTH, re.IGNORECASE)


def _an_age(text: str, start: int) -> bool:
    """A number said of someone as what they are: "I'm 52", "she's 8", "turned 30"."""
    return _AGE_BEFORE.search(text[max(0, start - 16):start]) is not None


_AGE_BEFORE = re.compile(r"\b(?:i\s*'?\s*m|i\s+am|(?:he|she|they|you|we)\s*'?\s*(?:s|re)|"
                         r"(?:he|she)\s+is|turn(?:ed|s|ing)|aged?)\s+$", re.IGNORECASE)


def _numbered_home(text: str, start: int) -> bool:
    """The number of a house, a flat or a room ("from number 12", "flat 7B", "apt 3")."""
    return _HOME_BEFORE.search(text[max(0, start - 12):start]) is not None


_HOME_BEFORE = re.compile(r"\b(?:number|no\.?|nr\.?|flat|apt\.?|apartment|house|unit|room|"
                          r"suite|#)\s*$", re.IGNORECASE)


def _named(span: Span) -> str | None:
    """The label of the entity spaCy found the span in (PERSON, GPE, NORP, ORG...), if any."""
    entity = _entity_of(span)
    return None if entity is None else str(entity.label_)


def _entity_of(span: Span) -> Span | None:
    for entity in span.doc.ents:
        if entity.start <= span.start and span.end <= entity.end:
            return entity
    return None


def _capitalized_common_word(span: Span) -> bool:
    """A word opening a sentence that the tagger does not take for a name ("Haiku please")."""
    return (span.start == span.sent.start and span.text[:1].isupper()
            and all(t.pos_ not in {"PROPN", "NUM"} for t in span)
            and not any(e.label_ == "PERSON" and e.start <= span.start < e.end
                        for e in span.doc.ents))






def _tied_to_a_person(token: Token, *, money: bool = False) -> bool:
    """Up from `token` through its heads: a person, or a verb of one, before a thing nobody
    owns (see the module's docstring). For a sum (`money`) or a measure ("3200 euros",
    "48 payments of $389", "88kg"), no thing stops the way up: it is what a person pays,
    owes or weighs, unless a request asks for it ("gift ideas under $50, please suggest")."""
    measure = money or token.ent_type_ in {"MONEY", "QUANTITY"}
    if any(child.dep_ in {"relcl", "acl"} and _verb_of_a_person(child)
           for child in token.children):
        return True  # "Leeds, where I grew up"
    current, below = token, token
    for _ in range(len(token.doc)):  # a parse is a tree; the bound only guards against a loop
        if current.i != token.i and _a_person(current):
            return True
        if _owned(current):
            return True
        if current.pos_ in _VERBS:
            return _verb_of_a_person(current) or (
                (below.dep_ in _SUBJECTS or measure) and _speaks_of_a_person(current, below))
        if (current.i != token.i and current.pos_ == "NOUN" and current.dep_ not in _MODIFIERS
                and not measure):
            return False  # the thing the detail describes
        if current.head.i == current.i:
            return True  # nothing it describes: when in doubt, it goes
        current, below = current.head, current
    return True


def _speaks_of_a_person(verb: Token, subject: Token) -> bool:
    """What the detail (the verb's subject, or a sum) does or is says who someone is: "Acme
    fired me", "Google is my employer", "Leeds is where I grew up", "they pay me 3200 euros"."""
    return any(_a_person(t) or _owned(t) for child in verb.children if child.i != subject.i
               for t in child.subtree)


def _a_person(token: Token) -> bool:
    return token.lower_ in _PEOPLE_PRONOUNS or token.ent_type_ == "PERSON"


def _owned(token: Token) -> bool:
    return any(child.dep_ == "poss" for child in token.children)


def _verb_of_a_person(verb: Token) -> bool:
    """The verb's subject is a person; a verb without one (an imperative: "give me a 5-day
    plan") describes the task, unless it shares a subject with the verb it is joined to or
    its sentence leaves the speaker out ("paid off 2400 euros")."""
    subjects = [child for child in verb.children if child.dep_ in _SUBJECTS]
    if any(s.lower_ in _WHO for s in subjects):
        return True  # "who" is said of people only: "my twins Ada and Eli, who just turned 5"
    if subjects and all(s.lower_ in _RELATIVE for s in subjects) and verb.head.i != verb.i:
        return _someone(verb.head)  # "the flat that we rent in Leeds"
    if subjects:
        return any(_a_person(s) or _owned(s) for s in subjects)
    if (verb.dep_ in {"conj", "advcl", "xcomp"} and not _a_request(verb)
            and verb.head.i != verb.i and verb.head.pos_ in _VERBS):
        return _verb_of_a_person(verb.head)  # "I'm 52 and weigh 88kg", "paid it off, I'm..."
    if verb.dep_ in {"relcl", "acl"} and verb.head.i != verb.i:
        return _someone(verb.head)
    # A sentence without its subject says what the speaker did ("paid off 2400 euros", "moved
    # to Leeds last year"), unless it asks for something (a verb in its base form: "write...").
    return verb.dep_ == "ROOT" and verb.tag_ in _TENSED


def _a_request(verb: Token) -> bool:
    """An imperative asking for something: "(I live in Leeds but) write me a haiku"."""
    return any(child.lower_ in {"me", "us", "please"} and child.dep_ != "nsubj"
               for child in verb.children)


def _someone(noun: Token) -> bool:
    """A person, someone's, or a name, first of its conjuncts ("my twins Ada and Eli, who")."""
    while noun.dep_ == "conj" and noun.head.i != noun.i:
        noun = noun.head
    return _a_person(noun) or _owned(noun) or noun.pos_ == "PROPN" or noun.ent_type_ == "PERSON"


def _money(span: Span) -> bool:
    """A sum: spaCy says so, or a currency stands beside the number ("3200 euros", "£40")."""
    text = span.doc.text
    around = text[max(0, span.start_char - 2):span.end_char + 10]
    return _named(span) == "MONEY" or _CURRENCY.search(around) is not None
