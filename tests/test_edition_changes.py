"""What changed between editions, per topic (lib.views.edition_changes), on planted maps whose changes
are known: a topic that quadruples, one that is new, one that fades, and steady ones."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import false_discovery_control

from lib.views.edition_changes import (
    benjamini_hochberg,
    compared_editions,
    editions_in_order,
    grown_phrases,
    label_marks,
    newest_of_changed,
    newest_representatives,
    topic_changes,
    topic_lift,
    what_changed,
)


def planted(counts: dict[str, tuple[int, int]], seed: int = 0) -> pd.DataFrame:
    """Papers of two editions (2024, 2025), `counts[topic]` = (papers in 2024, papers in 2025)."""
    rng = np.random.default_rng(seed)
    rows = []
    for topic, per_edition in counts.items():
        for year, n in zip((2024, 2025), per_edition):
            for i in range(n):
                phrases = (
                    [topic.lower(), "new trick"] if (year == 2025 and topic == "Growing" and i % 2) else [topic.lower()]
                )
                rows.append((f"{topic}-{year}-{i}", topic, f"CONF {year}", year, phrases, *rng.normal(size=2)))
    table = pd.DataFrame(rows, columns=["paper_id", "topic_label", "edition", "year", "keywords", "x", "y"])
    return table.assign(title="Title of " + table["paper_id"])


KNOWN = {"Growing": (20, 80), "New": (1, 40), "Fading": (80, 20), "Steady A": (200, 200), "Steady B": (150, 150)}


def test_known_changes_are_found_and_steady_topics_are_not():
    changes = topic_changes(planted(KNOWN))
    assert list(changes.columns[:2]) == ["CONF 2024", "CONF 2025"]
    assert changes.loc["Growing", ["CONF 2024", "CONF 2025"]].tolist() == [20, 80]
    assert changes["change"].to_dict() == {
        "New": "new",
        "Growing": "grew",
        "Steady A": "steady",
        "Steady B": "steady",
        "Fading": "faded",
    }
    assert list(changes.index[:2]) == ["New", "Growing"]  # most grown first
    assert changes.loc["Growing", "growth"] == pytest.approx((80.5 / 490.5) / (20.5 / 451.5))
    assert changes.loc["Growing", "share_last"] == pytest.approx(80 / 490)


@pytest.mark.parametrize("seed", range(5))
def test_topics_drawn_alike_in_both_editions_are_steady(seed):
    rng = np.random.default_rng(seed)
    shares = rng.dirichlet(np.ones(8))
    first, last = rng.multinomial(600, shares), rng.multinomial(700, shares)
    counts = {f"Topic {i}": (int(a), int(b)) for i, (a, b) in enumerate(zip(first, last))}
    assert set(topic_changes(planted(counts, seed))["change"]) == {"steady"}


def test_a_map_of_one_edition_has_no_changes_and_editions_go_by_year():
    one = planted(KNOWN)
    assert topic_changes(one[one["year"] == 2025]).empty
    renamed = one.replace({"edition": {"CONF 2024": "Z conf", "CONF 2025": "A conf"}})
    assert editions_in_order(renamed) == ["Z conf", "A conf"]  # 2024 before 2025 whatever the names
    undated = pd.concat([renamed.iloc[:2].assign(edition=name, year=pd.NA) for name in ("Undated B", "Undated A")])
    with_undated = pd.concat([renamed, undated]).astype({"year": "Int64"})
    assert editions_in_order(with_undated) == ["Z conf", "A conf", "Undated A", "Undated B"]  # years unknown: last


def test_benjamini_hochberg_agrees_with_scipy():
    p = np.random.default_rng(3).uniform(size=40) ** 3
    assert benjamini_hochberg(p) == pytest.approx(false_discovery_control(p))


def test_why_a_topic_grew_and_its_newest_papers():
    papers = planted(KNOWN)
    [(phrase, before, after)] = [row for row in grown_phrases(papers, "Growing") if row[0] == "new trick"]
    assert before == 0 and after == pytest.approx(0.5)
    newest = newest_representatives(papers, "Growing", k=3)
    assert len(newest) == 3 and set(newest["edition"]) == {"CONF 2025"} and set(newest["topic_label"]) == {"Growing"}


def test_what_changed_reads_new_then_grown_then_shrunk_saying_which_are_within_chance():
    table = what_changed(planted({**KNOWN, "Drifting": (100, 112)}), most=2)
    assert list(table["Topic"]) == ["New", "Growing", "Drifting", "Fading", "Steady B"]
    assert list(table["Change"]) == ["new", "grew", "grew (within chance)", "faded", "shrank (within chance)"]
    assert table.loc[1, "Share"] == "3.6% → 13.3%" and table.loc[1, "Growth"].startswith("×3.")
    assert table.loc[1, "Phrases whose use grew"].startswith("new trick (0% → 50%)")
    assert list(table.columns[2:4]) == ["CONF 2024", "CONF 2025"] and compared_editions(table) == (
        "CONF 2024",
        "CONF 2025",
    )


def test_labels_are_marked_new_or_growing_only_beyond_chance():
    papers = planted(KNOWN)
    assert label_marks(papers) == {"New": " (new)", "Growing": " (growing)"}
    assert label_marks(papers[papers["year"] == 2025]) == {}


def test_the_newest_papers_of_the_new_and_grown_topics_new_first():
    papers = planted(KNOWN)
    newest = newest_of_changed(papers, per_topic=2)
    assert list(newest["topic_label"]) == ["New", "New", "Growing", "Growing"]
    assert set(newest["edition"]) == {"CONF 2025"}
    assert newest_of_changed(papers[papers["year"] == 2025]).empty


def test_an_editions_lift_per_topic_is_its_share_of_the_topic_over_its_share_of_the_map():
    papers = planted(KNOWN)
    latest = papers[papers["year"] == 2025]
    lift = topic_lift(latest, papers)
    share = len(latest) / len(papers)
    assert lift["New"] == pytest.approx(40 / 41 / share) and lift["Fading"] == pytest.approx(20 / 100 / share)
    assert lift["New"] > 1 > lift["Fading"] and set(lift) == set(KNOWN)
    assert topic_lift(papers.iloc[:0], papers) == dict.fromkeys(KNOWN, 0.0)
