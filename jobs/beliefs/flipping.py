"""Algorithm 1 of MemoryBank (heuristic flipping), for beliefs that are superseded, not negated.

If the premises that contradict a new belief outnumber those that entail it, the contradicting
premises clearly weaker than the new belief (by the margin gamma) vote for it, the clearly stronger
against it. More for: those weaker premises are superseded by the new belief. More against: the
new belief is superseded by the strongest premise, with the premises that entailed it and are
clearly weaker than that one. A tie, or confidences within gamma, flips nothing: the user is asked
(what the companion said about itself is not a question for the user: it keeps its first word).

Two departures from the paper, both for a companion's beliefs: a premise that is one side of an
unsettled conflict does not vote for the new belief (otherwise a conflict could never be settled
by the user's answer), and a premise entailed by the new belief passes on its repeat count.
"""

from __future__ import annotations

from collections.abc import Sequence, Set

from jobs.beliefs.judge import Judgement, Verdict
from memory.beliefs.belief import About, Belief, BeliefSettings, Settlement, strength

SURE = 0.5  # a judgement less probable than this does not vote


def decide(
    new: Belief, premises: Sequence[Belief], judgements: Sequence[Judgement],
    settings: BeliefSettings, disputed: Set[str] = frozenset(),
) -> Settlement:
    voted = [(p, j.verdict) for p, j in zip(premises, judgements, strict=True)
             if j.probability >= SURE]
    against = [p for p, v in voted if v is Verdict.CONTRADICTION]
    entail = [p for p, v in voted if v is Verdict.ENTAILMENT]
    repeats = 1 + max((p.repeats for p in entail), default=0)
    if len(against) <= len([p for p in entail if p.id not in disputed]):
        return Settlement(repeats=repeats)
    # Every belief is weighed as it stands when the latest of them was said: a belief checked
    # late (a window summarized after a newer taught fact) is the older one, and ages.
    at = max(b.fact.said_at for b in (new, *against))

    def weight(belief: Belief, later: bool = False) -> float:
        return strength(belief, at, settings, later=later)

    def margin(premise: Belief) -> float:
        """How much stronger the new belief is than a premise it contradicts."""
        new_is_later = new.fact.said_at >= premise.fact.said_at
        return weight(new, new_is_later) - weight(premise, not new_is_later)

    weaker = [p for p in against if margin(p) > settings.margin]
    stronger = [p for p in against if margin(p) < -settings.margin]
    if len(weaker) > len(stronger):
        return Settlement(losers=tuple(p.id for p in weaker), winner=new.id, repeats=repeats)
    if len(stronger) > len(weaker) or new.about is About.COMPANION:
        winner = max(stronger or against, key=lambda p: (weight(p), p.fact.said_at))
        losers = [new.id, *(p.id for p in entail if weight(p) + settings.margin < weight(winner))]
        return Settlement(losers=tuple(losers), winner=winner.id, repeats=repeats)
    latest = max(against, key=lambda p: p.fact.said_at)
    earlier, later = sorted((latest, new), key=lambda b: b.fact.said_at)
    return Settlement(ask=(earlier.id, later.id), repeats=repeats)
