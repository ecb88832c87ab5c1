import colorsys
import doctest

import numpy as np
import pandas as pd
import pytest

from lib.stages.subfields import UNASSIGNED
from lib.views import tables
from lib.views.map.colours import (
    FAMILY_HUES,
    FAMILY_MIN_DIFFERENCE,
    MAX_LAB_LIGHTNESS,
    NEUTRAL,
    OTHER,
    PALETTE,
    category_colours,
    colour_distances,
    family,
    to_lab,
)
from lib.views.map.figure import PLOT_TOP_PX, map_figure, map_regions
from lib.views.map.hover import hover_html, hover_labels
from lib.views.map.labels import ZOOM_LEVELS, ZOOM_REVEALED, topic_positions
from lib.views.map.page import map_focus
from lib.views.map.stacks import marker_size
from lib.views.map.traces import SVG_MAX_POINTS, legend_name, point_trace_type
from lib.views.tables import paper_table
from lib.views.text import short_authors


def papers(n=40, groups=5):
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "paper_id": [f"p{i}" for i in range(n)],
            "title": [f"Paper {i}" for i in range(n)],
            "authors": [["Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra"]] * n,
            "subfield": [f"Subfield {i % groups}" for i in range(n)],
            "area": ["Area"] * n,
            "status": [""] * n,
            "venue": ["ICML"] * n,
            "keywords": [["kernels", "graphs"]] * n,
            "subfield_confident": [i % 4 != 0 for i in range(n)],
            "subfield_runner_up": ["Subfield 9"] * n,
            "topic": [i % 3 for i in range(n)],
            "topic_label": [f"Topic {i % 3}" for i in range(n)],
            "topic_fine_label": [f"Fine {i % 6}" for i in range(n)],
            "topic_assigned_nearest": [i == 1 for i in range(n)],
            "url": [""] * n,
            "x": rng.normal(size=n),
            "y": rng.normal(size=n),
        }
    )


def point_colours(figure):
    """paper id -> the colour its point is drawn in (a trace's one colour, or its per-point colours)."""
    colours = {}
    for trace in figure.data:
        if trace.customdata is not None:
            shades = (
                trace.marker.color
                if isinstance(trace.marker.color, (list, tuple))
                else [trace.marker.color] * len(trace.customdata)
            )
            colours.update(zip(trace.customdata, shades))
    return colours


def shown_labels(figure):
    """The labels shown at the full view (the fine ones a zoom reveals start transparent)."""
    return [a for a in figure.layout.annotations if a.name != ZOOM_REVEALED]


def plotted_ids(figure):
    return [pid for trace in figure.data if trace.customdata is not None for pid in trace.customdata]


def test_every_paper_is_one_point_carrying_its_id():
    table = papers()
    figure = map_figure(table)
    assert sorted(plotted_ids(figure)) == sorted(table["paper_id"])
    assert {trace.type for trace in figure.data} == {"scatter"}  # SVG at a conference's size
    assert len([t for t in figure.data if t.customdata is not None]) == 1 and len(shown_labels(figure)) == 3  # one area
    # Beside the map, scrolling when long: its length never takes the map's height.
    assert figure.layout.legend.orientation == "v" and figure.layout.legend.x >= 1


def test_the_map_keeps_equal_units_on_both_axes_over_the_whole_map():
    table = papers()
    figure = map_figure(table.iloc[:10], context=table)
    assert figure.layout.yaxis.scaleanchor == "x" and figure.layout.yaxis.scaleratio == 1
    x_low, x_high = figure.layout.xaxis.range
    assert x_low < table["x"].min() and x_high > table["x"].max()  # the whole map's ranges, not the filtered part's


def test_many_groups_fold_into_one_grey_other_drawn_first():
    table = papers(n=120)
    table["status"] = [f"Track {i % (len(PALETTE) + 6)}" for i in range(120)]
    figure = map_figure(table, color_by="status")
    assert len(figure.data) == len(PALETTE) + 1
    assert figure.data[0].name.startswith(OTHER) and figure.data[0].marker.color == NEUTRAL
    coloured = [trace.marker.color for trace in figure.data[1:]]
    assert len(set(coloured)) == len(coloured) and NEUTRAL not in coloured
    assert sorted(plotted_ids(figure)) == sorted(table["paper_id"])


def test_subfields_take_shades_of_their_areas_hue_and_group_in_the_legend():
    table = papers(n=60)
    table["area"] = ["Deep Learning"] * 30 + ["Optimization"] * 30
    table["subfield"] = ["Large Language Models", "Deep Learning", "Diffusion Models"] * 10 + [
        "Convex Optimization",
        "Optimization",
    ] * 15
    colours = category_colours(table, "subfield")
    assert in_family(colours["Large Language Models"], colours["Deep Learning"])
    assert in_family(colours["Diffusion Models"], colours["Deep Learning"])
    assert not in_family(colours["Convex Optimization"], colours["Deep Learning"])
    named = [name for name in colours if name != UNASSIGNED]
    assert len({colours[n] for n in named}) == len(named)
    figure = map_figure(table)
    assert {trace.legendgroup for trace in figure.data} == {"Deep Learning", "Optimization"}
    # The legend names every subfield, in its shade, under its area's title.
    in_legend = legend_entries(figure)
    assert {name.rsplit(" (", 1)[0] for name in in_legend} == set(table["subfield"])
    assert all(colour == colours[name.rsplit(" (", 1)[0]] for name, colour in in_legend.items())
    titles = [t.legendgrouptitle.text for t in figure.data if t.legendgrouptitle and t.legendgrouptitle.text]
    assert titles == ["Deep Learning (30)", "Optimization (30)"]
    # One drawn trace per area, each point in its subfield's shade.
    assert len([trace for trace in figure.data if trace.customdata is not None]) == 2
    drawn = point_colours(figure)
    assert all(drawn[pid] == colours[subfield] for pid, subfield in zip(table["paper_id"], table["subfield"]))
    # Filtered to one subfield, the legend names that subfield, not only its area.
    part = map_figure(table[table["subfield"] == "Convex Optimization"], context=table)
    assert list(legend_entries(part)) == ["Convex Optimization (15)"]


def test_a_legend_taller_than_the_map_names_the_areas_even_of_one_subfield_each():
    # 15 areas of one subfield each (a venue whose subfields are its areas): 15 entries under 15
    # titles would be twice the height of a 544 px map, so the legend lists the 15 areas.
    table = papers(n=150)
    table["area"] = table["subfield"] = [f"Area {i % 15}" for i in range(150)]
    figure = map_figure(table, height=544)
    assert figure.layout.legend.title.text.strip() == "Subfield by area"
    assert sorted(legend_entries(figure)) == sorted(f"Area {i} (10)" for i in range(15))
    assert not [t for t in figure.data if t.legendgrouptitle and t.legendgrouptitle.text]
    # Three of them fit under their titles.
    few = map_figure(table[table["area"].isin(["Area 0", "Area 1", "Area 2"])], context=table, height=544)
    assert few.layout.legend.title.text.strip() == "Subfield"


def legend_entries(figure):
    return {t.name: t.marker.color for t in figure.data if t.showlegend is not False and t.name != "filtered out"}


def test_every_topic_keeps_its_name_and_its_fine_topics_hue_past_the_palette():
    table = papers(n=120)
    table["topic_label"] = [f"Topic {i % (len(PALETTE) + 2)}" for i in range(120)]  # 15 topics, as ICML 2025's
    table["topic_fine_label"] = [f"Fine {i % (2 * (len(PALETTE) + 2))}" for i in range(120)]
    figure = map_figure(table, color_by="topic_label")
    names = legend_entries(figure)
    assert len(names) == len(PALETTE) + 2 and not any(name.startswith(OTHER) for name in names)
    topics = category_colours(table, "topic_label")
    assert len(set(topics.values()) - {NEUTRAL}) == len(PALETTE) + 2
    fine = category_colours(table, "topic_fine_label")
    topic_of = dict(zip(table["topic_fine_label"], table["topic_label"]))
    assert all(in_family(fine[f], topics[t]) for f, t in topic_of.items())


def in_family(shade: str, base: str) -> bool:
    """Whether `shade`'s hue is within `FAMILY_HUES`' widest turn of `base`'s (on the colour wheel)."""
    hue_of = [colorsys.rgb_to_hls(*(int(c[i : i + 2], 16) / 255 for i in (1, 3, 5)))[0] for c in (shade, base)]
    gap = abs(hue_of[0] - hue_of[1]) % 1.0
    return min(gap, 1.0 - gap) <= max(abs(turn) for turn in FAMILY_HUES) / 360 + 0.01


def test_shades_of_one_family_are_told_apart_by_at_least_the_stated_difference():
    bases = category_colours(pd.DataFrame({"area": [f"Area {k}" for k in range(15)]}), "area")
    bases = [colour for name, colour in bases.items() if name.startswith("Area")]
    for base in bases:
        shades = [base, *family(base, 9, bases)]
        apart = colour_distances(shades, shades)[~np.eye(len(shades), dtype=bool)]
        assert apart.min() >= FAMILY_MIN_DIFFERENCE, base
        assert to_lab(shades)[:, 0].max() <= MAX_LAB_LIGHTNESS  # none fades into the white page
        assert family(base, 9, bases) == family(base, 9, bases)


def test_every_fine_topic_has_its_own_colour_in_its_topics_hue():
    table = papers(n=120)
    table["topic_label"] = [f"Topic {i % 16}" for i in range(120)]  # more topics than the palette holds
    table["topic_fine_label"] = [f"Fine {i % 48}" for i in range(120)]  # three fine topics per topic
    colours = category_colours(table, "topic_fine_label")
    fine = sorted(set(table["topic_fine_label"]))
    assert NEUTRAL not in {colours[f] for f in fine} and len({colours[f] for f in fine}) == len(fine)
    topic_of = dict(zip(table["topic_fine_label"], table["topic_label"]))
    assert all(in_family(colours[f], colours[topic_of[f]]) for f in fine)
    # 48 fine topics are more than a legend beside the map holds: it names their 16 topics, in their
    # hues; one topic's papers bring back its own three fine topics.
    figure = map_figure(table, color_by="topic_fine_label")
    entries = legend_entries(figure)
    assert sorted(name.split(" (")[0] for name in entries) == sorted(set(table["topic_label"]))
    assert figure.layout.legend.title.text.strip() == "Fine topic by topic"
    one = table[table["topic_label"] == "Topic 3"]
    entries = legend_entries(map_figure(one, color_by="topic_fine_label", context=table))
    assert sorted(name.split(" (")[0] for name in entries) == sorted(set(one["topic_fine_label"]))
    assert all(colour == colours[name.split(" (")[0]] for name, colour in entries.items())
    # A fine topic named like another coarse topic takes its own topic's hue, not the other's colour.
    table.loc[table["topic_fine_label"] == "Fine 1", "topic_fine_label"] = "Topic 0"
    renamed = category_colours(table, "topic_fine_label")
    assert renamed["Topic 0"] != colours["Topic 0"] and renamed["Topic 0"] not in {
        renamed[f] for f in fine if f != "Fine 1"
    }


def test_filtering_keeps_colours_axes_and_the_rest_as_a_backdrop():
    table = papers()
    whole = map_figure(table, context=table)
    part = map_figure(table[table["subfield"] == "Subfield 3"], context=table)
    assert point_colours(part) == {pid: c for pid, c in point_colours(whole).items() if pid in point_colours(part)}
    assert sorted(point_colours(part)) == sorted(table[table["subfield"] == "Subfield 3"]["paper_id"])
    backdrop = [t for t in part.data if t.name == "filtered out"]
    assert len(backdrop) == 1 and len(backdrop[0].x) == 32 and backdrop[0].hoverinfo == "skip"
    assert part.layout.xaxis.range == whole.layout.xaxis.range and part.layout.yaxis.range == whole.layout.yaxis.range


def test_untrusted_text_is_escaped_in_hover_legend_and_labels():
    table = papers(n=6, groups=1)
    table["title"] = "<script>alert(1)</script>"
    table["subfield"] = "<img src=x onerror=alert(1)>"
    table["topic_label"] = "<b onmouseover=alert(1)>x</b>"
    figure = map_figure(table)
    paper_trace = next(t for t in figure.data if t.customdata is not None)
    rendered = " ".join(
        [*hover_html(paper_trace), *(t.name for t in figure.data), *(a.text for a in figure.layout.annotations)]
    )
    assert "<script>" not in rendered and "<img" not in rendered and "<b onmouseover" not in rendered
    assert "&lt;script&gt;" in rendered
    table["title"] = '"Who experiences model decay?" A study'
    hover = hover_html(next(t for t in map_figure(table).data if t.customdata is not None))[0]
    assert '"Who experiences' in hover and "&quot;" not in hover  # Plotly would show the entity as is


def test_labels_can_be_hidden_and_colour_choices_are_checked():
    assert len(map_figure(papers(), labels=None).layout.annotations) == 0
    assert len(shown_labels(map_figure(papers(), labels="topic_fine_label"))) == 6
    with pytest.raises(ValueError, match="labels"):
        map_figure(papers(), labels="title")
    with pytest.raises(ValueError, match="color_by"):
        map_figure(papers(), color_by="abstract")


def test_empty_selection_gives_an_empty_figure():
    figure = map_figure(papers().iloc[:0])
    assert len(figure.data) == 0 and len(topic_positions(papers().iloc[:0])) == 0


def test_small_helpers():
    assert short_authors(["A", "B"]) == "A, B"
    assert short_authors(["A", "B", "C", "D"]) == "A, B, C et al."
    assert marker_size(19) > marker_size(3340) > marker_size(87691) >= 3


def test_paper_table_drops_columns_nobody_has():
    table = paper_table(papers(n=3))
    assert list(table.columns) == ["title", "authors", "subfield", "topic", "keywords"]
    assert table["authors"][0] == "Ada Lovelace, Alan Turing, Grace Hopper et al."


def test_hover_says_when_a_subfield_is_uncertain_and_what_else_it_could_be():
    figure = map_figure(papers(n=8, groups=1))
    hover = dict(
        zip(
            *(
                np.concatenate([getattr(t, a) for t in figure.data if t.customdata is not None])
                for a in ("customdata", "hovertext")
            )
        )
    )
    assert "(uncertain; or Subfield 9)" in hover["p0"]  # p0: not confident
    assert "uncertain" not in hover["p1"]
    assert (
        "Topic: Topic 1 › Fine 1 (nearest" in hover["p1"] and "Topic: Topic 2 › Fine 2<br>" in hover["p2"]
    )  # only strays


def test_highlighted_papers_are_drawn_on_top_even_when_filtered_out():
    table = papers()
    part = table[table["subfield"] == "Subfield 3"]
    figure = map_figure(part, context=table, highlight={"matches": ["p0", "p3", "missing"], "open paper": ["p8"]})
    matches, top = figure.data[-2:]
    assert matches.name == "matches (2)" and list(matches.customdata) == [
        "p0",
        "p3",
    ]  # p0 is filtered out, still marked
    assert matches.marker.size > figure.data[1].marker.size and "Paper 0" in hover_html(matches)[0]
    assert top.name == "open paper (1)" and top.marker.color != matches.marker.color
    assert not map_figure(part, context=table, highlight={"matches": ["missing"]}).data[-1].name.startswith("matches")


def test_paper_table_offers_web_links_only():
    table = papers(n=3)
    table["url"] = ["https://openreview.net/forum?id=a", "javascript:alert(1)", "data:text/html,x"]
    assert list(paper_table(table)["link"]) == ["https://openreview.net/forum?id=a", "", ""]


def test_hover_is_lean_and_precomputed_hover_gives_the_same_figure():
    table = papers(n=12, groups=2)
    table["title"] = ["A long title about " + "kernel methods " * 12] * 12
    table["abstract"] = ["An abstract that must never travel with the map. " * 20] * 12
    table["keywords"] = [["one", "two", "three", "four", "five"]] * 12
    hover = hover_html(next(t for t in map_figure(table).data if t.customdata is not None))[0]
    assert "abstract" not in hover and "four" not in hover and "three" in hover  # a few keywords, never the abstract
    assert hover.count("<br>") <= 2 + 4  # title in at most three lines, then authors, subfield, topic, keywords
    part = table.iloc[3:9]
    given = map_figure(part, context=table, highlight={"open": ["p0"]}, hover=hover_labels(table))
    assert given.to_json() == map_figure(part, context=table, highlight={"open": ["p0"]}).to_json()


def test_points_grow_and_firm_up_as_fewer_papers_are_shown():
    table = papers(n=3340)
    whole = map_figure(table, context=table, labels=None)
    few = map_figure(table.iloc[:19], context=table, labels=None)

    def drawn(figure):
        trace = next(t for t in figure.data if t.customdata is not None and t.name != "filtered out")
        return trace.marker.size, trace.marker.opacity

    (big, solid), (small, faint) = drawn(few), drawn(whole)
    assert big > small and solid > faint  # clumps of 3,340 read as density, 19 papers stand out
    backdrop = next(t for t in few.data if t.name == "filtered out")
    assert backdrop.marker.size < small  # the filtered-out backdrop keeps the whole map's size


def test_coarse_labels_carry_every_fine_label_hidden_for_the_zoom_to_reveal():
    table = papers()
    figure = map_figure(table)
    coarse = [a for a in figure.layout.annotations if a.name == ZOOM_LEVELS["topic_label"]]
    hidden = [a for a in figure.layout.annotations if a.name == ZOOM_REVEALED]
    assert sorted(a.text for a in coarse) == [f"<b>Topic {k}</b>" for k in range(3)]
    assert all(a.opacity in (None, 1) for a in coarse)
    assert sorted(a.text for a in hidden) == [f"<b>Fine {k}</b>" for k in range(6)] and all(
        a.opacity == 0 for a in hidden
    )
    # The script needs the whole map's range (the axes' own change as the reader zooms).
    assert figure.layout.meta["papermap_full_range"] == [*figure.layout.xaxis.range, *figure.layout.yaxis.range]
    assert figure.layout.uirevision  # a rerun keeps the reader's zoom


def test_regions_lie_under_every_point_and_take_the_topics_colours():
    table = papers()
    plain = map_figure(table)
    assert not [t for t in plain.data if t.type == "contour"]
    figure = map_figure(table, color_by="topic_label", regions=True)
    kinds = [t.type for t in figure.data]
    assert kinds.count("contour") >= 1 and kinds.index("scatter") > max(
        i for i, k in enumerate(kinds) if k == "contour"
    )
    colours = category_colours(table, "topic_label")
    for trace in (t for t in figure.data if t.type == "contour"):
        assert trace.line.color == colours[trace.name.removeprefix("region: ")] and trace.hoverinfo == "skip"
    grey = {t.line.color for t in map_figure(table, regions=True).data if t.type == "contour"}
    assert grey == {"#8C8C8C"}  # coloured by subfield, regions stay neutral: two hues would mean two things
    part = table[table["subfield"] == "Subfield 2"]  # regions are the whole map's, whatever is shown
    given = map_figure(part, context=table, regions=True, region_shapes=map_regions(table)).to_json()
    assert given == map_figure(part, context=table, regions=True).to_json()


def test_the_whole_map_holds_every_region_whole_whether_drawn_or_not():
    table = papers(n=14, groups=2)  # two topics of seven papers, spread wide: regions reach past the papers
    table["topic_label"] = ["A"] * 7 + ["B"] * 7
    rng = np.random.default_rng(0)
    table["x"], table["y"] = rng.uniform(0, 1, 14) + np.repeat([0.0, 1.5], 7), rng.uniform(0, 1, 14)
    regions = map_regions(table)
    drawn, hidden = map_figure(table, regions=True), map_figure(table, regions=False, labels=None)
    (x_low, x_high), (y_low, y_high) = drawn.layout.xaxis.range, drawn.layout.yaxis.range
    for region in regions:
        x0, x1, y0, y1 = region.extent()
        assert x_low <= x0 and x1 <= x_high and y_low <= y0 and y1 <= y_high
    assert max(r.extent()[1] for r in regions) > table["x"].max() + 0.06 * np.ptp(table["x"])  # past the old padding
    assert (hidden.layout.xaxis.range, hidden.layout.yaxis.range) == (
        drawn.layout.xaxis.range,
        drawn.layout.yaxis.range,
    )
    assert hidden.layout.meta["papermap_full_range"] == drawn.layout.meta["papermap_full_range"]


def test_long_legend_names_are_cut_but_keep_their_count_and_stay_escaped():
    table = papers(n=12, groups=2)
    table["subfield"] = ["Accountability, Unlearning and Watermarking"] * 6 + ["<b>Short</b>"] * 6
    names = {t.name for t in map_figure(table).data if t.name and "(" in t.name}
    assert "Accountability, Unlearning an… (6)" in names  # 30 characters at most, then the count
    assert "&lt;b&gt;Short&lt;/b&gt; (6)" in names  # cut first, escaped after: never half an entity
    assert legend_name("x" * 29 + "<", 1) == "x" * 29 + "&lt; (1)"


def test_dots_shrink_where_the_map_is_dense_not_only_with_the_count():
    spread = papers(n=400)
    clumped = spread.assign(x=spread["x"] * 0.02, y=spread["y"] * 0.02)
    clumped.loc[:9, ["x", "y"]] = [[-3.0, -3.0], [3.0, 3.0]] * 5  # far corners keep the view as wide as spread's

    def size(figure):
        return next(t for t in figure.data if t.customdata is not None).marker.size

    assert size(map_figure(clumped, labels=None)) < size(map_figure(spread, labels=None)) <= marker_size(400)


def test_maps_up_to_a_conferences_size_draw_as_svg_and_larger_ones_in_webgl():
    assert point_trace_type(3340) == "scatter" and point_trace_type(87691) == "scattergl"
    table = papers(n=40)
    big = table.assign(paper_id=[f"q{i}" for i in range(40)])
    corpus = pd.concat(
        [table] + [big.assign(paper_id=big["paper_id"] + f"-{k}") for k in range(130)], ignore_index=True
    )
    part = map_figure(corpus.iloc[:10], context=corpus, labels=None)  # a filter to 10 of a corpus stays WebGL
    assert len(corpus) > SVG_MAX_POINTS and {t.type for t in part.data if t.type != "contour"} == {"scattergl"}
    small = map_figure(table, labels=None, highlight={"open paper": [table["paper_id"].iloc[0]]})
    assert {t.type for t in small.data if t.type != "contour"} == {"scatter"}
    # A chart updated in place (the map page) asks for WebGL at any size, the open paper's ring included.
    in_place = map_figure(table, labels=None, highlight={"open paper": [table["paper_id"].iloc[0]]}, webgl=True)
    assert {t.type for t in in_place.data if t.type != "contour"} == {"scattergl"}


def test_the_caption_names_a_conference_and_counts_a_corpus_venues():
    # The scale corpus's largest venue and year (IROS, 2022) hold a fifth and a tenth of it: naming
    # them called 87,690 papers from 25 venues "IROS 2022".
    assert doctest.testmod(tables).failed == 0
    mostly = pd.DataFrame(
        {
            "venue": ["ICML"] * 3 + ["NeurIPS"],
            "year": [2025] * 3 + [2024],
            "abstract": ["x"] * 4,
            "title_is_derived": [False] * 4,
        }
    )
    assert tables.corpus_caption(mostly, "icml.json").startswith("ICML 2025: 4 papers from icml.json")
    spread = mostly.assign(year=[2019, 2020, 2021, 2025])
    assert tables.corpus_caption(spread, "icml.json").startswith("ICML 2019-2025: 4 papers")


def test_a_zoomed_view_shows_the_filtered_papers_and_keeps_its_own_revision():
    table = papers(n=120)
    part = table[(table["x"] < table["x"].quantile(0.4)) & (table["y"] < table["y"].quantile(0.4))]
    whole = map_figure(table, context=table, zoom=True)
    zoomed = map_figure(part, context=table, zoom=True)
    fixed = map_figure(part, context=table)
    assert list(fixed.layout.xaxis.range) == list(whole.layout.xaxis.range) and fixed.layout.uirevision == "map"
    x_low, x_high = zoomed.layout.xaxis.range
    y_low, y_high = zoomed.layout.yaxis.range
    assert x_low < part["x"].min() and part["x"].max() < x_high < whole.layout.xaxis.range[1]
    assert y_low < part["y"].min() and part["y"].max() < y_high
    assert zoomed.layout.uirevision not in (
        "map",
        map_figure(table.iloc[:5], context=table, zoom=True).layout.uirevision,
    )
    # the labels' zoom levels still measure against the whole map
    assert zoomed.layout.meta["papermap_full_range"] == whole.layout.meta["papermap_full_range"]
    # A single paper: a fifth of the map on one axis, not a point, and the plot's shape, not a strip of it.
    one = map_figure(table.iloc[:1], context=table, zoom=True, width_hint=900, height=620)
    (x_low, x_high), (y_low, y_high) = one.layout.xaxis.range, one.layout.yaxis.range
    (whole_x_low, whole_x_high), (whole_y_low, whole_y_high) = whole.layout.xaxis.range, whole.layout.yaxis.range
    shares = ((x_high - x_low) / (whole_x_high - whole_x_low), (y_high - y_low) / (whole_y_high - whole_y_low))
    assert min(shares) == pytest.approx(0.2)
    assert (x_high - x_low) / (y_high - y_low) == pytest.approx(900 / (620 - PLOT_TOP_PX))


def test_a_search_in_part_of_the_map_brings_its_matches_into_view():
    table = papers(n=120)
    matches = table.loc[(table["x"] < table["x"].quantile(0.4)) & (table["y"] < table["y"].quantile(0.4)), "paper_id"]
    whole = map_figure(table, context=table, zoom=True)
    searched = map_figure(table, context=table, zoom=True, focus=list(matches))
    # As a filter to those papers would: the view goes to them, under a revision of its own.
    filtered = map_figure(table[table["paper_id"].isin(matches)], context=table, zoom=True)
    assert list(searched.layout.xaxis.range) == list(filtered.layout.xaxis.range) != list(whole.layout.xaxis.range)
    assert searched.layout.uirevision == filtered.layout.uirevision != "map"
    assert len(plotted_ids(searched)) == len(table)  # every paper shown is still drawn
    # Matches all over the map, or none: the whole map.
    assert map_figure(table, context=table, zoom=True, focus=list(table["paper_id"][::3])).layout.uirevision == "map"
    assert map_focus(None, None) is None and map_focus(table.iloc[:0], None) is None
    assert map_focus(table.iloc[:2], table.iloc[5:6]) == [*table["paper_id"][:2], table["paper_id"].iloc[5]]


def test_papers_spread_over_the_map_are_shown_on_the_whole_map():
    table = papers(n=120)
    spread = table.iloc[::3]  # a third of the papers, from everywhere
    figure = map_figure(spread, context=table, zoom=True)
    assert figure.layout.uirevision == "map"
    assert list(figure.layout.xaxis.range) == list(map_figure(table, context=table).layout.xaxis.range)
