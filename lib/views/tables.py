"""Display tables and captions: the papers DataFrame in, compact text for the pages out."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import pandas as pd

from lib.views.markup import safe_url
from lib.views.text import session_text, short_authors


def paper_table(papers: pd.DataFrame, top_keywords: int = 5) -> pd.DataFrame:
    """Title, link, short authors, subfield, topic and top keywords, one row per paper; a
    `similarity` column first when `papers` has one (a ranking).

    Only http(s) links are kept: a table's link column would open a `javascript:` one.

    Authors and link are left out when no paper has them (the seed sample has neither).
    """
    table = pd.DataFrame(
        {
            **({"similarity": papers["similarity"].to_numpy()} if "similarity" in papers else {}),
            "title": papers["title"].to_numpy(),
            "link": [safe_url(url) for url in papers["url"]],
            "authors": [short_authors(list(a)) for a in papers["authors"]],
            "subfield": papers["subfield"].to_numpy(),
            "topic": papers["topic_label"].to_numpy(),
            "keywords": [", ".join(list(k)[:top_keywords]) for k in papers["keywords"]],
        }
    )
    empty = [c for c in ("authors", "link") if not table[c].astype(bool).any()]
    return table.drop(columns=empty)


def counted_line(values: Iterable[str], top: int = 5) -> str:
    """The most common values with their counts on one line: `A (12) · B (5) · 3 more`."""
    counts = Counter(v for v in values if v)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0].casefold()))
    line = " · ".join(f"{value} ({n})" for value, n in ranked[:top])
    return f"{line} · {len(ranked) - top} more" if len(ranked) > top else line


def selection_summary(papers: pd.DataFrame, top: int = 5) -> dict[str, str]:
    """What a set of papers (a lasso, a search) is about: its subfields, topics and keyphrases, most common first."""
    return {
        "Subfields": counted_line(papers["subfield"], top),
        "Topics": counted_line(papers["topic_label"], top),
        "Keyphrases": counted_line((k for keywords in papers["keywords"] for k in dict.fromkeys(keywords)), top * 2),
    }


def corpus_caption(papers: pd.DataFrame, file_name: str) -> str:
    """One line saying what the map is of: venue and year, size, and what the texts hold. A venue or
    year is named when it holds at least half the papers; a corpus of many says how many venues, and
    which years.

    >>> corpus_caption(pd.DataFrame({"venue": ["ICML"], "year": [2025], "abstract": ["x"], "title_is_derived": [True]}), "seed.txt")
    'ICML 2025: 1 paper from seed.txt, abstracts only (titles derived from them)'
    >>> corpus_caption(pd.DataFrame({"venue": ["ICML", "IROS", "CVPR"], "year": [2019, 2022, 2024],
    ...     "abstract": ["x", "y", ""], "title_is_derived": [False] * 3}), "corpus.json")
    '3 venues, 2019-2024: 3 papers from corpus.json, titles and abstracts'
    """
    venues = papers["venue"].replace("", pd.NA).dropna().value_counts()
    years = papers["year"].dropna().astype(int).value_counts()
    many = len(venues) and venues.iloc[0] * 2 < len(papers)
    venue = f"{len(venues)} venues" if many else venues.index[0] if len(venues) else ""
    year = (
        ""
        if not len(years)
        else str(years.index[0])
        if years.iloc[0] * 2 >= len(papers)
        else f"{years.index.min()}-{years.index.max()}"
    )
    name = (", " if many else " ").join(part for part in (venue, year) if part)
    count = f"{len(papers):,} paper{'s' if len(papers) != 1 else ''} from {file_name}"
    if papers["title_is_derived"].all():
        texts = "abstracts only (titles derived from them)"
    elif not papers["abstract"].ne("").any():  # a comparison, not astype(bool), which is slow on a corpus
        texts = "titles only (no abstracts)"
    else:
        texts = "titles and abstracts"
    return f"{name}: {count}, {texts}" if name else f"{count}, {texts}"


def topic_table(
    summaries: pd.DataFrame, papers: pd.DataFrame, shown: pd.DataFrame, level: str = "coarse"
) -> pd.DataFrame:
    """Display rows for `lib.stages.topics.topic_summaries` output: the topics with papers in view.

    Keyphrases carry the share of the topic's papers using each; representatives become titles.
    """
    id_column = "topic" if level == "coarse" else "topic_fine"
    in_view = shown[id_column].value_counts()
    title_of = dict(zip(papers["paper_id"], papers["title"]))
    rows = summaries[summaries["topic"].isin(in_view.index)]
    table = pd.DataFrame(
        {
            "topic": rows["label"].to_numpy(),
            "papers": rows["papers"].to_numpy(),
            "in view": [int(in_view.get(t, 0)) for t in rows["topic"]],
            "within": rows["parent_label"].to_numpy(),
            "keyphrases": [
                ", ".join(f"{k} ({share:.0%})" for k, share in zip(ks, ss))
                for ks, ss in zip(rows["keywords"], rows["keyword_shares"])
            ],
            "representative papers": [
                " · ".join(title_of.get(pid, pid) for pid in ids[:3]) for ids in rows["representatives"]
            ],
        }
    )
    drop = ["within"] if level == "coarse" else []
    if len(shown) == len(papers):
        drop.append("in view")
    return table.drop(columns=drop)


def paper_facts(paper: pd.Series) -> list[tuple[str, str]]:
    """What the paper page lists about one paper (a row of the papers table), as (label, plain text)
    pairs; facts the data lacks are left out. A declared subfield says so, with the classifier's
    area when it differs; an inferred one names its score, and its runner-up when the choice is
    not clear-cut."""
    declared = not paper["subfield_inferred"]
    if declared:
        subfield = f"{paper['subfield']} (declared by the venue)"
    else:
        subfield = f"{paper['subfield']} (score {paper['subfield_score']:.2f})"
        if not paper["subfield_confident"] and paper["subfield_runner_up"]:
            subfield += f"; uncertain, or {paper['subfield_runner_up']} ({paper['subfield_runner_up_score']:.2f})"
        elif not paper["subfield_confident"]:
            subfield += "; uncertain"
    classifier_differs = declared and paper["inferred_area"] != paper["area"]
    published = [str(paper["venue"]), "" if pd.isna(paper["year"]) else str(int(paper["year"])), str(paper["status"])]
    facts = [
        ("Published", " · ".join(part for part in published if part)),
        ("Subfield", subfield),
        ("Area", str(paper["area"])),
        ("Classifier's area", str(paper["inferred_area"]) if classifier_differs else ""),
        (
            "Topic",
            paper["topic_label"]
            if paper["topic_fine_label"] == paper["topic_label"]
            else f"{paper['topic_label']} › {paper['topic_fine_label']}",
        ),
        ("Keywords", ", ".join(paper["keywords"])),
        ("Author keywords", ", ".join(paper["author_keywords"])),
        ("Primary area", str(paper["primary_area"])),
        ("Institutions", "; ".join(paper["institutions"])),
        ("Presented", "; ".join(session_text(s) for s in paper["sessions"])),
    ]
    return [(label, text) for label, text in facts if text]


def paper_links(paper: pd.Series) -> list[tuple[str, str]]:
    """The paper page's links, (label, URL): the paper's page, its OpenReview forum and its PDF,
    each once and only when it is an http(s) link (a data file's `javascript:` link is never offered)."""
    links = [("Open the paper", paper["url"]), ("OpenReview", paper["openreview_url"]), ("PDF", paper["pdf_url"])]
    kept: dict[str, str] = {}
    for label, url in links:
        url = safe_url(url)
        if url and url not in kept.values():
            kept[label] = url
    return list(kept.items())
