"""A summary's version (plugin's summaries version and its context stamp) fits the column it is stored in on
PostgreSQL however long the stamp grows (VGE's lists the human entries' submission ids)."""
from __future__ import annotations

from dataclasses import replace

from leaderboard.models import AnalysisSummary
from scoring.benchmarks import plugin_for


def many_humans(split) -> str:
    return "humans:" + ",".join(str(100_000 + i) for i in range(60))


def many_other_humans(split) -> str:
    return "humans:" + ",".join(str(200_000 + i) for i in range(60))


def two_humans(split) -> str:
    return "humans:3,5"


def _version(stamp: str) -> str:
    return replace(plugin_for("vge-bench"), analysis_summary_stamp=f"{__name__}:{stamp}").analysis_summary_version(None)


def test_a_long_stamp_is_kept_as_its_digest_and_fits_the_column():
    column = AnalysisSummary._meta.get_field("version").max_length
    long, other = _version("many_humans"), _version("many_other_humans")
    assert len(many_humans(None)) > column  # the stamp alone would not fit
    assert len(long) <= column and "|sha256:" in long
    assert long != other  # other humans, another version: the summaries are made again
    assert _version("two_humans").endswith("|humans:3,5")  # a short one is kept as it is
