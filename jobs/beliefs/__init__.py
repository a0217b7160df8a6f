"""Belief checks (BeliefBank's Algorithm 1): new beliefs against the ones before them."""
