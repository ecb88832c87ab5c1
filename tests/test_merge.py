"""Merging one conference's lists from several sources: property tests (no paper lost, none doubled,
every field traced to its source) on generated sources, and the matching rules by example.

Derandomized and without an example database, so every run tries the same examples.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lib.stages.format_parsers import openreview_id
from lib.stages.load import papers_from_bytes
from lib.store.merge import json_value, merge_tables, normalised_title

PROPERTY = settings(
    max_examples=120, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow]
)
SOURCES = ("virtual-site", "openreview", "paperlists")
WORDS = ["graph", "neural", "bandit", "privacy", "diffusion", "kernel", "robust", "sparse", "causal", "flow"]


def written_differently(title: str, how: int) -> str:
    """The same title as another source might write it: case, punctuation, spacing."""
    return [title, title.upper(), title.lower() + ".", title.replace(" ", "  ").replace("-", " "), f"“{title}”"][how]


@st.composite
def conferences(draw):
    """Papers, and per source the papers it lists, each written its own way. Titles are unique but
    for some papers that share one ("Introduction"); those always carry their OpenReview link, the
    one thing that can tell them apart."""
    n = draw(st.integers(1, 12))
    shared = draw(st.sets(st.integers(0, n - 1), max_size=3))
    titles = [
        "Introduction" if i in shared else f"{WORDS[i % 10].title()} {WORDS[(i * 3 + 1) % 10]}-Learning Number {i}"
        for i in range(n)
    ]
    forums = [f"Forum{i:04d}" if i in shared else draw(st.sampled_from([f"Forum{i:04d}", ""])) for i in range(n)]
    tables = {}
    for source in SOURCES:
        records = []
        for i in draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n)):
            record = {"id": f"{source}-{i}", "title": written_differently(titles[i], draw(st.integers(0, 4)))}
            if i in shared or (forums[i] and draw(st.booleans())):
                record["openreview"] = f"https://openreview.net/forum?id={forums[i]}"
            if draw(st.booleans()):
                record["abstract"] = f"{source} abstract of paper {i}."
            if draw(st.booleans()):
                record["primary_area"] = draw(st.sampled_from(["Theory->Learning Theory", "Deep Learning"]))
            records.append(record)
        if records:
            tables[source] = papers_from_bytes(json.dumps(records).encode(), Path(f"icml2025-{source}.json")).papers
    return tables


def truth(source_id: str) -> int:
    return int(source_id.rsplit("-", 1)[1])


@PROPERTY
@given(conferences())
def test_no_paper_is_lost_or_doubled_and_every_field_is_traced(tables):
    records, report = merge_tables(tables)
    # Not lost: every row of every source is in exactly one record.
    for source, table in tables.items():
        holding = [r["source_ids"][source] for r in records if source in r["source_ids"]]
        assert sorted(holding) == sorted(table["paper_id"])
    # Not doubled: one record per paper, and a record holds one paper.
    papers = {truth(i) for table in tables.values() for i in table["paper_id"]}
    assert len(records) == len(papers) == report.merged
    assert all(len({truth(i) for i in r["source_ids"].values()}) == 1 for r in records)
    # Traced: each field's value is the one its named source has for that paper.
    for record in records:
        for name, source in record["field_sources"].items():
            row = tables[source].set_index("paper_id").loc[record["source_ids"][source]]
            if name == "paper_id":  # one id whichever source came first: the forum's, if any source has it
                expected = openreview_id(record["openreview_url"]) or record["source_ids"][source]
            else:
                expected = json_value(row[name])
            assert record[name] == expected, (name, source)
    assert report.matched_by_id + report.matched_by_title == sum(len(r["sources"]) - 1 for r in records)


@PROPERTY
@given(conferences())
def test_the_merged_list_reads_back_as_merged(tables):
    records, _ = merge_tables(tables)
    papers = papers_from_bytes(json.dumps(records).encode(), Path("icml2025.json")).papers
    assert list(papers["paper_id"]) == [r["paper_id"] for r in records]
    assert list(papers["abstract"]) == [r["abstract"] for r in records]
    assert list(papers["primary_area"]) == [r["primary_area"] for r in records]


def test_titles_match_whatever_their_case_punctuation_and_accents():
    same = [
        "Scaling Laws for Mixture-of-Experts",
        "scaling laws for mixture of experts.",
        "SCALING  LAWS FOR MIXTURE OF EXPERTS",
    ]
    assert len({normalised_title(t) for t in same}) == 1
    assert normalised_title("Café Learning") == normalised_title("cafe learning")
    assert normalised_title("Learning to Rank") != normalised_title("Learning to Rank II")


def table(source, records):
    return papers_from_bytes(json.dumps(records).encode(), Path(f"icml2025-{source}.json")).papers


def test_same_title_but_different_openreview_ids_stay_two_papers():
    a = table(
        "virtual-site", [{"id": "a", "title": "Attention", "openreview": "https://openreview.net/forum?id=AAAAAA"}]
    )
    b = table("openreview", [{"id": "b", "title": "Attention", "openreview": "https://openreview.net/forum?id=BBBBBB"}])
    records, report = merge_tables({"virtual-site": a, "openreview": b})
    assert len(records) == 2 and report.matched_by_title == 0


def test_two_papers_of_one_source_with_one_title_are_never_merged():
    twins = table("paperlists", [{"id": "x", "title": "Introduction"}, {"id": "y", "title": "Introduction"}])
    other = table("openreview", [{"id": "z", "title": "introduction"}])
    records, _ = merge_tables({"paperlists": twins, "openreview": other})
    assert len(records) == 2 and sorted(len(r["sources"]) for r in records) == [1, 2]


def test_each_field_prefers_its_source_and_falls_back_in_order():
    site = table("virtual-site", [{"id": "s", "title": "A Paper", "abstract": "", "primary_area": "Theory->Bandits"}])
    review = table(
        "openreview", [{"id": "o", "title": "a paper", "abstract": "The authors' abstract.", "primary_area": "Theory"}]
    )
    records, _ = merge_tables({"virtual-site": site, "openreview": review})
    (record,) = records
    assert record["title"] == "A Paper" and record["primary_area"] == "Theory->Bandits"  # ICML's own first
    assert record["abstract"] == "The authors' abstract."  # OpenReview's first; the site has none anyway
    assert record["field_sources"]["abstract"] == "openreview" and record["field_sources"]["title"] == "virtual-site"
