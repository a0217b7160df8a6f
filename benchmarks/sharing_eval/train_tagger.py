"""Train the scrubber's learned look (memory/pool/tagger.py) and say how it does on sets it was
not trained on.

Examples: every word of the scrub sets whose misses have been read or that were written to
train on (`TRAINING_SETS`, benchmarks/data/scrub_*.jsonl, each written by a helper from a brief
naming only the task). A word is a person's when it is a telling word of a listed personal
detail (`benchmarks.sharing_eval.scrubbing.telling_words`: "16" of "turned 16"; the other words
of such a detail are left out of the training), the task's when it is a word of a listed task
word, and neither otherwise. Five networks (one hidden layer, scikit-learn's MLPClassifier,
seeds 0-4; their chances are averaged) are fitted on all of them and written to
memory/pool/scrub_tagger.npz. Before that, each set is held
out in turn: the look is trained on the rest and the product's scrubber, rules and look
together, scrubs the held-out set; the table gives what the rules alone leave and keep beside
that. That is how the thresholds below were chosen, on the held-out figures of the first eight
sets (before training_d and training_e): taking out from 0.05 or 0.1; keeping from 0.8, 0.9 or
0.95 of the task's and under 0.003, 0.01, 0.03 or 0.1 of a person's; or never keeping (the look
then only takes out: 12 details left of 1,864, task words kept 0.790, against the rules' 35 and
0.794), with one network then. The networks' size (64 units) was not tuned.

    python -m benchmarks.sharing_eval.train_tagger    # about 20 minutes on 2 cores

Weak spots: every set was written by an AI helper to a brief of the same kind, so their people,
places and phrasings are alike across sets in ways real chat is not; the held-out rows measure
that likeness too. The independent sets run in `benchmarks.sharing_eval` (scrub_independent5 and
scrub_independent6) were written apart from all of these.

Last line: `left_rules=<personal details the rules alone leave, all held-out sets>
left_look=<with the look> kept_rules=<task words kept> kept_look=<with the look>`.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchmarks.sharing_eval.scrubbing import TRAINING_SETS, Scored, score_set, telling_words
from benchmarks.support import read_set, table_head, table_row
from memory.embeddings.packaged import minilm_tokenizer_file
from memory.embeddings.requantize import requantized_minilm_file
from memory.embeddings.token_states import MiniLMWordStates
from memory.places import place_names
from memory.pool.first_names import first_names
from memory.pool.presidio import PresidioEngines
from memory.pool.tagger import (
    OTHER_WORD,
    PERSONAL,
    TAGGER_FILE,
    TASK,
    TaggerWeights,
    WordFeatures,
    WordLook,
)

UNITS = 64
ALPHA = 1e-3  # the network's L2 penalty
TAKE_OUT = 0.05  # from this chance of a person's a word goes: a name left is worse than a word lost
KEEP = 0.8  # from this chance of the task's (each word) a detail the rules found stays...
KEEP_BELOW = 0.003  # ...when each word's chance of a person's is under this
NETWORKS = 5  # trained from seeds 0-4, their chances averaged


IGNORED = ""  # a word of a personal detail that does not say who: left out of the training


@dataclass
class Examples:
    features: np.ndarray
    labels: np.ndarray  # PERSONAL, TASK, OTHER_WORD or IGNORED


class LookedSet:
    """A scrub set's words as the look reads them."""

    def __init__(self, name: str, engines: PresidioEngines, features: WordFeatures) -> None:
        rows, labels = [], []
        for record in read_set(f"scrub_{name}").records:
            doc, found = engines.analysis(record["text"])
            if not len(doc):
                continue
            rows.append(features.of(doc, found))
            labels.append(_labels(doc, record["personal"], record["task_words"]))
        self.name = name
        self.examples = Examples(np.vstack(rows), np.concatenate(labels))


def _labels(doc: Any, personal: Sequence[str], task_words: Sequence[str]) -> np.ndarray:
    """What each word of `doc` is: a telling word of a personal detail is a person's (its
    other words are left out), a word of a task word is the task's, any other is neither."""
    labels = np.full(len(doc), OTHER_WORD, dtype=object)
    for spans, label in ((task_words, TASK), (personal, PERSONAL)):
        for span in spans:
            telling = telling_words(span)
            for match in re.finditer(re.escape(span), doc.text):
                for token in doc:
                    if token.idx < match.end() and match.start() < token.idx + len(token.text):
                        said = (label == TASK or (any(w in token.text for w in telling)
                                                  and not token.is_stop))
                        if said or labels[token.i] != PERSONAL:
                            labels[token.i] = label if said else IGNORED
    return labels


def fitted(examples: Sequence[Examples], embedder: str) -> TaggerWeights:
    """`NETWORKS` networks, one from each seed, on the same examples."""
    from sklearn.neural_network import MLPClassifier

    features = np.vstack([e.features for e in examples])
    labels = np.concatenate([e.labels for e in examples])
    used = labels != IGNORED
    networks = [MLPClassifier(hidden_layer_sizes=(UNITS,), alpha=ALPHA, max_iter=300,
                              random_state=seed).fit(features[used], labels[used].astype(str))
                for seed in range(NETWORKS)]
    classes = tuple(str(c) for c in networks[0].classes_)
    assert all(tuple(str(c) for c in n.classes_) == classes for n in networks)

    def stacked(part: str, layer: int) -> np.ndarray:
        return np.stack([getattr(n, part)[layer] for n in networks]).astype(np.float32)

    return TaggerWeights(stacked("coefs_", 0), stacked("intercepts_", 0), stacked("coefs_", 1),
                         stacked("intercepts_", 1), classes, TAKE_OUT, KEEP, KEEP_BELOW,
                         embedder)


class _Scrubbing:
    """The engines as `score_set` calls a scrubber."""

    def __init__(self, engines: PresidioEngines) -> None:
        self._engines = engines

    async def scrub(self, texts: Sequence[str]) -> list[str]:
        return self._engines.scrub(texts)


async def main() -> None:
    places, names = place_names(), first_names()
    states = MiniLMWordStates.from_files(requantized_minilm_file(), minilm_tokenizer_file())
    rules = PresidioEngines(None, places)
    features = WordFeatures(states, names, places)
    sets = [LookedSet(name, rules, features) for name in TRAINING_SETS]
    print("Each set held out: what the rules alone and the rules with the look leave and keep")
    print(table_head("held out", "personal details", "left (rules)", "left (with the look)",
                     "task words kept (rules)", "(with the look)", align="lrrrrr"))
    totals = {"rules": [0, 0, 0], "look": [0, 0, 0]}
    for held in sets:
        weights = fitted([s.examples for s in sets if s is not held], states.name)
        look = rules.looking_with(WordLook(weights, states, names, places))
        scored = {"rules": await score_set(held.name, _Scrubbing(rules)),
                  "look": await score_set(held.name, _Scrubbing(look))}
        for way, s in scored.items():
            totals[way] = _added(totals[way], s)
        print(table_row(held.name, scored["rules"].personal, len(scored["rules"].left),
                        len(scored["look"].left), f"{scored['rules'].task_words_kept:.3f}",
                        f"{scored['look'].task_words_kept:.3f}"))
    weights = fitted([s.examples for s in sets], states.name)
    TAGGER_FILE.write_bytes(weights.to_bytes())
    words = sum(len(s.examples.labels) for s in sets)
    print(f"\nFitted on {words:,} words of {len(sets)} sets; written to {TAGGER_FILE}")
    (rl, rk, rt), (ll, lk, lt) = totals["rules"], totals["look"]
    print(f"left_rules={rl} left_look={ll} kept_rules={rk / rt:.3f} kept_look={lk / lt:.3f}")


def _added(total: list[int], scored: Scored) -> list[int]:
    kept = scored.task_words - len(scored.lost)
    return [total[0] + len(scored.left), total[1] + kept, total[2] + scored.task_words]


if __name__ == "__main__":
    asyncio.run(main())
