"""Model names compared as a reader sees them (scoring.core.names; issue 26, finding 9)."""
import unicodedata

import pytest

from scoring.core.names import name_invisible_characters, name_keys, names_look_alike, prototypes, skeleton


@pytest.mark.parametrize("look_alike", [
    "GPT-4o", "gpt-4o", "GPT-4\u043e", "GPT\u20114o", "GPT\u20104o", "GPT-4o\u200b",
    "\uff27\uff30\uff34\uff0d\uff14\uff4f",
    "GPT-40", " GPT-4o ", "\U0001d406\U0001d40f\U0001d413-4o",  # mathematical bold capitals
])
def test_look_alikes_share_a_key(look_alike):
    assert names_look_alike(look_alike, "GPT-4o")


@pytest.mark.parametrize("different", ["GPT-4", "GPT-4o mini", "GPT-4\u00f3", "GPT-5o", "o4-TPG", "Qwen2.5-VL-72B"])
def test_different_names_do_not(different):
    assert not names_look_alike(different, "GPT-4o")


def test_capital_i_and_small_l_look_alike_and_letter_case_still_folds():
    assert names_look_alike("Llama-3-8B-Instruct", "llama-3-8b-instruct")
    assert names_look_alike("GPT-4I", "GPT-4l")
    assert names_look_alike("GPT-4I", "gpt-4i")


def test_runs_of_space_count_as_one():
    assert names_look_alike("GPT-4o\u00a0 mini", "GPT-4o mini")


def test_the_table_maps_each_source_to_a_prototype_the_table_keeps():
    table = prototypes()
    assert table["\u043e"] == "o" and table["\u2010"] == "-" and table["0"] == "O" and table["\u217f"] == "rn"
    assert "o" not in table and "-" not in table  # prototypes stand for themselves
    assert len(table) > 6000
    single = [t for t in table.values() if len(t) == 1]
    assert all(t not in table for t in single)  # one step reaches a prototype


def test_skeleton_is_tr39s_nfd_map_nfd():
    assert skeleton("\u00e9") == unicodedata.normalize("NFD", "\u00e9")
    assert skeleton("\u0440\u0430\u0443\u0440\u0430\u006c") == "paypal"  # Cyrillic р, а, у, р, а


@pytest.mark.parametrize("name, found", [
    ("GPT-4o\u200b", [(7, "\u200b")]),
    ("\u202eo4-TPG", [(1, "\u202e")]),
    ("a\u2066b\u2069", [(2, "\u2066"), (4, "\u2069")]),
    ("tab\tname", [(4, "\t")]),
    ("GPT-4o", []),
])
def test_invisible_characters_are_found_with_their_place(name, found):
    assert [(c.position, c.char) for c in name_invisible_characters(name)] == found


def test_an_invisible_characters_description_names_it():
    (found,) = name_invisible_characters("GPT-4o\u200b")
    assert found.description == "U+200B ZERO WIDTH SPACE at character 7"


def test_keys_are_stable_strings():
    assert name_keys("GPT-4\u043e") == frozenset({"gpt-4o"})
