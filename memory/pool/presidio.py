"""Presidio and spaCy set up to scrub chat (see `memory.pool.scrub` for what is taken out and
why). Imported at the first text to scrub: a process that never shares loads neither."""

from __future__ import annotations

import re
from collections.abc import Sequence

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

from memory.pool.scrub import OTHER, PLACEHOLDER, PLACEHOLDERS, SPACY_MODEL
from memory.pool.ties import a_persons, spreads

_WORD = re.compile(r"[^\W_]+")  # card, bank and ID numbers, and anything else Presidio knows


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


class PresidioEngines:
    """The analyzer and the anonymizer, loaded once; not for concurrent calls."""

    def __init__(self) -> None:
        self._analyzer = _analyzer()
        self._anonymizer = AnonymizerEngine()  # type: ignore[no-untyped-call]
        self._operators = {
            "DEFAULT": OperatorConfig("replace", {"new_value": OTHER}),
            **{entity: OperatorConfig("replace", {"new_value": placeholder})
               for entity, placeholder in PLACEHOLDERS.items()},
        }

    def scrub(self, texts: Sequence[str]) -> list[str]:
        found = [self._found(text) for text in texts]
        words = {w for text, details in zip(texts, found, strict=True) for r, spreads in details
                 if spreads for w in _WORD.findall(text[r.start:r.end]) if len(w) > 1}
        return [self._replace(text, [r for r, _ in details], words)
                for text, details in zip(texts, found, strict=True)]

    def _found(self, text: str) -> list[tuple[RecognizerResult, bool]]:
        """The details of a person in `text` (what Presidio finds, less what describes the
        task), each with whether its words go wherever else they are said
        (`memory.pool.ties`)."""
        artifacts = self._analyzer.nlp_engine.process_text(text, "en")
        doc = artifacts.tokens
        return [(r, spreads(r.entity_type, doc, r.start, r.end))
                for r in self._analyzer.analyze(text=text, language="en",
                                                nlp_artifacts=artifacts)
                if not PLACEHOLDER.fullmatch(text[r.start:r.end])
                and a_persons(r.entity_type, doc, r.start, r.end)]

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


def _analyzer() -> AnalyzerEngine:
    # Offline: the public-suffix list bundled with tldextract (used to tell emails and links
    # apart), never a download at run time.
    tldextract.tldextract.TLD_EXTRACTOR = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)
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
    return analyzer
