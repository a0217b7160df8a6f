"""Train the reading of parts of life (memory/life_parts.py) and say how it does on a set it
was not trained on.

The training sets (benchmarks/data/subject_statements_a.jsonl to _d) were written by four
helpers from one brief naming only the task, the labels and the format, none having read the
code or any other set: chat messages labelled with the part of the person's life they are about
(two thirds said indirectly), questions a person asks about each part, and messages about
nothing lasting (small talk, chores, general questions). A multinomial logistic regression over
each message's MiniLM vector is fitted on all four and written to memory/life_parts.json.
Before that, each set is held out in turn (fitted on the other three, scored on it): that is how
C below was chosen (0.3-30).

    python -m benchmarks.demo_probe.train_life_parts

Weak spots: four writers, English only; a message has one label although some are about two
parts ("my wife and I run the bakery"); the questions are few (8 a part a set).

Last line: `held_out_accuracy=<x> held_out_question_accuracy=<y>` (over every held-out set).
"""

from __future__ import annotations

import json

import numpy as np
from sklearn.linear_model import LogisticRegression

from benchmarks.support import read_set, table_head, table_row
from memory.embeddings.onnx_minilm import OnnxMiniLM
from memory.embeddings.packaged import minilm_tokenizer_file
from memory.embeddings.requantize import requantized_minilm_file
from memory.life_parts import LIFE_PARTS_FILE, LifeParts

TRAINED_ON = tuple(f"subject_statements_{part}" for part in "abcd")
C = 10.0  # inverse regularization


def fitted(vectors: np.ndarray, labels: np.ndarray) -> LogisticRegression:
    return LogisticRegression(C=C, max_iter=5000).fit(vectors, labels)


def main() -> None:
    embedder = OnnxMiniLM(requantized_minilm_file(), minilm_tokenizer_file())
    rows = [(name, record) for name in TRAINED_ON for record in read_set(name).records]
    vectors = np.array(embedder.embed_blocking([record["text"] for _, record in rows]))
    labels = np.array([record["label"] for _, record in rows])
    sets = np.array([name for name, _ in rows])
    questions = np.array([record["kind"] == "question" for _, record in rows])
    print(table_head("held out", "messages", "accuracy", "questions", "question accuracy"))
    right = asked_right = 0
    for name in TRAINED_ON:
        test = sets == name
        hits = fitted(vectors[~test], labels[~test]).predict(vectors[test]) == labels[test]
        asked = hits[questions[test]]
        right += int(hits.sum())
        asked_right += int(asked.sum())
        print(table_row(name, int(test.sum()), f"{hits.mean():.3f}", len(asked),
                        f"{asked.mean():.3f}"))
    model = fitted(vectors, labels)
    LIFE_PARTS_FILE.write_text(json.dumps({
        "embedder": embedder.name, "trained_on": list(TRAINED_ON), "examples": len(rows),
        "C": C, "labels": [str(label) for label in model.classes_],
        "bias": [round(float(b), 5) for b in model.intercept_],
        "weights": [[round(float(w), 5) for w in row] for row in model.coef_],
    }) + "\n", encoding="utf-8")
    LifeParts.packaged()  # it reads back
    print(f"Wrote {LIFE_PARTS_FILE} ({len(rows)} examples)")
    print(f"held_out_accuracy={right / len(rows):.3f} "
          f"held_out_question_accuracy={asked_right / int(questions.sum()):.3f}")


if __name__ == "__main__":
    main()
