"""What the breakdowns (`lib.views.breakdowns`) mean, in short sentences, lines and tables of plain numbers."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from lib.views import breakdowns


def label_reason(row: Mapping, n_papers: int) -> str:
    """Why a topic (a `lib.views.breakdowns.topic_breakdown` row) has its label, in one sentence of plain numbers.

    `n_papers` is the size of the whole map the shares were taken over.
    """
    evidence = list(row["label_evidence"])
    if not evidence:
        return f"No phrase is used by enough of its {row['papers']} papers to name it, so it is numbered."
    parts = [
        f'"{phrase}" appears in {percent(share)} of its {row["papers"]} papers against {percent(overall)} of all {n_papers:,}'
        f" ({_times(share, overall)} as common)"
        for phrase, share, overall in evidence
    ]
    return (
        "Named for the phrase"
        + ("s" if len(parts) > 1 else "")
        + " its papers use far more than the rest of the map: "
        + "; ".join(parts)
        + "."
    )


def percent(share: float) -> str:
    """A share as a whole percentage, or with one decimal below 1% so a rare phrase never reads as 0%: `12%`, `0.4%`."""
    return f"{share:.1%}" if 0 < share < 0.01 else f"{share:.0%}"


def _times(share: float, overall: float) -> str:
    return f"{share / overall:.1f}x" if overall else "only here"


def keyword_table(row: Mapping) -> pd.DataFrame:
    """A topic's distinctive keyphrases: the share of its papers using each, of all papers, and the ratio ("lift")."""
    shares, overall = list(row["keyword_shares"]), list(row["keyword_overall_shares"])
    return pd.DataFrame(
        {
            "keyphrase": list(row["keywords"]),
            "in topic": shares,
            "whole map": overall,
            "lift": [round(s / o, 1) if o else float("inf") for s, o in zip(shares, overall)],
        }
    )


def mix_line(shares: list[tuple[str, float]]) -> str:
    """`A 60% · B 30% · Other 10%` for a `mix`."""
    return " · ".join(f"{value} {percent(share)}" for value, share in shares)


def neighbour_line(row: Mapping) -> str:
    """A topic's neighbours with the share of its papers' nearest papers each holds: `A (12%) · B (3%) · C`."""
    return " · ".join(
        f"{label} ({percent(share)} of nearby papers)" if share else label
        for label, share in zip(row["neighbours"], row["neighbour_shares"])
    )


def topic_choices(breakdown: pd.DataFrame, sizes: pd.DataFrame) -> dict[str, str]:
    """Topic id (as text) -> "label (N papers)" for the topics with papers in view, largest first.

    `sizes` is `lib.views.breakdowns.topic_sizes`; when filters hide papers, the count is of those in view.
    """
    in_view = dict(zip(sizes["topic"], sizes["in_view"]))
    filtered = bool((sizes["in_view"] < sizes["papers"]).any())
    return {
        str(topic): f"{label} ({in_view.get(topic, 0):,} in view)" if filtered else f"{label} ({n:,} papers)"
        for topic, label, n in zip(breakdown["topic"], breakdown["label"], breakdown["papers"])
        if in_view.get(topic, 0)
    }


def topic_facts(row: Mapping, level: str, sizes: pd.DataFrame, filtered: bool) -> str:
    """A topic's size in one line, `120 papers, 4% of the map · within X · 30 pass the filters`: its
    parent topic at the fine `level`, and when `filtered`, how many of its papers are in view (from
    `sizes`, `lib.views.breakdowns.topic_sizes`)."""
    facts = [f"{row['papers']:,} papers, {row['share']:.0%} of the map"]
    if level == "fine":
        facts.append(f"within {row['parent_label']}")
    if filtered:
        in_view = dict(zip(sizes["topic"], sizes["in_view"]))
        facts.append(f"{in_view[row['topic']]:,} pass the filters")
    return " · ".join(facts)


def agreement_sentence(papers: pd.DataFrame) -> str:
    """How often the classifier agrees with the declared areas of `papers`
    (`lib.views.breakdowns.classifier_agreement`), beside the largest-area baseline, and how many
    papers it filed itself; "" when no paper is filed under a declared area."""
    agreement = breakdowns.classifier_agreement(papers)
    if agreement.empty:
        return ""
    total = agreement.iloc[-1]
    inferred = int(papers["subfield_inferred"].sum())
    if inferred == 1:
        filled = " It filed the one paper without a declared area itself; it is marked inferred."
    elif inferred:
        filled = f" It filed the {inferred:,} papers without a declared area itself; they are marked inferred."
    else:
        filled = " Every paper here declares its area."
    return (
        f"The classifier, which never sees a paper's declared area, picks that area for {total['agreeing']:,} of "
        f"the {total['papers']:,} papers that declare one ({percent(total['share'])}); filing every one under the "
        f"largest area would agree on {percent(breakdowns.largest_area_share(papers))}.{filled}"
    )
