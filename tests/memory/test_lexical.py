"""The words a message is searched by, and how they are handed to each index safely."""

from __future__ import annotations

from memory.lexical import TERM_LENGTH, fts5_match, indexed_words, query_terms, word_patterns


def test_search_words_are_names_and_rare_words_not_function_words() -> None:
    assert query_terms("When did I go to the LGBTQ support group?") == [
        "lgbtq", "support", "group"]
    assert query_terms("Do you remember Xiadani and Москва?") == ["xiadani", "москва"]
    assert query_terms("I, me, my, the, and?") == []


def test_no_word_or_user_id_can_act_as_an_operator() -> None:
    match = fts5_match('discord:42 "x" OR *', ["near", "and"])
    assert match == 'user_id : "discord:42 ""x"" OR *" AND text : ("near" OR "and")'
    assert query_terms('say "cats" NEAR(dogs) -birds +fish*') == [
        "cats", "near", "dogs", "birds", "fish"]


def test_mysql_searches_words_and_their_stems_without_latin_accents() -> None:
    assert word_patterns("paintings") == ("paint%", "paintings")
    assert word_patterns("happy") == ("happi%", "happy")
    assert word_patterns("José") == ("jose%", "jose")
    assert word_patterns("tv") == ("tv", "tv")  # no prefix of two letters
    assert indexed_words("Painting in Xiamen, painting! Café") == [
        "painting", "in", "xiamen", "cafe"]
    assert indexed_words("किताब пойти") == ["किताब", "пойти"]  # other scripts keep their marks
    assert len(indexed_words("x" * 100)[0]) == TERM_LENGTH
