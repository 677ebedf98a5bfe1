"""The BibTeX entry a frozen board snapshot is cited by (issue 29). Pure: the snapshot's facts in, text out.

Text fields are brace-protected with BibTeX's special characters escaped, so a model or benchmark name cannot end
the entry early; the key is built from letters, digits and dashes only.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "%": r"\%", "&": r"\&", "#": r"\#", "$": r"\$",
            "_": r"\_", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def bibtex_escape(text: str) -> str:
    return "".join(_SPECIAL.get(ch, ch) for ch in " ".join(text.split()))


@dataclass(frozen=True)
class SnapshotCitation:
    benchmark_slug: str
    benchmark_name: str
    snapshot_name: str
    split: str
    split_version: int
    scorer_version: str  # "" when frozen from each row's current score
    url: str
    content_sha256: str
    frozen_on: date
    publisher: str = "Embodied Bench Hub"
    title: str = ""


def bibtex(c: SnapshotCitation) -> str:
    key = re.sub(r"[^A-Za-z0-9-]+", "-", f"ebh-{c.benchmark_slug}-{c.snapshot_name}").strip("-")
    scorer = f", scorer {c.scorer_version}" if c.scorer_version else ""
    title = c.title or f"{c.benchmark_name} leaderboard (split {c.split} v{c.split_version}{scorer}), snapshot {c.snapshot_name}"
    fields = [
        ("title", "{" + bibtex_escape(title) + "}"),
        ("author", "{" + bibtex_escape(c.publisher) + "}"),
        ("year", str(c.frozen_on.year)),
        ("month", MONTHS[c.frozen_on.month - 1]),
        ("howpublished", r"\url{" + c.url.replace("}", "%7D").replace("{", "%7B") + "}"),
        ("note", "{" + bibtex_escape(f"Frozen board snapshot; SHA-256 of its JSON {c.content_sha256}") + "}"),
    ]
    body = ",\n".join(f"  {name} = {value if name in ('year', 'month') else '{' + value + '}'}"
                      for name, value in fields)
    return f"@misc{{{key},\n{body}\n}}\n"
