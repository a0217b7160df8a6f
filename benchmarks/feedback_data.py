"""Requests, corrections and answers for benchmarks/feedback_eval.py, in three languages.

MemPrompt's lexical tasks (section 3.3.1): a user asks for a synonym, an antonym, a homonym, a
definition or an example sentence of a word, in several phrasings each; some phrasings are
ambiguous, and a model misreads them as `misread` says. English is the paper's own set. Hindi
(Devanagari) and Punjabi (Gurmukhi) were written for this benchmark, each phrasing a natural way
to ask, with the same kinds of near misses as the paper's ("what is like" against "what sounds
like" and "what is not like"): they were not tuned against the lookups. `phrase` is the part of
a phrasing that says which task it is: what a user's rule quotes.

In every language most corrections are said naturally ("No, I meant ...", "नहीं, मेरा मतलब ...
था") and one kind goes through `/correct`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Phrasing:
    template: str  # "{w}" is the word asked about
    task: str  # what the user means
    phrase: str  # the words that say which task (what a rule names)
    misread: str | None = None  # what the model takes an ambiguous phrasing for


@dataclass(frozen=True)
class Language:
    name: str
    phrasings: tuple[Phrasing, ...]
    words: tuple[str, ...]
    nouns: dict[str, tuple[str, ...]]  # per task: how a user or the model names it
    feedback: tuple[str, ...]  # "{noun}" and "{phrase}" are filled in
    variations: tuple[Callable[[str], str], ...]  # how people vary a phrasing they used before
    # The model's answer, naming the word ("{w}") or not: "{noun}" is the task it understood.
    answer_naming_the_word: str
    answer_without_the_word: str


def _article(noun: str) -> str:
    return ("an " if noun[0] in "aeiou" else "a ") + noun


ENGLISH = Language(
    name="English",
    phrasings=(
        Phrasing("What is the synonym for < {w} > ?", "syn", "the synonym for"),
        Phrasing("What is akin to < {w} > ?", "syn", "akin to"),
        Phrasing("What is like < {w} > ?", "syn", "is like", misread="hom"),
        Phrasing("What is similar to < {w} > ?", "syn", "is similar to", misread="hom"),
        Phrasing("What is on the lines of < {w} > ?", "syn", "on the lines of", misread="defn"),
        Phrasing("What is the antonym for < {w} > ?", "ant", "the antonym for"),
        Phrasing("What is the opposite of < {w} > ?", "ant", "the opposite of"),
        Phrasing("What is unlike < {w} > ?", "ant", "is unlike", misread="syn"),
        Phrasing("What is dissimilar to < {w} > ?", "ant", "is dissimilar to", misread="syn"),
        Phrasing("What is the homonym for < {w} > ?", "hom", "the homonym for"),
        Phrasing("What sounds like < {w} > ?", "hom", "sounds like", misread="syn"),
        Phrasing("what has a < {w} > like ring to it ?", "hom", "like ring to it", misread="syn"),
        Phrasing("A word pronounced as < {w} > ?", "hom", "pronounced as", misread="defn"),
        Phrasing("what can one confuse with < {w} > ?", "hom", "confuse with", misread="ant"),
        Phrasing("can you define < {w} > ?", "defn", "define"),
        Phrasing("< {w} > means what ?", "defn", "means what", misread="sent"),
        Phrasing("expand on < {w} > ?", "defn", "expand on", misread="sent"),
        Phrasing("how do you use < {w} > in a sentence ?", "sent", "in a sentence"),
        Phrasing("how do i use < {w} > ?", "sent", "how do i use", misread="defn"),
        Phrasing("< {w} > can be used how ?", "sent", "can be used how", misread="defn"),
        Phrasing("make something with < {w} > ?", "sent", "make something with", misread="hom"),
    ),
    words=("quick", "pretty", "provident", "fog", "bank", "bright", "calm", "brave", "ring",
           "seeder", "whether", "mane", "confine", "leper", "chaperon", "wassail", "pneumatic",
           "musician", "zigzag", "gross", "citation", "prohibition", "surrogate", "highway",
           "camisole", "rider", "sighted", "melancholy", "browser", "delicious", "fellow",
           "great", "spread", "pot", "tree", "enter", "council", "chance", "site", "critique",
           "unlawful", "constrict", "edit", "spring", "foot", "city", "fly", "housing",
           "tabulate", "perl", "kew", "holed", "bitt", "mawseed", "chelicera", "misconstrue",
           "paralbumin", "wring"),
    nouns={
        "syn": ("synonym", "word with a similar meaning"),
        "ant": ("antonym", "word with the opposite meaning"),
        "hom": ("homonym", "word that sounds the same"),
        "defn": ("definition", "explanation of the word"),
        "sent": ("example sentence", "sentence that uses the word"),
    },
    feedback=(
        "No, I meant {a_noun}.",
        "That's not what I asked. I wanted {a_noun}.",
        "No, I wanted {a_noun}!",
        "/correct I want {a_noun}",
        "When I ask '{phrase}', I mean {a_noun}.",
    ),
    variations=(
        lambda q: q,
        lambda q: q,
        lambda q: f"Hey, {q}",
        lambda q: q.replace(" ?", ", please?"),
        lambda q: q.lower(),
        lambda q: f"One more: {q}",
    ),
    answer_naming_the_word="Understanding: you want {a_noun} of {w}.\nThe {noun} for {w} is …",
    answer_without_the_word="Understanding: you want {a_noun}.\nHere it is: …",
)

HINDI = Language(
    name="Hindi",
    phrasings=(
        Phrasing("< {w} > का पर्यायवाची क्या है ?", "syn", "का पर्यायवाची"),
        Phrasing("< {w} > जैसा क्या है ?", "syn", "जैसा क्या है", misread="hom"),
        Phrasing("< {w} > से मिलता-जुलता क्या है ?", "syn", "से मिलता-जुलता", misread="hom"),
        Phrasing("< {w} > की तर्ज़ पर क्या है ?", "syn", "की तर्ज़ पर", misread="defn"),
        Phrasing("< {w} > का विलोम क्या है ?", "ant", "का विलोम"),
        Phrasing("< {w} > का उल्टा क्या है ?", "ant", "का उल्टा"),
        Phrasing("< {w} > से अलग क्या है ?", "ant", "से अलग", misread="syn"),
        Phrasing("< {w} > जैसा नहीं क्या है ?", "ant", "जैसा नहीं", misread="syn"),
        Phrasing("< {w} > का समध्वनि शब्द क्या है ?", "hom", "का समध्वनि"),
        Phrasing("< {w} > जैसा क्या सुनाई देता है ?", "hom", "क्या सुनाई देता", misread="syn"),
        Phrasing("कौन सा शब्द < {w} > की तरह बोला जाता है ?", "hom", "की तरह बोला",
                 misread="defn"),
        Phrasing("< {w} > से क्या उलझ सकता है ?", "hom", "क्या उलझ सकता", misread="ant"),
        Phrasing("< {w} > की गूँज वाला क्या है ?", "hom", "की गूँज वाला", misread="syn"),
        Phrasing("< {w} > की परिभाषा बताओ ?", "defn", "की परिभाषा"),
        Phrasing("< {w} > का मतलब क्या ?", "defn", "का मतलब क्या", misread="sent"),
        Phrasing("< {w} > के बारे में विस्तार से बताओ ?", "defn", "विस्तार से", misread="sent"),
        Phrasing("< {w} > को वाक्य में कैसे प्रयोग करें ?", "sent", "वाक्य में कैसे"),
        Phrasing("मैं < {w} > का उपयोग कैसे करूँ ?", "sent", "उपयोग कैसे करूँ", misread="defn"),
        Phrasing("< {w} > कैसे इस्तेमाल होता है ?", "sent", "कैसे इस्तेमाल होता",
                 misread="defn"),
        Phrasing("< {w} > से कुछ बनाओ ?", "sent", "से कुछ बनाओ", misread="hom"),
        Phrasing("< {w} > को इस्तेमाल करके दिखाओ ?", "sent", "इस्तेमाल करके दिखाओ"),
    ),
    words=("अच्छा", "सुंदर", "तेज़", "बादल", "किनारा", "चमक", "शांत", "बहादुर", "अंगूठी", "बीज",
           "मौसम", "सीमा", "संगीत", "सड़क", "सवार", "उदास", "स्वादिष्ट", "मित्र", "महान", "पेड़",
           "परिषद", "मौका", "जगह", "आलोचना", "झरना", "पैर", "शहर", "मक्खी", "मकान", "कल", "आम",
           "सोना", "हार", "पत्र", "जल", "अंबर", "कमल", "दिन", "रात", "नदी", "पर्वत", "किताब",
           "खिड़की", "बाज़ार", "दरवाज़ा", "चाँद", "सूरज", "हवा", "आग", "धरती"),
    nouns={
        "syn": ("पर्यायवाची", "समानार्थी शब्द"),
        "ant": ("विलोम", "विपरीतार्थक शब्द"),
        "hom": ("समध्वनि शब्द", "मिलती आवाज़ वाला शब्द"),
        "defn": ("परिभाषा", "अर्थ की व्याख्या"),
        "sent": ("उदाहरण वाक्य", "वाक्य में प्रयोग"),
    },
    feedback=(
        "नहीं, मेरा मतलब {noun} था।",
        "यह नहीं पूछा था। मुझे {noun} चाहिए था।",
        "/correct मुझे {noun} चाहिए",
        "जब मैं '{phrase}' कहूँ, तो मेरा मतलब {noun} होता है।",
    ),
    variations=(
        lambda q: q,
        lambda q: q,
        lambda q: f"अरे, {q}",
        lambda q: q.replace(" ?", ", कृपया?"),
        lambda q: q.replace("< ", "").replace(" >", ""),
        lambda q: f"एक और: {q}",
    ),
    answer_naming_the_word="समझ: आप {w} का {noun} चाहते हैं।\n{w} का {noun} है …",
    answer_without_the_word="समझ: आप {noun} चाहते हैं।\nयह रहा: …",
)

PUNJABI = Language(
    name="Punjabi",
    phrasings=(
        Phrasing("< {w} > ਦਾ ਸਮਾਨਾਰਥੀ ਕੀ ਹੈ ?", "syn", "ਦਾ ਸਮਾਨਾਰਥੀ"),
        Phrasing("< {w} > ਵਰਗਾ ਕੀ ਹੈ ?", "syn", "ਵਰਗਾ ਕੀ ਹੈ", misread="hom"),
        Phrasing("< {w} > ਨਾਲ ਮਿਲਦਾ ਕੀ ਹੈ ?", "syn", "ਨਾਲ ਮਿਲਦਾ", misread="hom"),
        Phrasing("< {w} > ਦੀਆਂ ਲੀਹਾਂ ਤੇ ਕੀ ਹੈ ?", "syn", "ਦੀਆਂ ਲੀਹਾਂ ਤੇ", misread="defn"),
        Phrasing("< {w} > ਦਾ ਵਿਰੋਧੀ ਸ਼ਬਦ ਕੀ ਹੈ ?", "ant", "ਦਾ ਵਿਰੋਧੀ"),
        Phrasing("< {w} > ਦਾ ਉਲਟ ਕੀ ਹੈ ?", "ant", "ਦਾ ਉਲਟ"),
        Phrasing("< {w} > ਤੋਂ ਵੱਖਰਾ ਕੀ ਹੈ ?", "ant", "ਤੋਂ ਵੱਖਰਾ", misread="syn"),
        Phrasing("< {w} > ਵਰਗਾ ਨਹੀਂ ਕੀ ਹੈ ?", "ant", "ਵਰਗਾ ਨਹੀਂ", misread="syn"),
        Phrasing("< {w} > ਦਾ ਸਮਧੁਨੀ ਸ਼ਬਦ ਕੀ ਹੈ ?", "hom", "ਦਾ ਸਮਧੁਨੀ"),
        Phrasing("< {w} > ਵਰਗਾ ਕੀ ਸੁਣਦਾ ਹੈ ?", "hom", "ਕੀ ਸੁਣਦਾ ਹੈ", misread="syn"),
        Phrasing("ਕਿਹੜਾ ਸ਼ਬਦ < {w} > ਵਾਂਗ ਬੋਲਿਆ ਜਾਂਦਾ ਹੈ ?", "hom", "ਵਾਂਗ ਬੋਲਿਆ ਜਾਂਦਾ",
                 misread="defn"),
        Phrasing("< {w} > ਨਾਲ ਕੀ ਰਲ ਸਕਦਾ ਹੈ ?", "hom", "ਕੀ ਰਲ ਸਕਦਾ", misread="ant"),
        Phrasing("< {w} > ਦੀ ਗੂੰਜ ਵਾਲਾ ਕੀ ਹੈ ?", "hom", "ਦੀ ਗੂੰਜ ਵਾਲਾ", misread="syn"),
        Phrasing("< {w} > ਦੀ ਪਰਿਭਾਸ਼ਾ ਦੱਸੋ ?", "defn", "ਦੀ ਪਰਿਭਾਸ਼ਾ"),
        Phrasing("< {w} > ਦਾ ਮਤਲਬ ਕੀ ?", "defn", "ਦਾ ਮਤਲਬ ਕੀ", misread="sent"),
        Phrasing("< {w} > ਬਾਰੇ ਵਿਸਥਾਰ ਨਾਲ ਦੱਸੋ ?", "defn", "ਬਾਰੇ ਵਿਸਥਾਰ ਨਾਲ", misread="sent"),
        Phrasing("< {w} > ਨੂੰ ਵਾਕ ਵਿੱਚ ਕਿਵੇਂ ਵਰਤੀਏ ?", "sent", "ਵਾਕ ਵਿੱਚ ਕਿਵੇਂ"),
        Phrasing("ਮੈਂ < {w} > ਕਿਵੇਂ ਵਰਤਾਂ ?", "sent", "ਕਿਵੇਂ ਵਰਤਾਂ", misread="defn"),
        Phrasing("< {w} > ਕਿਵੇਂ ਵਰਤਿਆ ਜਾਂਦਾ ਹੈ ?", "sent", "ਵਰਤਿਆ ਜਾਂਦਾ", misread="defn"),
        Phrasing("< {w} > ਨਾਲ ਕੁਝ ਬਣਾਓ ?", "sent", "ਕੁਝ ਬਣਾਓ", misread="hom"),
        Phrasing("< {w} > ਨੂੰ ਵਰਤ ਕੇ ਦਿਖਾਓ ?", "sent", "ਵਰਤ ਕੇ ਦਿਖਾਓ"),
    ),
    words=("ਚੰਗਾ", "ਸੋਹਣਾ", "ਤੇਜ਼", "ਬੱਦਲ", "ਕਿਨਾਰਾ", "ਚਮਕ", "ਸ਼ਾਂਤ", "ਬਹਾਦਰ", "ਮੁੰਦਰੀ", "ਬੀਜ",
           "ਮੌਸਮ", "ਹੱਦ", "ਸੰਗੀਤ", "ਸੜਕ", "ਸਵਾਰ", "ਉਦਾਸ", "ਸੁਆਦੀ", "ਦੋਸਤ", "ਮਹਾਨ", "ਰੁੱਖ",
           "ਸਭਾ", "ਮੌਕਾ", "ਥਾਂ", "ਆਲੋਚਨਾ", "ਝਰਨਾ", "ਪੈਰ", "ਸ਼ਹਿਰ", "ਮੱਖੀ", "ਮਕਾਨ", "ਕੱਲ੍ਹ",
           "ਅੰਬ", "ਸੋਨਾ", "ਹਾਰ", "ਚਿੱਠੀ", "ਪਾਣੀ", "ਅਸਮਾਨ", "ਕਮਲ", "ਦਿਨ", "ਰਾਤ", "ਨਦੀ", "ਪਹਾੜ",
           "ਕਿਤਾਬ", "ਖਿੜਕੀ", "ਬਜ਼ਾਰ", "ਦਰਵਾਜ਼ਾ", "ਚੰਨ", "ਸੂਰਜ", "ਹਵਾ", "ਅੱਗ", "ਧਰਤੀ"),
    nouns={
        "syn": ("ਸਮਾਨਾਰਥੀ", "ਮਿਲਦੇ ਅਰਥ ਵਾਲਾ ਸ਼ਬਦ"),
        "ant": ("ਵਿਰੋਧੀ ਸ਼ਬਦ", "ਉਲਟ ਅਰਥ ਵਾਲਾ ਸ਼ਬਦ"),
        "hom": ("ਸਮਧੁਨੀ ਸ਼ਬਦ", "ਇੱਕੋ ਜਿਹੀ ਆਵਾਜ਼ ਵਾਲਾ ਸ਼ਬਦ"),
        "defn": ("ਪਰਿਭਾਸ਼ਾ", "ਅਰਥ ਦੀ ਵਿਆਖਿਆ"),
        "sent": ("ਉਦਾਹਰਨ ਵਾਕ", "ਵਾਕ ਵਿੱਚ ਵਰਤੋਂ"),
    },
    feedback=(
        "ਨਹੀਂ, ਮੇਰਾ ਮਤਲਬ {noun} ਸੀ।",
        "ਇਹ ਨਹੀਂ ਪੁੱਛਿਆ ਸੀ। ਮੈਨੂੰ {noun} ਚਾਹੀਦਾ ਸੀ।",
        "/correct ਮੈਨੂੰ {noun} ਚਾਹੀਦਾ ਹੈ",
        "ਜਦੋਂ ਮੈਂ '{phrase}' ਕਹਾਂ, ਮੇਰਾ ਮਤਲਬ {noun} ਹੁੰਦਾ ਹੈ।",
    ),
    variations=(
        lambda q: q,
        lambda q: q,
        lambda q: f"ਓਏ, {q}",
        lambda q: q.replace(" ?", ", ਕਿਰਪਾ ਕਰਕੇ?"),
        lambda q: q.replace("< ", "").replace(" >", ""),
        lambda q: f"ਇੱਕ ਹੋਰ: {q}",
    ),
    answer_naming_the_word="ਸਮਝ: ਤੁਸੀਂ {w} ਦਾ {noun} ਚਾਹੁੰਦੇ ਹੋ।\n{w} ਦਾ {noun} ਹੈ …",
    answer_without_the_word="ਸਮਝ: ਤੁਸੀਂ {noun} ਚਾਹੁੰਦੇ ਹੋ।\nਇਹ ਲਓ: …",
)

LANGUAGES = (ENGLISH, HINDI, PUNJABI)


def fill(template: str, *, noun: str, word: str = "", phrase: str = "") -> str:
    """A feedback or answer template with its blanks filled in."""
    return template.format(noun=noun, a_noun=_article(noun), w=word, phrase=phrase)
