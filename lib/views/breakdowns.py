"""Per-topic and per-subfield breakdowns of a papers table (`lib.schema.OUTPUT_COLUMNS`): the numbers.

`lib.views.breakdown_text` says what they mean, `lib.views.charts` draws them, `lib.views.map.links`
turns a click on a chart into the map's filters, and the topics and subfields pages show them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from lib.errors import ParameterError
from lib.stages.topics import LEVELS, topic_summaries

# Topic level -> (id column, label column) of the papers table.
LEVEL_COLUMNS = {"coarse": ("topic", "topic_label"), "fine": ("topic_fine", "topic_fine_label")}
NOT_GIVEN = "(not given)"
ALL_AREAS = "All areas"  # the total row of `classifier_agreement`
# Two topics neighbour when a paper's nearest papers on the map lie in the other: this many of them.
NEIGHBOUR_PAPERS = 10

BREAKDOWN_COLUMNS = (
    "topic",
    "label",
    "papers",
    "share",
    "parent_label",
    "keywords",
    "keyword_shares",
    "keyword_overall_shares",
    "label_evidence",
    "representatives",
    "subfield_mix",
    "status_mix",
    "neighbours",
    "neighbour_shares",
)


def level_columns(level: str) -> tuple[str, str]:
    """The id and label columns of topic `level` ("coarse" or "fine")."""
    if level not in LEVELS:
        raise ParameterError(f"level must be one of {', '.join(LEVELS)}; got {level!r}")
    return LEVEL_COLUMNS[level]


def topic_breakdown(
    papers: pd.DataFrame,
    level: str = "coarse",
    *,
    n_keywords: int = 8,
    n_representatives: int = 5,
    n_mix: int = 3,
    n_neighbours: int = 3,
    summaries: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One row per topic of `level` of the whole map `papers`, largest first (`BREAKDOWN_COLUMNS`).

    From `lib.stages.topics.topic_summaries`: `topic` id, `label`, `papers`, `share` of all papers,
    `parent_label`, distinctive `keywords` with `keyword_shares` (share of the topic's papers using
    each) and `keyword_overall_shares` (share of all papers), `label_evidence` and `representatives`
    (paper ids nearest the topic's centre on the map). Added here: `subfield_mix` and `status_mix`
    (see `mix`, the `n_mix` commonest values with their shares of the topic) and its `neighbours`
    (labels, see `neighbouring_topics`) with `neighbour_shares`. `summaries` is that table computed
    beforehand with the same counts (it is the slow part: minutes over a corpus's abstracts), by
    default here.
    """
    id_column, _ = level_columns(level)
    if summaries is None:
        summaries = topic_summaries(papers, level, n_keywords=n_keywords, n_representatives=n_representatives)
    if summaries.empty:
        return pd.DataFrame({c: [] for c in BREAKDOWN_COLUMNS})
    groups = papers.groupby(id_column, sort=False)
    label_of = dict(zip(summaries["topic"], summaries["label"]))
    neighbours = neighbouring_topics(papers, level, n_neighbours)
    rows = []
    for topic in summaries["topic"]:
        members = groups.get_group(topic)
        near = neighbours.get(int(topic), [])
        rows.append(
            {
                "subfield_mix": mix(members["subfield"], n_mix),
                "status_mix": mix(members["status"], n_mix),
                "neighbours": [label_of[t] for t, _ in near],
                "neighbour_shares": [share for _, share in near],
            }
        )
    extra = pd.DataFrame(rows, index=summaries.index)
    return pd.concat([summaries, extra], axis=1)[list(BREAKDOWN_COLUMNS)]


def mix(values: pd.Series, top: int = 3) -> list[tuple[str, float]]:
    """The `top` commonest values with their shares, then `Other` for the rest; shares sum to 1.

    Empty values count as `NOT_GIVEN`, which comes after named values as common; other ties are
    broken alphabetically, so the mix is deterministic.
    """
    if top < 1:
        raise ParameterError(f"top must be at least 1; got {top}")
    if values.empty:
        return []
    counts = values.astype(str).replace("", NOT_GIVEN).value_counts()
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0] == NOT_GIVEN, item[0]))
    shares = [(value, count / len(values)) for value, count in ordered]
    if len(shares) <= top + 1:  # "Other" for a single value would hide its name
        return shares
    return [*shares[:top], ("Other", sum(share for _, share in shares[top:]))]


def neighbouring_topics(
    papers: pd.DataFrame, level: str = "coarse", n_neighbours: int = 3
) -> dict[int, list[tuple[int, float]]]:
    """Per topic id, up to `n_neighbours` other topics bordering it on the map, with how strongly.

    Strength is the share of the topic's papers' `NEIGHBOUR_PAPERS` nearest papers on the map that
    lie in the other topic: topics are regions of the map, and UMAP keeps each paper's neighbourhood
    while distances between far regions mean little, so shared borders are what "nearest" can
    honestly mean. It also weighs a large topic's long border fairly, which the distance between
    centres would not. Topics that share no border are ranked after, by the distance between their
    median positions, with strength 0.
    """
    id_column, _ = level_columns(level)
    if n_neighbours < 0:
        raise ParameterError(f"n_neighbours must be at least 0; got {n_neighbours}")
    topics = papers[id_column].to_numpy(dtype=np.int64)
    ids = np.unique(topics)
    if len(ids) < 2:
        return {int(t): [] for t in ids}
    coords = papers[["x", "y"]].to_numpy(dtype=np.float64)
    k = min(NEIGHBOUR_PAPERS, len(papers) - 1)
    # Imported here, not at the top: the dashboard imports this module before a large map's first look
    # (docs/cluster.md), which needs no scikit-learn.
    from sklearn.neighbors import NearestNeighbors

    _, nearest = NearestNeighbors(n_neighbors=k + 1).fit(coords).kneighbors(coords)
    row = np.searchsorted(ids, topics)
    # border[a, b]: of topic a's papers' nearest papers (not themselves), how many lie in topic b
    border = np.zeros((len(ids), len(ids)))
    np.add.at(border, (np.repeat(row, k), row[nearest[:, 1:]].ravel()), 1)
    strength = border / border.sum(axis=1, keepdims=True)
    centres = np.array([np.median(coords[topics == t], axis=0) for t in ids])
    distance = np.linalg.norm(centres[:, None, :] - centres[None, :, :], axis=2)
    result = {}
    for a, topic in enumerate(ids):
        others = [b for b in range(len(ids)) if b != a]
        others.sort(key=lambda b: (-strength[a, b], distance[a, b], ids[b]))
        result[int(topic)] = [(int(ids[b]), round(float(strength[a, b]), 4)) for b in others[:n_neighbours]]
    return result


def topic_sizes(papers: pd.DataFrame, shown: pd.DataFrame, level: str = "coarse") -> pd.DataFrame:
    """Each topic's `label`, its `papers` on the whole map and how many are `in_view` (in `shown`), largest first."""
    id_column, label_column = level_columns(level)
    whole = papers.groupby([id_column, label_column]).size().rename("papers").reset_index()
    in_view = shown[id_column].value_counts()
    whole["in_view"] = [int(in_view.get(t, 0)) for t in whole[id_column]]
    whole = whole.sort_values(["papers", id_column], ascending=[False, True], ignore_index=True)
    return whole.rename(columns={id_column: "topic", label_column: "label"})[["topic", "label", "papers", "in_view"]]


def subfield_counts(papers: pd.DataFrame) -> pd.DataFrame:
    """Papers per subfield within its area: `area`, `subfield`, `papers` and `share_of_area`.

    Areas come largest first, and within each its subfields, largest first (ties alphabetical);
    papers filed under an area itself have the area as their subfield.
    """
    counts = papers.groupby(["area", "subfield"]).size().rename("papers").reset_index()
    area_size = counts.groupby("area")["papers"].transform("sum")
    counts["share_of_area"] = counts["papers"] / area_size
    counts["_area_size"] = area_size
    counts = counts.sort_values(
        ["_area_size", "area", "papers", "subfield"], ascending=[False, True, False, True], ignore_index=True
    )
    return counts.drop(columns="_area_size")


def cross_table(papers: pd.DataFrame, rows: str = "subfield", columns: str = "topic_label") -> pd.DataFrame:
    """Papers per (`rows` value, `columns` value): a count table, both sides largest first, ties alphabetical.

    Papers with an empty value on either side (no `primary_area`) are left out. Raises
    `ParameterError` for a column the papers table does not have.
    """
    for column in (rows, columns):
        if column not in papers:
            raise ParameterError(f"no column {column!r} in the papers table")
    kept = papers[(papers[rows].astype(str) != "") & (papers[columns].astype(str) != "")]
    table = pd.crosstab(kept[rows].astype(str), kept[columns].astype(str))
    table = table.loc[_largest_first(table.sum(axis=1)), _largest_first(table.sum(axis=0))]
    table.index.name, table.columns.name = rows, columns
    return table


def _largest_first(totals: pd.Series) -> list[str]:
    return sorted(totals.index, key=lambda value: (-totals[value], value))


def has_values(papers: pd.DataFrame, column: str) -> bool:
    """Whether at least one paper has a non-empty `column` (data sets without statuses or primary areas have none)."""
    return column in papers and bool((papers[column].astype(str) != "").any())


def papers_by_id(papers: pd.DataFrame, ids: list[str]) -> pd.DataFrame:
    """The rows of `papers` with these ids, in the order given (representatives, nearest first)."""
    indexed = papers.set_index("paper_id", drop=False)
    return indexed.loc[[i for i in ids if i in indexed.index]].reset_index(drop=True)


def topic_papers(papers: pd.DataFrame, level: str, topic: int) -> pd.DataFrame:
    """The papers of topic id `topic` at `level`."""
    id_column, _ = level_columns(level)
    return papers[papers[id_column] == topic]


def topic_row(breakdown: pd.DataFrame, topic: int) -> pd.Series:
    """The `topic_breakdown` row of topic id `topic`."""
    return breakdown[breakdown["topic"] == topic].iloc[0]


def uses_declared_areas(papers: pd.DataFrame) -> bool:
    """Whether the map's subfields are its venue's declared areas (some paper was filed by its own)."""
    return bool((~papers["subfield_inferred"]).any())


def classifier_agreement(papers: pd.DataFrame) -> pd.DataFrame:
    """How often the classifier's area (`inferred_area`) is the declared one, on the papers filed
    under their declared area: one row per area, largest first, with `papers`, `agreeing`, `share`
    and `other_pick` (the classifier's most common other area for it, "" if none), then a row
    `All areas`. Empty when no paper was filed by its declared area.
    """
    declared = papers[~papers["subfield_inferred"]]
    if declared.empty:
        return pd.DataFrame(columns=["area", "papers", "agreeing", "share", "other_pick"])
    agree = declared["inferred_area"] == declared["area"]
    rows = []
    for area, members in declared.groupby("area", sort=False):
        others = members.loc[~agree[members.index], "inferred_area"].value_counts()
        others = others.sort_index().sort_values(ascending=False, kind="stable")  # ties alphabetical
        rows.append(
            {
                "area": area,
                "papers": len(members),
                "agreeing": int(agree[members.index].sum()),
                "other_pick": str(others.index[0]) if len(others) else "",
            }
        )
    table = pd.DataFrame(rows).sort_values(["papers", "area"], ascending=[False, True], ignore_index=True)
    total = {"area": ALL_AREAS, "papers": len(declared), "agreeing": int(agree.sum()), "other_pick": ""}
    table = pd.concat([table, pd.DataFrame([total])], ignore_index=True)
    table["share"] = table["agreeing"] / table["papers"]
    return table[["area", "papers", "agreeing", "share", "other_pick"]]


def largest_area_share(papers: pd.DataFrame) -> float:
    """The agreement a classifier would reach by filing every declared paper under the largest
    declared area: the baseline `classifier_agreement` must beat to mean anything."""
    declared = papers.loc[~papers["subfield_inferred"], "area"]
    return float(declared.value_counts().iloc[0] / len(declared)) if len(declared) else 0.0
