"""Presidio and spaCy set up to scrub chat (see `memory.pool.scrub` for what is taken out and
why). Imported at the first text to scrub: a process that never shares loads neither."""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from typing import Any

import tldextract
from presidio_analyzer import (
    AnalyzerEngine,
    EntityRecognizer,
    Pattern,
    PatternRecognizer,
    RecognizerResult,
)
from presidio_analyzer.nlp_engine import NlpArtifacts, NlpEngineProvider
from presidio_anonymizer import AnonymizerEngine
from presidio_anonymizer.entities import OperatorConfig

from memory.places import place_names
from memory.pool.scrub import OTHER, PLACEHOLDER, PLACEHOLDERS, SPACY_MODEL
from memory.pool.tagger import Found, Look, WordLook
from memory.pool.ties import DAY_OF_MONTH, FORMS, a_persons, spreads

_WORD = re.compile(r"[^\W_]+")  # card, bank and ID numbers, and anything else Presidio knows
LEARNED = "LEARNED"  # a word the learned look took for a person's: "[detail]"


class _TokenRecognizer(EntityRecognizer):
    """Finds single tokens of spaCy's parse, which Presidio has already made."""

    entity = ""
    score = 0.5

    def __init__(self) -> None:
        super().__init__(supported_entities=[self.entity], name=type(self).__name__)

    def load(self) -> None:
        pass

    def analyze(self, text: str, entities: list[str],
                nlp_artifacts: NlpArtifacts | None = None) -> list[RecognizerResult]:
        if nlp_artifacts is None:
            return []
        return [RecognizerResult(self.entity, t.idx, t.idx + len(t.text), self.score)
                for t in self.found(list(nlp_artifacts.tokens))]

    def found(self, tokens: list[Any]) -> list[Any]:
        raise NotImplementedError


class ProperNouns(_TokenRecognizer):
    """Every token spaCy's tagger calls a proper noun."""

    entity = "PROPER_NOUN"

    def found(self, tokens: list[Any]) -> list[Any]:
        return [t for t in tokens if t.pos_ == "PROPN"]


class NamesOfPeopleNamed(_TokenRecognizer):
    """A name spaCy misses where chat gives it away, however it is written: the word after
    someone the speaker has ("my sister summer", "my bf tyler", "our dog biscuit"), after an
    introduction opening a sentence ("hey its marco", "this is dev"), beside the speaker
    ("Mateus and I", "Chidi n me"), and a capitalized word opening a sentence as its subject,
    with no article ("Grace says hi!", "Björn from my gym asked me out"): a common noun there
    ("Yoga helps me sleep") is lost now and then."""

    entity = "PERSON"
    score = 0.6

    def found(self, tokens: list[Any]) -> list[Any]:
        return [t for i, t in enumerate(tokens)
                if (_a_name(t) and (_after_someone_had(tokens, i) or _beside_me(tokens, i)
                                    or _opening_subject(t)))
                or _after_introduction(tokens, i)]


def _a_name(token: Any) -> bool:
    return (token.is_alpha and token.pos_ in {"NOUN", "PROPN", "X"}
            and not token.is_stop and token.lower_ not in _RELATIONS)


def _after_someone_had(tokens: list[Any], i: int) -> bool:
    """"my (little) sister ___": a relation the speaker (or someone) has, just before."""
    if i == 0 or tokens[i - 1].lower_ not in _RELATIONS:
        return False
    before = [t.lower_ for t in tokens[max(0, i - 4):i - 1]]
    return any(word in _POSSESSIVES for word in before)


def _beside_me(tokens: list[Any], i: int) -> bool:
    """"Mateus and I", "me and jess": someone named beside the speaker."""
    after = [t.lower_ for t in tokens[i + 1:i + 3]]
    before = [t.lower_ for t in tokens[max(0, i - 2):i]]
    return ((len(after) == 2 and after[0] in _AND and after[1] in _ME)
            or (len(before) == 2 and before[0] in _ME and before[1] in _AND))


def _opening_subject(token: Any) -> bool:
    """A capitalized word opening its sentence as the subject of a verb, with no article and
    not in the plural: a name ("Grace says hi", "Summer and I"), seldom a thing."""
    return (token.i == token.sent.start and token.text[:1].isupper()
            and token.dep_ in {"nsubj", "nsubjpass"} and token.tag_ in {"NN", "NNP"}
            and not any(child.dep_ in {"det", "poss"} for child in token.children)
            and token.lower_ not in FORMS)


def _after_introduction(tokens: list[Any], i: int) -> bool:
    """"its ___", "it's ___", "this is ___", "im ___" opening a sentence (after a greeting):
    a name however spaCy tags it ("priya" as an adjective), but after "I'm" only a noun ("I'm
    tired" names no one)."""
    token = tokens[i]
    if not token.is_alpha or token.is_stop or token.pos_ in {"VERB", "AUX", "ADV", "ADP"}:
        return False
    words = [t.lower_ for t in tokens[token.sent.start:i] if not t.is_punct]
    while words and words[0] in _GREETINGS:
        words.pop(0)
    said = " ".join(words)
    if said in _SELF and token.pos_ not in {"NOUN", "PROPN", "X"}:
        return False
    return said in _INTRODUCTIONS or said in _SELF


_POSSESSIVES = frozenset({"my", "our", "his", "her", "their", "your", "me", "mi"})
_GREETINGS = frozenset({"hi", "hey", "hello", "yo", "hiya", "heya", "ok", "so", "oh"})
_INTRODUCTIONS = frozenset({"its", "it 's", "it is", "this is", "me", "its me", "it 's me",
                            "name 's", "my name is", "name is"})
_SELF = frozenset({"im", "i 'm", "i am"})
_AND = frozenset({"and", "n", "&", "+", "an"})
_ME = frozenset({"i", "me"})
# Someone a person has: the word after one is their name ("my sister summer").
_RELATIONS = frozenset("""
mum mom mother mama mommy dad father papa daddy sister sis brother bro son daughter kid child
baby wife husband hubby partner bf gf boyfriend girlfriend fiance fiancé fiancee fiancée friend
mate buddy pal bestie bff boss manager colleague coworker co-worker neighbour neighbor cousin
aunt auntie uncle nephew niece grandma grandpa granny gran nan nana nanna grandson
granddaughter grandmother grandfather stepmom stepdad stepson stepdaughter teacher student
roommate flatmate housemate landlord landlady tutor coach therapist doctor dog cat puppy
kitten hamster rabbit bunny parrot pet horse twin twins ex
""".split())


class PlacesInLowercase(_TokenRecognizer):
    """A town or country written in lower case after a word of going or being somewhere
    ("just got back to leeds", "we live in porto"), which spaCy's entities miss: the list of
    places (`memory.places`) says it is one. With no article ("the gym", "a market")."""

    entity = "LOCATION"

    def __init__(self, places: frozenset[str]) -> None:
        super().__init__()
        self._names = places

    def found(self, tokens: list[Any]) -> list[Any]:
        return [t for i, t in enumerate(tokens)
                if i and t.is_alpha and t.is_lower and t.lower_ in self._names
                and tokens[i - 1].lower_ in _TOWARDS
                and not any(child.dep_ in {"det", "poss"} for child in t.children)]


_TOWARDS = frozenset({"to", "in", "from", "at", "near", "around", "outside", "visiting",
                      "into", "towards", "leaving"})


class PresidioEngines:
    """The analyzer and the anonymizer, loaded once, and the learned look (`look`,
    `memory.pool.tagger`; None: the rules alone); not for concurrent calls."""

    def __init__(self, look: WordLook | None = None,
                 places: frozenset[str] | None = None) -> None:
        self._analyzer = _analyzer(place_names() if places is None else places)
        self._anonymizer = AnonymizerEngine()  # type: ignore[no-untyped-call]
        self._operators = {
            "DEFAULT": OperatorConfig("replace", {"new_value": OTHER}),
            **{entity: OperatorConfig("replace", {"new_value": placeholder})
               for entity, placeholder in PLACEHOLDERS.items()},
        }
        self._look = look

    def looking_with(self, look: WordLook | None) -> PresidioEngines:
        """These engines with another learned look (to compare looks with one analyzer)."""
        other = copy.copy(self)
        other._look = look
        return other

    def scrub(self, texts: Sequence[str]) -> list[str]:
        found = [self._found(text) for text in texts]
        words = {w for text, details in zip(texts, found, strict=True) for r, spreads in details
                 if spreads for w in _WORD.findall(text[r.start:r.end]) if len(w) > 1}
        return [self._replace(text, [r for r, _ in details], words)
                for text, details in zip(texts, found, strict=True)]

    def analysis(self, text: str) -> tuple[Any, list[Found]]:
        """spaCy's parse of `text` and what the rules found in it: the details of a person
        (what Presidio finds, less what describes the task: `memory.pool.ties`) and the rest."""
        artifacts = self._analyzer.nlp_engine.process_text(text, "en")
        doc = artifacts.tokens
        return doc, [Found(r.entity_type, r.start, r.end,
                           a_persons(r.entity_type, doc, r.start, r.end), r.score)
                     for r in self._analyzer.analyze(text=text, language="en",
                                                     nlp_artifacts=artifacts)
                     if not PLACEHOLDER.fullmatch(text[r.start:r.end])]

    def _found(self, text: str) -> list[tuple[RecognizerResult, bool]]:
        """The details of a person in `text`, each with whether its words go wherever else
        they are said (`memory.pool.ties`): what the rules take out, less what the learned
        look keeps as the task's, and the words it takes for a person's (which go everywhere,
        as names do)."""
        doc, found = self.analysis(text)
        look = self._look.look(doc, found) if self._look is not None else Look([], [])
        details = [(RecognizerResult(f.entity_type, f.start, f.end, f.score),
                    spreads(f.entity_type, doc, f.start, f.end))
                   for f in found if f.personal and f not in look.keep]
        placeholders = [m.span() for m in PLACEHOLDER.finditer(text)]
        for start, end in look.take_out:
            if not any(a < end and start < b for a, b in
                       [*placeholders, *((r.start, r.end) for r, _ in details)]):
                details.append((RecognizerResult(LEARNED, start, end, 1.0),
                                text[start:end].isalpha()))
        return details

    def _replace(self, text: str, results: list[RecognizerResult], words: set[str]) -> str:
        """Take out what was found in this text, then the words of details found in the
        others (the same word, any case)."""
        if results:
            text = self._anonymizer.anonymize(
                text=text, analyzer_results=results,  # type: ignore[arg-type]
                operators=self._operators).text
        if words:
            pattern = r"\b(?:" + "|".join(map(re.escape, sorted(words, key=len, reverse=True)))
            text = re.sub(pattern + r")\b", OTHER, text, flags=re.IGNORECASE)
        return text


def _analyzer(places: frozenset[str]) -> AnalyzerEngine:
    # Offline: the public-suffix list bundled with tldextract (used to tell emails and links
    # apart), never a download at run time.
    tldextract.tldextract.TLD_EXTRACTOR = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)
    provider = NlpEngineProvider(nlp_configuration={
        "nlp_engine_name": "spacy",
        "models": [{"lang_code": "en", "model_name": SPACY_MODEL}],
    })
    analyzer = AnalyzerEngine(nlp_engine=provider.create_engine(), supported_languages=["en"])
    analyzer.registry.add_recognizer(ProperNouns())
    analyzer.registry.add_recognizer(NamesOfPeopleNamed())
    analyzer.registry.add_recognizer(PlacesInLowercase(places))
    # A capitalized word inside a sentence is a name in chat ("you and Tomasz on ...").
    analyzer.registry.add_recognizer(PatternRecognizer(
        supported_entity="PROPER_NOUN",
        patterns=[Pattern("capitalized", r"(?<=[a-z,;] )[A-Z][\w'-]+", 0.5)],
        global_regex_flags=re.MULTILINE))  # case matters here (Presidio ignores it)
    # A day of a month spaCy does not call a date ("on her birthday, 2 Nov").
    analyzer.registry.add_recognizer(PatternRecognizer(
        supported_entity="DATE_TIME", patterns=[Pattern("day of a month", DAY_OF_MONTH, 0.6)]))
    analyzer.registry.add_recognizer(PatternRecognizer(
        supported_entity="HANDLE",
        patterns=[Pattern("handle", r"(?<![\w.])@[A-Za-z0-9_.]{2,}", 0.9)]))
    analyzer.registry.add_recognizer(PatternRecognizer(
        supported_entity="NUMBER", patterns=[Pattern("number", r"\d+(?:[.,:/-]\d+)*", 0.6)]))
    return analyzer
