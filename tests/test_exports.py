"""Exports of a reading list (Markdown, BibTeX, CSV) and of the map (HTML), fed hostile titles."""

import doctest
import html
import re
from dataclasses import replace

import pandas as pd
import plotly.graph_objects as go
import pytest
from export_readers import (
    FORMULA_STARTS,
    bibtex_entries,
    csv_rows,
    gfm_html,
    html_elements,
    latex_text,
    markdown_html,
    same_text,
)

from lib.store.reading_lists import Entry
from lib.views import exports, markup
from lib.views.map.figure import map_figure
from lib.views.map.page import export_notes

IMG = "<img src=x onerror=alert(1)>"
FORMULA = '=HYPERLINK("http://x")'
LINK = "**b** [x](javascript:alert(1))"
TEX = r"50% of {braces} \end{document} & $x_1$ #1 ~ ^"
BIB_BREAKER = '} @misc(evil, title = "injected") \\input{x} {'  # closes the field, adds an entry, runs a command


def entry(title, position=0, **fields):
    values = dict(
        entry_id=position + 1,
        position=position,
        dataset="seed.txt",
        paper_id=f"p{position}",
        title=title,
        authors=("Ada Lovelace", "Alan Turing"),
        venue="ICML",
        year=2025,
        url="https://example.org/1",
        abstract="An abstract.",
        keywords=("privacy",),
        presenter="Grace",
        note="Read section 3.",
    )
    return Entry(**{**values, **fields})


def hostile_entries():
    return [
        entry(IMG, 0, note=LINK),
        entry(FORMULA, 1, presenter="-2+3"),
        entry(LINK, 2, url="javascript:alert(1)"),
        entry(TEX, 3),
        entry(BIB_BREAKER, 4, authors=(BIB_BREAKER, "Ada Lovelace"), venue=TEX),
    ]


def test_markdown_agenda_lists_papers_in_order_as_inert_text():
    agenda = exports.markdown_agenda("Journal <club>", hostile_entries())
    assert agenda.startswith("# Reading list: Journal \\<club>\n")  # `<` opens HTML; `>` alone is text
    tags, text = html_elements(markdown_html(agenda))
    assert {tag for tag, _ in tags} == {
        "h1",
        "ol",
        "li",
        "strong",
        "ul",
        "a",
    }  # the agenda's own structure, nothing from data
    assert [attrs["href"] for tag, attrs in tags if tag == "a"] == [
        "https://example.org/1"
    ] * 4  # the javascript: link is dropped
    assert [tag for tag, _ in tags].count("strong") == 5
    for hostile in (IMG, FORMULA, LINK, TEX, BIB_BREAKER):
        assert hostile in text  # shown as the text it is
    assert "Presenter: Grace" in text and "Note: Read section 3." in text
    assert agenda.index("2. **") < agenda.index("HYPERLINK") < agenda.index("3. **")  # list order
    assert "No papers yet." in exports.markdown_agenda("empty", [])


# Text CommonMark or GitHub would read as markup, a block or HTML if it were let through.
MARKUP = [
    "**bold** __bold__ *em* _e_ snake_case_name",
    "<script>alert(1)</script> <!-- c --> <a@b.co> <https://evil.example>",
    "[x](javascript:alert(1)) ![img](x.png) [ref]: https://x [^1]",
    "`code` ``co`de``",
    "&amp; &#35; &#x1F600; &copy &lt; AT&T",
    "~~s~~ ~t~",
    "# h",
    "1. item",
    "- item + item",
    "> quote",
    "back\\slash \\* \\\\ C:\\Users end\\",
    "a title\nwith a newline\n\n    and an indented block",
    "| a | b |\n|---|---|",
    "Setext\n===",
    "***",
    "ends in a #",
]


def agenda_parts(html_text):
    """The heading's text, each item's bold title and each detail line ("Note: ...") of a rendered agenda, as shown."""
    heading = re.findall(r"<h1>Reading list: (.*?)</h1>", html_text)
    titles = re.findall(r"<strong>(.*?)</strong>", html_text)
    details = re.findall(r"<li>((?!Link: )\w+: .*?)</li>", html_text)  # links are tested elsewhere
    return [[html.unescape(part) for part in parts] for parts in (heading, titles, details)]


def test_agenda_of_ordinary_papers_is_written_as_they_read():
    papers = [
        entry("K²VAE: A Koopman-Kalman Enhanced Variational AutoEncoder", 0, authors=("Wu", "Qiu")),
        entry(
            "Why Is Spatial Reasoning Hard for VLMs? An Attention-Mechanism Perspective (p > 0.05, 100%)",
            1,
            authors=("Shiqi Chen", "Tongyao Zhu"),
            venue="NeurIPS",
            presenter="Siobhán O'Neil-Smith",
            note="Read §2 (pp. 3-5), then: is snake_case_name state-of-the-art? #discuss C# + F#",
        ),
    ]
    agenda = exports.markdown_agenda("Journal club: week 3/4, 2025 = fun!", papers)
    assert "\\" not in agenda  # no escape at all: there is no markup to neutralise
    lines = agenda.splitlines()
    assert lines[0] == "# Reading list: Journal club: week 3/4, 2025 = fun!"
    assert "1. **K²VAE: A Koopman-Kalman Enhanced Variational AutoEncoder**" in lines
    assert "   - Authors: Wu, Qiu" in lines and "   - Venue: ICML 2025" in lines
    assert agenda_parts(markdown_html(agenda)) == [
        ["Journal club: week 3/4, 2025 = fun!"],
        [p.title for p in papers],
        [
            f"{label}: {value}"
            for p in papers
            for label, value in (
                ("Authors", ", ".join(p.authors)),
                ("Venue", exports.venue_year(p)),
                ("Presenter", p.presenter),
                ("Status", p.status),
                ("Note", p.note),
            )
        ],
    ]


@pytest.mark.parametrize("render", [markdown_html, gfm_html])
def test_agenda_renders_markup_in_any_field_as_its_own_text(render):
    name = "Journal <club> **week** #"
    papers = [
        entry(text, n, authors=(text, "Ada Lovelace"), venue=text, presenter=text, note=text, url="")
        for n, text in enumerate(MARKUP)
    ] + [entry(" \n ", len(MARKUP), url="")]
    rendered = render(exports.markdown_agenda(name, papers))
    tags, _ = html_elements(rendered)
    # The agenda's own structure only: no <script>, <a>, <em>, <code>, <s>, <hr>... from the data.
    assert {tag for tag, _ in tags} == {"h1", "ol", "li", "strong", "ul"}
    assert agenda_parts(rendered) == [
        [same_text(name)],
        [same_text(text) for text in MARKUP] + ["(no title)"],  # exactly the text, whitespace collapsed
        [
            f"{label}: {same_text(value)}"
            for text in MARKUP
            for label, value in (
                ("Authors", f"{text}, Ada Lovelace"),
                ("Venue", f"{text} 2025"),
                ("Presenter", text),
                ("Status", "to read"),
                ("Note", text),
            )
        ]
        + [
            "Authors: Ada Lovelace, Alan Turing",
            "Venue: ICML 2025",
            "Presenter: Grace",
            "Status: to read",
            "Note: Read section 3.",
        ],
    ]


def test_commonmark_literal_examples_hold():
    assert doctest.testmod(markup).failed == 0
    assert markup.commonmark_literal("K²VAE: Wu, Qiu") == "K²VAE: Wu, Qiu"


def test_bibtex_parses_as_bibtex_and_every_field_prints_its_text():
    entries = hostile_entries()
    parsed = list(bibtex_entries(exports.bibtex(entries)).values())  # strict: a field closed early raises
    assert [e.type for e in parsed] == ["inproceedings"] * len(entries)  # no entry made from a title
    for written, paper in zip(parsed, entries):
        assert latex_text(written.fields["title"]) == paper.title  # escaped, no command left to run
        assert latex_text(written.fields["booktitle"]) == exports.proceedings_name(paper.venue, paper.year)
        assert latex_text(written.fields["author"]) == " and ".join(paper.authors)
        assert written.fields["year"] == "2025"
    assert "url" not in parsed[2].fields  # no url field for a javascript: link
    assert [p.fields.get("url") for p in parsed].count("https://example.org/1") == 4


def test_bibtex_keys_are_stable_and_unique_and_missing_fields_are_left_out():
    same = [entry("On the Privacy of Noise", 0), entry("On the privacy budget", 1)]
    assert exports.citation_key(same[0]) == "lovelace2025privacy"
    assert [re.search(r"@inproceedings\{([^,]+),", block)[1] for block in exports.bibtex(same).split("\n\n")] == [
        "lovelace2025privacy",
        "lovelace2025privacyb",
    ]
    bare = entry("Ünïcode Élan", 0, authors=(), venue="", year=None, url="", presenter="", note="")
    assert exports.citation_key(bare) == "unicode"
    assert (
        exports.bibtex([bare]) == "@inproceedings{unicode,\n  title = {Ünïcode Élan},\n  note = {Status: to read}\n}\n"
    )
    assert exports.citation_key(entry("", 0, authors=(), year=None)) == "paper"
    assert exports.bibtex([]) == ""


def test_csv_cells_cannot_run_as_formulas():
    text = exports.csv_text(hostile_entries()[:4] + [entry("@SUM(A1)", 4, note="\tcmd"), entry("+1", 5, note="\rx")])
    rows = csv_rows(text)
    assert list(rows[0]) == list(exports.CSV_COLUMNS)
    assert [r["position"] for r in rows] == ["1", "2", "3", "4", "5", "6"]
    assert rows[0]["title"] == IMG and rows[0]["authors"] == "Ada Lovelace; Alan Turing"
    assert rows[1]["title"] == "'" + FORMULA and rows[1]["presenter"] == "'-2+3"
    assert rows[4]["title"] == "'@SUM(A1)" and rows[4]["note"] == "'\tcmd"
    assert rows[5]["title"] == "'+1" and rows[5]["note"] == "'\rx"
    assert all(not value.startswith(FORMULA_STARTS) for row in rows for value in row.values())


def test_map_html_is_standalone_and_shows_hostile_titles_as_text():
    papers = pd.DataFrame(
        {
            "paper_id": ["a", "b"],
            "title": [IMG, "</script><script>alert(1)</script>"],
            "authors": [["A"], ["B"]],
            "subfield": ["X", "Y"],
            "area": ["X", "Y"],
            "subfield_confident": [True, True],
            "subfield_runner_up": ["", ""],
            "topic_label": ["t", "t"],
            "topic_fine_label": ["t", "t"],
            "topic_assigned_nearest": [False, False],
            "keywords": [["k"], ["k"]],
            "x": [0.0, 1.0],
            "y": [0.0, 1.0],
        }
    )
    page = exports.map_html(map_figure(papers, "subfield", None)).decode("utf-8")
    assert page.lower().startswith("<!doctype html>") and page.rstrip().endswith("</html>")
    assert len(page) > 1_000_000 and "Plotly.newPlot" in page  # plotly.js itself is inside
    assert not re.search(r"<script[^>]*src=", page)  # nothing fetched: no CDN, no MathJax
    assert '"showSendToCloud": false' in page  # no mode bar button that would upload the map to Plotly's cloud
    assert IMG not in page and "<script>alert(1)" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


def test_file_stem_is_safe():
    assert exports.file_stem("Journal club: week 3/4") == "journal-club-week-3-4"
    assert exports.file_stem("../../") == "reading-list"


@pytest.mark.parametrize("count", [1, 9, 10, 100, 1000])
def test_the_markdown_agenda_is_one_list_whatever_its_length(count):
    entries = [entry(f"Paper {n}", position=n, presenter=f"Member {n}", note="read §2") for n in range(count)]
    html = markdown_html(exports.markdown_agenda("Weekly", entries))
    # One numbered list with one item per paper, each holding its own details: CommonMark, as
    # GitHub and markdown-it render it, starts a new list when a sub-list is indented too little.
    assert html.count("<ol") == 1 and html.count("<ul>") == count and html.rstrip().endswith("</li>\n</ol>")
    assert f"Member {count - 1}" in html.rsplit("<li>", 4)[-4]  # the last paper's details are inside its item


def test_bibtex_names_the_proceedings_and_protects_capitals():
    papers = [
        entry("K²VAE: Scaling GNNs with BERT-based Priors", 0),
        entry("Sparse attention", 1, venue="ICLR", year=2025),
        entry("Deep sets", 2, venue="NeurIPS", year=2024),
        entry("A workshop paper", 3, venue="Workshop on Things", year=2025),
        entry("Undated", 4, year=None),
    ]
    parsed = list(bibtex_entries(exports.bibtex(papers)).values())
    assert [p.fields["booktitle"] for p in parsed] == [
        "Proceedings of the 42nd International Conference on Machine Learning",
        "The 13th International Conference on Learning Representations",
        "Advances in Neural Information Processing Systems",
        "Workshop on Things",
        "ICML",
    ]
    assert parsed[0].fields["title"] == "{K²VAE:} Scaling {GNNs} with {BERT-based} Priors"
    assert latex_text(parsed[0].fields["title"]) == "K²VAE: Scaling GNNs with BERT-based Priors"
    assert parsed[1].fields["title"] == "Sparse attention"  # nothing to protect
    assert [exports.proceedings_name("ICML", y) for y in (2019, 2023, 2024)] == [
        "Proceedings of the 36th International Conference on Machine Learning",
        "Proceedings of the 40th International Conference on Machine Learning",
        "Proceedings of the 41st International Conference on Machine Learning",
    ]


def test_the_downloaded_map_says_what_it_shows():
    papers = pd.DataFrame({"paper_id": ["a", "b", "c"]})
    notes = export_notes(
        papers, papers.head(2), {"status": ["Oral"], "subfield": ["A", "B"], "color": ["x"]}, "Topic", "None"
    )
    assert notes == [
        "2 of 3 papers shown, filtered by Status: Oral; Subfield: A, B.",
        "Coloured by Topic; labels: None.",
    ]
    figure = go.Figure(go.Scatter(x=[0], y=[0]))
    page = exports.map_html(figure, f"ICML 2025 {IMG}: topic map", notes).decode("utf-8")
    assert "<title>ICML 2025 &lt;img src=x onerror=alert(1)&gt;: topic map</title>" in page
    assert (
        "<h1>ICML 2025 &lt;img" in page
        and "<p>2 of 3 papers shown, filtered by Status: Oral; Subfield: A, B.</p>" in page
    )
    assert IMG not in page


def test_every_export_carries_what_the_group_recorded():
    """Status, meeting date and votes reach the agenda, the CSV and BibTeX's note (they reached none)."""
    recorded = replace(
        entry("Sparse attention", 0, presenter="Ada", note="Bring questions."),
        status="read",
        meeting_date="2026-12-10",
        votes=("Ada", "Alan"),
    )
    agenda = agenda_parts(markdown_html(exports.markdown_agenda("Weekly", [recorded])))[2]
    assert {"Status: read", "Meeting: 2026-12-10", "Votes: 2 (Ada, Alan)", "Presenter: Ada"} <= set(agenda)
    (row,) = csv_rows(exports.csv_text([recorded]))
    assert (row["status"], row["meeting_date"], row["votes"], row["voters"]) == ("read", "2026-12-10", "2", "Ada; Alan")
    (parsed,) = bibtex_entries(exports.bibtex([recorded])).values()
    assert latex_text(parsed.fields["note"]) == (
        "Status: read; meeting 2026-12-10; presenter Ada; votes 2 (Ada, Alan); Bring questions."
    )
