"""What a statement claims: a subject and its value, or nothing for a question or two claims at
once."""

from __future__ import annotations

from memory.beliefs.claims import Claim, claim_of


def test_a_question_or_two_claims_at_once_claim_nothing() -> None:
    assert claim_of("Do I live in Paris?") is None
    assert claim_of("I live in Paris. I work at Google.") is None
    assert claim_of("I live in Paris.") == Claim("home", "paris")
