"""How a reply asks about a plan that is over: what the prompt tells a model, and the plain
question the demo model's reply ends with (a model that small cannot be trusted to ask)."""

from __future__ import annotations

from memory.days import day
from memory.quoting import quoted
from memory.types import Plan


def follow_up_section(plan: Plan, user_name: str) -> list[str]:
    """The prompt's "Something to follow up" lines."""
    return [
        f"Something to follow up: on {day(plan.said_at)} the {user_name} told you of a plan "
        f"whose day has passed: {quoted(plan.text)}. Ask them once, briefly and kindly, how it "
        "went, in this reply.",
    ]


def follow_up_question(plan: Plan) -> str:
    """'On 2 March 2026 you said: "my interview is on Friday". How did it go?'"""
    return f"On {day(plan.said_at)} you said: “{plan.text.strip()}”. How did it go?"
