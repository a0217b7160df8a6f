"""Train the asking gate (memory/asking.py) and say how it does on sets it was not trained on.

Examples: the questions a person asks about their own life in the subject training sets
(benchmarks/data/subject_statements_a.jsonl to _d) and in the chat sets whose misses have been
read (the development set, independent to independent8), against the general questions of
both (how-tos, questions about the world, some with "I" or "my" in passing). A logistic
regression over each question's MiniLM vector is fitted on all of them and written to
memory/asking_gate.json. Before that, each chat set is held out in turn: the gate is fitted on
the rest and asked about the held-out questions the rules (`memory.questions`) do not read as
about the person. That is how C and the threshold below were chosen (C 1-10, thresholds
0.5-0.9): a general question taken for one about the person shows a memory where none belongs,
so precision comes first.

    python -m benchmarks.demo_probe.train_asking

Weak spots: the chat sets' questions were written to the same brief, and every one of them
asks about something the person said; a question about the person that asks something new
("what should I name my dog?") is not among them.

Last line: `rescued=<held-out questions about the person the rules missed and the gate caught>
of=<those the rules missed> wrongly=<held-out general questions the gate took for one>`.
"""

from __future__ import annotations

import json

import numpy as np
from sklearn.linear_model import LogisticRegression

from benchmarks.support import read_set, table_head, table_row
from memory.asking import ASKING_FILE, AskingGate
from memory.embeddings.onnx_minilm import OnnxMiniLM
from memory.embeddings.packaged import minilm_tokenizer_file
from memory.embeddings.requantize import requantized_minilm_file
from memory.questions import asks_about_the_speaker, may_ask_about_the_speaker

SUBJECT_SETS = tuple(f"subject_statements_{part}" for part in "abcd")
CHAT_SETS = ("development", "independent", "independent2", "independent3", "independent4",
             "independent5", "independent6", "independent7", "independent8")
C = 3.0  # inverse regularization
THRESHOLD = 0.7  # from this probability, a question the rules let go asks about the person


def examples() -> list[tuple[str, str, bool]]:
    """(set, question, asks about the person)."""
    found = [(name, record["text"], record["kind"] == "question")
             for name in SUBJECT_SETS for record in read_set(name).records
             if record["kind"] == "question" or record["label"] == "general"]
    found += [(name, message["text"], message["kind"] == "question")
              for name in CHAT_SETS
              for record in read_set(f"demo_conversations_{name}").records
              for message in record["messages"] if message["kind"] in ("question", "general")]
    return found


def fitted(vectors: np.ndarray, labels: np.ndarray) -> LogisticRegression:
    return LogisticRegression(C=C, max_iter=5000).fit(vectors, labels)


def main() -> None:
    embedder = OnnxMiniLM(requantized_minilm_file(), minilm_tokenizer_file())
    rows = examples()
    vectors = np.array(embedder.embed_blocking([text for _, text, _ in rows]))
    labels = np.array([asks for _, _, asks in rows])
    sets = np.array([name for name, _, _ in rows])
    let_go = np.array([not asks_about_the_speaker(text) and may_ask_about_the_speaker(text)
                       for _, text, _ in rows])
    missed = np.array([not asks_about_the_speaker(text) for _, text, _ in rows])
    print(table_head("held out", "questions about the person", "missed by the rules",
                     "caught by the gate", "general questions", "taken for one by the gate"))
    rescued = of = wrongly = 0
    for name in CHAT_SETS:
        test = sets == name
        said = fitted(vectors[~test], labels[~test]).predict_proba(vectors[test])[:, 1]
        caught = let_go[test] & (said >= THRESHOLD)
        truth = labels[test]
        row = (int(truth.sum()), int((missed[test] & truth).sum()), int((caught & truth).sum()),
               int((~truth).sum()), int((caught & ~truth).sum()))
        print(table_row(name, *row))
        of, rescued, wrongly = of + row[1], rescued + row[2], wrongly + row[4]
    model = fitted(vectors, labels)
    ASKING_FILE.write_text(json.dumps({
        "embedder": embedder.name, "trained_on": [*SUBJECT_SETS, *CHAT_SETS],
        "examples": len(rows), "C": C, "threshold": THRESHOLD,
        "bias": float(model.intercept_[0]),
        "weights": [round(float(w), 6) for w in model.coef_[0]],
    }) + "\n", encoding="utf-8")
    AskingGate()  # it reads back
    print(f"Wrote {ASKING_FILE} ({len(rows)} examples)")
    print(f"rescued={rescued} of={of} wrongly={wrongly}")


if __name__ == "__main__":
    main()
