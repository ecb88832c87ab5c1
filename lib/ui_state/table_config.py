"""How the pages' paper and topic tables look: Streamlit column configurations and table heights."""

from __future__ import annotations

import streamlit as st

PAPER_COLUMN_CONFIG = {
    "similarity": st.column_config.ProgressColumn(
        "Similarity", format="%.2f", min_value=0.0, max_value=1.0, width="small"
    ),
    "title": st.column_config.TextColumn("Title", width="large"),
    "link": st.column_config.LinkColumn("Link", display_text="open", width="small"),
    "authors": st.column_config.TextColumn("Authors", width="medium"),
    "subfield": st.column_config.TextColumn("Subfield", width="medium"),
    "topic": st.column_config.TextColumn("Topic", width="medium"),
    "keywords": st.column_config.TextColumn("Keywords", width="large"),
}

TOPIC_COLUMN_CONFIG = {
    "topic": st.column_config.TextColumn("Topic", width="medium"),
    "papers": st.column_config.NumberColumn("Papers", width="small"),
    "in view": st.column_config.NumberColumn("In view", width="small"),
    "within": st.column_config.TextColumn("Within", width="medium"),
    "keyphrases": st.column_config.TextColumn("Keyphrases", width="large"),
    "representative papers": st.column_config.TextColumn("Representative papers", width="large"),
}

AGREEMENT_COLUMN_CONFIG = {
    "area": st.column_config.TextColumn("Declared area", width="medium"),
    "papers": st.column_config.NumberColumn("Papers", width="small"),
    "agreeing": st.column_config.NumberColumn("Classifier agrees", width="small"),
    "share": st.column_config.ProgressColumn("Agreement", format="percent", min_value=0.0, max_value=1.0),
    "other_pick": st.column_config.TextColumn("Its most common other pick", width="medium"),
}

SESSION_COLUMN_CONFIG = {
    "position": st.column_config.TextColumn("Poster", width="small"),
    "title": st.column_config.TextColumn("Title", width="large"),
    "authors": st.column_config.TextColumn("Authors", width="medium"),
    "topic": st.column_config.TextColumn("Topic", width="medium"),
    "subfield": st.column_config.TextColumn("Subfield", width="medium"),
    "in plan": st.column_config.CheckboxColumn("In plan", width="small"),
}


def table_height(rows: int, most: int = 20) -> int:
    """Pixels for a table that shows up to `most` rows without an inner scroll bar."""
    return 38 + 35 * min(rows, most)
