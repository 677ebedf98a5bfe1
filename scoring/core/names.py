"""Model names compared as a reader sees them: two names that look alike are the same name.

A name's comparison keys come from NFKC, case folding, whitespace runs as one space, format characters dropped and
each character mapped to its prototype in Unicode's confusables table (the TR39 skeleton). The table is Unicode's
confusables.txt as the `confusable-homoglyphs` package ships it. Names holding invisible (format, bidi control) or
control characters are refused outright: `name_invisible_characters` says which and where.
"""
from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

from confusable_homoglyphs.utils import load

# Categories a visible name never needs: controls, format characters (zero-width, bidi controls), surrogates,
# private use and unassigned code points (which a later Unicode may make look like anything).
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})
# The package's table wraps right-to-left characters in LEFT-TO-RIGHT MARKs, as confusables.txt's comments do.
_DIRECTION_MARKS = str.maketrans("", "", "\u200e\u200f")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class InvisibleCharacter:
    position: int  # 1-based, in the name as given
    char: str

    @property
    def description(self) -> str:
        name = unicodedata.name(self.char, "an unnamed character")
        return f"U+{ord(self.char):04X} {name} at character {self.position}"


def name_invisible_characters(name: str) -> list[InvisibleCharacter]:
    """The characters of `name` that show nothing or steer how the rest shows (e.g. U+200B, U+202E)."""
    return [InvisibleCharacter(i, c) for i, c in enumerate(name, 1) if unicodedata.category(c) in INVISIBLE_CATEGORIES]


@functools.cache
def prototypes() -> dict[str, str]:
    """Each confusable character -> its prototype (one or more characters).

    The package keeps confusables.txt's `source -> target` lines in both directions, without saying which is which.
    The direction follows from the table's rules: a source maps to one target and is never a target itself, so a
    character with one multi-character entry is a source; one whose entries are several single characters is a
    prototype; the rest are pairs of two characters listing each other, where the one found inside a multi-character
    target is the prototype, else the smaller code point stands for both (a comparison needs one representative per
    class, not Unicode's choice of it)."""
    table: dict[str, list[str]] = {}
    for key, entries in load("confusables.json").items():
        key = key.translate(_DIRECTION_MARKS)
        if len(key) == 1:
            table.setdefault(key, []).extend(e["c"].translate(_DIRECTION_MARKS) for e in entries)
    in_targets = {c for entries in table.values() for target in entries if len(target) > 1 for c in target}
    mapping: dict[str, str] = {}
    for char, entries in table.items():
        if len(entries) == 1 and len(entries[0]) > 1:
            mapping[char] = entries[0]
        elif len(entries) == 1:
            other = entries[0]
            if len(table.get(other, ())) > 1:
                mapping[char] = other  # a source beside its prototype
            elif other in in_targets or (char not in in_targets and other < char):
                mapping[char] = other  # a pair: the prototype, or the smaller, stands for both
    return mapping


def skeleton(text: str) -> str:
    """TR39's skeleton: NFD, each character to its prototype, NFD again."""
    table = prototypes()
    return unicodedata.normalize("NFD", "".join(table.get(c, c) for c in unicodedata.normalize("NFD", text)))


def name_keys(name: str) -> frozenset[str]:
    """What two names are compared by: they look alike when they share a key.

    Two keys, as case folding and the confusables table do not commute: folding first makes "GPT-4o" and "gpt-4o"
    one name; mapping first makes "GPT-4I" (capital i) and "GPT-4l" one name, which folding first would tell apart."""
    visible = "".join(c for c in name if unicodedata.category(c) not in INVISIBLE_CATEGORIES)
    text = _SPACES.sub(" ", unicodedata.normalize("NFKC", visible)).strip()
    folded_first = skeleton(text.casefold()).casefold()
    mapped_first = skeleton(skeleton(text).casefold()).casefold()
    return frozenset({folded_first, mapped_first})


def names_look_alike(a: str, b: str) -> bool:
    return not name_keys(a).isdisjoint(name_keys(b))
