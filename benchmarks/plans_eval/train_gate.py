"""Train the plan gate (memory/plans/gate.py) and say how it does on sets it was not trained on.

The training sets are the plans_eval sets written before the headline one, and two written to
train it (plans_training_a and _b, 400 messages, leaning to kinds of message the rules had got
wrong: public events, changed plans, habits said casually). Each message is one example: the
first sentence the finder reads as a plan (the whole message when it reads none), labelled as
the set's writer labelled it. A logistic regression over its MiniLM vector is fitted on every
training set and written to memory/plans/plan_gate.json. Before that, each set is held out in
turn: the gate is fitted on the others and the finder, with and without it, is scored on the
one held out. That is how the regularization and threshold below were chosen (C 1-30,
thresholds 0.1-0.4: the issue asks for precision 0.95 and recall 0.80, so recall is spent for
precision; an RBF SVM did a point better at most, a small MLP worse). The sets' misses had been
read while the finder's rules were written, so the held-out figures say how the gate carries
over, not how the rules do (plans_eval's headline set does).

    python -m benchmarks.plans_eval.train_gate

Last line: `gate_held_out_precision=<x> gate_held_out_recall=<y>` (over every held-out set).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date

import numpy as np
from sklearn.linear_model import LogisticRegression

from benchmarks.support import read_set, table_head, table_row
from memory.embeddings.onnx_minilm import OnnxMiniLM
from memory.embeddings.packaged import minilm_tokenizer_file
from memory.embeddings.requantize import requantized_minilm_file
from memory.plans.finder import PlanFinder
from memory.plans.gate import GATE_FILE, GateWeights

TRAINED_ON = ("development", "independent", "independent2", "independent3", "training_a",
              "training_b")
C = 3.0  # inverse regularization
THRESHOLD = 0.3  # below it, no plan


@dataclass(frozen=True)
class Example:
    set_name: str
    plan: bool  # as the writer labelled it
    found: bool  # the finder's rules read a plan
    sentence: str


def examples(finder: PlanFinder) -> list[Example]:
    found = []
    for name in TRAINED_ON:
        for record in read_set(f"plans_{name}").records:
            plans = finder.find(record["text"], date.fromisoformat(record["said_on"]))
            found.append(Example(name, bool(record["plan"]), bool(plans),
                                 plans[0].text if plans else record["text"]))
    return found


def fitted(vectors: np.ndarray, labels: np.ndarray) -> LogisticRegression:
    return LogisticRegression(C=C, max_iter=5000).fit(vectors, labels)


def held_out(rows: list[Example], vectors: np.ndarray) -> list[tuple[str, int, int, int, int]]:
    """Per set: (name, plans, found by the rules and right, found and wrong, after the gate
    right, after the gate wrong) with the gate fitted on the other sets."""
    labels = np.array([r.plan for r in rows])
    names = np.array([r.set_name for r in rows])
    found = np.array([r.found for r in rows])
    scores = []
    for name in TRAINED_ON:
        test = names == name
        model = fitted(vectors[~test], labels[~test])
        kept = found[test] & (model.predict_proba(vectors[test])[:, 1] >= THRESHOLD)
        truth = labels[test]
        scores.append((name, int(truth.sum()),
                       int((found[test] & truth).sum()), int((found[test] & ~truth).sum()),
                       int((kept & truth).sum()), int((kept & ~truth).sum())))
    return scores


def main() -> None:
    finder = PlanFinder()
    embedder = OnnxMiniLM(requantized_minilm_file(), minilm_tokenizer_file())
    rows = examples(finder)
    vectors = np.array(embedder.embed_blocking([r.sentence for r in rows]))
    scores = held_out(rows, vectors)
    print(table_head("held out", "plans", "rules: precision", "rules: recall",
                     "with the gate: precision", "with the gate: recall"))
    for name, plans, right, wrong, kept_right, kept_wrong in scores:
        print(table_row(name, plans, f"{right / (right + wrong):.3f}", f"{right / plans:.3f}",
                        f"{kept_right / max(1, kept_right + kept_wrong):.3f}",
                        f"{kept_right / plans:.3f}"))
    model = fitted(vectors, np.array([r.plan for r in rows]))
    GATE_FILE.write_text(json.dumps({
        "embedder": embedder.name, "trained_on": [f"plans_{n}" for n in TRAINED_ON],
        "examples": len(rows), "C": C, "threshold": THRESHOLD,
        "bias": float(model.intercept_[0]),
        "weights": [round(float(w), 6) for w in model.coef_[0]],
    }) + "\n", encoding="utf-8")
    GateWeights.packaged()  # it reads back
    print(f"Wrote {GATE_FILE} ({len(rows)} examples)")
    right = sum(s[4] for s in scores)
    print(f"gate_held_out_precision={right / sum(s[4] + s[5] for s in scores):.3f} "
          f"gate_held_out_recall={right / sum(s[1] for s in scores):.3f}")


if __name__ == "__main__":
    main()
