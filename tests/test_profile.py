"""Papers for me: reading a profile (pasted text, BibTeX, paper lists) and ranking a map's papers by it."""

import doctest
import json

import numpy as np
import pandas as pd
import pytest
from conftest import PLANTED_TOPICS

import lib.stages.bibtex
import lib.views.profile
from lib.builder.pipeline import build
from lib.errors import InputError
from lib.map_folder import load_map_embeddings, read_papers
from lib.schema import analysis_texts
from lib.stages.bibtex import bib_text, parse_bibtex
from lib.stages.embed import query_embedder
from lib.views.profile import (
    MAX_PROFILE_PAPERS,
    Profile,
    ProfilePaper,
    combined,
    normalised_title,
    parse_pasted,
    profile_highlight,
    profile_notes,
    profile_scores,
    profile_table,
    rank_for_profile,
    read_profile_file,
    ring_caption,
    score_profile,
    top_for_profile,
)


def test_the_modules_examples_hold():
    for module in (lib.stages.bibtex, lib.views.profile):
        assert doctest.testmod(module).failed == 0


# Pasted text


def test_pasted_papers_are_blocks_with_the_title_first_and_the_abstract_below():
    text = (
        "Private Bandits with $\\epsilon$-Guarantees\r\nWe study private bandits.\r\nThe regret is small.\r\n"
        "   \r\n\r\n"
        "A Title Alone\n\n\n" + "We introduce FlowNet, a long abstract pasted on one line without any title. " * 5
    )
    papers = parse_pasted(text).papers
    assert [p.title for p in papers[:2]] == ["Private Bandits with ε-Guarantees", "A Title Alone"]
    assert papers[0].abstract == "We study private bandits. The regret is small."
    assert papers[1].abstract == "" and not papers[1].title_is_derived
    # One line longer than any title is an abstract, and its title is derived from it as for a map's papers.
    assert papers[2].title_is_derived and papers[2].title == "FlowNet" and papers[2].abstract.startswith("We introduce")
    assert parse_pasted("  \n\n \n").papers == ()


def test_pasted_bibtex_is_read_as_bibtex():
    profile = parse_pasted("@article{k1, title={Sparse {GNN}s}, abstract={Graphs.}}\n@misc{k2, year=2020}")
    assert profile.papers == (ProfilePaper("Sparse GNNs", "Graphs."),)
    assert profile.skipped == ("the pasted text: @misc entry k2 (line 2): has no title",)


# BibTeX


BIB = r"""
Text between entries is a comment; so is an address like me@example.org.
@string{icml = "Proceedings of the " # "International Conference on Machine Learning"}
@comment{ jabref-meta: {nothing here} }
@InProceedings{muller2024,
  author    = {M{\"u}ller, J. and Ber{\'a}rd, A.},
  title     = {{GNN}s for {O}ptimal {T}ransport: the $\epsilon$-{VAE} {\em case}},
  booktitle = icml,
  month     = jan,
  abstract  = "We ask {"}why{"} \emph{nested {braces {deep}}} matter, with Gr\"{o}bner bases and \c{c}a.",
}
@article(noTitle2023,
  author = {Nobody},
  year = 2023
)
@misc{emptyTitle, title = {  }, note = {x}}
@article{last,
  TITLE = "Stra\ss e --- a {\AA}ngstr{\"o}m study of na{\"\i}ve \v{S}koda"
}
"""


def test_bibtex_values_with_nested_braces_quotes_macros_and_accents():
    entries = parse_bibtex(BIB, "refs.bib")
    assert [(e.kind, e.key, e.line) for e in entries] == [
        ("inproceedings", "muller2024", 5),
        ("article", "noTitle2023", 12),
        ("misc", "emptyTitle", 16),
        ("article", "last", 17),
    ]
    first = entries[0].fields
    assert bib_text(first["title"]) == "GNNs for Optimal Transport: the ε-VAE case"
    assert bib_text(first["author"]) == "Müller, J. and Berárd, A."
    assert first["booktitle"] == "Proceedings of the International Conference on Machine Learning"
    assert first["month"] == "Jan"
    assert bib_text(first["abstract"]) == 'We ask "why" nested braces deep matter, with Gröbner bases and ça.'
    assert bib_text(entries[3].fields["title"]) == "Straße — a Ångström study of naïve Škoda"


def test_a_bibtex_profile_reports_entries_without_a_title():
    profile = read_profile_file(BIB.encode(), "refs.bib")
    assert [p.title for p in profile.papers] == [
        "GNNs for Optimal Transport: the ε-VAE case",
        "Straße — a Ångström study of naïve Škoda",
    ]
    assert profile.papers[0].abstract.startswith('We ask "why"')
    assert profile.skipped == (
        "refs.bib: @article entry noTitle2023 (line 12): has no title",
        "refs.bib: @misc entry emptyTitle (line 16): has an empty title",
    )


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "@article{open2024,\n title = {Never {closed}\n",
            "refs.bib: entry open2024 (line 1): the '{' of field 'title'",
        ),
        (
            "@article{a, title = {Bad {brace}, year = 2020}\n@article{b, title = {Fine}}",
            "refs.bib: entry a (line 1): it is not closed before the next entry, at line 2",
        ),
        ('@article{q1, title = "no end}', "refs.bib: entry q1 (line 1): the '\"' of field 'title', opened at line 1"),
        ("@article{eq1, title {x}}", "refs.bib: entry eq1 (line 1): field 'title' at line 1 has no '='"),
        ("@article{unended, title = {x},", "refs.bib: entry unended (line 1): it is never closed with '}'"),
        ("\n\n@book{b, title = {A}, = {x}}", "refs.bib: entry b (line 3): unexpected '='"),
    ],
)
def test_malformed_bibtex_is_one_error_naming_the_file_and_the_entry(text, message):
    with pytest.raises(InputError) as error:
        read_profile_file(text.encode(), "refs.bib")
    assert str(error.value).startswith(message)


def test_a_bib_file_without_an_entry_is_an_error():
    with pytest.raises(InputError, match="refs.bib: no BibTeX entry"):
        read_profile_file(b"@comment{only a comment}\n", "refs.bib")


# Paper-list files


def test_a_paper_list_file_gives_its_titles_and_abstracts_and_reports_what_it_skipped():
    records = [
        {"title": "Diffusion for Tables", "abstract": "We denoise tables."},
        {"abstract": "We introduce ScoreNet, a score model."},
        {"author": "no text at all"},
    ]
    profile = read_profile_file(json.dumps(records).encode(), "mine.json")
    assert profile.papers == (
        ProfilePaper("Diffusion for Tables", "We denoise tables."),
        ProfilePaper("ScoreNet", "We introduce ScoreNet, a score model.", title_is_derived=True),
    )
    assert profile.skipped == ("mine.json: record 3: has neither a title nor an abstract",)
    csv = read_profile_file(b"title,abstract\nA CSV Title,Its abstract.\n", "mine.csv")
    assert csv.papers == (ProfilePaper("A CSV Title", "Its abstract."),)


def test_a_text_file_reads_as_pasted_text():
    assert read_profile_file("Title One\nAbstract one.\n\nTitle Two\n".encode("utf-8-sig"), "mine.txt") == (
        parse_pasted("Title One\nAbstract one.\n\nTitle Two")
    )


@pytest.mark.parametrize(
    "raw, message",
    [
        (b"  \n", "mine.txt: the file is empty"),
        (b"Caf\xe9 title\n", "mine.txt: not valid UTF-8 text"),
        (b'[{"title": "x"', "mine.txt: invalid JSON"),
    ],
)
def test_an_unreadable_file_is_one_error_naming_it(raw, message):
    with pytest.raises(InputError, match=message):
        read_profile_file(raw, "../../mine.txt")


def test_a_profile_has_at_most_its_limit_of_papers():
    many = "\n\n".join(f"Paper {n}" for n in range(MAX_PROFILE_PAPERS + 1))
    with pytest.raises(InputError, match=f"{MAX_PROFILE_PAPERS + 1:,} papers"):
        parse_pasted(many)
    half = parse_pasted("\n\n".join(f"Paper {n}" for n in range(MAX_PROFILE_PAPERS // 2 + 1)))
    with pytest.raises(InputError, match="your papers: "):
        combined(half, half)
    assert combined(parse_pasted("A"), Profile((), ("x.bib: entry k: has no title",))) == Profile(
        (ProfilePaper("A"),), ("x.bib: entry k: has no title",)
    )


def test_normalised_titles_ignore_case_accents_punctuation_and_spacing():
    assert normalised_title("Bayésian  GNNs:   A Study!") == "bayesian gnns a study"
    assert normalised_title("ε-VAE") == normalised_title("Ε VAE")
    assert normalised_title("GNNs for graphs") != normalised_title("GNN for graphs")


# Ranking


@pytest.fixture(scope="module")
def planted_map(planted_module_data):
    """The planted map built with the default TF-IDF + SVD embedder: papers, vectors, query model."""
    folder = planted_module_data.parent
    build(planted_module_data, out_dir=folder / "map", cache_dir=folder / "cache")
    embeddings = load_map_embeddings(folder / "map")
    return read_papers(folder / "map" / "papers.parquet"), embeddings.vectors, embeddings.query_model


def ranked(planted_map, profile, k=20, among=None):
    papers, vectors, query_model = planted_map
    return rank_for_profile(papers, vectors, query_embedder(query_model), profile, k, among, query_model)


def test_a_map_papers_own_text_ranks_its_topic_first_and_leaves_the_paper_out(planted_map):
    papers = planted_map[0]
    paper = papers[papers["paper_id"] == "privacy-3"].iloc[0]
    profile = parse_pasted(f"{paper['title'].upper()}\n{paper['abstract']}")  # its title, as typed in capitals
    top = ranked(planted_map, profile, k=11)
    assert "privacy-3" not in set(top["paper_id"])
    assert list(top["primary_area"]) == ["privacy"] * 11  # the other 11 papers of its planted topic
    assert top["similarity"].is_monotonic_decreasing and top["similarity"].between(0, 1 + 1e-6).all()
    assert set(top["nearest"]) == {profile.papers[0].title}
    # Its own vector is the map's, so the ranking is that paper's own most similar papers.
    vectors = planted_map[1]
    row = int(np.flatnonzero(papers["paper_id"] == "privacy-3")[0])
    cosines = vectors @ vectors[row]
    assert np.allclose(top["similarity"], np.sort(np.delete(cosines, row))[::-1][:11], atol=1e-5)
    scores = profile_scores(papers, vectors, query_embedder(planted_map[2]), profile)
    assert scores.own == ("privacy-3",) and scores.unmatched == ()


def test_two_lines_of_work_each_keep_their_neighbours_and_name_the_paper_they_are_near(planted_map):
    privacy = " ".join(PLANTED_TOPICS["privacy"])
    bandits = " ".join(PLANTED_TOPICS["bandits"])
    profile = parse_pasted(f"My privacy paper\n{privacy}\n\nMy bandits paper\n{bandits}")
    top = ranked(planted_map, profile, k=24)
    assert set(top["primary_area"]) == {"privacy", "bandits"}  # no diffusion paper among the 24 nearest
    for area, nearest in zip(top["primary_area"], top["nearest"]):
        assert nearest == f"My {area} paper"
    assert all("rests on" in reason for reason in top["reason"])  # a TF-IDF map names the terms
    assert any("shares" in reason for reason in top["reason"])  # and keyphrases both use


def test_the_ranking_is_deterministic_and_keeps_to_the_papers_in_view(planted_map):
    profile = parse_pasted("differential privacy budget\n\nscore matching diffusion")
    first, again = ranked(planted_map, profile), ranked(planted_map, profile)
    pd.testing.assert_frame_equal(first, again)
    in_view = [f"diffusion-{n}" for n in range(0, 12, 2)]
    kept = ranked(planted_map, profile, k=50, among=in_view)
    assert sorted(kept["paper_id"]) == sorted(in_view)
    whole = ranked(planted_map, profile, k=50)
    assert list(kept["paper_id"]) == [p for p in whole["paper_id"] if p in in_view]  # same order


def test_a_profile_paper_with_no_word_of_the_map_ranks_nothing_and_is_named(planted_map):
    papers, vectors, query_model = planted_map
    profile = parse_pasted("Zyxxy quorble\n\nmulti-armed bandits regret bound")
    scores = profile_scores(papers, vectors, query_embedder(query_model), profile)
    assert scores.unmatched == ("Zyxxy quorble",)
    assert set(scores.ranking["nearest"]) == {1}
    top = top_for_profile(papers, scores, profile, k=5)
    notes = profile_notes(profile, scores, top)
    assert notes[0] == "5 papers in view nearest your 2 papers, best first."
    assert notes[-1] == "No word of these is on this map, so they rank nothing: Zyxxy quorble."
    nothing = parse_pasted("zyxxy quorble")
    assert ranked(planted_map, nothing).empty


def test_scores_take_the_largest_cosine_and_the_first_profile_paper_on_a_tie():
    papers = pd.DataFrame({"paper_id": list("abcd"), "title": ["A", "B", "C", "Mine"]})
    vectors = np.array([[1, 0], [0.6, 0.8], [0, 1], [0.8, 0.6]], dtype=np.float32)
    profile = Profile((ProfilePaper("mine"), ProfilePaper("other"), ProfilePaper("same as other")))
    profile_vectors = np.array([[1, 0], [0, 1], [0, 1]], dtype=np.float32)
    scores = score_profile(papers, vectors, profile_vectors, profile)
    assert scores.own == ("d",)  # "Mine" is the profile's "mine"
    assert list(scores.ranking["row"]) == [0, 2, 1]  # c (1.0) ties a and stays after it, in map order
    assert list(scores.ranking["similarity"]) == pytest.approx([1.0, 1.0, 0.8])
    assert list(scores.ranking["nearest"]) == [0, 1, 1]  # c and b: "other", not the tied "same as other"
    with pytest.raises(ValueError, match="2 profile vectors for 3 profile papers"):
        score_profile(papers, vectors, profile_vectors[:2], profile)


def test_the_table_and_the_rings_of_a_ranking(planted_map):
    profile = parse_pasted("multi-armed bandits regret bound")
    top = ranked(planted_map, profile, k=5)
    table = profile_table(top)
    assert list(table.columns[:5]) == ["rank", "similarity", "title", "why", "nearest"]
    assert list(table["rank"]) == [1, 2, 3, 4, 5] and list(table["title"]) == list(top["title"])
    assert list(profile_highlight(top, ())) == ["nearest your papers"]
    # The page's map has no legend: the caption names the rings in the colours map_figure gives them.
    assert ring_caption(top, ()) == "Ringed in gold: the 5 papers nearest yours. Hover a point for its title."
    assert "; in magenta: your own 2 papers on this map." in ring_caption(top, ("a", "b"))
    rings = profile_highlight(top, ("bandits-0",))
    assert list(rings["your papers"]) == ["bandits-0"] and list(rings["nearest your papers"]) == list(top["paper_id"])


def test_profile_papers_are_embedded_as_the_maps_papers_are():
    paper = ProfilePaper("A Title", "An abstract.")
    derived = ProfilePaper("Derived", "We introduce Derived.", title_is_derived=True)
    frame = pd.DataFrame({"title": ["A Title", "Derived"], "title_is_derived": [False, True]})
    frame["abstract"] = ["An abstract.", "We introduce Derived."]
    assert lib.views.profile.profile_texts(Profile((paper, derived))) == analysis_texts(frame)
