"""What a first-person statement claims, when it claims something single-valued about the speaker.

"I live in Paris" claims (home, paris); "We moved to Berlin" claims (home, berlin); "I don't eat
meat anymore" claims (diet, vegetarian); "I hate jazz" claims (likes jazz, no). Two claims of one
speaker about the same subject with values that cannot both hold contradict each other; the same
value again agrees. This is all the offline judge knows (`jobs.beliefs.judge`): a few subjects
people change (home, country, job, employer, name, partner, pets, age, counts, diet, smoking,
favourites, likes), and nothing about any other sentence. A sentence that is hypothetical, past,
planned or a question claims nothing: "I used to live in Rome", "I might move to Oslo", "If I
lived in Tokyo ...", "Do I live in Paris?".

Precision over recall: a wrong claim can hide a true memory, a missed one only leaves two
memories side by side.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from memory.lexical import straight_quotes


@dataclass(frozen=True, slots=True)
class Claim:
    """One single-valued claim of a speaker about themselves: `subject` names what it is about
    ("home", "pet_name:dog", "likes:jazz"), `value` what it is ("berlin", "max", "no")."""

    subject: str
    value: str


CLAIMS_KEPT = 20_000  # statements whose claims one process keeps
_SENTENCES = re.compile(r"(?<=[.!?…;])\s+|\n+|\s+(?:but|and then|though)\s+", re.I)
# Whatever these say is not how things are now.
_NOT_NOW = re.compile(
    r"\b(?:if (?:i|we|you|only)|as if|wish|would|could|might|maybe|perhaps|someday|one day|"
    r"used to|plan(?:ning)? to|"
    r"(?<!been )going to|gonna|want to|wanna|hope to|hoping to|thinking (?:about|of)|"
    r"consider(?:ing)?|"
    r"dream(?:ing)? (?:of|about)|when i was|back when|years ago|as a kid|in college|"
    r"pretend|imagine|should i|not sure|unless|before i|until)\b|\bi'd\b|\bwe'd\b",
    re.I,
)
# Said with one of these, a statement tells that something changed: it outweighs an older one.
_CHANGE = re.compile(
    r"\b(?:moved|relocated|now|anymore|any more|no longer|new|just|recently|finally|switched|"
    r"changed|became|become|turned|started|quit|stopped|gave up|these days|nowadays|again|"
    r"since|got (?:a|my|married|engaged|divorced)|broke up|split up|left|joined|died|passed|"
    # ...or that an earlier statement was a mistake.
    r"actually|i meant|i mean|sorry|correction|wrong|mistake|scratch that|typo|oops|my bad|"
    r"ignore what i said|correct myself|autocorrect)\b",
    re.I,
)
_NAME = r"(?-i:(?P<value>[A-Z][\w'-]+(?:\s+(?:[A-Z][\w'-]+|(?:de|van|von|da|del|la|le)\b))*))"
_LOWER_PLACE = r"(?P<low>[a-z][\w'-]{2,})"
_ADVERBS = (r"(?:(?:just|finally|recently|now|officially|currently|still|actually|already|"
            r"happily|proudly|basically)\s+)*")
_NUMBER_WORDS = {
    "no": 0, "zero": 0, "one": 1, "a": 1, "an": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}
_NUMBER = (r"(?P<value>\d{1,3}|no|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
           r"twelve|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ](?:one|two|"
           r"three|four|five|six|seven|eight|nine))?)")
_COUNTRIES = frozenset("""
usa us america canada mexico brazil argentina chile peru colombia uk england scotland wales
ireland france germany spain portugal italy netherlands holland belgium switzerland austria
poland czechia sweden norway denmark finland iceland greece turkey russia ukraine israel egypt
morocco kenya nigeria india pakistan china japan korea vietnam thailand indonesia philippines
australia singapore malaysia taiwan
""".split())
_NOT_PLACES = frozenset("""
town city the a an my our their his her this that fear peace love hope bed home here there
countryside suburbs sin style place apartment flat house it what which
""".split())
_JOBS = frozenset("""
teacher nurse engineer developer programmer designer doctor physician surgeon lawyer attorney
accountant chef cook barista pharmacist architect consultant analyst scientist researcher
writer journalist photographer electrician plumber mechanic carpenter firefighter paramedic
dentist vet veterinarian therapist psychologist librarian cashier pilot translator tutor
professor lecturer realtor baker waiter waitress bartender farmer soldier officer recruiter
editor marketer receptionist secretary hairdresser florist tailor optician midwife
physiotherapist dietitian nutritionist economist banker broker actuary paralegal retired
unemployed freelancer illustrator animator copywriter influencer streamer carer caregiver
manager nanny cleaner courier technician hygienist trainer coach pharmacist sommelier
butcher surveyor solicitor barrister judge curator astronaut
""".split())
# Jobs of two words whose last word alone says little ("a hard worker" is no job).
_JOB_PAIRS = frozenset("""
social-worker estate-agent travel-agent police-officer flight-attendant bus-driver taxi-driver
truck-driver delivery-driver lorry-driver care-worker youth-worker support-worker
""".split())
_RELATIONSHIP_GROUPS = {
    "single": "apart", "divorced": "apart", "separated": "apart", "widowed": "apart",
    "dating": "together", "relationship": "together", "engaged": "engaged",
    "married": "married",
}
_PETS = {"dog": "dog", "puppy": "dog", "cat": "cat", "kitten": "cat", "kitty": "cat",
         "rabbit": "rabbit", "bunny": "rabbit", "hamster": "hamster", "parrot": "parrot",
         "horse": "horse", "snake": "snake", "turtle": "turtle", "tortoise": "turtle"}
_PET = (r"(?P<pet>dog|puppy|cat|kitten|kitty|rabbit|bunny|hamster|parrot|horse|snake|turtle|"
        r"tortoise)")
_COUNTED_NOUN = (r"(?P<noun>kids?|children|child|siblings?|brothers?|sisters?|cats?|dogs?|"
                 r"pets?|grandchildren|grandkids|little ones?)\b")
_COUNTED = {"little one": "kids", "little ones": "kids", "kids": "kids", "children": "kids",
            "child": "kids", "kid": "kids",
            "siblings": "siblings", "sibling": "siblings", "brothers": "brothers",
            "brother": "brothers", "sisters": "sisters", "sister": "sisters",
            "cats": "cats", "cat": "cats", "dogs": "dogs", "dog": "dogs", "pets": "pets",
            "pet": "pets", "grandchildren": "grandchildren", "grandkids": "grandchildren"}
_OBJECT_TAIL = re.compile(
    r"\s+(?:so much|a lot|anymore|any more|now|these days|nowadays|too|as well|though|completely|"
    r"honestly|really|tbh|lol|haha|at all|either)$", re.I)
# "I like it" and "I don't like it" may be about two different things.
_PRONOUNS = frozenset("it that this these those them him her you your one what how".split())
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.I)


def _home(match: re.Match[str]) -> Claim | None:
    place = match.group("value") or match.group("low")
    if place is None or place.lower() in _NOT_PLACES:
        return None
    place = re.sub(r"\s+city$", "", place.lower())  # New York City is New York
    return Claim("country" if place in _COUNTRIES else "home", place)


def _job(match: re.Match[str]) -> Claim | None:
    """The job's head word ("software engineer": an engineer), or a known pair of words."""
    words = match.group("value").lower().split()
    pair = "-".join(words[-2:])
    if pair in _JOB_PAIRS:
        return Claim("job", pair.replace("-", " "))
    return Claim("job", words[-1]) if words[-1] in _JOBS else None


def _plain(subject: str) -> Callable[[re.Match[str]], Claim | None]:
    return lambda match: Claim(subject, match.group("value").lower())


def _fixed(subject: str, value: str) -> Callable[[re.Match[str]], Claim | None]:
    return lambda match: Claim(subject, value)


def _pet_name(match: re.Match[str]) -> Claim | None:
    return Claim(f"pet_name:{_PETS[match.group('pet').lower()]}", match.group("value").lower())


def _has_pet(value: str) -> Callable[[re.Match[str]], Claim | None]:
    return lambda match: Claim(f"has_pet:{_PETS[match.group('pet').lower()]}", value)


def _count(match: re.Match[str]) -> Claim | None:
    number = _as_number(match.group("value"))
    noun = _COUNTED.get(match.group("noun").lower())
    if number is None or noun is None:
        return None
    return Claim(f"count:{noun}", str(number))


def _age(match: re.Match[str]) -> Claim | None:
    number = _as_number(match.group("value"))
    return Claim("age", str(number)) if number is not None and 5 <= number <= 110 else None


def _partner_name(match: re.Match[str]) -> Claim | None:
    role = match.group("role").lower()
    group = "spouse" if role in ("wife", "husband") else "partner"
    return Claim(f"partner_name:{group}", match.group("value").split()[0].lower())


def _favourite(match: re.Match[str]) -> Claim | None:
    thing = match.group("thing").lower().replace("colour", "color")
    value = _object(match.group("value"))
    return Claim(f"favorite:{thing}", value) if value else None


def _likes(value: str) -> Callable[[re.Match[str]], Claim | None]:
    def claim(match: re.Match[str]) -> Claim | None:
        thing = _object(match.group("value"))
        return Claim(f"likes:{thing}", value) if thing else None
    return claim


def _object(text: str) -> str:
    """A liked thing or a favourite, as words that compare: no article, no trailing filler."""
    thing = text.strip().lower()
    while (shorter := _OBJECT_TAIL.sub("", thing)) != thing:
        thing = shorter
    thing = _ARTICLE.sub("", thing).strip(" ,.!")
    words = thing.split()
    return thing if 0 < len(words) <= 4 and words[0] not in _PRONOUNS else ""


def _as_number(text: str) -> int | None:
    text = text.lower().replace("-", " ")
    if text.isdigit():
        return int(text)
    parts = text.split()
    if all(p in _NUMBER_WORDS for p in parts):
        return sum(_NUMBER_WORDS[p] for p in parts)
    return None


_WORK_CONTEXT = re.compile(
    r"\b(?:job|jobs|work|working|company|office|employer|career|role|boss|colleagues|contract|"
    r"salary|promotion|hired|notice|offer)\b", re.I)


def _count_of(match: re.Match[str], noun: str) -> Claim | None:
    number = _as_number(match.group("value"))
    return None if number is None else Claim(f"count:{noun}", str(number))


# Kinds of person one cannot be both of at once; a kind outside these says nothing.
_PERSON_KINDS = {"cat": "pets", "dog": "pets", "morning": "hours", "night": "hours",
                 "tea": "drink", "coffee": "drink", "hot chocolate": "drink",
                 "beach": "holidays", "mountain": "holidays", "summer": "season",
                 "winter": "season"}


def _kind_of_person(polarity: str) -> Callable[[re.Match[str]], Claim | None]:
    """"I'm a cat person": one of a pair ("cat" or "dog"); "not a cat person" denies it."""
    def claim(match: re.Match[str]) -> Claim | None:
        kind = match.group("value").lower()
        group = _PERSON_KINDS.get(kind)
        if group is None:
            return None
        return Claim(f"person:{group}", kind if polarity == "yes" else f"not {kind}")
    return claim


def _employer_in_context(match: re.Match[str]) -> Claim | None:
    """"I'm with HSBC now" names an employer only where the sentence is about work (it can
    name a partner too)."""
    return Claim("employer", match.group("value").lower()) if _WORK_CONTEXT.search(
        match.string) else None


_END = (r"(?=\s*(?:[.!,;:)(]|$|\s(?:now|these days|with|since|for|and|but|at|in|too|lol|btw|"
        r"tbh|haha|today|again|here|though|so|by|full[- ]time|part[- ]time)\b))")
_LIKE_OBJECT = r"(?P<value>[\w'][\w' -]{1,60}?)" + r"(?=\s*(?:[.!,;:)(]|$))"
# Who says it: "I" or "we", or nobody at the start of a sentence ("Moved to Lyon last week").
_WHO = (r"(?:^|\b(?:i|we)(?:'ve|'m|'re)?\s+|\b(?:i|we)\s+(?:have|am|are)\s+|\bim\s+)"
        + _ADVERBS + r"(?:been\s+)?" + _ADVERBS)
_WHO_AM = (r"(?:^|^been\s+|\bi'm\s+|\bim\s+|\bi am\s+|\bi've been\s+|\bi have been\s+)"
           + _ADVERBS)
_CLAUSE = r"(?:^|[,;:]\s*|\b(?:and|so|now|but)\s+)"  # where a clause may start with a name
_ROLE = r"(?P<role>girlfriend|boyfriend|wife|husband|partner|fianc[ée]e?)"
_JOB = r"(?P<value>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2}?)" + _END
_RULES: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], Claim | None]], ...] = tuple(
    (re.compile(pattern, re.I), read) for pattern, read in (
        # Where they live.
        (_WHO + r"(?:live|living|moved|relocated|settled|made the move|moving back)\s+"
         r"(?:back\s+)?(?:to|in)\s+(?:" + _NAME + "|" + _LOWER_PLACE + _END + ")", _home),
        (_WHO_AM + r"(?:based|living|settled)\s+in\s+(?:" + _NAME + "|" + _LOWER_PLACE + _END
         + ")", _home),
        (_CLAUSE + _NAME + r"\s+is\s+(?:where (?:i|we) live|(?:my |our )?home(?: now)?" + _END
         + ")", _home),
        (r"\b(?:i'm|im|i am)\s+an?\s+" + _NAME + r"\s+local\b", _home),
        (_CLAUSE + r"home is\s+(?:now\s+)?" + _NAME, _home),
        (r"\bmy\s+(?:new\s+)?(?:place|flat|apartment|house)\s+in\s+" + _NAME, _home),
        # What they do for a living, and for whom.
        (_WHO_AM + r"(?:working as\s+|employed as\s+)?an?\s+" + _JOB, _job),
        (_WHO + r"(?:work|working)\s+as\s+an?\s+" + _JOB, _job),
        (_WHO + r"(?:got|landed|started|took|accepted)\s+(?:a|my|the)?\s*(?:first\s+|new\s+)?"
         r"(?:job|position|role)\s+as\s+an?\s+" + _JOB, _job),
        (_WHO + r"(?:became|become|retrained as|qualified as)\s+an?\s+" + _JOB, _job),
        (r"^as\s+an?\s+" + _JOB + r",?\s+i\b", _job),
        (_WHO_AM + r"(?P<value>retired|unemployed)\b", _plain("job")),
        (_WHO + r"(?:work|working)\s+(?:at|for)\s+(?:the\s+)?" + _NAME, _plain("employer")),
        (_WHO + r"(?:employed|hired)\s+(?:at|by)\s+(?:the\s+)?" + _NAME, _plain("employer")),
        (_WHO + r"(?:joined|started (?:a job |work )?at|got a job at|landed a job at|"
         r"took (?:the|an|a) (?:offer|job|role) (?:from|at|with))\s+(?:the\s+)?" + _NAME,
         _plain("employer")),
        (r"\bmy\s+(?:first|new)\s+(?:day|week|month|job|role)\s+at\s+(?:the\s+)?" + _NAME,
         _plain("employer")),
        (_CLAUSE + r"(?:the\s+)?" + _NAME + r"\s+pays\s+(?:my|the)\s+bills\b",
         _plain("employer")),
        (r"\bmy job(?:'s| is)\s+(?:at|with)\s+(?:the\s+)?" + _NAME, _plain("employer")),
        (_CLAUSE + _NAME + r"\s+hired me\b", _plain("employer")),
        (r"(?:\bi'm|\bim|\bi am|\bi've been|^been)\s+(?:now\s+)?with\s+(?:the\s+)?" + _NAME
         + r"\s+(?:now|since|for)\b", _employer_in_context),
        # Their name, their partner, their pets.
        (r"\bmy name(?:'s| is)\s+" + _NAME, _plain("name")),
        (r"\b(?:just\s+)?call me\s+" + _NAME, _plain("name")),
        (r"\bmy\s+" + _ROLE + r"(?:'s name is|\s+is\s+(?:called|named)|,?\s+)\s*" + _NAME,
         _partner_name),
        (r"\bmy\s+" + _ROLE + r"\s+is\s+" + _NAME + r"\s*(?:now\b|[.!,]|$)", _partner_name),
        (_CLAUSE + _NAME + r"\s+\(my\s+" + _ROLE + r"\)", _partner_name),
        (_CLAUSE + _NAME + r"\s+is\s+my\s+" + _ROLE + r"\b", _partner_name),
        (r"\b(?:my|our)\s+(?:new\s+)?" + _PET
         + r"(?:'s name is|(?:'s|\s+is)\s+(?:called|named)|,?\s+)\s*" + _NAME, _pet_name),
        (_CLAUSE + _NAME + r"\s+is\s+my\s+" + _PET + r"\b", _pet_name),
        (_CLAUSE + _NAME + r"\s+\(my\s+" + _PET + r"\)", _pet_name),
        (_WHO + r"(?:have|has|got|adopted|own|brought home)\s+(?:a|an|our|my)?\s*(?:new\s+)?"
         + _PET + r"\s+(?:called|named)\s+" + _NAME, _pet_name),
        (r"\brenamed\s+(?:the|our|my)\s+" + _PET + r"\s+(?:to\s+)?" + _NAME, _pet_name),
        (r"\bmy\s+(?:new\s+)?" + _PET + r"\s+is\s+" + _NAME + r"\s*(?:now\s*)?(?:[.!,]|$)",
         _pet_name),
        (_WHO + r"(?:have|own|adopted|got|'ve got|have got)\s+an?\s+" + _PET + _END,
         _has_pet("yes")),
        (_WHO_AM + r"an?\s+" + _PET + r"\s+(?:owner|mum|mom|dad)\b", _has_pet("yes")),
        (_WHO + r"(?:don't|do not|no longer)\s+(?:have|own)\s+(?:an?|the|a)\s+" + _PET,
         _has_pet("no")),
        (r"\b(?:our|my)\s+" + _PET + r"\s+(?:died|passed away|passed)\b", _has_pet("no")),
        (_WHO + r"(?:don't|do not|no longer)\s+(?:have|own)\s+(?:a|any)\s+pets?\b|^no pets\b",
         _fixed("count:pets", "0")),
        # Age and counts.
        (_WHO_AM + _NUMBER + r"(?:\s+years?\s+(?:old|young)|\s*(?:yo|y/o)\b|" + _END + ")",
         _age),
        (r"\bas an?\s+" + _NUMBER + r"[- ]year[- ]old\b", _age),
        (r"^(?:officially\s+)?" + _NUMBER + r"\s+(?:as of today|now)\b", _age),
        (r"^" + _NUMBER + r"\s+(?:years?\s+(?:old|young)|today)\b", _age),
        (_WHO + r"turned\s+" + _NUMBER + r"\b", _age),
        (r"\byear older\W+" + _NUMBER + r"\b", _age),
        (r"\bmy birthday\b[^.!?]{0,30}?\b" + _NUMBER + r"\s*(?:[.!]|$)", _age),
        (_WHO + r"(?:have|'ve got|have got|got)\s+" + _NUMBER + r"\s+(?:little\s+)?"
         + _COUNTED_NOUN, _count),
        (r"^" + _NUMBER + r"\s+" + _COUNTED_NOUN + r"\s+(?:now|keeps?|and|here)\b", _count),
        (r"\bmy\s+" + _NUMBER + r"\s+" + _COUNTED_NOUN, _count),
        (r"\bparent of\s+" + _NUMBER + r"\b", lambda m: _count_of(m, "kids")),
        (r"\b(?:that's|which makes|makes|so)\s+" + _NUMBER + r"\s+" + _COUNTED_NOUN
         + r"(?:\s+(?:for us|for me|now))?\s*(?:[.!,]|$)", _count),
        (r"\bowner of\s+" + _NUMBER + r"\s+" + _COUNTED_NOUN, _count),
        (_WHO + r"grew up with\s+" + _NUMBER + r"\s+" + _COUNTED_NOUN, _count),
        (r"^" + _NUMBER + r"\s+" + _COUNTED_NOUN + r"\s*,", _count),
        (_WHO + r"(?:don't|do not)\s+have\s+(?:any\s+)?(?P<noun>kids|children|siblings)\b"
         r"|^no (?P<none>kids|children|siblings)\b",
         lambda m: Claim(f"count:{_COUNTED[(m.group('noun') or m.group('none')).lower()]}", "0")),
        (r"\b(?:i'm|im|i am)\s+an only child\b", _fixed("count:siblings", "0")),
        # Relationships.
        (_WHO_AM + r"(?:happily\s+|newly\s+)?(?P<value>single|married|engaged|divorced|"
         r"separated|widowed)\b", _plain("relationship")),
        (r"\b(?:i'm|im|i am)\s+" + _ADVERBS + r"(?P<value>dating)\b", _plain("relationship")),
        (r"^(?:being\s+)?(?P<value>single|married|engaged|divorced|separated|widowed)"
         r"(?:\s+now)?\s*[,.!]", _plain("relationship")),
        (_WHO + r"got\s+(?P<value>married|engaged|divorced)\b", _plain("relationship")),
        (_WHO + r"tied the knot\b", _fixed("relationship", "married")),
        (_WHO + r"(?:broke up|split up|separated)\b", _fixed("relationship", "single")),
        (_WHO + r"(?:have|'ve got|got)\s+a\s+(?:girlfriend|boyfriend|partner)\b",
         _fixed("relationship", "relationship")),
        (_WHO + r"(?:seeing someone|dating someone)\b", _fixed("relationship", "dating")),
        (_WHO_AM + r"in a relationship\b", _fixed("relationship", "relationship")),
        # Diet and smoking.
        (_WHO + r"(?:fully\s+|strictly\s+|a\s+|gone\s+|went\s+|become\s+|became\s+)*"
         r"(?P<value>vegetarian|vegan|pescatarian|pescetarian|veggie)\b(?!\s+(?:food|curry|"
         r"options?|restaurant|place|dish|meal|burger|recipe|friend|cafe))",
         lambda m: Claim("diet", _diet(m.group("value")))),
        (r"\bcall me an?\s+(?P<value>vegetarian|vegan|pescatarian|veggie)\b",
         lambda m: Claim("diet", _diet(m.group("value")))),
        (_WHO + r"(?:don't|do not|no longer|stopped|quit|gave up|cut out)\s+(?:eat(?:ing)?\s+)?"
         r"(?:any\s+)?meat\b", _fixed("diet", "vegetarian")),
        (_WHO + r"eat\s+(?:meat|pretty much anything|anything|everything)\b|"
         r"\b(?:i'm|im)\s+an?\s+(?:meat[- ]eater|meat lover|omnivore)\b|"
         r"\b(?:i'm|im)\s+(?:no longer|not)\s+(?:a\s+)?(?:vegetarian|vegan)\b",
         _fixed("diet", "meat")),
        (r"\bsince\s+(?:going|switching to|becoming|turning)\s+(?P<value>vegetarian|vegan|"
         r"pescatarian|veggie)\b|\bback to being\s+(?:a\s+)?(?P<back>vegetarian|vegan|"
         r"pescatarian)\b", lambda m: Claim("diet", _diet(m.group("value") or m.group("back")))),
        (_WHO + r"(?:back on|eating)\s+meat\b", _fixed("diet", "meat")),
        (_WHO + r"(?:eat|follow|on)\s+a\s+(?:fully\s+)?plant-based diet\b",
         _fixed("diet", "vegan")),
        (_WHO + r"(?:quit|stopped|gave up|don't|do not|no longer)\s+smok(?:e|ing)\b|"
         r"\bnon[- ]?smoker\b|\bsmoke[- ]free\b", _fixed("smokes", "no")),
        (_WHO + r"(?:still\s+)?smoke\b(?![- ]free|\s+(?:salmon|meat|fish|brisket|ribs|alarm))|"
         r"\b(?:i'm|im)\s+(?:a\s+)?smoker\b|" + _WHO + r"(?:picked up|started)\s+smoking\b",
         _fixed("smokes", "yes")),
        (_WHO_AM + r"smoking again\b|^smoker\b|\bpack a day\b", _fixed("smokes", "yes")),
        # Favourites, likes and dislikes.
        (r"\bmy\s+(?:all[- ]time\s+|absolute\s+|new\s+)?fav(?:ou?rite)?\s+(?P<thing>[a-z]+)"
         r"(?:'s|\s+is)\s+(?:definitely\s+|probably\s+|still\s+|now\s+)?" + _LIKE_OBJECT,
         _favourite),
        (_CLAUSE + r"(?P<value>[\w'][\w' -]{0,30}?)\s+is\s+my\s+(?:all[- ]time\s+|new\s+)?"
         r"fav(?:ou?rite)?\s+(?P<thing>[a-z]+)\b", _favourite),
        (r"\bmy\s+team\s+is\s+(?:the\s+)?" + _NAME, _plain("favorite:team")),
        (r"^(?:a\s+)?(?:big|huge|massive|lifelong|die-hard|proud)\s+" + _NAME
         + r"\s+supporter\b", _plain("favorite:team")),
        (_CLAUSE + r"(?P<value>[\w'][\w' -]{0,30}?),\s+my\s+(?:new\s+)?fav(?:ou?rite)?\s+"
         r"(?P<thing>[a-z]+)\b", _favourite),
        (r"\bfav(?:ou?rite)?\s+(?P<thing>[a-z]+):\s+" + _LIKE_OBJECT, _favourite),
        (_CLAUSE + r"(?P<value>[\w'][\w' -]{0,30}?)\s+is\s+my\s+(?P<thing>colou?r|drink|season|"
         r"sport|song|food|genre|team|film|movie|book|band|dish)(?:\s+now)?\s*(?:[.!,]|$)",
         _favourite),
        (_WHO + r"(?:really\s+|absolutely\s+|just\s+|totally\s+|truly\s+|still\s+)?"
         r"(?:love|like|enjoy|adore)\s+" + _LIKE_OBJECT, _likes("yes")),
        (_WHO + r"can't get enough of\s+" + _LIKE_OBJECT, _likes("yes")),
        (_WHO_AM + r"(?:a\s+)?(?:big\s+|huge\s+)?fan of\s+" + _LIKE_OBJECT, _likes("yes")),
        (_WHO + r"(?:really\s+|absolutely\s+|just\s+|totally\s+)?(?:hate|dislike|detest|"
         r"can't stand|cannot stand|don't like|do not like|don't enjoy|don't care for|"
         r"no longer like|no longer enjoy|gone off)\s+" + _LIKE_OBJECT, _likes("no")),
        (r"\b(?:i'm|im)\s+not\s+(?:a\s+)?(?:big\s+)?fan of\s+" + _LIKE_OBJECT, _likes("no")),
        (r"\b(?:i'm|im|i am)\s+(?:more of\s+|very much\s+)?an?\s+(?P<value>[a-z]+(?: [a-z]+)?)"
         r"\s+person\b", _kind_of_person("yes")),
        (r"\b(?:i'm|im|i am)\s+not\s+(?:much of\s+)?an?\s+(?P<value>[a-z]+(?: [a-z]+)?)"
         r"\s+person\b", _kind_of_person("no")),
    )
)
# Someone else is the subject before the claim: "My sister lives in Rome", "since my dad quit".
_SOMEONE_ELSE = re.compile(
    r"\b(?:my|our|his|her|their|your)\s+(?:\w+\s+){0,2}?(?:sister|brother|sis|bro|mom|mum|"
    r"mother|dad|father|parents?|friend|freind|mate|partner|wife|husband|boyfriend|girlfriend|"
    r"fianc\w*|cousin|colleague|co-?worker|boss|neighbou?r|room-?mate|flat-?mate|son|"
    r"daughter|kids?|children|uncle|aunt|nephew|niece|grand\w+|family|manager|bestie|bff)"
    r"(?:'s)?\b|\b(?:he|she|they|he's|she's|they're|someone|everyone|people|anyone)\b",
    re.I,
)
_PARTNER = re.compile(r"girlfriend|boyfriend|wife|husband|partner|fianc", re.I)
_OPENERS = re.compile(
    r"^(?:(?:so|btw|by the way|anyway|also|oh|and|well|ok|okay|hey|hi|hmm+|honestly|fyi|"
    r"random but|funny thing|big news|guess what|quick update|news|update|oops|lol|haha|yeah|"
    r"right|ah|oh and|just so you know|not sure i said|my bad earlier|sorry|actually|"
    r"actually no|scratch what i said before|to be honest|tbh)\b[\s,:!?.-]*)+",
    re.I,
)


def _diet(word: str) -> str:
    word = word.lower()
    return {"veggie": "vegetarian", "pescetarian": "pescatarian"}.get(word, word)


@functools.lru_cache(maxsize=CLAIMS_KEPT)
def claim_of(text: str) -> Claim | None:
    """The one claim a statement makes about its speaker, or None (none, several, or unsure).
    Kept by text: a window's belief checks read each premise's claim once for every new belief
    beside it (about 9% of a bot process's upkeep before)."""
    found = {claim for sentence in _SENTENCES.split(straight_quotes(text))
             if (claim := _claim_of_sentence(sentence.strip())) is not None}
    return found.pop() if len(found) == 1 else None


def _claim_of_sentence(sentence: str) -> Claim | None:
    if not sentence or sentence.endswith("?") or _NOT_NOW.search(sentence):
        return None
    said = _OPENERS.sub("", sentence).strip()
    for pattern, read in _RULES:
        match = pattern.search(said)
        if match is None or _SOMEONE_ELSE.search(said[:match.start()]):
            continue
        if (claim := read(match)) is not None:
            return claim
    return None


def about_now(text: str) -> bool:
    """Whether a statement may say how the speaker's life is now: it is no question, nothing in
    it is hypothetical, past, planned or wished ("I used to live in Rome", "I might move"), and
    it does not begin with someone else ("my coworker is vegan"; a partner counts as the
    speaker's own: "my girlfriend Sam...")."""
    said = _OPENERS.sub("", straight_quotes(text).strip()).strip()
    if not said or said.endswith("?") or _NOT_NOW.search(said):
        return False
    other = _SOMEONE_ELSE.match(said)
    return other is None or bool(_PARTNER.search(other.group(0)))


def says_change(text: str) -> bool:
    """The statement says something changed ("we moved", "now", "no longer", "just turned")."""
    return bool(_CHANGE.search(straight_quotes(text)))


def agree(subject: str, first: str, second: str) -> bool:
    """Whether two values of one subject can both hold."""
    if first == second:
        return True
    if subject.startswith("person:") and "not" in (first.split()[0], second.split()[0]):
        return first.removeprefix("not ") != second.removeprefix("not ")  # "not a cat" agrees
    if subject == "relationship":
        groups = (_RELATIONSHIP_GROUPS.get(first), _RELATIONSHIP_GROUPS.get(second))
        return groups[0] == groups[1] or ("together" in groups and "apart" not in groups)
    return False
