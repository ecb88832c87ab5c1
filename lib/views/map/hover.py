"""What a map point's hover shows: each paper's title and a few lines about it, escaped and wrapped. Pure; no Streamlit."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from lib.views.markup import html_literal
from lib.views.text import short_authors

HOVER_WIDTH = 60  # characters per hover line
HOVER_KEYWORDS = 3
# Per point, the title goes in `text` and the other lines in `hovertext`; the template adds the markup
# once per trace. plotly.py escapes every "<" and ">" in the figure's JSON as \u003c/\u003e, so a tag
# costs 10-15 bytes per point: at 87k papers each per-point tag is a megabyte on the wire.
HOVER_TEMPLATE = "<b>%{text}</b><br>%{hovertext}<extra></extra>"
TOPIC_SEPARATOR = " › "  # as the paper page writes a topic: "Coarse › Fine"


def topic_text(coarse: str, fine: str) -> str:
    """A paper's topic as the hover, the card and the paper page name it: "Coarse › Fine", or the one
    label when the fine topic bears the coarse one's name. Plain text: escape it where it goes."""
    return coarse if fine == coarse or not fine else f"{coarse}{TOPIC_SEPARATOR}{fine}" if coarse else fine


def stack_line(others: int, clickable: bool = True) -> str:
    """The hover's line for a paper drawn over `others` papers ("" for none). Short: it rides on every
    stacked point, most of a clumpy map (47 bytes a point with its `<br>`; see HOVER_TEMPLATE)."""
    if others <= 0:
        return ""
    return f"{others} more paper{'s' if others > 1 else ''} here{': click to list' if clickable else ''}"


def _wrap(text: str, width: int = HOVER_WIDTH, most: int = 3) -> list[str]:
    """`textwrap.wrap(text, width)[:most]`, greedy and without its regex cost (a corpus map wraps 100k titles)."""
    words = text.split()
    if sum(map(len, words)) + len(words) - 1 <= width:
        return [" ".join(words)] if words else []
    lines: list[str] = []
    line = ""
    for word in words:
        while len(word) > width:  # a word longer than a line is cut, as textwrap does
            if line:
                lines.append(line)
                line = ""
            lines.append(word[:width])
            word = word[width:]
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
        if len(lines) >= most:
            return lines[:most]
    return [*lines, line][:most] if line else lines[:most]


def hover_title(title: object) -> str:
    """A hover's title: escaped, wrapped, its lines joined by `<br>`."""
    return "<br>".join(html_literal(line) for line in _wrap(str(title)))


def hover_labels(papers: pd.DataFrame, stacked: pd.Series | None = None, clickable: bool = True) -> pd.DataFrame:
    """What a map point's hover shows, indexed like `papers`: `title` (escaped, wrapped, joined by `<br>`)
    and `details` (short authors, subfield and its doubt, topic as `topic_text`, a few keywords; escaped,
    one a line). `stacked` (indexed like `papers`, e.g. `map_stacks.stack_counts`) is how many other
    papers each one's marker is drawn over: those get a last line saying so (`stack_line`; `clickable`
    when a click lists them).

    Only what a glance needs: no abstracts. Computing it for a corpus map takes a while, so callers
    that draw the same map repeatedly compute it once and pass it to `map_figure(hover=...)`.
    """
    titles, details = [], []
    columns = (
        "title",
        "authors",
        "subfield",
        "subfield_confident",
        "subfield_runner_up",
        "topic_label",
        "topic_fine_label",
        "topic_assigned_nearest",
        "keywords",
    )
    others = [0] * len(papers) if stacked is None else stacked.reindex(papers.index, fill_value=0).tolist()
    rows = zip(*(papers[c] for c in columns), others)
    for title, authors, subfield, confident, runner_up, coarse, fine, stray, keywords, stack in rows:
        titles.append(hover_title(title))
        lines = [html_literal(short_authors(list(authors)))] if len(authors) else []
        doubt = "" if confident else f" (uncertain; or {html_literal(runner_up)})" if runner_up else " (uncertain)"
        lines.append(f"{html_literal(subfield)}{doubt}")
        topic = html_literal(topic_text(str(coarse), str(fine)))
        lines.append(f"Topic: {topic}{' (nearest; outside any dense region)' if stray else ''}")
        if len(keywords):
            lines += [html_literal(line) for line in _wrap(", ".join(list(keywords)[:HOVER_KEYWORDS]), most=1)]
        if stack > 0:
            lines.append(stack_line(stack, clickable))
        details.append("<br>".join(lines))
    return pd.DataFrame({"title": titles, "details": details}, index=papers.index, dtype=object)


def hover_html(trace: go.Scattergl) -> list[str]:
    """The hover of each point of a `map_figure` trace as Plotly renders it (what the tests read)."""
    return [f"<b>{title}</b><br>{details}" for title, details in zip(trace.text, trace.hovertext)]
