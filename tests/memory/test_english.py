"""spaCy's English model shared by threads: each gets the reading of its own text, however the
texts are batched."""

from __future__ import annotations

import threading

from memory.english import English

TEXTS = [f"My {thing} is on {day} with {name}." for thing, day, name in [
    ("interview", "Friday", "Maria Lopez"), ("dentist appointment", "Monday", "Dr Chen"),
    ("flight to Lisbon", "Tuesday", "Tom"), ("exam", "Thursday", "Priya"),
    ("party", "Saturday", "Jonas Berg"), ("match", "Sunday", "Aiko"),
]]


def test_threads_asking_at_once_each_get_their_own_text_read() -> None:
    english = English()
    alone = {text: _reading(english.parse(text)) for text in TEXTS}
    got: dict[tuple[int, int], tuple[str, list[tuple[str, str, str]], bool]] = {}
    start = threading.Barrier(len(TEXTS))

    def ask(number: int) -> None:
        start.wait()
        for turn in range(20):
            text = TEXTS[(number + turn) % len(TEXTS)]
            entities = turn % 2 == 0
            doc = english.parse(text, entities=entities)
            got[number, turn] = (doc.text, _reading(doc), bool(doc.ents))

    threads = [threading.Thread(target=ask, args=(n,)) for n in range(len(TEXTS))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(got) == len(TEXTS) * 20
    for (number, turn), (text, reading, has_entities) in got.items():
        asked = TEXTS[(number + turn) % len(TEXTS)]
        assert text == asked
        assert reading == alone[asked]
        assert has_entities == (turn % 2 == 0)  # every text names a day and a person


def test_a_text_read_without_entities_is_parsed_the_same() -> None:
    english = English()
    text = "We fly to Osaka next Friday with Ana."
    full, bare = english.parse(text), english.parse(text, entities=False)
    assert {e.text for e in full.ents} >= {"Osaka", "next Friday"}
    assert not bare.ents
    assert _reading(bare) == _reading(full)


def _reading(doc: object) -> list[tuple[str, str, str]]:
    return [(t.text, t.tag_, t.dep_) for t in doc]  # type: ignore[attr-defined]
