"""Display tables: the papers DataFrame in, a compact DataFrame for `st.dataframe` out."""
from __future__ import annotations

import pandas as pd

from .figures import short_authors


def paper_table(papers: pd.DataFrame, top_keywords: int = 5) -> pd.DataFrame:
    """Title, short authors, subfield, topic, top keywords and link, one row per paper.

    Authors and link are left out when no paper has them (the seed sample has neither).
    """
    table = pd.DataFrame(
        {
            "title": papers["title"].to_numpy(),
            "authors": [short_authors(list(a)) for a in papers["authors"]],
            "subfield": papers["subfield"].to_numpy(),
            "topic": papers["topic_label"].to_numpy(),
            "keywords": [", ".join(list(k)[:top_keywords]) for k in papers["keywords"]],
            "link": papers["url"].to_numpy(),
        }
    )
    empty = [c for c in ("authors", "link") if not table[c].astype(bool).any()]
    return table.drop(columns=empty)
