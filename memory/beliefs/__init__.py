"""Beliefs (BeliefBank): facts with a confidence, what they claim, and what superseded them."""
