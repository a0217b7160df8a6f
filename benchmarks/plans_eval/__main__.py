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
- `plans_independent3`: written after that, run once: the headline.

Their weak spots: English only, one writer each, the writer chose the span of vague phrases
("end of the month" as its last week), single messages without the chat around them.

A found plan is right when the message is a plan; its days are right when they lie within the
span the writer gave (first_day to last_day).

    python -m benchmarks.plans_eval [--sets development,independent,independent2,independent3] [-v]

The last line is `plan_precision=<x> plan_recall=<y> date_right=<z>` for the last set named
(independent3 by default). `-v` prints each development set's misses.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from datetime import date

from benchmarks.support import read_set, table_head, table_row
from memory.plans.finder import FoundPlan, PlanFinder

SETS = ("development", "independent", "independent2", "independent3", "independent4")
TUNED_ON = ("development", "independent", "independent2", "independent3")  # their misses were read


@dataclass(frozen=True)
class Score:
    precision: float
    recall: float
    date_right: float
    found: int
    plans: int
    ms_per_message: float


def score(name: str, finder: PlanFinder, *, show_misses: bool) -> Score:
    records = read_set(f"plans_{name}").records
    true_found = false_found = missed = dated_right = 0
    started = time.perf_counter()
    for record in records:
        said_on = date.fromisoformat(record["said_on"])
        found = finder.find(record["text"], said_on)
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
        ms_per_message=1000 * elapsed / len(records))


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
    finder = PlanFinder()
    finder.find("warming up tomorrow", date(2026, 1, 1))  # spaCy and dateparser load once
    scores = {name: score(name, finder, show_misses=args.verbose and name in TUNED_ON)
              for name in names}
    print(table_head("set", "plans", "found", "precision", "recall", "days right",
                     "ms per message"))
    for name, s in scores.items():
        print(table_row(name, s.plans, s.found, f"{s.precision:.3f}", f"{s.recall:.3f}",
                        f"{s.date_right:.3f}", f"{s.ms_per_message:.1f}"))
    last = scores[names[-1]]
    print(f"plan_precision={last.precision:.3f} plan_recall={last.recall:.3f} "
          f"date_right={last.date_right:.3f}")


if __name__ == "__main__":
    main()
