"""The words a message is searched by, and how they are handed to each index safely."""

from __future__ import annotations

from memory.lexical import boolean_query, fts5_match, query_terms, user_key, user_words


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


def test_mysql_searches_words_and_their_stems_behind_the_users_key() -> None:
    key = user_key("ana")
    assert boolean_query("ana", ["paintings", "xiamen", "happy", "tv"]) == (
        f"{key}paint* {key}xiamen* {key}happy {key}happi*")
    assert user_words("ana", "Painting in Xiamen, painting!") == (
        f"{key}painting {key}in {key}xiamen")
    assert user_key("bob") != key and user_key("ana") == key
