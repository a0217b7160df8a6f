"""Whose life a statement is about, by its grammar: the speaker's own, or someone else's.

"My buddy Ray switched to Android" and "Betty next door has a new doctor" give values of the
subjects of a life (a phone, a doctor), but of someone else's. The subject of the statement's
first clause says whose: another person (a name, "he", "my sister", "the kids") makes it someone
else's; "I", "we", a clause without a subject ("switched to Android"), a partner of the speaker
("my girlfriend Zoe is...") or people counted ("two kids keep me busy") keep it the speaker's.

Read from a spaCy parse (`memory.beliefs.values` parses each statement once).
"""

from __future__ import annotations

from typing import Any

_SELF = frozenset(("i", "we", "me", "us", "myself", "ourselves"))
_THIRD = frozenset(("he", "she", "they", "someone", "somebody", "everyone", "everybody",
                    "nobody", "people", "anyone", "anybody"))
# The nouns of the people around someone: a closed class, like the pronouns.
_PEOPLE = frozenset((
    "sister", "brother", "sis", "bro", "mom", "mum", "mother", "dad", "father", "parent",
    "friend", "mate", "buddy", "pal", "bestie", "bff", "cousin", "colleague", "coworker",
    "co-worker", "boss", "manager", "neighbour", "neighbor", "roommate", "flatmate",
    "housemate", "son", "daughter", "kid", "child", "uncle", "aunt", "nephew", "niece",
    "grandma", "grandpa", "granny", "nan", "grandmother", "grandfather", "family", "teacher",
    "classmate", "teammate", "partner", "wife", "husband", "boyfriend", "girlfriend", "bf",
    "gf", "hubby", "fiance", "fiancee", "fiancé", "fiancée"))
_PARTNERS = frozenset(("partner", "wife", "husband", "boyfriend", "girlfriend", "bf", "gf",
                       "hubby", "fiance", "fiancee", "fiancé", "fiancée"))
_SUBJECTS = frozenset(("nsubj", "nsubjpass", "expl"))
_CLAUSES = frozenset(("advcl", "ccomp", "csubj", "relcl"))
_CONTENT = frozenset(("NOUN", "PROPN", "NUM", "VERB"))


def of_someone_else(doc: Any) -> bool:
    """Whether the statement's first clause is about another person."""
    if any(t.dep_ in ("nsubj", "nsubjpass") and t.lower_ in _SELF for t in doc):
        return False  # the speaker is a subject somewhere: "my mum had a baby, so I now have..."
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    subject = next((c for c in root.children if c.dep_ in _SUBJECTS), None) if root else None
    if subject is None or _after_a_clause_of_the_speaker(doc, subject):
        return False
    return _is_another_person(doc, subject)


def _after_a_clause_of_the_speaker(doc: Any, subject: Any) -> bool:
    """Words before the subject that are not a clause of their own ("switched to punk, my
    friends are confused"; not "since my dad quit, he...") make the first clause the
    speaker's."""
    start = min(t.i for t in subject.subtree)
    return any(t.pos_ in _CONTENT and t.dep_ != "intj" and not _in_own_clause(t)
               for t in doc[:start])


def _in_own_clause(token: Any) -> bool:
    return any(a.dep_ in _CLAUSES and any(c.dep_ in ("nsubj", "nsubjpass") for c in a.children)
               for a in (token, *token.ancestors))


def _is_another_person(doc: Any, subject: Any) -> bool:
    word = subject.lower_
    if word in _THIRD:
        return True
    owners = {c.lower_ for c in subject.children if c.dep_ == "poss"}
    if word in _PEOPLE or word.removesuffix("s") in _PEOPLE or word in ("children", "folks"):
        counted = any(c.dep_ == "nummod" or c.like_num for c in subject.children)
        partner = word in _PARTNERS and bool(owners & {"my", "our"})
        owned = any(c.dep_ in ("poss", "det") for c in subject.children)
        return owned and not (counted or partner)
    named = subject.ent_type_ == "PERSON" or (subject.pos_ == "PROPN" and not subject.ent_type_)
    # A name as subject is someone else's unless the speaker is in the sentence ("Daisy is our
    # new puppy").
    return named and not any(t.lower_ in _SELF | {"my", "our"} for t in doc)
