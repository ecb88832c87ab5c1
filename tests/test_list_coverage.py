"""What a reading list misses: the topics without one of its papers, and the papers nearest it."""

import numpy as np
import pandas as pd

from lib.views.list_coverage import missing_topics, more_like_list

PAPERS = pd.DataFrame({"paper_id": ["a", "b", "c", "d"], "title": ["A", "B", "C", "D"], "topic": [0, 0, 1, 2]})
SUMMARIES = pd.DataFrame(
    {
        "topic": [0, 1, 2],
        "label": ["zero", "one", "two"],
        "papers": [2, 1, 1],
        "representatives": [["b", "a"], ["c"], ["d"]],
    }
)
VECTORS = np.array([[1, 0], [0.8, 0.6], [0.6, 0.8], [0, 1]], dtype=np.float32)


def test_topics_without_a_paper_of_the_list_come_with_their_representative():
    gaps = missing_topics(SUMMARIES, PAPERS, ["a"])
    assert [(g.label, g.papers, g.paper_id, g.title) for g in gaps] == [("one", 1, "c", "C"), ("two", 1, "d", "D")]
    assert missing_topics(SUMMARIES, PAPERS, ["a", "c", "d"]) == []


def test_the_papers_nearest_the_list_as_a_whole_exclude_its_own():
    ranked = more_like_list(VECTORS, PAPERS, ["a", "d"], k=2)
    assert list(ranked["paper_id"]) == ["b", "c"]  # tied at 45 degrees from the centre: map order
    assert np.allclose(ranked["similarity"], [0.98995] * 2, atol=1e-4)
    assert list(more_like_list(VECTORS, PAPERS, ["a"], k=3)["paper_id"]) == ["b", "c", "d"]
    assert more_like_list(VECTORS, PAPERS, ["not on this map"]).empty
