"""What changed between a map's editions, per topic: papers and share in each edition, growth from the
earliest to the latest, whether the change is more than chance, and the phrases whose use grew.
Pure; no Streamlit.

The test: for each topic, Fisher's exact test (two-sided) on the 2x2 table of the earliest and latest
editions' papers in the topic and not in it; the p-values of all topics of a level are adjusted for
their number by Benjamini-Hochberg (`q`), and a change counts when `q` is below `SIGNIFICANCE`. A
topic that counts as grown is `new` when its earliest share is at most `NEW_SHARE` of its latest.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd

SIGNIFICANCE = 0.05
NEW_SHARE = 0.25  # a grown topic with at most this share of its latest share in the earliest edition is new
SMOOTHING = 0.5  # papers added to each count before a ratio, so a topic absent at first grows by a finite factor
PHRASES_SHOWN = 3
CHANGES = ("new", "grew", "faded", "steady")


def editions_in_order(papers: pd.DataFrame) -> list[str]:
    """The editions of `papers`, earliest first: by their papers' earliest year, then by name."""
    years = papers.groupby("edition", sort=True)["year"].min()
    known = {edition: -1 if pd.isna(year) else int(year) for edition, year in years.items()}
    return sorted(known, key=lambda edition: (known[edition] < 0, known[edition], edition))


def topic_changes(papers: pd.DataFrame, level: str = "topic_label") -> pd.DataFrame:
    """One row per topic of `level` (`topic_label` or `topic_fine_label`), indexed by label: the papers
    in each edition (a column each, earliest first), `share_first` and `share_last` (the topic's
    share of the earliest and latest editions' papers), `growth` (their ratio, counts smoothed by
    `SMOOTHING`), `p` and `q` (see the module), and `change` (one of `CHANGES`); most grown first.
    Empty when the map has fewer than two editions."""
    editions = editions_in_order(papers)
    if len(editions) < 2:
        return pd.DataFrame()
    counts = pd.crosstab(papers[level], papers["edition"]).reindex(columns=editions, fill_value=0)
    first, last = counts[editions[0]], counts[editions[-1]]
    totals = counts.sum()
    table = counts.copy()
    table["share_first"] = first / totals[editions[0]]
    table["share_last"] = last / totals[editions[-1]]
    table["growth"] = ((last + SMOOTHING) / (totals[editions[-1]] + SMOOTHING)) / (
        (first + SMOOTHING) / (totals[editions[0]] + SMOOTHING)
    )
    from scipy.stats import fisher_exact  # here, not at the top: not before a large map's first look

    table["p"] = [
        fisher_exact([[a, totals[editions[0]] - a], [b, totals[editions[-1]] - b]])[1] for a, b in zip(first, last)
    ]
    table["q"] = benjamini_hochberg(table["p"].to_numpy())
    significant = table["q"] < SIGNIFICANCE
    grew = significant & (table["share_last"] > table["share_first"])
    table["change"] = np.select(
        [grew & (table["share_first"] <= NEW_SHARE * table["share_last"]), grew, significant],
        ["new", "grew", "faded"],
        "steady",
    )
    return table.sort_values(["growth", "share_last"], ascending=False, kind="stable")


def benjamini_hochberg(p: np.ndarray) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (q) of `p`, in the same order."""
    order = np.argsort(p, kind="stable")
    ranked = p[order] * len(p) / np.arange(1, len(p) + 1)
    adjusted = np.minimum.accumulate(ranked[::-1])[::-1]
    q = np.empty_like(adjusted)
    q[order] = np.minimum(adjusted, 1.0)
    return q


def grown_phrases(papers: pd.DataFrame, label: str, level: str = "topic_label") -> list[tuple[str, float, float]]:
    """The keyphrases of topic `label` whose use grew most from the earliest edition to the latest:
    (phrase, share of the topic's earliest papers using it, share of its latest), at most `PHRASES_SHOWN`."""
    editions = editions_in_order(papers)
    topic = papers[papers[level] == label]
    first, last = (topic[topic["edition"] == edition] for edition in (editions[0], editions[-1]))

    def shares(part: pd.DataFrame) -> Counter[str]:
        used = Counter(phrase for phrases in part["keywords"] for phrase in dict.fromkeys(phrases))
        return Counter({phrase: n / max(len(part), 1) for phrase, n in used.items()})

    before, after = shares(first), shares(last)
    rises = sorted(((after[p] - before[p], p) for p in after if after[p] > before[p]), key=lambda r: (-r[0], r[1]))
    return [(phrase, before[phrase], after[phrase]) for _, phrase in rises[:PHRASES_SHOWN]]


def newest_representatives(papers: pd.DataFrame, label: str, level: str = "topic_label", k: int = 3) -> pd.DataFrame:
    """The `k` papers of topic `label` in the latest edition nearest the middle of them on the map."""
    latest = editions_in_order(papers)[-1]
    topic = papers[(papers[level] == label) & (papers["edition"] == latest)]
    distance = np.hypot(topic["x"] - topic["x"].median(), topic["y"] - topic["y"].median())
    return topic.iloc[np.argsort(distance.to_numpy(), kind="stable")[:k]]


def what_changed(papers: pd.DataFrame, level: str = "topic_label", most: int = 5) -> pd.DataFrame:
    """`topic_changes` for reading: the new topics, then the `most` most grown and the `most` most shrunk
    of the others, each with its papers per edition, shares, growth, q (a change within chance says
    so), the phrases whose use grew and the titles of its newest papers (`newest_representatives`).
    Empty with fewer than two editions."""
    changes = topic_changes(papers, level)
    if changes.empty:
        return changes
    editions = editions_in_order(papers)
    new = changes[changes["change"] == "new"]
    others = changes[changes["change"] != "new"]
    grown, shrunk = others[others["growth"] > 1].head(most), others[others["growth"] < 1].iloc[::-1].head(most)
    rows = []
    for label, row in pd.concat([new, grown, shrunk]).iterrows():
        phrases = grown_phrases(papers, str(label), level)
        rows.append(
            {
                "Topic": label,
                "Change": _change_text(row),
                **{edition: int(row[edition]) for edition in editions},
                "Share": f"{row['share_first']:.1%} → {row['share_last']:.1%}",
                "Growth": f"×{row['growth']:.2f}",
                "q": "< 0.001" if row["q"] < 0.001 else f"{row['q']:.3f}",
                "Phrases whose use grew": "; ".join(f"{p} ({a:.0%} → {b:.0%})" for p, a, b in phrases),
                "Newest papers": " · ".join(newest_representatives(papers, str(label), level)["title"]),
            }
        )
    return pd.DataFrame(rows)


def _change_text(row: pd.Series) -> str:
    """A `topic_changes` row's change as the table says it: a steady topic grew or shrank within chance."""
    if row["change"] != "steady":
        return str(row["change"])
    return ("grew" if row["growth"] > 1 else "shrank") + " (within chance)"


def label_marks(papers: pd.DataFrame, level: str = "topic_label") -> dict[str, str]:
    """What the map's labels of `level` add to say a topic is new or grew beyond chance
    (`topic_changes`): label -> " (new)" or " (growing)"; {} with fewer than two editions."""
    changes = topic_changes(papers, level)
    if changes.empty:
        return {}
    marked = changes[changes["change"].isin(["new", "grew"])]
    return {str(label): " (new)" if change == "new" else " (growing)" for label, change in marked["change"].items()}


def topic_lift(shown: pd.DataFrame, context: pd.DataFrame, level: str = "topic_label") -> dict[str, float]:
    """For each topic of the whole map `context`, how much more of it `shown` (an edition's papers)
    holds than of the map: (its papers shown / its papers) / (papers shown / papers), 1 for a topic
    the edition holds its share of, 0 for one it has none of. Lights up a step's regions."""
    share = len(shown) / max(len(context), 1)
    counts = shown[level].value_counts().reindex(context[level].unique(), fill_value=0)
    totals = context[level].value_counts()
    return {str(label): float(counts[label] / totals[label] / share) if share else 0.0 for label in counts.index}


def compared_editions(table: pd.DataFrame) -> tuple[str, str]:
    """The earliest and latest editions a `what_changed` table compares (its count columns' first and last)."""
    columns = list(table.columns)
    editions = columns[columns.index("Change") + 1 : columns.index("Share")]
    return editions[0], editions[-1]


def newest_of_changed(papers: pd.DataFrame, level: str = "topic_label", per_topic: int = 3) -> pd.DataFrame:
    """The latest edition's papers nearest the middle of each topic that is new or grew beyond chance
    (`newest_representatives`, `per_topic` each), new topics first, most grown first: what is new this
    year, to read or present. Empty when no topic changed so, or the map has one edition."""
    changes = topic_changes(papers, level)
    if changes.empty:
        return papers.iloc[:0]
    changed = changes[changes["change"].isin(["new", "grew"])]
    changed = changed.iloc[np.argsort([CHANGES.index(change) for change in changed["change"]], kind="stable")]
    parts = [newest_representatives(papers, str(label), level, per_topic) for label in changed.index]
    return pd.concat(parts) if parts else papers.iloc[:0]
