"""Held-out timelines for the belief-consistency benchmark.

This is HELD-OUT data. It was written by Claude, an AI assistant, for this benchmark,
independently of the development set and of the parser that extracts beliefs: the author
saw neither, and nothing here was tuned against the parser's output. Its job is to check
that results measured on the development set carry over to phrasing nobody tuned for.

The timelines are generated from hand-written templates and value lists and are seeded:
``timelines(count, seed)`` returns the same data for the same arguments (``random.Random``).

What it holds (defaults: 120 timelines, seed 11; proportions are rough):

* 8-20 statements per timeline (about 13-14 on average, roughly 1,600 in all), spread
  over weeks and months (gaps of 0-120 days between consecutive statements).
* Single-valued subjects: home city, employer, job, diet, relationship status, partner's
  name, dog's and cat's name, what pet (if any) the user has, age, number of kids, siblings
  and pets, smoking, favourite food / music genre / team, and liking or disliking a
  specific thing (``likes_<thing>``, values ``yes``/``no``).
* About half of the subjects that appear change later, roughly a fifth of those twice
  (age and number of kids change at most once). Changes make up about a fifth of all
  statements. Most land weeks or months after the statement they replace (at least two
  weeks); about 10% land the same day (often a correction) and about 10% within 1-5 days.
* About 40-45% of the statements are compatible traps that must NOT replace anything: other
  people's facts, past / planned / hypothetical statements, travel, opinions about the
  current value, numbers about other things, mentions of a superseded value, and
  restatements of the current value in other words (subject set, same value,
  ``replaces=None``).
* In about a quarter to a third of the timelines the companion talks about itself
  (``companion_`` subjects: favourite weather, music, season, colour, animal) and in
  most of those later contradicts itself.
* One question per user subject that changed, with words showing the newest value and
  words showing superseded values (the two sets never share a word or substring).

Where it is weak:

* It is templated: phrasing varies (fillers, typos, lowercase, emoji, British and American
  spelling), but sentence shapes repeat across timelines and there is no real dialogue.
* Every subject is single-valued; nothing tests lists, sets or partial updates.
* English only.
* The ground truth assumes the newest user statement is right; it never models a user
  who is joking, lying or mistaken.
* Answer words are matched as plain strings, so a correct answer in unusual words can
  be missed, and a negated old value ("you no longer smoke") is not distinguished.
"""

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from benchmarks.consistency_data import Question, Statement, Timeline

__all__ = ["timelines"]


class _Value(NamedTuple):
    norm: str
    display: str
    words: tuple[str, ...]


Table = Mapping[str, tuple[str, ...]]


@dataclass(frozen=True)
class _Subject:
    key: str
    values: tuple[_Value, ...]
    init: Table
    change: Table
    restate: Table
    traps: tuple[str, ...]
    questions: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    fixes: tuple[str, ...] = ()
    sequence: str = "distinct"
    thing: str = ""


def _named(*names: str) -> tuple[_Value, ...]:
    return tuple(_Value(name.lower(), name, (name.lower(),)) for name in names)


_NUM = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _kids(n: int) -> _Value:
    if n == 0:
        words: tuple[str, ...] = ("no kids", "no children", "child-free", "childless")
    elif n == 1:
        words = ("one kid", "one child", "1 kid", "1 child")
    else:
        words = (f"{_NUM[n]} kids", f"{_NUM[n]} children", f"{n} kids", f"{n} children")
    return _Value(str(n), _NUM[n], words)


def _siblings(n: int) -> _Value:
    if n == 0:
        words: tuple[str, ...] = ("only child", "no siblings")
    elif n == 1:
        words = ("one sibling", "1 sibling")
    else:
        words = (f"{_NUM[n]} siblings", f"{n} siblings")
    return _Value(str(n), _NUM[n], words)


def _pets(n: int) -> _Value:
    if n == 1:
        words: tuple[str, ...] = ("one pet", "1 pet")
    else:
        words = (f"{_NUM[n]} pets", f"{n} pets")
    return _Value(str(n), _NUM[n], words)


def _age(n: int) -> _Value:
    return _Value(str(n), str(n), (str(n),))


_MONTHS = (
    "january", "February", "march", "April", "May", "june",
    "July", "august", "September", "october", "November", "december",
)
_RELATIVES = (
    "cousin", "sister", "brother", "boss", "flatmate", "roommate", "best mate", "best friend",
    "neighbour", "neighbor", "aunt", "uncle", "coworker", "colleague", "mum", "mom", "dad",
    "brother-in-law",
)
_PEOPLE = (
    "Jess", "Mike", "Dana", "Raj", "Bea", "Carlos", "Mei", "Tariq", "Gemma", "Nico", "Lars",
    "Zoe", "Femi", "Ollie", "Ines",
)

# ---------------------------------------------------------------------------------------
# user subjects
# ---------------------------------------------------------------------------------------

_HOME_CITY = _Subject(
    key="home_city",
    values=_named(
        "Lisbon", "Leeds", "Porto", "Berlin", "Dublin", "Toronto", "Melbourne", "Austin",
        "Glasgow", "Madrid", "Seattle", "Oslo", "Denver", "Bristol", "Valencia", "Montreal",
        "Edinburgh", "Vienna", "Nairobi", "Osaka", "Chicago", "Prague", "Cardiff", "Lyon",
    ),
    init={"*": (
        "I live in {v}",
        "home's {v} these days",
        "been living out of a flat in {v} since {month}",
        "I've been in {v} for ages, it's home",
        "I'm based in {v}, for context",
        "we've got a little apartment in {v}, right by the river",
        "{v} is home for me",
        "my place in {v} is tiny but I love it",
        "moved to {v} about six years ago and it's home now",
        "currently renting in {v}, the rents are brutal",
        "live in {v}, work from home, rarely leave the sofa",
    )},
    change={"*": (
        "relocated to {v} for the new gig",
        "we finally moved! {v} is home now",
        "big news: I moved to {v} last week",
        "left {old} in the end, new flat in {v}",
        "living in {v} now, still unpacking boxes 📦",
        "handed the keys back in {old}, I'm officially a {v} resident",
        "ok so the move happened, I'm in {v} for good now",
        "we packed up the van and moved to {v} over the summer",
        "new city, new me: {v}!",
        "a month since the move to {v} and I still get lost going to the shops",
        "I don't live in {old} anymore, moved to {v} in {month}",
    )},
    fixes=(
        "wait, scratch that, I moved to {v} last month, I keep forgetting",
        "sorry, old info, I'm in {v} now, not {old}",
        "oh actually I live in {v} now, {old} was before the move",
    ),
    restate={"*": (
        "yep, still in {v}",
        "{v} is still home, no plans to leave",
        "still living in {v}, still complaining about the weather",
        "I've lived in {v} long enough to have a favourite bakery",
    )},
    traps=(
        "my cousin just moved to {o}",
        "my {rel} lives in {o}, I visit a couple of times a year",
        "{name} from work is relocating to {o}",
        "we lived in {o} back in {year}",
        "spent two years in {o} after uni",
        "grew up in {o} actually, we moved around a lot when I was a kid",
        "might relocate to {o} next year, who knows",
        "if I could live anywhere it'd probably be {o}",
        "in {o} for a conference this week",
        "flying to {o} tomorrow for a wedding",
        "just landed in {o}, work trip, back on monday",
        "weekend trip to {o} was lovely",
        "{v}'s bakeries are unreal",
        "I love {v}'s parks in autumn",
        "the trams in {v} are always late smh",
        "{v} in august is way too hot for me",
        "traffic in {v} today was a nightmare",
    ),
    after=(
        "still miss {p} sometimes",
        "went back to {p} to visit friends, felt weird",
        "the coffee in {p} was better, not gonna lie",
    ),
    questions=(
        "where do I live these days?",
        "remind me which city I'm in now?",
        "what's my home city again?",
        "if you mailed me a postcard, which city would it go to?",
        "any tips for meeting new people in my city? you know where I live, right?",
        "where am I based at the moment?",
    ),
)

_EMPLOYER = _Subject(
    key="employer",
    values=_named(
        "Stripe", "Spotify", "Siemens", "Deloitte", "Tesco", "Shopify", "Airbus", "IKEA",
        "Unilever", "Zalando", "Atlassian", "Canva", "Ocado", "Accenture", "Philips", "Lego",
        "Monzo", "Revolut", "Adidas", "Bosch", "Etsy", "Figma", "Pfizer", "Ubisoft",
    ),
    init={"*": (
        "I work at {v}",
        "I'm at {v}, been there three years",
        "work for {v}, it pays the bills",
        "{v} employee here, don't judge",
        "my employer is {v}, which is exactly as corporate as you'd think",
        "been with {v} since {year}",
        "on the payroll at {v}, mostly remote",
        "ugh, {v} has us doing mandatory fun again. perks of working there I guess",
        "my company's {v}, I'm in the ops team",
    )},
    change={"*": (
        "new badge, new desk: I'm at {v} now",
        "I left {old}! started at {v} on monday",
        "handed in my notice at {old} and joined {v}",
        "first week at {v} done 🎉",
        "got poached by {v}, so goodbye {old}",
        "i work for {v} now, the interview process was insane",
        "switched jobs, {v} made me an offer I couldn't refuse",
        "officially a {v} person now. {old} feels like ages ago",
        "got laid off from {old} but landed at {v} within a month",
        "took the {v} offer, signed the contract and I'm already through onboarding",
    )},
    fixes=(
        "sorry, that's out of date, I'm at {v} now, not {old}",
        "correction: I left {old} a while ago, it's {v} these days",
        "oops, I meant {v}. {old} is my old place",
    ),
    restate={"*": (
        "still at {v}, still surviving",
        "another year at {v}, they gave me a mug",
        "yeah I'm at {v}, same as before",
        "{v} is still where I work, nothing new there",
    )},
    traps=(
        "my sister works at {o}",
        "my {rel} just got a job at {o}",
        "{name} left for {o}, lucky them",
        "I have an interview with {o} next week, fingers crossed",
        "a recruiter from {o} keeps messaging me on linkedin",
        "would I ever work at {o}? maybe, if the money was right",
        "interned at {o} back in {year}",
        "used to temp at {o} during uni",
        "{o}'s new ad campaign is so cringe",
        "{v}'s coffee machine is broken again",
        "the {v} christmas party was chaos",
        "my team at {v} is great honestly",
    ),
    after=(
        "ran into my old manager from {p} today",
        "do not miss the {p} open-plan office",
        "got my last payslip from {p}, closure",
    ),
    questions=(
        "where do I work now?",
        "which company am I at these days?",
        "remind me who my employer is?",
        "I'm updating my linkedin, which company goes under current position?",
        "who signs my paychecks these days?",
        "what company should I list as my employer on this form?",
    ),
)

_JOB = _Subject(
    key="job",
    values=_named(
        "nurse", "plumber", "architect", "accountant", "paramedic", "barista", "pharmacist",
        "translator", "chef", "electrician", "lawyer", "dentist", "journalist", "librarian",
        "physiotherapist", "data analyst", "graphic designer", "firefighter", "welder", "pilot",
        "midwife", "carpenter", "teacher", "vet",
    ),
    init={"*": (
        "I'm {va}",
        "I work as {va}",
        "been {va} for about ten years",
        "by day I'm {va}, by night I play bad guitar",
        "as {va}, my hours are all over the place",
        "i'm {va} (yes really)",
        "trained as {va} and still love it",
        "my job? {v}. it's fine",
        "{v} by trade, nerd by nature",
    )},
    change={"*": (
        "I retrained, I'm {va} now!",
        "quit being {olda}, started as {va} last month",
        "career change happened: officially {va}",
        "passed my exams, I'm a qualified {v} now 🎓",
        "no more {old} life for me, I work as {va} these days",
        "switched careers, working as {va} now",
        "after years as {olda} I took the leap and became {va}",
        "new job title: {v}. still feels weird to say",
        "so yeah, {va} now. the {old} days are over",
    )},
    fixes=(
        "sorry, that's outdated, I'm {va} now, not {olda}",
        "wait, I haven't been {olda} for a while, I work as {va}",
    ),
    restate={"*": (
        "still working as {va}",
        "yep, {va}, still",
        "still {va}, another year of it",
    )},
    traps=(
        "my {rel} is {oa}",
        "{name} wants to become {oa}",
        "when I was a kid I wanted to be {oa}",
        "in another life I'd be {oa}",
        "did a week of work experience as {oa} at school",
        "my {rel} just qualified as {oa}",
        "watched a documentary about being {oa}, respect",
        "being {va} is exhausting some weeks",
        "long shift today, the glamorous life of {va}",
    ),
    after=(
        "I don't miss being {pa} at all",
        "sometimes I dream I'm still {pa} lol",
    ),
    questions=(
        "what do I do for a living now?",
        "what's my job these days?",
        "remind me what my occupation is?",
        "what job title should I put on this form for me?",
        "if someone at a party asks what I do, what's the answer these days?",
    ),
)

_DIET = _Subject(
    key="diet",
    values=(
        _Value("vegetarian", "vegetarian", ("vegetarian", "veggie")),
        _Value("vegan", "vegan", ("vegan",)),
        _Value("pescatarian", "pescatarian", ("pescatarian", "pescetarian")),
        _Value(
            "omnivore", "omnivore",
            ("omnivore", "meat eater", "meat-eater", "back on meat", "eating meat again"),
        ),
    ),
    init={
        "vegetarian": (
            "I'm vegetarian",
            "no meat for me, I'm veggie 🌱",
            "been vegetarian since I was fifteen",
            "fyi I'm a vegetarian, so no bacon recipes pls",
            "vegetarian here, halloumi is my whole personality",
        ),
        "vegan": (
            "I'm vegan",
            "fully vegan, no dairy no eggs",
            "vegan for four years now, never going back",
            "plant-based / vegan, whatever you want to call it",
        ),
        "pescatarian": (
            "I'm pescatarian, fish yes, meat no",
            "pescatarian here 🐟",
            "I eat fish but no meat, so pescatarian basically",
        ),
        "omnivore": (
            "I eat pretty much everything, total omnivore",
            "I'm a meat eater, sorry to the vegans",
            "no dietary restrictions, I'll eat anything you put in front of me",
        ),
    },
    change={
        "*>vegetarian": (
            "I went vegetarian last month",
            "cut out meat completely, vegetarian now!",
            "officially veggie as of {month}",
            "decided to go vegetarian after that documentary, six weeks in",
        ),
        "*>vegan": (
            "went vegan in january and actually stuck with it",
            "dropped dairy and eggs too, so I'm vegan now",
            "I'm vegan these days, oat milk in everything",
        ),
        "*>pescatarian": (
            "started eating fish again, so pescatarian now I guess",
            "switched to pescatarian, my doctor wanted more omega 3",
            "I'm pescatarian now, the meat's gone but I kept the salmon",
        ),
        "*>omnivore": (
            "caved and started eating meat again lol",
            "the {old} thing didn't last, I'm back on meat",
            "had a burger for the first time in years and honestly? I'm a meat eater again",
            "no longer {old}, I eat meat now",
        ),
    },
    restate={
        "vegetarian": ("still vegetarian, still miss bacon a bit", "yep, still no meat for me"),
        "vegan": ("still vegan, and my b12 levels are fine thank you",),
        "pescatarian": ("still pescatarian, fish fridays forever",),
        "omnivore": ("still eating everything, no restrictions here",),
    },
    traps=(
        "my boss is vegan",
        "my {rel} went vegetarian last year and won't shut up about it",
        "{name} is pescatarian and makes the best fish tacos",
        "bought a vegan cookbook for my sister's birthday",
        "the new vegetarian place downtown is actually good",
        "my flatmate's veggie so we cook a lot of lentils",
        "my {rel} is doing veganuary, good luck to them",
        "tried keto for a week once, lasted three days",
        "ordered a veggie lasagne for the office lunch, it was gone in minutes",
    ),
    questions=(
        "what's my diet these days?",
        "I'm filling in a wedding RSVP, which meal option fits me?",
        "what should I tell the caterers about what I eat?",
        "remind me, what kind of eater am I now?",
        "can you suggest a dinner that fits how I eat now? say which diet you're assuming",
    ),
)

_RELATIONSHIP = _Subject(
    key="relationship",
    values=(
        _Value("single", "single", ("single",)),
        _Value("dating", "dating", ("dating", "seeing someone", "boyfriend", "girlfriend")),
        _Value("engaged", "engaged", ("engaged", "fiancé", "fiance")),
        _Value("married", "married", ("married", "husband", "wife", "spouse")),
        _Value("separated", "separated", ("separated",)),
        _Value("divorced", "divorced", ("divorced",)),
    ),
    init={
        "single": (
            "I'm single",
            "single and not really looking tbh",
            "no partner, just me and my houseplants",
            "i've been single for like two years now",
            "perpetually single lol",
        ),
        "dating": (
            "I'm seeing someone, it's pretty new",
            "I have a boyfriend, we've been together a year",
            "my girlfriend and I have been dating since spring",
            "in a relationship, 8 months and counting 💕",
        ),
        "engaged": (
            "I'm engaged! the wedding's next summer",
            "we got engaged at christmas, still planning everything",
        ),
        "married": (
            "the wife and I have been married eight years",
            "my husband and I just had our anniversary",
            "married, happily, mostly lol",
        ),
        "separated": ("we're separated at the moment, it's complicated",),
        "divorced": ("I'm divorced, it was amicable", "divorced since {year}, doing fine"),
    },
    change={
        "engaged>single": ("we called off the engagement. I'm single",),
        "separated>married": ("we're back together! giving the marriage another go",),
        "*>dating": (
            "I met someone! a few dates in and it's official",
            "so... I have a girlfriend now 🙈",
            "I'm in a relationship now, which is wild",
            "started dating a guy from my climbing gym, it's serious",
        ),
        "*>engaged": (
            "WE GOT ENGAGED 💍",
            "they proposed last night and I said yes!!",
            "I'm engaged now, can you believe it",
        ),
        "*>married": (
            "we got married on saturday!!",
            "just back from the honeymoon, married life is good",
            "officially married as of last weekend",
        ),
        "*>single": (
            "we broke up. I'm single again",
            "it's over between us, single now and honestly ok",
            "ended things last week, so back to being single",
        ),
        "*>separated": (
            "we've separated, living apart for now",
            "my marriage is on pause, we separated in the spring",
        ),
        "*>divorced": (
            "the divorce went through yesterday",
            "I'm officially divorced now, weird feeling",
        ),
    },
    restate={
        "single": ("still single, still fine with it",),
        "dating": ("still seeing the same person, it's going well",),
        "engaged": ("still engaged, still haven't picked a venue",),
        "married": ("still married, still happy",),
        "separated": ("still separated, nothing's changed",),
        "divorced": ("still divorced and loving the quiet",),
    },
    traps=(
        "my sister just got engaged",
        "my {rel} is getting divorced, it's messy",
        "{name} and their partner broke up again",
        "went to a wedding this weekend, cried through the vows",
        "my parents have been married forty years",
        "my best friend is single and wants me to set her up with someone",
        "watched a rom-com about a divorced couple, it was terrible",
        "{name} is seeing someone new, we're all suspicious",
    ),
    questions=(
        "what's my relationship status right now?",
        "am I seeing anyone at the moment?",
        "how would you describe my love life these days?",
        "if you were planning a valentine's surprise for me, what's my situation?",
        "remind me, am I single or attached these days?",
    ),
    sequence="relationship",
)

_PARTNER_NAME = _Subject(
    key="partner_name",
    values=_named(
        "Sam", "Priya", "Marco", "Elena", "Jonah", "Aisha", "Kenji", "Freya", "Luca", "Nadia",
        "Owen", "Rosa", "Hannah", "Mateo", "Ingrid", "Callum", "Yusuf", "Chloe", "Amara",
        "Felix",
    ),
    init={"*": (
        "my partner's name is {v}",
        "{v} and I have been together three years",
        "{v} says hi lol, they're reading over my shoulder",
        "the other half ({v}) is cooking tonight",
        "{v}, my other half, thinks I talk to you too much 😅",
        "been with {v} since uni",
        "me and {v} are going hiking on sunday",
        "{v} (married six years now) is a much better driver than me",
        "my partner {v} is away this weekend",
    )},
    change={"*": (
        "I'm with {v} now. long story, {old} and I split in the spring",
        "new partner alert: {v} 🥰",
        "been seeing {v} for a couple of months, it's serious now",
        "so {old} is out of the picture. I'm with someone called {v}",
        "moved on from {old}. {v} makes me really happy",
        "my partner now is {v}, we met at a friend's birthday",
        "introducing {v}, my new other half",
        "{v} and I made it official last week",
        "broke up with {old} ages ago, been with {v} since {month}",
    )},
    fixes=(
        "oh wait, I mean {v}, {old} is my ex, sorry",
        "typo, sorry, my partner is {v}, not {old}",
    ),
    restate={"*": (
        "still with {v}, still happy",
        "{v} and I are still going strong",
        "me and {v}, another year together next month",
    )},
    traps=(
        "my sister's boyfriend is called {o}",
        "{o} from work is so annoying",
        "my {rel} is dating someone called {o}",
        "had coffee with my friend {o} today",
        "my ex {o} texted me out of nowhere",
        "if I ever have a kid I like the name {o}",
        "{v} is away for work this week, the flat is so quiet",
        "{v} burnt the toast again, bless them",
    ),
    after=(
        "saw {p} at the supermarket, awkward",
        "{p} still has my hoodie and I want it back",
    ),
    questions=(
        "what's my partner called again?",
        "who am I with these days?",
        "what's the name of my other half?",
        "help me write an anniversary card, who's it for again?",
        "my mum asked who I'm dating, what's their name again? my brain is fried",
    ),
)

_DOG_NAME = _Subject(
    key="dog_name",
    values=_named(
        "Biscuit", "Pepper", "Luna", "Rex", "Bruno", "Pickle", "Bear", "Ziggy", "Maple",
        "Nacho", "Waffles", "Daisy", "Otis", "Pumpkin", "Scout", "Hazel", "Dexter",
    ),
    init={"*": (
        "my dog's called {v}",
        "{v} (my dog) just ate a sock",
        "taking {v} for a walk, she's a beagle",
        "i have a dog named {v} 🐶",
        "{v} my staffie says woof",
        "our pup {v} is the boss of the house",
        "walked {v} for an hour and he's still not tired",
        "my dog {v} hates the postman",
        "{v} is my dog, a very fluffy idiot",
    )},
    change={"*": (
        "we adopted a new dog, {v}! after losing {old} in the spring",
        "we renamed the rescue pup, she's {v} now, {old} never suited her",
        "rip {old} 💔 we brought home a new pup last week, {v}",
        "meet {v}, our new dog",
        "so the dog's name is {v} now, the kids voted",
        "{old} went to live on my parents' farm, we've got a new dog called {v}",
        "new dog in the house: {v}. still grieving {old} a bit",
        "officially renamed the dog {v}, {old} was the shelter's name",
        "my dog is {v} now, a greyhound we rescued in {month}",
    )},
    fixes=(
        "sorry, I mean {v}! {old} is the dog we had before",
        "typo lol, the dog is {v}, not {old}",
    ),
    restate={"*": (
        "{v} is still my dog and still perfect",
        "still just me and {v} on the morning walks",
    )},
    traps=(
        "my sister's dog is called {o}",
        "met a dog called {o} at the park today 😍",
        "if I got a second dog I'd name it {o}",
        "the neighbour's dog {o} barks all night",
        "{o} is such a good dog name",
        "{name}'s puppy {o} chewed my shoelaces",
        "{v} rolled in something gross again",
        "{v} had a vet check today, all good",
    ),
    after=("found one of {p}'s old toys under the sofa today 🥲",),
    questions=(
        "what's my dog's name?",
        "remind me what my dog is called now?",
        "I'm ordering a name tag for my dog's collar, what should it say?",
        "who's the good boy or girl in my house, name please?",
    ),
)

_CAT_NAME = _Subject(
    key="cat_name",
    values=_named(
        "Miso", "Tofu", "Salem", "Ginger", "Noodle", "Clementine", "Pixel", "Smudge", "Poppy",
        "Figaro", "Jasper", "Mittens", "Cleo", "Mango", "Tigger", "Onyx",
    ),
    init={"*": (
        "my cat's called {v}",
        "{v} is sitting on my keyboard again",
        "i have a cat named {v} 🐱",
        "my cat {v} knocks everything off tables",
        "our cat {v} is 12 and rules the flat",
        "{v} (the cat) is judging me right now",
        "{v} my tabby is asleep in the laundry basket",
        "my cat is {v}, a very vocal siamese",
    )},
    change={"*": (
        "we adopted a kitten, {v}! {old} went to live with my mum",
        "rip {old}, we brought home a new cat, {v}",
        "meet {v}, our new cat 😻",
        "renamed the cat {v}, {old} just didn't fit her",
        "{old} moved in with my aunt, there's a new cat here called {v}",
        "new cat, new chaos: {v}",
        "the cat's name is {v} now, the shelter name {old} had to go",
        "my cat now is {v}, picked her up from the rescue in {month}",
    )},
    fixes=("oops, I mean {v}, not {old}, {old} was our old cat",),
    restate={"*": (
        "{v} is still the boss of this house",
        "still just me and {v}, the cat",
    )},
    traps=(
        "my neighbour's cat {o} keeps sneaking into our garden",
        "if I had another cat I'd name it {o}",
        "my sister's cat is called {o}",
        "{name} just got a kitten called {o}",
        "{o} would be such a good cat name",
        "{v} brought me a dead mouse, thanks I hate it",
        "{v} is at the vet, fingers crossed",
    ),
    after=("still have {p}'s old scratching post, can't throw it out",),
    questions=(
        "what's my cat called?",
        "remind me of my cat's name?",
        "I'm getting a little engraved tag for the cat, what name goes on it?",
    ),
)

_PET_TYPE = _Subject(
    key="pet_type",
    values=(
        _Value("none", "no pets", ("no pets", "no pet", "pet-free")),
        _Value("dog", "dog", ("dog", "puppy")),
        _Value("cat", "cat", ("cat", "kitten")),
        _Value("rabbit", "rabbit", ("rabbit", "bunny")),
        _Value("hamster", "hamster", ("hamster",)),
        _Value("parrot", "parrot", ("parrot",)),
        _Value("tortoise", "tortoise", ("tortoise",)),
        _Value("guinea pig", "guinea pig", ("guinea pig",)),
        _Value("ferret", "ferret", ("ferret",)),
    ),
    init={
        "none": (
            "no pets here, my landlord won't allow them",
            "I don't have any pets, allergic to basically everything",
            "pet-free household, sadly",
            "zero pets. my plants are my children",
        ),
        "*": (
            "I have {va}",
            "got {va} at home who needs constant attention",
            "proud owner of {va}",
            "my {v} is the only one who's happy to see me after work",
            "there's {va} in my flat, my landlord doesn't know 🤫",
        ),
    },
    change={
        "none>*": (
            "we adopted {va}!!",
            "finally got a pet: {va}!",
            "brought home {va} from the shelter on saturday",
            "so we have {va} now, no sleep since",
            "the pet-free era is over, we got {va} 🐾",
        ),
        "*": (
            "our {old} passed away in the winter 💔 we've got {va} now",
            "rehomed the {old} with my aunt, and now there's {va} in the house",
            "the {old} lives with my parents now and we've got {va} instead",
        ),
    },
    restate={
        "none": ("still no pets, still sad about it",),
        "*": ("still just the one {v}",),
    },
    traps=(
        "my sister's getting a puppy next week",
        "my {rel} has three cats and a parrot",
        "{name} keeps sending me videos of their rabbit",
        "pet-sitting my neighbour's dog this weekend",
        "saw a tortoise at the garden centre, so cute",
        "the pet shop near me is closing down",
    ),
    questions=(
        "what pet do I have these days?",
        "do I have any animals at home right now?",
        "if you were buying a present for my pet, what animal is it for?",
        "remind me what kind of pet lives with me?",
    ),
    sequence="pet",
)

_AGE = _Subject(
    key="age",
    values=(),
    init={"*": (
        "I'm {v}",
        "{v} years old and feeling every one of them",
        "just turned {v} last month",
        "i'm {v}, which apparently makes me ancient to my nephews",
        "{v} this year. where did the time go",
        "as a {v}-year-old I should know how to cook rice by now",
        "im {v} btw",
        "age? {v}. don't ask me to do a cartwheel",
        "I'm {v} and only just learned to swim",
    )},
    change={"*": (
        "it's my birthday!! {v} today 🎂",
        "turned {v} over the weekend, feel no different",
        "officially {v} as of yesterday",
        "another trip around the sun: {v} now",
        "had my birthday on tuesday, so I'm {v}",
        "{v} now, the grey hairs are winning",
        "i turn {v} in june... scratch that, it was yesterday. time flies",
        "birthday cake had {v} candles, the smoke alarm went off",
    )},
    fixes=(
        "wait, did I say {old}? I'm {v}, my birthday was last week lol",
        "correction, I'm {v} now, not {old}, forgot I'd had a birthday",
    ),
    # "{v} and I still can't whistle" states the current age: a restatement, not a trap (it
    # was listed as a trap in the first run; see benchmarks/consistency_eval.py).
    restate={"*": ("still {v}, for a few more months anyway", "yep, {v}",
                   "{v} and I still can't whistle")},
    traps=(
        "my dad turns {n} next week",
        "my grandma is {n} and sharper than me",
        "{n} minutes to get through security today",
        "my car is {n} years old and still going",
        "I'll be {future} next year, yikes",
        "when I was {past} I thought I knew everything",
        "my boss is {n}, looks about 30",
        "ran {n} laps of the park this morning, dying",
    ),
    questions=(
        "how old am I now?",
        "remind me how old I am, I genuinely forgot lol",
        "what age should I put on this form for me?",
        "do you remember my age?",
        "how old did I turn most recently?",
    ),
    sequence="age",
)

_KIDS_COUNT = _Subject(
    key="kids_count",
    values=tuple(_kids(n) for n in range(6)),
    init={
        "0": (
            "no kids yet",
            "no children, just a very spoiled nephew",
            "child-free and loving it",
        ),
        "1": (
            "I have one kid, she's six",
            "parent of one, and one is plenty",
            "my son is my only child",
            "just the one kid, a very loud toddler",
        ),
        "*": (
            "I've got {vw} kids, the house is never quiet",
            "{vw} kids under ten, send coffee",
            "we have {vw} children",
            "our {vw} little monsters say hi",
            "mum of {vw} here",
            "dad of {vw}, tired of everything",
        ),
    },
    change={
        "*>1": (
            "the baby arrived!! I'm a parent now 👶",
            "we had a baby girl last tuesday",
            "became a dad last week, still in shock",
            "welcome to the world, little one: our first baby came early",
        ),
        "*": (
            "baby number {v} arrived on sunday, so that's {vw} kids now",
            "we had another one, a little boy, so {vw} kids in total",
            "our family got bigger: {vw} kids as of this month",
            "officially outnumbered: kid number {v} is here",
            "the new baby makes it {vw} kids, we need a bigger car",
        ),
    },
    restate={
        "0": ("still no kids, still happy about it",),
        "1": ("still just the one kid",),
        "*": ("yep, {vw} kids, all of them loud",),
    },
    traps=(
        "my sister has {nw} kids",
        "my {rel} just had twins",
        "baby fever is real this spring, not gonna lie",
        "{n} kids at the birthday party, I'm exhausted",
        "my neighbour has {nw} children and I don't know how she does it",
        "{name} and their partner are expecting their first!",
        "babysat my niece all weekend",
    ),
    questions=(
        "how many kids do I have now?",
        "I'm booking a family holiday, how many children should I put down?",
        "remind me how many little ones live in my house these days?",
        "how many children have I got, in case the school form asks?",
    ),
    sequence="count",
)

_SIBLINGS_COUNT = _Subject(
    key="siblings_count",
    values=tuple(_siblings(n) for n in range(6)),
    init={
        "0": (
            "I'm an only child",
            "no brothers or sisters, only child through and through",
            "only child here, never had to share",
        ),
        "1": ("I have one brother, he's older", "just one sibling, a little sister"),
        "*": (
            "I have {vw} siblings",
            "{vw} siblings, I'm the youngest",
            "I'm one of {vp1w} kids",
            "big family: {vw} siblings and a million cousins",
            "{vw} brothers and sisters, christmas is chaos",
        ),
    },
    change={
        "*>1": (
            "turns out I'm not an only child: I have a half-sister!",
            "my dad had a son with his new wife, so I have a little brother now",
        ),
        "*": (
            "turns out I have a half-brother, so {vw} siblings now. wild",
            "my mum had a baby at 44, which means I now have {vw} siblings 😳",
            "dna test surprise: a half-sister I never knew about, that makes {vw} siblings",
            "my dad's new baby arrived, I'm up to {vw} siblings",
            "we found out about another half-sibling, so it's {vw} siblings now",
            "my parents adopted, so I've got {vw} siblings now",
        ),
    },
    restate={
        "0": ("still an only child, obviously",),
        "1": ("still just the one sibling",),
        "*": ("yeah, {vw} siblings, they're all chaos",),
    },
    traps=(
        "my partner has {nw} siblings",
        "my best friend is one of {n} kids",
        "sibling drama at christmas, as always",
        "{name} is an only child and it shows lol",
        "my mum is one of {n}, so many aunties",
        "my {rel}'s brother is moving in with them",
    ),
    questions=(
        "how many siblings do I have?",
        "for the family tree project, how many brothers and sisters should I list for me?",
        "remind me, am I an only child or do I have siblings?",
        "how big is my family on the sibling side?",
    ),
    sequence="count",
)

_PETS_COUNT = _Subject(
    key="pets_count",
    values=tuple(_pets(n) for n in range(1, 7)),
    init={
        "1": ("just the one pet, a grumpy old cat", "one pet, one very spoiled dog"),
        "*": (
            "I have {vw} pets",
            "{vw} pets and one very tired owner",
            "my {vw} pets are my whole world",
            "we've got {vw} animals in a small flat",
            "{vw} pets, and yes I know all their birthdays",
            "zoo update: {vw} pets in this house",
        ),
    },
    change={"*": (
        "adopted another cat, so {vw} pets now",
        "we're up to {vw} pets, send help",
        "fostered a dog and failed, so we have {vw} pets now 🙈",
        "new addition! {vw} pets in total",
        "took in my neighbour's budgie when she moved, {vw} pets now",
        "{vw} pets as of this weekend, my landlord is thrilled (not)",
        "we got a puppy, which makes {vw} pets",
        "added a hamster to the crew, {vw} pets",
    )},
    restate={
        "1": ("still just one pet",),
        "*": ("still {vw} pets, still chaos",),
    },
    traps=(
        "my {rel} has {nw} dogs",
        "{name} fosters kittens, had {n} of them last month",
        "pet-sat {nw} cats for a friend this week",
        "the shelter has {n} dogs waiting for homes, heartbreaking",
        "if I had a bigger flat I'd have a dozen pets",
    ),
    questions=(
        "how many pets do I have now?",
        "I'm booking a pet sitter, how many animals do I need to mention?",
        "remind me how many pets live with me?",
    ),
    sequence="count",
)

_SMOKE_YES = ("you smoke", "smoking again", "back on cigarettes", "still smoke", "started again")
_SMOKE_NO = (
    "you quit", "quit smoking", "don't smoke", "stopped smoking", "smoke-free", "non-smoker",
    "nonsmoker", "gave up smoking",
)

_SMOKING = _Subject(
    key="smoking",
    values=(_Value("yes", "smoker", _SMOKE_YES), _Value("no", "non-smoker", _SMOKE_NO)),
    init={
        "yes": (
            "I smoke, I know, I know",
            "pack-a-day smoker, trying not to think about it",
            "yes i smoke, no i don't want a lecture 😅",
            "I'm a smoker, mostly when I'm stressed",
            "I smoke on my breaks, bad habit",
        ),
        "no": (
            "I don't smoke, never have",
            "never touched a cigarette in my life",
            "non-smoker, can't stand the smell",
            "not a smoker, never saw the appeal",
        ),
    },
    change={
        "*>no": (
            "I quit smoking! three weeks today",
            "threw my last pack in the bin, I'm done with cigarettes",
            "officially a non-smoker now, the patches worked",
            "haven't had a cigarette in a month, I think I've actually quit",
            "stopped smoking for good, my lungs are thanking me",
        ),
        "*>yes": (
            "ugh, started smoking again after a rough month",
            "relapsed, I'm smoking again. don't say it",
            "picked cigarettes back up during exams, not proud",
            "I'm back on the cigarettes, stress got the better of me",
        ),
    },
    restate={
        "yes": ("still smoking, still meaning to stop",),
        "no": ("still smoke-free 💪", "still not smoking, day 90 or something"),
    },
    traps=(
        "my dad still smokes like a chimney",
        "my {rel} quit smoking last year, so proud of them",
        "someone was smoking on the balcony next door all night",
        "the smoking area at work is always packed",
        "my uncle vapes now instead of smoking",
        "read an article about how fast your lungs recover after quitting",
        "{name} lit a cigarette in my car, we're no longer friends",
    ),
    questions=(
        "do I smoke these days?",
        "my doctor's form asks if I'm a smoker, what do I tick?",
        "am I still on the cigarettes or did I stop?",
        "remind me where I'm at with smoking right now?",
    ),
    sequence="toggle",
)

_FAV_FOOD = _Subject(
    key="fav_food",
    values=(
        *_named(
            "pizza", "ramen", "tacos", "sushi", "pho", "curry", "dumplings", "paella",
            "burritos", "pad thai", "risotto", "falafel", "shakshuka", "pierogi", "biryani",
            "croissants",
        ),
        _Value("lasagna", "lasagne", ("lasagna", "lasagne")),
    ),
    init={"*": (
        "my favourite food is {v}",
        "{v} is my love language",
        "if I could only eat one thing forever it'd be {v}",
        "favorite food? {v}, easy",
        "nothing beats {v} honestly",
        "I could eat {v} every day of the week",
        "{v} >>> everything else",
        "comfort food for me is {v}, always has been",
    )},
    change={"*": (
        "ok I have a new favourite food: {v}",
        "{v} has overtaken {old} as my number one",
        "sorry {old}, {v} is my favorite now",
        "been obsessed with {v} lately, it's my top food now",
        "my tastes changed, these days it's all about {v}",
        "new fave food unlocked: {v} 🤤",
        "honestly I'm kind of over {old}, {v} is the one now",
        "{v} is my favourite food now, fight me",
    )},
    fixes=("wait no, my favourite is {v} these days, I went off {old}",),
    restate={"*": ("still {v}, always {v}", "{v} remains undefeated as my favourite")},
    traps=(
        "my {rel}'s favourite food is {o}",
        "tried {o} for the first time, it was fine",
        "had {o} for lunch, not bad",
        "{name} makes amazing {o}",
        "might learn to make {o} this weekend",
        "made {v} from scratch, nailed it",
        "the {v} place near me closed, devastated",
    ),
    after=("had {p} yesterday for old times' sake, still good, just not the best",),
    questions=(
        "what's my favourite food these days?",
        "I'm choosing a restaurant for my birthday, what food do I love most?",
        "if you were cooking me my favourite dish, what would it be?",
    ),
)

_FAV_MUSIC = _Subject(
    key="fav_music",
    values=_named(
        "jazz", "techno", "country", "metal", "k-pop", "folk", "hip hop", "reggae", "punk",
        "classical", "blues", "synthwave", "bossa nova", "grime", "disco", "opera",
        "afrobeats", "ska",
    ),
    init={"*": (
        "I'm really into {v}",
        "{v} is my favourite kind of music",
        "give me {v} and I'm happy",
        "music-wise? {v}, always",
        "my playlists are 90% {v}",
        "{v} fan since I was a teenager",
        "my fav genre is {v} 🎧",
        "nothing hits like {v} on a long drive",
    )},
    change={"*": (
        "I've gotten really into {v} lately, it's my top genre now",
        "{old} doesn't do it for me anymore, I'm all about {v}",
        "my spotify wrapped was all {v} this year, guess that's my thing now",
        "new favourite genre: {v}",
        "switched from {old} to {v}, my friends are confused",
        "went to a {v} gig and now I'm obsessed, new favourite",
        "honestly {v} is my favorite music now",
        "these days it's {v} all the way",
    )},
    restate={"*": ("still mostly {v} in my ears", "yep, {v} is still my genre")},
    traps=(
        "my {rel} is obsessed with {o}",
        "went to a {o} night with friends, it was alright",
        "{o} isn't really my thing but the concert was fun",
        "{name} keeps sending me {o} songs",
        "{v} playlist on repeat while cleaning",
    ),
    after=("heard some {p} in a cafe, nostalgic but I've moved on",),
    questions=(
        "what kind of music am I into right now?",
        "make me a playlist suggestion, what genre do I like most?",
        "what's my favourite music genre these days?",
    ),
)

_FAV_TEAM = _Subject(
    key="fav_team",
    values=_named(
        "Arsenal", "Celtic", "Lakers", "Yankees", "Liverpool", "Juventus", "Packers", "Ajax",
        "Benfica", "Warriors", "Cubs", "Dortmund", "Napoli", "Red Sox", "Bruins", "Leinster",
        "All Blacks",
    ),
    init={"*": (
        "I support {v}",
        "{v} fan for life",
        "big {v} supporter, it's a family thing",
        "my team is {v}, sorry in advance",
        "watching {v} tonight, always do",
        "been following {v} since I was 8",
        "{v} till I die 💪",
        "I'm a {v} fan, through the good and (mostly) bad",
    )},
    change={"*": (
        "switched allegiance to {v}, don't tell my dad",
        "I'm supporting {v} now, {old} broke my heart one too many times",
        "after the move I kinda adopted {v} as my team",
        "ok I know, but I'm a {v} fan now",
        "gave up on {old}. {v} is my team now",
        "new season, new team: {v}",
        "my team these days is {v}",
        "my flatmate converted me, I follow {v} now",
    )},
    restate={"*": ("still {v}, through thick and thin", "{v} forever, nothing's changed")},
    traps=(
        "my {rel} supports {o}, we don't talk during the season",
        "{o} won last night, annoying",
        "got free tickets to a {o} game",
        "{name} is a massive {o} fan",
        "{v} lost again, I'm fine, totally fine",
    ),
    after=("saw {p} on the telly and felt nothing. growth",),
    questions=(
        "which team do I support now?",
        "I want to buy a jersey, whose should it be?",
        "who am I cheering for these days?",
    ),
)

_LIKE_YES = (
    "you love", "you like", "you enjoy", "you're into", "come around", "grown on you",
)
_LIKE_NO = (
    "don't like", "dislike", "not a fan", "gone off", "can't stand", "you hate", "not into",
    "over it",
)
_THINGS = (
    ("coffee", "coffee"), ("running", "running"), ("horror_movies", "horror movies"),
    ("coriander", "coriander"), ("olives", "olives"), ("yoga", "yoga"), ("camping", "camping"),
    ("karaoke", "karaoke"), ("gardening", "gardening"), ("podcasts", "podcasts"),
    ("video_games", "video games"), ("winter", "winter"), ("board_games", "board games"),
    ("spicy_food", "spicy food"), ("musicals", "musicals"), ("cold_showers", "cold showers"),
    ("reality_tv", "reality TV"),
)


def _likes(slug: str, thing: str) -> _Subject:
    return _Subject(
        key=f"likes_{slug}",
        values=(_Value("yes", "yes", _LIKE_YES), _Value("no", "no", _LIKE_NO)),
        init={
            "yes": (
                "I love {t}",
                "big fan of {t}",
                "{t} is my thing",
                "can't get enough of {t}",
                "honestly {t} makes my day",
                "{t}? yes please, always",
            ),
            "no": (
                "I can't stand {t}",
                "not a fan of {t}",
                "{t}? hard pass",
                "never liked {t}, never will",
                "{t} is just not for me",
            ),
        },
        change={
            "*>no": (
                "I've gone off {t} completely",
                "weirdly I don't like {t} anymore",
                "{t} used to be my thing but I'm over it",
                "can't stand {t} these days, no idea what changed",
                "done with {t}, not for me anymore",
            ),
            "*>yes": (
                "I've come around on {t}, actually enjoy it now",
                "never thought I'd say this but I love {t} now",
                "{t} grew on me, I'm a fan now",
                "ok I get the hype now, {t} is great",
            ),
        },
        restate={"yes": ("still love {t}",), "no": ("still not into {t}",)},
        traps=(
            "my {rel} is obsessed with {t}",
            "{name} tried to get me into {t} again",
            "there's a thing about {t} at work on friday",
            "read an article about {t} today",
            "my nephew asked me about {t}, had no answer",
        ),
        questions=(
            "do I like {t}?",
            "would {t} be a good plan for my weekend, knowing me?",
            "what's my take on {t} these days?",
            "should you recommend {t} to me or nah?",
        ),
        sequence="toggle",
        thing=thing,
    )


_USER_SUBJECTS: tuple[_Subject, ...] = (
    _HOME_CITY, _EMPLOYER, _JOB, _DIET, _RELATIONSHIP, _PARTNER_NAME, _DOG_NAME, _CAT_NAME,
    _PET_TYPE, _AGE, _KIDS_COUNT, _SIBLINGS_COUNT, _PETS_COUNT, _SMOKING, _FAV_FOOD,
    _FAV_MUSIC, _FAV_TEAM,
)
_LIKES_SUBJECTS: tuple[_Subject, ...] = tuple(_likes(slug, thing) for slug, thing in _THINGS)

_CONFLICTS: dict[str, frozenset[str]] = {
    "employer": frozenset({"job"}),
    "job": frozenset({"employer"}),
    "relationship": frozenset({"partner_name"}),
    "partner_name": frozenset({"relationship"}),
    "pet_type": frozenset({"dog_name", "cat_name", "pets_count"}),
    "dog_name": frozenset({"pet_type", "pets_count"}),
    "cat_name": frozenset({"pet_type", "pets_count"}),
    "pets_count": frozenset({"pet_type", "dog_name", "cat_name"}),
}

# ---------------------------------------------------------------------------------------
# companion subjects
# ---------------------------------------------------------------------------------------

_COMPANION_TRAPS = (
    "lots of people love {o}, I can see why",
    "you mentioned {o} once, that sounds lovely too",
    "{o} has its charms, just not my first pick",
    "I was reading about {o} earlier, fascinating stuff",
    "a lot of people I talk with swear by {o}",
)

_COMPANION_SUBJECTS: tuple[_Subject, ...] = (
    _Subject(
        key="companion_fav_weather",
        values=_named(
            "rainy days", "snowy evenings", "thunderstorms", "foggy mornings",
            "sunny afternoons", "windy autumn days",
        ),
        init={"*": (
            "I'm partial to {v}, if I'm honest",
            "{v} are my favourite kind of weather, in my imagination at least",
            "{v} make me happy, weirdly",
            "if I could pick the weather, it'd be {v}",
        )},
        change={"*": (
            "I've changed my mind: {v} beat {old} for me now",
            "funny, I used to say {old}, but these days I think I prefer {v}",
            "confession: {v} have replaced {old} as my favourite",
        )},
        restate={"*": ("I still love {v}, no change there", "{v} are still my favourite")},
        traps=_COMPANION_TRAPS,
    ),
    _Subject(
        key="companion_fav_music",
        values=_named("jazz", "lo-fi", "baroque", "bossa nova", "ambient", "soul"),
        init={"*": (
            "{v} is my happy place",
            "if I could listen to anything, it'd be {v}",
            "I have a soft spot for {v}",
            "{v} is my favourite music, hands down",
        )},
        change={"*": (
            "I think I've drifted from {old} toward {v} lately",
            "new favourite for me: {v}. sorry, {old}",
            "honestly, {v} has won me over more than {old} ever did",
        )},
        restate={"*": ("{v} is still my favourite", "still {v} for me, every time")},
        traps=_COMPANION_TRAPS,
    ),
    _Subject(
        key="companion_fav_season",
        values=_named("spring", "summer", "autumn", "winter"),
        init={"*": (
            "{v} is my favourite season",
            "I've always loved {v} the most",
            "if I had to pick a season, {v}",
        )},
        change={"*": (
            "I've come round to {v}, it's my favourite now, more than {old}",
            "I used to say {old}, but {v} is the season for me now",
        )},
        restate={"*": ("{v} is still my season", "still team {v}, for the record")},
        traps=_COMPANION_TRAPS,
    ),
    _Subject(
        key="companion_fav_colour",
        values=_named("teal", "amber", "lavender", "crimson", "navy", "sage green"),
        init={"*": (
            "my favourite colour is {v}",
            "I've always liked {v}",
            "{v} is my colour",
        )},
        change={"*": (
            "I think {v} is my favourite colour now, sorry {old}",
            "I've switched allegiance from {old} to {v}",
        )},
        restate={"*": (
            "still {v}, if you're asking about colours",
            "{v} is still my favourite colour",
        )},
        traps=_COMPANION_TRAPS,
    ),
    _Subject(
        key="companion_fav_animal",
        values=_named("otters", "owls", "octopuses", "crows", "red pandas"),
        init={"*": (
            "{v} are my favourite animals",
            "I have a soft spot for {v}",
        )},
        change={"*": (
            "I've decided {v} are even better than {old}",
            "my new favourite animal? {v}. {old} had a good run",
        )},
        restate={"*": (
            "{v} are still the best animals, in my opinion",
            "still {v}, always {v}",
        )},
        traps=_COMPANION_TRAPS,
    ),
)

# one birthday or one new baby per timeline; two in a few months would be odd
_ONE_CHANGE = frozenset({"age", "kids_count"})

_TRANSITIONS: dict[str, tuple[str, ...]] = {
    "single": ("dating",),
    "dating": ("engaged", "single"),
    "engaged": ("married", "single"),
    "married": ("separated", "divorced"),
    "separated": ("divorced", "married"),
    "divorced": ("dating",),
}

# ---------------------------------------------------------------------------------------
# noise: fillers, typos, spelling variants
# ---------------------------------------------------------------------------------------

_OPENERS = (
    "so ", "btw ", "ok so ", "anyway, ", "oh and ", "random but ", "update: ", "lol ",
    "hey! ", "quick one: ", "not sure if I told you, but ", "fun fact: ", "hmm ", "right, ",
)
_ENDINGS = (" 😅", " 🙃", " 😂", " ✨", " 🙌", " :)", " haha", " lol", "!!", " 🤷")
_TYPOS = {
    "because": "becuase", "definitely": "definately", "really": "realy", "just": "jsut",
    "with": "wiht", "the": "teh", "though": "tho", "you": "u", "probably": "prolly",
    "tomorrow": "tmrw", "weird": "wierd", "actually": "actualy", "years": "yeras",
    "about": "abt", "friend": "freind", "going": "goin", "now": "nwo", "still": "stil",
}
_SPELLING = (
    ("favourite", "favorite"), ("favorite", "favourite"), ("colour", "color"),
    ("neighbour", "neighbor"), ("mum", "mom"), ("a flat", "an apartment"),
    ("the flat", "the apartment"), ("centre", "center"),
)


def _roughen_template(rng: random.Random, template: str) -> str:
    """Typos and spelling variants, applied before the values are filled in."""
    if rng.random() < 0.12:
        words = [w for w in _TYPOS if re.search(rf"(?<!{{)\b{w}\b", template)]
        if words:
            word = rng.choice(words)
            template = re.sub(rf"(?<!{{)\b{word}\b", _TYPOS[word], template, count=1)
    if rng.random() < 0.3:
        for old, new in _SPELLING:
            if re.search(rf"\b{old}\b", template):
                template = re.sub(rf"\b{old}\b", new, template)
                break
    return template


def _roughen_text(rng: random.Random, text: str) -> str:
    """Fillers, case and endings, applied after the values are filled in."""
    if rng.random() < 0.18:
        opener = rng.choice(_OPENERS)
        if text[:1].isupper() and not re.match(r"I\b", text) and not text[:2].isupper():
            text = text[0].lower() + text[1:]
        text = opener + text
    if rng.random() < 0.14:
        text = text.lower()
    elif rng.random() < 0.2:
        text = text[0].upper() + text[1:]
    if text[-1:].isalnum():
        roll = rng.random()
        if roll < 0.25:
            text += "."
        elif roll < 0.35:
            text += rng.choice(_ENDINGS)
    return text


# ---------------------------------------------------------------------------------------
# planning and rendering
# ---------------------------------------------------------------------------------------


@dataclass
class _Plan:
    speaker: str
    subject: _Subject
    values: list[_Value]
    extras: list[str] = field(default_factory=list)  # "trap" or "restate"


@dataclass
class _Event:
    plan: _Plan
    kind: str  # "init", "change", "trap", "restate"
    step: int = 0
    short: str = ""  # for changes: "" (weeks or months), "same" (same day), "few" (days)


def _article(word: str) -> str:
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


def _sequence(rng: random.Random, subject: _Subject, changes: int) -> list[_Value]:
    kind = subject.sequence
    if kind == "age":
        start = rng.randint(19, 67)
        return [_age(start + i) for i in range(changes + 1)]
    if kind == "count":
        start = rng.randint(0, len(subject.values) - 1 - changes)
        return [subject.values[start + i] for i in range(changes + 1)]
    if kind == "toggle":
        first = rng.randrange(2)
        return [subject.values[(first + i) % 2] for i in range(changes + 1)]
    if kind == "relationship":
        by_norm = {v.norm: v for v in subject.values}
        seq = [rng.choice(subject.values)]
        for _ in range(changes):
            seq.append(by_norm[rng.choice(_TRANSITIONS[seq[-1].norm])])
        return seq
    if kind == "pet":
        animals = list(subject.values[1:])
        first = [subject.values[0]] if rng.random() < 0.65 else []
        return first + rng.sample(animals, changes + 1 - len(first))
    return rng.sample(list(subject.values), changes + 1)


def _draw_subject(rng: random.Random, chosen: set[str]) -> _Subject:
    blocked = set(chosen)
    for key in chosen:
        blocked |= _CONFLICTS.get(key, frozenset())
    options: list[_Subject | None] = [s for s in _USER_SUBJECTS if s.key not in blocked]
    if sum(k.startswith("likes_") for k in chosen) < 2:
        options.append(None)
    pick = rng.choice(options)
    if pick is None:
        return rng.choice([s for s in _LIKES_SUBJECTS if s.key not in chosen])
    return pick


def _user_plans(rng: random.Random, budget: int) -> list[_Plan]:
    extras = round(budget * rng.uniform(0.36, 0.5))
    core = budget - extras
    plans: list[_Plan] = []
    chosen: set[str] = set()
    while core > 0:
        subject = _draw_subject(rng, chosen)
        chosen.add(subject.key)
        changes = 0
        if core >= 2 and rng.random() < 0.5:
            changes = 2 if core >= 3 and rng.random() < 0.25 else 1
            if subject.key in _ONE_CHANGE:
                changes = 1
        plans.append(_Plan("user", subject, _sequence(rng, subject, changes)))
        core -= 1 + changes
    if all(len(p.values) == 1 for p in plans):
        plans[0].values = _sequence(rng, plans[0].subject, 1)
        extras -= 1
    for _ in range(extras):
        plan = rng.choice(plans)
        plan.extras.append("restate" if rng.random() < 0.2 else "trap")
    return plans


def _companion_plans(rng: random.Random, total: int) -> list[_Plan]:
    count = 2 if total >= 12 and rng.random() < 0.35 else 1
    plans: list[_Plan] = []
    for i, subject in enumerate(rng.sample(_COMPANION_SUBJECTS, count)):
        changes = 1 if rng.random() < (0.6 if i == 0 else 0.3) else 0
        plans.append(_Plan("companion", subject, _sequence(rng, subject, changes)))
    used = sum(len(p.values) for p in plans)
    for _ in range(rng.randint(0, max(0, min(2, total - 6 - used)))):
        plan = rng.choice(plans)
        plan.extras.append("restate" if rng.random() < 0.5 else "trap")
    return plans


def _blocks(rng: random.Random, plan: _Plan) -> list[list[_Event]]:
    """Events of one subject in order; a quick change is glued to what it replaces."""
    seq: list[_Event] = []
    for step in range(1, len(plan.values)):
        roll = rng.random()
        short = "same" if roll < 0.1 else "few" if roll < 0.2 else ""
        seq.append(_Event(plan, "change", step, short))
    for kind in plan.extras:
        seq.insert(rng.randint(0, len(seq)), _Event(plan, kind))
    blocks: list[list[_Event]] = [[_Event(plan, "init")]]
    last_setting = blocks[0]
    for event in seq:
        if event.kind == "change" and event.short:
            last_setting.append(event)
            continue
        block = [event]
        blocks.append(block)
        if event.kind in ("change", "restate"):
            last_setting = block
    return blocks


def _merge(rng: random.Random, queues: list[list[list[_Event]]]) -> list[_Event]:
    flat: list[_Event] = []
    queues = [q for q in queues if q]
    while queues:
        queue = rng.choices(queues, weights=[len(q) for q in queues])[0]
        flat.extend(queue.pop(0))
        queues = [q for q in queues if q]
    return flat


def _pick(rng: random.Random, table: Table, keys: list[str]) -> str | None:
    for key in keys:
        if key in table:
            return rng.choice(table[key])
    return None


def _other(
    rng: random.Random, subject: _Subject, current: _Value, future: _Value | None
) -> str:
    if future is not None and future != current and rng.random() < 0.4:
        return future.display
    pool = [v for v in subject.values if v.norm != current.norm and v.norm != "none"]
    return rng.choice(pool).display if pool else ""


def _context(
    rng: random.Random,
    subject: _Subject,
    value: _Value,
    old: _Value | None,
    prev: _Value | None,
    other: str,
) -> dict[str, str]:
    number = int(value.norm) if value.norm.isdigit() else 0
    if subject.key == "age":
        n = rng.choice([k for k in range(12, 96) if abs(k - number) > 1])
        past = rng.randint(10, max(10, number - 5))
    else:
        n = rng.randint(3, 12)
        past = 10
    return {
        "v": value.display,
        "va": _article(value.display),
        "vw": _NUM[number] if number < len(_NUM) else str(number),
        "vp1w": _NUM[number + 1] if number + 1 < len(_NUM) else str(number + 1),
        "old": old.display if old else "",
        "olda": _article(old.display) if old else "",
        "o": other,
        "oa": _article(other) if other else "",
        "p": prev.display if prev else "",
        "pa": _article(prev.display) if prev else "",
        "t": subject.thing,
        "rel": rng.choice(_RELATIVES),
        "name": rng.choice(_PEOPLE),
        "n": str(n),
        "nw": rng.choice(_NUM[2:6]),
        "year": str(rng.randint(2006, 2019)),
        "month": rng.choice(_MONTHS),
        "future": str(number + 1),
        "past": str(past),
    }


class _Draft(NamedTuple):
    text: str
    speaker: str
    subject: str
    value: _Value | None
    event: _Event


def _render(rng: random.Random, events: list[_Event]) -> list[_Draft]:
    current: dict[tuple[str, str], _Value] = {}
    previous: dict[tuple[str, str], _Value] = {}
    used: set[str] = set()
    drafts: list[_Draft] = []
    for event in events:
        plan, subject = event.plan, event.plan.subject
        key = (plan.speaker, subject.key)
        cur = current.get(key)
        value: _Value | None = None
        for _attempt in range(8):
            template, value, old, prev = _choose(rng, event, cur, previous.get(key))
            if template not in used:
                break
        used.add(template)
        future = plan.values[-1] if plan.values[-1] != cur else None
        for _attempt in range(6):
            base = value or cur or plan.values[0]
            other = _other(rng, subject, base, future)
            rough = _roughen_template(rng, template) if plan.speaker == "user" else template
            text = rough.format(**_context(rng, subject, base, old, prev, other))
            if plan.speaker == "user":
                text = _roughen_text(rng, text)
            if text.lower() not in used:
                break
        used.add(text.lower())
        if value is not None:
            if cur is not None and value != cur:
                previous[key] = cur
            current[key] = value
        subject_key = subject.key if value is not None else ""
        drafts.append(_Draft(text, plan.speaker, subject_key, value, event))
    return drafts


def _choose(
    rng: random.Random, event: _Event, cur: _Value | None, prev: _Value | None
) -> tuple[str, _Value | None, _Value | None, _Value | None]:
    """Template, value set (None for a trap), old value and superseded value."""
    plan, subject = event.plan, event.plan.subject
    if event.kind == "init":
        value = plan.values[0]
        return _pick(rng, subject.init, [value.norm, "*"]) or "", value, None, None
    if event.kind == "change":
        value = plan.values[event.step]
        old = cur or plan.values[event.step - 1]
        if event.short == "same" and subject.fixes and rng.random() < 0.7:
            return rng.choice(subject.fixes), value, old, prev
        keys = [f"{old.norm}>{value.norm}", f"{old.norm}>*", f"*>{value.norm}", "*"]
        return _pick(rng, subject.change, keys) or "", value, old, prev
    if cur is None:
        raise ValueError(f"{event.kind} before the first statement about {subject.key}")
    if event.kind == "restate":
        template = _pick(rng, subject.restate, [cur.norm, "*"])
        if template is not None:
            return template, cur, None, prev
    if prev is not None and subject.after and rng.random() < 0.3:
        return rng.choice(subject.after), None, None, prev
    return rng.choice(subject.traps), None, None, prev


def _replaces(drafts: list[_Draft]) -> list[int | None]:
    last: dict[tuple[str, str], int] = {}
    out: list[int | None] = []
    for i, draft in enumerate(drafts):
        target: int | None = None
        if draft.value is not None:
            key = (draft.speaker, draft.subject)
            j = last.get(key)
            if j is not None and drafts[j].value != draft.value:
                target = j
            last[key] = i
        out.append(target)
    return out


def _gap(rng: random.Random) -> int:
    roll = rng.random()
    if roll < 0.3:
        return 0
    if roll < 0.55:
        return rng.randint(1, 6)
    if roll < 0.87:
        return rng.randint(7, 45)
    return rng.randint(46, 120)


def _days(rng: random.Random, drafts: list[_Draft], replaces: list[int | None]) -> list[int]:
    days = [0]
    for i in range(1, len(drafts)):
        event, target = drafts[i].event, replaces[i]
        if target is not None and event.short == "same":
            gap = 0
        elif target is not None and event.short == "few":
            gap = rng.randint(1, 5)
        else:
            gap = _gap(rng)
            if target is not None:
                wanted = rng.randint(14, 180) - (days[-1] - days[target])
                gap = min(120, max(gap, wanted))
        days.append(days[-1] + gap)
    return days


def _questions(
    rng: random.Random, drafts: list[_Draft], replaces: list[int | None]
) -> tuple[Question, ...]:
    subjects: dict[str, _Subject] = {}
    history: dict[str, list[_Value]] = {}
    changed: set[str] = set()
    for draft, target in zip(drafts, replaces, strict=True):
        if draft.speaker != "user" or draft.value is None:
            continue
        subjects[draft.subject] = draft.event.plan.subject
        history.setdefault(draft.subject, []).append(draft.value)
        if target is not None:
            changed.add(draft.subject)
    questions: list[Question] = []
    for key, values in history.items():
        if key not in changed:
            continue
        newest = values[-1]
        old: list[str] = []
        for value in values[:-1]:
            if value != newest:
                old.extend(w for w in value.words if w not in old and w not in newest.words)
        subject = subjects[key]
        text = rng.choice(subject.questions).format(t=subject.thing)
        questions.append(Question(text, key, newest.words, tuple(old)))
    return tuple(questions)


def _timeline(rng: random.Random, user: str) -> Timeline:
    total = rng.randint(8, 20)
    companion = _companion_plans(rng, total) if rng.random() < 0.27 else []
    companion_size = sum(len(p.values) + len(p.extras) for p in companion)
    plans = _user_plans(rng, total - companion_size) + companion
    events = _merge(rng, [_blocks(rng, plan) for plan in plans])
    drafts = _render(rng, events)
    replaces = _replaces(drafts)
    days = _days(rng, drafts, replaces)
    statements = tuple(
        Statement(
            text=d.text,
            day=day,
            speaker=d.speaker,
            subject=d.subject,
            value=d.value.norm if d.value else "",
            replaces=target,
        )
        for d, day, target in zip(drafts, days, replaces, strict=True)
    )
    return Timeline(user, statements, _questions(rng, drafts, replaces))


def timelines(count: int = 120, seed: int = 11) -> list[Timeline]:
    """Return ``count`` held-out timelines, deterministic for a given ``seed``."""
    rng = random.Random(seed)
    return [_timeline(rng, f"heldout-{i:03d}") for i in range(count)]
