"""The map page in headless Chromium: topic regions under the points, and labels by zoom (the coarse
topics' labels at the full view, the fine topics' of what is in view once zoomed in, and back).

The seed's 19 papers. Screenshots go to /tmp/papermap_zoom_*.png. Runs with the other browser tests
(marker `browser`); skips without Playwright or /usr/bin/chromium.
"""

from __future__ import annotations

import pytest
from conftest import REPO, SHARED_DATA, bench_module

from lib.map_folder import PAPERS_FILE, read_papers
from lib.ui_state import FULLSCREEN
from lib.views.map.script import GROWN_MAX_PX
from lib.views.markup import html_literal

_browser = bench_module("_browser")
pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -r requirements-dev.txt)")
if not _browser.CHROMIUM.exists():
    pytest.skip(f"{_browser.CHROMIUM} is missing (apt-get install chromium)", allow_module_level=True)

pytestmark = pytest.mark.browser
SEED = REPO / "data" / "icml2025_seed.txt"
PAGE_MS = 180_000  # the first visit waits for UMAP's first compilation
SETTLE_MS = 10_000

# The map's labels as drawn: text, shown or not (the zoom script sets opacity), and whether the
# whole box lies in the plot area; the label level the script chose; the regions' outlines drawn.
LABELS_JS = """() => {
    const gd = document.querySelector('.st-key-map-frame .js-plotly-plot');
    if (!gd || !gd._fullLayout) return null;
    const plot = gd.querySelector('.nsewdrag').getBoundingClientRect();
    const labels = [...gd.querySelectorAll('g.annotation')].map((g) => {
        const box = g.getBoundingClientRect();
        return {text: g.textContent, shown: getComputedStyle(g).opacity !== '0' && box.width > 0,
                inside: box.left >= plot.left - 1 && box.right <= plot.right + 1
                        && box.top >= plot.top - 1 && box.bottom <= plot.bottom + 1};
    });
    return {level: gd.getAttribute('data-label-level'), labels,
            regions: gd.querySelectorAll('.contourlayer .contourlevel path').length};
}"""


@pytest.fixture(scope="module")
def map_app(tmp_path_factory):
    """The dashboard on the seed; yields (base URL, the seed's papers table)."""
    folder = tmp_path_factory.mktemp("zoom")
    papers = read_papers(_browser.ensure_map(SEED, folder / "cache") / PAPERS_FILE)
    env = {"PAPERMAP_CACHE": str(folder / "cache"), "PAPERMAP_DB": str(folder / "lists.sqlite")}
    with _browser.streamlit("dashboard.py", ["--data", str(SEED)], env, folder / "streamlit.log") as base:
        yield base, papers


def open_map(browser, base: str):
    """A 1280x720 tab on the map page at `base`, its labels settled at the full view; `tab.errors`
    collects the page's uncaught exceptions."""
    tab = browser.new_page(viewport={"width": 1280, "height": 720})
    tab.set_default_timeout(PAGE_MS)
    tab.errors = []
    tab.on("pageerror", lambda error: tab.errors.append(str(error)))
    tab.goto(base)
    tab.wait_for_selector(".st-key-map-frame .js-plotly-plot")
    wait_for_level(tab, "coarse")
    return tab


def shown(state) -> list[str]:
    return [label["text"] for label in state["labels"] if label["shown"]]


def wait_for_level(tab, level: str) -> dict:
    tab.wait_for_function(
        f"() => {{ const s = ({LABELS_JS})(); return s && s.level === '{level}'; }}", timeout=SETTLE_MS
    )
    tab.wait_for_timeout(300)  # the script applies on the next animation frame after a redraw
    return tab.evaluate(LABELS_JS)


# Screen positions of the papers with the given ids, and the plot area's box.
SPOTS_JS = """(ids) => {
    const gd = document.querySelector('.st-key-map-frame .js-plotly-plot'), box = gd.getBoundingClientRect();
    const plot = gd.querySelector('.nsewdrag').getBoundingClientRect();
    const spots = [];
    for (const trace of gd._fullData) {
        if (!trace.customdata || trace.name === 'filtered out') continue;
        Array.from(trace.customdata).forEach((id, i) => { if (ids.includes(id)) spots.push(
            [box.left + gd._fullLayout.xaxis._offset + gd._fullLayout.xaxis.l2p(trace.x[i]),
             box.top + gd._fullLayout.yaxis._offset + gd._fullLayout.yaxis.l2p(trace.y[i])]); });
    }
    return {spots, plot: [plot.left, plot.top, plot.width, plot.height]};
}"""


def zoom_box_around(tab, ids: list[str]) -> None:
    """Drag a zoom box a third of the plot area wide around the middle of the papers `ids`, as a reader would."""
    found = tab.evaluate(SPOTS_JS, ids)
    xs, ys = sorted(x for x, _ in found["spots"]), sorted(y for _, y in found["spots"])
    x, y = xs[len(xs) // 2], ys[len(ys) // 2]
    left, top, width, height = found["plot"]
    half = min(width, height) / 6
    x, y = min(max(x, left + half), left + width - half), min(max(y, top + half), top + height - half)
    press(tab, "Zoom")
    tab.mouse.move(x - half, y - half)
    tab.mouse.down()
    tab.mouse.move(x + half, y + half, steps=8)
    tab.mouse.up()


def press(tab, button: str) -> None:
    tab.hover(".st-key-map-frame .js-plotly-plot")  # the mode bar shows on hover
    tab.click(f'.st-key-map-frame .modebar-btn[data-title="{button}"]')


def test_zooming_in_swaps_coarse_labels_for_the_fine_ones_in_view(map_app, browser):
    base, papers = map_app
    coarse = {html_literal(label) for label in papers["topic_label"].unique()}
    fine = {html_literal(label) for label in papers["topic_fine_label"].unique()}
    tab = open_map(browser, base)
    full = tab.evaluate(LABELS_JS)
    assert full["regions"] > 0  # the topics' regions are drawn under the points
    assert shown(full) and set(shown(full)) <= coarse
    tab.screenshot(path="/tmp/papermap_zoom_full.png")

    largest_fine = papers["topic_fine_label"].value_counts().index[0]
    zoom_box_around(tab, list(papers.loc[papers["topic_fine_label"] == largest_fine, "paper_id"]))
    zoomed = wait_for_level(tab, "fine")
    tab.screenshot(path="/tmp/papermap_zoom_in.png")
    visible = [label for label in zoomed["labels"] if label["shown"]]
    assert html_literal(largest_fine) in {label["text"] for label in visible}
    assert {label["text"] for label in visible} <= fine  # the coarse labels gave way
    assert all(label["inside"] for label in visible)  # none cut by the plot area's edge

    press(tab, "Reset axes")
    again = wait_for_level(tab, "coarse")
    assert shown(again) == shown(full)
    assert not tab.errors


# The map's x range and legend title, and whether the plot div is the one marked before.
PLOT_JS = """() => { const gd = document.querySelector('.st-key-map-frame .js-plotly-plot');
    return gd && gd._fullLayout && {range: gd._fullLayout.xaxis.range, marked: !!gd.__marked,
        legend: ((gd._fullLayout.legend.title || {}).text || '').trim()}; }"""


def test_a_new_colouring_redraws_the_same_plot_keeping_the_readers_zoom(map_app, browser):
    base, papers = map_app
    tab = open_map(browser, base)
    zoom_box_around(tab, list(papers["paper_id"][:5]))
    wait_for_level(tab, "fine")
    zoomed = tab.evaluate(PLOT_JS)
    tab.evaluate("() => { document.querySelector('.st-key-map-frame .js-plotly-plot').__marked = true; }")
    tab.locator('[data-testid="stSelectbox"]', has_text="Colour by").first.click()
    tab.get_by_role("option", name="Topic", exact=True).click()
    tab.wait_for_function(f"() => {{ const s = ({PLOT_JS})(); return s && s.legend === 'Topic'; }}", timeout=SETTLE_MS)
    after = tab.evaluate(PLOT_JS)
    assert after["marked"]  # updated in place (Plotly.react), not a new chart drawn from nothing
    assert after["range"] == pytest.approx(zoomed["range"])  # the zoom survives the rerun
    assert zoomed["legend"].startswith("Subfield") and not tab.errors  # "Subfield by area" when subfields would not fit


def test_regions_can_be_switched_off_from_the_url(map_app, browser):
    base, _ = map_app
    tab = browser.new_page(viewport={"width": 1280, "height": 720})
    tab.set_default_timeout(PAGE_MS)
    tab.goto(base)
    tab.wait_for_selector('[data-testid="stSidebarNav"]')
    tab.goto(f"{base}/?regions=hidden")
    tab.wait_for_selector(".st-key-map-frame .js-plotly-plot")
    state = wait_for_level(tab, "coarse")
    assert state["regions"] == 0 and shown(state)


def test_full_screen_shows_only_the_map_its_labels_and_legend(map_app, browser):
    base, _ = map_app
    tab = open_map(browser, base)
    buttons = tab.evaluate(
        "() => [...document.querySelectorAll('.st-key-map-frame .modebar-btn')].map((b) => b.dataset.title)"
    )
    assert buttons[-1] == FULLSCREEN and not any("Share" in b for b in buttons)  # nothing uploads to Plotly's cloud
    press(tab, FULLSCREEN)  # the map's own button, last in its mode bar: the presenting view
    tab.wait_for_timeout(1500)
    tab.screenshot(path="/tmp/papermap_zoom_fullscreen.png")
    plot = tab.evaluate(
        "() => { const r = document.querySelector('.st-key-map-frame .nsewdrag').getBoundingClientRect();"
        " return [r.top, r.bottom]; }"
    )
    assert plot[1] - plot[0] >= 0.8 * 720 and plot[1] <= 720  # the map takes the window's height, all of it in view
    state = tab.evaluate(LABELS_JS)
    assert shown(state) and state["regions"] > 0
    legend = tab.evaluate("() => document.querySelector('.st-key-map-frame .legend').getBoundingClientRect().right")
    assert legend <= 1280


def in_window(tab, selector: str) -> bool:
    """Whether the element `selector` lies wholly inside the 1280x720 window, as drawn."""
    return tab.evaluate(
        """(selector) => { const e = document.querySelector(selector); if (!e) return false;
        const r = e.getBoundingClientRect(); return r.height > 0 && r.top >= 0 && r.left >= 0
            && r.bottom <= window.innerHeight && r.right <= window.innerWidth; }""",
        selector,
    )


def test_what_each_action_changes_shows_without_scrolling_at_1280x720(map_app, browser):
    base, papers = map_app
    tab = open_map(browser, base)
    first = papers.iloc[0]
    spot = tab.evaluate(SPOTS_JS, [first["paper_id"]])["spots"][0]
    tab.mouse.click(*spot)  # a click: the paper's card
    tab.wait_for_selector(".st-key-paper-card")
    tab.wait_for_timeout(500)
    assert in_window(tab, ".st-key-paper-card") and first["title"][:30] in tab.inner_text(".st-key-paper-card")
    tab.wait_for_selector(".papermap-ring", state="visible")
    ring = tab.locator(".papermap-ring").bounding_box()  # drawn by the map's script, on the paper's point
    assert abs(ring["x"] + ring["width"] / 2 - spot[0]) < 2 and abs(ring["y"] + ring["height"] / 2 - spot[1]) < 2
    tab.screenshot(path="/tmp/papermap_zoom_card.png")
    tab.click('.st-key-paper-card button:has-text("Close")')
    tab.wait_for_selector(".st-key-paper-card", state="detached")

    press(tab, "Box Select")  # a box over the whole plot: its count right above the map
    left, top, width, height = tab.evaluate(SPOTS_JS, [])["plot"]
    tab.mouse.move(left + 3, top + 3)
    tab.mouse.down()
    tab.mouse.move(left + width - 3, top + height - 3, steps=8)
    tab.mouse.up()
    line = tab.get_by_text(f"{len(papers)} papers in the box or lasso")
    line.wait_for()
    box = line.bounding_box()
    assert box["y"] + box["height"] <= 720 and tab.evaluate(SPOTS_JS, [])["plot"][1] > box["y"]  # above the map

    tab.fill('input[aria-label="Search titles, abstracts, authors and keywords"]', "zzqx nothing matches")
    tab.keyboard.press("Enter")  # a search that finds nothing says so above the map
    none = tab.get_by_text("0 papers match")
    none.wait_for()
    assert none.bounding_box()["y"] + none.bounding_box()["height"] <= 720
    placeholder = tab.get_attribute('input[aria-label="Search titles, abstracts, authors and keywords"]', "placeholder")
    assert "e.g. " in placeholder and '"' in placeholder  # the list's own example


PLOT_BOX_JS = """() => { const r = document.querySelector('.st-key-map-frame .nsewdrag').getBoundingClientRect(),
    main = document.querySelector('.block-container').getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width, height: r.height, main: main.width}; }"""


@pytest.mark.parametrize("width, height", [(1280, 720), (1600, 1000)])
def test_the_map_takes_three_quarters_of_the_window_wholly_on_screen(map_app, browser, width, height):
    base, _ = map_app
    tab = browser.new_page(viewport={"width": width, "height": height})
    tab.set_default_timeout(PAGE_MS)
    tab.goto(base)
    tab.wait_for_selector(".st-key-map-frame .js-plotly-plot")
    wait_for_level(tab, "coarse")
    plot = tab.evaluate(PLOT_BOX_JS)
    tab.screenshot(path=f"/tmp/papermap_zoom_size_{width}.png")
    # Equal units on both axes: the plot area is as tall as the window allows or as wide as the column does.
    assert plot["top"] >= 0 and plot["bottom"] <= height, plot
    assert plot["height"] >= 0.75 * height or plot["width"] >= 0.5 * plot["main"], plot
    tab.close()


@pytest.fixture(scope="module")
def areas_app(tmp_path_factory):
    """The dashboard on IJCAI 2023 (../shared/data): 851 papers, 15 areas, each its own one subfield;
    yields (base URL, its papers table)."""
    if not (SHARED_DATA / "ijcai2023.json").exists():
        pytest.skip("../shared/data is not present")
    data, folder = SHARED_DATA / "ijcai2023.json", tmp_path_factory.mktemp("areas")
    papers = read_papers(_browser.ensure_map(data, folder / "cache") / PAPERS_FILE)
    env = {"PAPERMAP_CACHE": str(folder / "cache"), "PAPERMAP_DB": str(folder / "lists.sqlite")}
    with _browser.streamlit("dashboard.py", ["--data", str(data)], env, folder / "streamlit.log") as base:
        yield base, papers


@pytest.mark.parametrize("colour", ["subfield", "topic_fine_label"])
def test_the_legend_fits_beside_the_map_on_a_real_list(areas_app, browser, colour):
    tab = browser.new_page(viewport={"width": 1280, "height": 720})
    tab.set_default_timeout(PAGE_MS)
    base, _ = areas_app
    tab.goto(f"{base}/?color={colour}")
    tab.wait_for_selector(".st-key-map-frame .js-plotly-plot .legend")
    wait_for_level(tab, "coarse")
    plot = tab.evaluate(PLOT_BOX_JS)
    legend = tab.evaluate(
        "() => { const r = document.querySelector('.st-key-map-frame .legend').getBoundingClientRect();"
        " return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; }"
    )
    tab.screenshot(path=f"/tmp/papermap_legend_{colour}.png")
    # The whole legend is seen with the map: no taller than its plot area, on screen, nothing to scroll.
    assert legend["top"] >= plot["top"] - 1 and legend["bottom"] <= plot["bottom"] + 1, (legend, plot)
    assert legend["right"] <= 1280
    # Plotly's own measure: the legend's content is no taller than the box it shows it in.
    heights = tab.evaluate(
        "() => { const l = document.querySelector('.st-key-map-frame .js-plotly-plot')._fullLayout.legend;"
        " return [l._height, l._effHeight]; }"
    )
    assert heights[0] <= heights[1] + 1, heights
    # With the pointer on the map its mode bar shows, over the figure's top right: not over the legend.
    tab.mouse.move((plot["left"] + plot["right"]) / 2, (plot["top"] + plot["bottom"]) / 2)
    tab.wait_for_timeout(500)
    bar = tab.evaluate(
        "() => { const r = document.querySelector('.st-key-map-frame .modebar').getBoundingClientRect();"
        " return {left: r.left, bottom: r.bottom, right: r.right, height: r.height}; }"
    )
    assert bar["height"] > 0 and bar["right"] > legend["left"], bar  # shown, above the legend's column
    assert bar["bottom"] <= legend["top"], (bar, legend)
    tab.close()


def test_labels_give_way_to_the_papers_of_a_box_selection(areas_app, browser):
    base, papers = areas_app
    tab = open_map(browser, base)
    spots = tab.evaluate(SPOTS_JS, list(papers["paper_id"]))["spots"]

    def under(box, margin=0.0):
        left, top, right, bottom = box
        return [(x, y) for x, y in spots if left - margin < x < right + margin and top - margin < y < bottom + margin]

    # The label over the most papers: a box drawn just around it selects them.
    label = max(tab.evaluate(LABEL_BOXES_JS), key=lambda label: len(under(label["box"])))
    left, top, right, bottom = label["box"]
    assert under(label["box"]), "no label lies over a paper here"
    press(tab, "Box Select")
    tab.mouse.move(left - 4, top - 4)
    tab.mouse.down()
    tab.mouse.move(right + 4, bottom + 4, steps=8)
    tab.mouse.up()
    tab.get_by_text("papers in the box or lasso").wait_for()
    tab.wait_for_timeout(600)  # the script applies on the next animation frame
    selected = under((left - 4, top - 4, right + 4, bottom + 4))
    for shown in tab.evaluate(LABEL_BOXES_JS):
        x0, y0, x1, y1 = shown["box"]
        assert not [(x, y) for x, y in selected if x0 < x < x1 and y0 < y < y1], shown["text"]
    assert label["text"] not in {shown["text"] for shown in tab.evaluate(LABEL_BOXES_JS)}
    assert not tab.errors
    tab.close()


def test_the_downloaded_map_fills_its_window(map_app, browser, tmp_path):
    _, papers = map_app
    from lib.views import exports
    from lib.views.map.figure import map_figure

    page = tmp_path / "map.html"
    notes = ["19 papers: all of them", "Coloured by subfield; labelled by topic"]
    page.write_bytes(exports.map_html(map_figure(papers, "subfield", "topic_label"), "The seed", notes))
    for width, height in ((1280, 720), (1600, 1000)):
        tab = browser.new_page(viewport={"width": width, "height": height})
        tab.goto(page.as_uri())
        tab.wait_for_selector(".js-plotly-plot .nsewdrag")
        box = tab.evaluate(
            "() => { const r = document.querySelector('.nsewdrag').getBoundingClientRect();"
            " return {bottom: r.bottom, height: r.height, width: r.width, scroll: document.documentElement.scrollHeight}; }"
        )
        assert box["bottom"] <= height and box["scroll"] <= height, box  # all on screen, nothing to scroll
        assert box["height"] >= 0.7 * height or box["width"] >= 0.6 * width, box
        tab.close()


def test_a_paper_opened_from_the_bottom_of_another_shows_from_its_top(map_app, browser):
    base, papers = map_app
    tab = browser.new_page(viewport={"width": 1280, "height": 720})
    tab.set_default_timeout(PAGE_MS)
    tab.goto(f"{base}/paper-details?paper={papers.iloc[0]['paper_id']}")
    last = tab.locator('[class*="st-key-similar-"] button').last  # the 10th most similar, far down the page
    last.scroll_into_view_if_needed()
    scrolled = tab.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollTop")
    title = last.inner_text().split(". ", 1)[1]
    last.click()
    heading = tab.locator('[data-testid="stHeading"]', has_text=title[:40]).first
    heading.wait_for()
    tab.wait_for_function("() => document.querySelector('[data-testid=\"stMain\"]').scrollTop === 0")
    box = heading.bounding_box()
    assert scrolled > 300 and 0 <= box["y"] and box["y"] + box["height"] <= 720  # the new title, in view


RANGES_JS = """() => { const gd = document.querySelector('.st-key-map-frame .js-plotly-plot');
    return gd && gd._fullLayout ? [...gd._fullLayout.xaxis.range, ...gd._fullLayout.yaxis.range] : null; }"""


def test_a_filter_zooms_to_its_papers_and_clearing_it_zooms_back(map_app, browser):
    from urllib.parse import quote

    from lib.ui_state import MAP_HEIGHT_HINT, MAP_WIDTH_HINT
    from lib.views.map.figure import plot_aspect
    from lib.views.map.ranges import view_ranges

    base, papers = map_app
    aspect = plot_aspect(MAP_WIDTH_HINT, MAP_HEIGHT_HINT)
    topic, ranges = next(
        (topic, ranges)
        for topic in sorted(papers["topic_label"].unique())
        if (ranges := view_ranges(papers[papers["topic_label"] == topic], papers, True, aspect))[2] != "map"
    )
    whole = view_ranges(papers, papers, True)
    tab = browser.new_page(viewport={"width": 1280, "height": 720})
    tab.set_default_timeout(PAGE_MS)
    tab.goto(f"{base}/?topic={quote(topic)}")
    tab.wait_for_selector(".st-key-map-frame .js-plotly-plot")
    drawn = tab.evaluate(RANGES_JS)
    assert drawn == pytest.approx(ranges[0] + ranges[1], rel=1e-4, abs=1e-4)  # the topic's papers, with a margin
    ids = list(papers.loc[papers["topic_label"] == topic, "paper_id"])
    found = tab.evaluate(SPOTS_JS, ids)
    left, top, width, height = found["plot"]
    assert len(found["spots"]) == len(ids)
    assert all(left <= x <= left + width and top <= y <= top + height for x, y in found["spots"])
    tab.get_by_role("button", name="Clear all").first.click()  # the sidebar's topic filter, cleared
    tab.wait_for_function(
        f"() => {{ const r = ({RANGES_JS})(); return r && Math.abs(r[0] - {whole[0][0]}) < 1e-3; }}", timeout=SETTLE_MS
    )
    assert tab.evaluate(RANGES_JS) == pytest.approx(whole[0] + whole[1], rel=1e-4, abs=1e-4)
    tab.close()


# Each label shown: its box's centre on the page, where its map anchor falls on the page (the box's
# centre, or the end of its leader line on the region), that anchor in map units, and the box.
LABEL_BOXES_JS = """() => {
    const gd = document.querySelector('.st-key-map-frame .js-plotly-plot'), origin = gd.getBoundingClientRect();
    const layout = gd._fullLayout, notes = gd.layout.annotations || [];
    const page = (x, y) => [origin.left + layout.xaxis._offset + layout.xaxis.l2p(x),
                            origin.top + layout.yaxis._offset + layout.yaxis.l2p(y)];
    return [...gd.querySelectorAll('g.annotation[data-index]')].filter((g) => getComputedStyle(g).opacity !== '0')
        .map((g) => {
            const note = notes[Number(g.getAttribute('data-index'))];
            const b = g.querySelector('.annotation-text-g').getBoundingClientRect();
            return {text: g.querySelector('.annotation-text-g').textContent, arrow: !!note.showarrow,
                    centre: [(b.left + b.right) / 2, (b.top + b.bottom) / 2], box: [b.left, b.top, b.right, b.bottom],
                    placed: note.showarrow ? page(note.ax, note.ay) : page(note.x, note.y), anchor: [note.x, note.y]};
        });
}"""


def zoom_by(tab, factor: float, shift: float = 0.0) -> None:
    """Zoom the map about its view's centre (`factor` < 1 in, > 1 out) and pan it by `shift` of its width."""
    tab.evaluate(
        """([factor, shift]) => { const gd = document.querySelector('.st-key-map-frame .js-plotly-plot');
        const [x0, x1] = gd._fullLayout.xaxis.range, [y0, y1] = gd._fullLayout.yaxis.range;
        const cx = (x0 + x1) / 2 + shift * (x1 - x0), cy = (y0 + y1) / 2;
        return Plotly.relayout(gd, {'xaxis.range': [cx - (x1 - x0) * factor / 2, cx + (x1 - x0) * factor / 2],
                                    'yaxis.range': [cy - (y1 - y0) * factor / 2, cy + (y1 - y0) * factor / 2]}); }""",
        [factor, shift],
    )
    tab.wait_for_timeout(600)  # the script applies on the next animation frame after the redraw


def overlapping(boxes) -> list:
    return [
        (a, b)
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
        if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
    ]


def test_labels_sit_on_their_regions_and_never_overlap_at_any_zoom(map_app, browser):
    import numpy as np

    from lib.views.map.figure import map_regions

    base, papers = map_app
    regions = {html_literal(region.label): region for region in map_regions(papers)}
    tab = open_map(browser, base)
    seen = set()
    for factor, shift in ((1.0, 0.0), (3.0, 0.0), (1.5, 0.2), (0.8, -0.1)):
        zoom_by(tab, factor, shift)
        labels = tab.evaluate(LABEL_BOXES_JS)
        assert labels or factor > 1
        assert not overlapping([label["box"] for label in labels]), (factor, shift)
        for label in labels:
            seen.add(label["text"])
            # The box is drawn where it was placed: on its region, or at its leader line's other end.
            assert np.hypot(*np.subtract(label["centre"], label["placed"])) < 3, label
            region = regions.get(label["text"])
            if region is not None:
                column, row = (
                    np.abs(region.x - label["anchor"][0]).argmin(),
                    np.abs(region.y - label["anchor"][1]).argmin(),
                )
                assert region.density[row, column] >= region.level, label
    assert seen & set(regions)  # labels of topics with regions were checked
    assert not tab.errors


def test_labels_keep_off_the_searched_papers_at_any_zoom_and_points_grow_zoomed_in(map_app, browser):
    base, papers = map_app
    tab = browser.new_page(viewport={"width": 1280, "height": 720})
    tab.set_default_timeout(PAGE_MS)
    tab.errors = []
    tab.on("pageerror", lambda error: tab.errors.append(str(error)))
    tab.goto(f"{base}/?q=learning")
    tab.wait_for_selector(".st-key-map-frame .js-plotly-plot g.annotation")
    wait_for_level(tab, "coarse")
    marked = tab.evaluate(
        "() => document.querySelector('.st-key-map-frame .js-plotly-plot').layout.meta.papermap_avoid.length"
    )
    assert marked > 0
    sizes_js = """() => document.querySelector('.st-key-map-frame .js-plotly-plot')._fullData
        .filter((t) => t.customdata && t.customdata.length).map((t) => t.marker.size)"""
    before = tab.evaluate(sizes_js)
    for factor in (1.0, 2.5, 0.4, 0.4):  # the whole map, zoomed out, back, and in 2.5 times
        zoom_by(tab, factor)
        found = tab.evaluate(SPOTS_JS, list(papers["paper_id"]))  # the searched papers lie among them
        labels = tab.evaluate(LABEL_BOXES_JS)
        marked_spots = tab.evaluate(
            """() => { const gd = document.querySelector('.st-key-map-frame .js-plotly-plot'), o = gd.getBoundingClientRect();
            return gd.layout.meta.papermap_avoid.map(([x, y]) => [o.left + gd._fullLayout.xaxis._offset + gd._fullLayout.xaxis.l2p(x),
                o.top + gd._fullLayout.yaxis._offset + gd._fullLayout.yaxis.l2p(y)]); }"""
        )
        assert found["spots"]
        for label in labels:
            left, top, right, bottom = label["box"]
            assert not [(x, y) for x, y in marked_spots if left < x < right and top < y < bottom], (factor, label)
    after = tab.evaluate(sizes_js)
    # Zoomed in 2.5 times, the points are larger; the searched ones, larger already, at least as large.
    assert all(grown > size or size >= GROWN_MAX_PX for grown, size in zip(after, before)) and after != before
    press(tab, "Reset axes")
    tab.wait_for_timeout(600)
    assert tab.evaluate(sizes_js) == before
    assert not tab.errors


def test_the_charts_script_reads_the_points_as_the_format_module_does(browser):
    """One format (lib.views.map.points): the bytes the chart's JavaScript decodes and draws by row
    are the figure `with_points` gives in Python, for a figure with rows, a mask and colour runs,
    from one part of points or from two whose rows run on (a large map's, `map_drawing`)."""
    import base64
    import json

    from test_map_points import plain, table_with_untrusted_title

    from lib.ui_state.map_chart import _POINTS_JS
    from lib.views.map.figure import map_figure
    from lib.views.map.hover import hover_labels
    from lib.views.map.points import map_points, with_points

    table = table_with_untrusted_title()
    hover = hover_labels(table)
    part = table[table["subfield"].isin(["Subfield 1", "Subfield 4"])]
    figure = map_figure(part, "subfield", context=table, highlight={"open paper": ["p1"]}, by_row=True).to_json()
    tab = browser.new_page()
    tab.set_content("<html><body></body></html>")
    for parts in ([map_points(table, hover)], [map_points(table[:7], hover), map_points(table[7:], hover)]):
        drawn = tab.evaluate(
            "async ([script, parts, figure]) => {"
            " const read = new Function(script + '; return { decodePoints, joinedPoints, withPoints };')();"
            " const decoded = await Promise.all(parts.map((bytes) =>"
            "   read.decodePoints(Uint8Array.from(atob(bytes), (c) => c.charCodeAt(0)))));"
            " const drawn = read.withPoints(JSON.parse(figure), read.joinedPoints(decoded));"
            " for (const trace of drawn.data) for (const k of ['x', 'y']) if (trace[k]) trace[k] = Array.from(trace[k]);"
            " return drawn; }",
            [_POINTS_JS, [base64.b64encode(p).decode() for p in parts], figure],
        )
        assert any("marker" in trace and isinstance(trace["marker"].get("color"), list) for trace in drawn["data"])
        assert (
            plain(drawn)
            == plain(with_points(json.loads(figure), *parts))
            == plain(with_points(json.loads(figure), map_points(table, hover)))
        )
    tab.close()
