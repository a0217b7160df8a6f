"""How well plans are found in what people say (memory/plans): precision, recall, and the share
of the plans found whose days are right.

Data: messages with the day each was sent, about half telling of a coming one-off event with a
day that can be worked out, the rest not (past events, habits, hypotheticals, wishes without a
time, everyday talk with a date word). Every set was written by a helper agent that had read
neither the code nor any other set, from one brief (benchmarks/data/plans_*.brief.md):

- `plans_development`: the finder was tuned on it;
- `plans_independent`: run once (precision 0.897, recall 0.875, days right 0.957); its misses
  were then read and the finder tuned on them, so it is development data now;
- `plans_independent2`: written after that, run once (precision 0.950, recall 0.950, days right
  0.947); its misses were then read and the finder tuned on them: development data too;
- `plans_independent3`: written after that, run once (precision 0.888, recall 0.988, days
  right 0.949); its misses were then read and the finder tuned on them: development data too;
- `plans_training_a`, `plans_training_b`: 400 messages written to train the learned gate
  (memory/plans/gate.py, `python -m benchmarks.plans_eval.train_gate`), leaning to kinds of
  message the rules had got wrong; run once with the rules and a gate trained on the four sets
  above (precision 0.919 and 0.868, recall 0.910 and 0.920), then read and trained on;
- `plans_independent4`: written after that, run once: the headline.

The gate is trained on every set but the headline, so the other sets' figures are its
training figures; train_gate prints how it does on each set held out.

Their weak spots: English only, one writer each, the writer chose the span of vague phrases
("end of the month" as its last week), single messages without the chat around them.

A found plan is right when the message is a plan; its days are right when they lie within the
span the writer gave (first_day to last_day). Both the rules and the gate are the product's,
with its default embedder (the packaged MiniLM); "rules alone" is the finder without the gate.

    python -m benchmarks.plans_eval [--sets development,...,independent4] [-v]

The last line is `plan_precision=<x> plan_recall=<y> date_right=<z>` for the last set named
(independent4 by default). `-v` prints each development set's misses.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from dataclasses import dataclass
from datetime import date

from benchmarks.support import read_set, table_head, table_row
from memory.embeddings.onnx_minilm import OnnxMiniLM
from memory.embeddings.packaged import minilm_tokenizer_file
from memory.embeddings.requantize import requantized_minilm_file
from memory.plans.finder import FoundPlan, PlanFinder
from memory.plans.gate import PlanGate

SETS = ("development", "independent", "independent2", "independent3", "independent4")
# Their misses were read; the gate was trained on them.
TUNED_ON = ("development", "independent", "independent2", "independent3", "training_a",
            "training_b")


@dataclass(frozen=True)
class Score:
    precision: float
    recall: float
    date_right: float
    found: int
    plans: int
    ms_per_message: float
    rules_precision: float  # the finder's rules without the gate
    rules_recall: float


async def score(name: str, finder: PlanFinder, gate: PlanGate, *, show_misses: bool) -> Score:
    records = read_set(f"plans_{name}").records
    true_found = false_found = missed = dated_right = 0
    rules_true = rules_false = 0
    started = time.perf_counter()
    for record in records:
        said_on = date.fromisoformat(record["said_on"])
        by_rules = finder.find(record["text"], said_on)
        rules_true += bool(by_rules) and record["plan"]
        rules_false += bool(by_rules) and not record["plan"]
        found = await gate.plans_among(by_rules)
        if record["plan"] and found:
            true_found += 1
            right = _dated_right(found, record)
            dated_right += right
            if not right and show_misses:
                print(f"  wrong days: {_days(found)} (said {said_on:%a %d %b %Y}; "
                      f"{record['first_day']}..{record['last_day']}) {record['text']}")
        elif record["plan"]:
            missed += 1
            if show_misses:
                print(f"  missed: (said {said_on:%a %d %b %Y}) {record['text']}")
        elif found:
            false_found += 1
            if show_misses:
                print(f"  not a plan ({record.get('why_not')}): {_days(found)} {record['text']}")
    elapsed = time.perf_counter() - started
    plans = true_found + missed
    return Score(
        precision=true_found / max(1, true_found + false_found),
        recall=true_found / max(1, plans),
        date_right=dated_right / max(1, true_found),
        found=true_found + false_found, plans=plans,
        ms_per_message=1000 * elapsed / len(records),
        rules_precision=rules_true / max(1, rules_true + rules_false),
        rules_recall=rules_true / max(1, plans))


def _dated_right(found: list[FoundPlan], record: dict[str, str]) -> bool:
    first, last = date.fromisoformat(record["first_day"]), date.fromisoformat(record["last_day"])
    plan = found[0]
    return first <= plan.first_day and plan.last_day <= last


def _days(found: list[FoundPlan]) -> str:
    return ", ".join(f"{p.first_day}..{p.last_day}" for p in found)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    names = [name.strip() for name in args.sets.split(",") if name.strip()]
    asyncio.run(_measure(names, verbose=args.verbose))


async def _measure(names: list[str], *, verbose: bool) -> None:
    finder = PlanFinder()
    embedder = OnnxMiniLM(requantized_minilm_file(), minilm_tokenizer_file())
    gate = PlanGate(embedder)
    # spaCy, dateparser and the embedder load once, before the clock runs.
    await gate.plans_among(finder.find("warming up tomorrow", date(2026, 1, 1)))
    scores = {name: await score(name, finder, gate, show_misses=verbose and name in TUNED_ON)
              for name in names}
    await embedder.aclose()
    print(table_head("set", "plans", "found", "precision", "recall", "days right",
                     "rules alone: precision", "rules alone: recall", "ms per message"))
    for name, s in scores.items():
        print(table_row(name, s.plans, s.found, f"{s.precision:.3f}", f"{s.recall:.3f}",
                        f"{s.date_right:.3f}", f"{s.rules_precision:.3f}",
                        f"{s.rules_recall:.3f}", f"{s.ms_per_message:.1f}"))
    last = scores[names[-1]]
    print(f"plan_precision={last.precision:.3f} plan_recall={last.recall:.3f} "
          f"date_right={last.date_right:.3f}")


if __name__ == "__main__":
    main()
