"""Papers for me: a reader's own papers (pasted, BibTeX or any paper list) and the map's papers ranked by them.

A profile is read from pasted text (papers separated by blank lines; a paper's first line is its
title, the rest its abstract; a line alone is a title, a long one an abstract), from BibTeX (its
entries' titles and abstracts, `lib.stages.bibtex`) or from any paper list the readers read
(`lib.stages.load`). Every paper that cannot be used is reported with its reason, never lost.

Each profile paper is embedded with the map's own query model, as the map's "similar to this text"
search embeds a text, and each map paper is scored by its largest cosine to any profile paper. The
largest, not the mean: a reader's papers often span two or three lines of work, and the mean of
their vectors points between them, at papers in none; the largest keeps each line of work's own
neighbours, and names the profile paper a map paper is nearest to, which is the explanation shown.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from lib.errors import InputError
from lib.neighbours import cosine_similarity
from lib.schema import analysis_texts
from lib.stages.bibtex import bib_text, looks_like_bibtex, parse_bibtex
from lib.stages.embed import QueryEmbedder, TfidfSvdModel
from lib.stages.latex import readable
from lib.stages.load import papers_from_bytes
from lib.stages.readers import detect_format
from lib.stages.report import RecordIssue
from lib.stages.titles import derive_title
from lib.views.map.traces import HIGHLIGHT_COLOURS
from lib.views.tables import paper_table

MAX_PROFILE_PAPERS = 500  # one's own papers; a whole conference's list is not a profile
MAX_TITLE_LINE = 300  # a pasted line longer than this is an abstract, not a title
PASTED = "the pasted text"


@dataclass(frozen=True)
class ProfilePaper:
    """One paper of a profile: its title (derived from the abstract when it had none) and abstract."""

    title: str
    abstract: str = ""
    title_is_derived: bool = False


@dataclass(frozen=True)
class Profile:
    """A reader's papers, and a line for each record of their source that could not be used, with why
    (`x.bib: @misc entry smith2024 (line 3): has no title`)."""

    papers: tuple[ProfilePaper, ...] = ()
    skipped: tuple[str, ...] = ()


def combined(*profiles: Profile) -> Profile:
    """One profile of the papers of `profiles` (pasted and uploaded), in order; `InputError` past
    `MAX_PROFILE_PAPERS` papers."""
    together = Profile(
        tuple(p for profile in profiles for p in profile.papers),
        tuple(s for profile in profiles for s in profile.skipped),
    )
    return _checked(together, "your papers")


def _paper(title: str, abstract: str) -> ProfilePaper | None:
    title, abstract = _clean(readable(title)), _clean(readable(abstract))
    if title:
        return ProfilePaper(title, abstract)
    if abstract:
        return ProfilePaper(derive_title(abstract), abstract, title_is_derived=True)
    return None


def _clean(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text).split())


def parse_pasted(text: str, source: str = PASTED) -> Profile:
    """The papers of pasted text: BibTeX when it holds entries (`parse_bibtex_profile`), else one
    paper per blank-line-separated block, its first line the title and the rest the abstract; a
    block of one line is a title alone, unless longer than `MAX_TITLE_LINE` (then an abstract)."""
    if looks_like_bibtex(text):
        return parse_bibtex_profile(text, source)
    papers = []
    for block in re.split(r"\n[ \t]*\n", text.replace("\r\n", "\n").replace("\r", "\n")):
        lines = [line.strip() for line in block.split("\n") if line.strip()]
        if not lines:
            continue
        if len(lines) == 1 and len(lines[0]) > MAX_TITLE_LINE:
            paper = _paper("", lines[0])
        else:
            paper = _paper(lines[0], " ".join(lines[1:]))
        if paper is not None:
            papers.append(paper)
    return _checked(Profile(tuple(papers)), source)


def parse_bibtex_profile(text: str, source: str) -> Profile:
    """The papers of a BibTeX file: each entry's title and abstract (`lib.stages.bibtex`). An entry
    without a title is skipped and reported; a file that is not BibTeX raises `InputError`."""
    papers, skipped = [], []
    for entry in parse_bibtex(text, source):
        title = bib_text(entry.fields.get("title", ""))
        if not title:
            reason = "has an empty title" if "title" in entry.fields else "has no title"
            skipped.append(RecordIssue(f"@{entry.kind} {entry.label}", reason).line(source))
            continue
        papers.append(ProfilePaper(title, bib_text(entry.fields.get("abstract", ""))))
    if not papers and not skipped:
        raise InputError(f"{source}: no BibTeX entry (@article{{...}}, @inproceedings{{...}}) found")
    return _checked(Profile(tuple(papers), tuple(skipped)), source)


def read_profile_file(raw: bytes, file_name: str) -> Profile:
    """The papers of an uploaded file, read by its content: BibTeX, plain text as pasted text is
    read (`parse_pasted`), or any paper list format of `lib.stages.readers` (its skipped records
    reported). Raises `InputError` naming the file when it cannot be read at all."""
    name = Path(file_name).name or "the file"
    if not raw.strip():
        raise InputError(f"{name}: the file is empty")
    if detect_format(raw) == "text":
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise InputError(f"{name}: not valid UTF-8 text (byte offset {error.start}); save it as UTF-8") from None
        return parse_pasted(text, name)
    result = papers_from_bytes(raw, Path(name))
    papers = tuple(
        ProfilePaper(title, abstract, bool(derived))
        for title, abstract, derived in zip(
            result.papers["title"], result.papers["abstract"], result.papers["title_is_derived"]
        )
    )
    return _checked(Profile(papers, tuple(issue.line(name) for issue in result.report.skipped)), name)


def _checked(profile: Profile, source: str) -> Profile:
    if len(profile.papers) > MAX_PROFILE_PAPERS:
        raise InputError(
            f"{source}: {len(profile.papers):,} papers; a profile is one's own papers, at most "
            f"{MAX_PROFILE_PAPERS} of them"
        )
    return profile


def normalised_title(title: str) -> str:
    """A title as compared to find a profile's own papers on the map: accents, case, punctuation
    and spacing ignored.

    >>> normalised_title("  Bayésian  GNNs: a Study ") == normalised_title("bayesian gnns - A STUDY")
    True
    """
    decomposed = unicodedata.normalize("NFKD", title)
    letters = "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
    return " ".join(re.findall(r"\w+", letters))


def profile_texts(profile: Profile) -> list[str]:
    """The text each profile paper is embedded by: what `lib.schema.analysis_texts` makes of a map paper."""
    frame = pd.DataFrame(
        {
            "title": [p.title for p in profile.papers],
            "title_is_derived": [p.title_is_derived for p in profile.papers],
            "abstract": [p.abstract for p in profile.papers],
        }
    )
    return analysis_texts(frame)


@dataclass(frozen=True)
class ProfileScores:
    """Every paper of a map scored against a profile.

    ranking: columns `row` (a row of the papers), `similarity` (the largest cosine to a profile
    paper) and `nearest` (that profile paper's index), best first, ties in map order; the profile's
    own papers and papers sharing nothing with it (similarity 0 or less) left out.
    own: ids of the map's papers that are the profile's own (same `normalised_title`), in map order.
    unmatched: titles of profile papers with no word the map knows (their vector is zero).
    """

    ranking: pd.DataFrame
    own: tuple[str, ...]
    unmatched: tuple[str, ...]


def score_profile(
    papers: pd.DataFrame, vectors: np.ndarray, profile_vectors: np.ndarray, profile: Profile
) -> ProfileScores:
    """`ProfileScores` of `papers` (rows aligned with `vectors`, L2-normalised) against the profile
    papers' vectors (`profile_vectors`, one row per `profile.papers`, in the map's space)."""
    if len(profile_vectors) != len(profile.papers):
        raise ValueError(f"{len(profile_vectors)} profile vectors for {len(profile.papers)} profile papers")
    best = np.zeros(len(vectors))
    nearest = np.full(len(vectors), -1, dtype=np.int64)
    for index, vector in enumerate(profile_vectors):
        scores = cosine_similarity(vectors, vector)
        better = scores > best  # strictly: on a tie the earlier profile paper stays the nearest
        best[better], nearest[better] = scores[better], index
    mine = {normalised_title(p.title) for p in profile.papers}
    own = np.array([normalised_title(t) in mine for t in papers["title"]], dtype=bool)
    keep = ~own & (best > 0)
    order = np.argsort(-best, kind="stable")
    order = order[keep[order]]
    ranking = pd.DataFrame({"row": order.astype(np.int64), "similarity": best[order], "nearest": nearest[order]})
    unmatched = tuple(p.title for p, v in zip(profile.papers, profile_vectors) if not np.any(v))
    return ProfileScores(ranking, tuple(papers["paper_id"][own]), unmatched)


def top_for_profile(
    papers: pd.DataFrame,
    scores: ProfileScores,
    profile: Profile,
    k: int = 20,
    among: Collection[str] | pd.Series | None = None,
    query_model: Mapping[str, np.ndarray] | None = None,
) -> pd.DataFrame:
    """The `k` best papers of `scores` (only those whose id is in `among`, when given), best first:
    rows of `papers` with `similarity`, `nearest` (the title of the profile paper it is nearest to)
    and `reason` (`profile_reasons`) columns."""
    if k < 1:
        raise ValueError(f"k must be at least 1; got {k}")
    ranking = scores.ranking
    if among is not None:
        ranking = ranking[papers["paper_id"].iloc[ranking["row"]].isin(set(among)).to_numpy()]
    ranking = ranking.head(k)
    ranked = papers.iloc[ranking["row"].to_numpy()].reset_index(drop=True)
    nearest = ranking["nearest"].to_numpy()
    return ranked.assign(
        similarity=ranking["similarity"].to_numpy(),
        nearest=[profile.papers[i].title for i in nearest],
        reason=profile_reasons(ranked, nearest, profile, query_model, whole_map=papers),
    )


def profile_reasons(
    ranked: pd.DataFrame,
    nearest: Sequence[int],
    profile: Profile,
    query_model: Mapping[str, np.ndarray] | None = None,
    whole_map: pd.DataFrame | None = None,
) -> list[str]:
    """Why each of `ranked` (rows of the papers table) is near the profile paper `nearest` names,
    one line each: its keyphrases that the profile paper's text uses, and, on a TF-IDF map, the
    terms of the profile paper its cosine rests on most (`TfidfSvdModel.shared_terms`), the map's
    papers read as `analysis_texts` reads them in `whole_map`, the table `ranked` comes from."""
    texts = profile_texts(profile)
    terms: list[list[str]] = [[] for _ in range(len(ranked))]
    if query_model is not None and str(query_model.get("embedder", "")) == "tfidf-svd" and "terms" in query_model:
        model = TfidfSvdModel.from_arrays(query_model)
        paper_texts = analysis_texts(ranked, whole_map)
        for index in sorted(set(nearest)):
            rows = [n for n, i in enumerate(nearest) if i == index]
            for row, found in zip(rows, model.shared_terms(texts[index], [paper_texts[r] for r in rows])):
                terms[row] = found
    reasons = []
    for keywords, index, rests_on in zip(ranked["keywords"], nearest, terms):
        mine = f" {normalised_title(texts[index])} "
        shared = [k for k in keywords if f" {normalised_title(k)} " in mine][:3]
        parts = [f"shares {', '.join(shared)}" if shared else "", f"rests on {', '.join(rests_on)}" if rests_on else ""]
        reasons.append("; ".join(part for part in parts if part))
    return reasons


def rank_for_profile(
    papers: pd.DataFrame,
    vectors: np.ndarray,
    embedder: QueryEmbedder,
    profile: Profile,
    k: int = 20,
    among: Collection[str] | pd.Series | None = None,
    query_model: Mapping[str, np.ndarray] | None = None,
) -> pd.DataFrame:
    """The `k` papers of the map nearest the profile (see `score_profile`, `top_for_profile`), the
    profile papers embedded by `embedder`, the map's query model (`lib.stages.embed.query_embedder`)."""
    return top_for_profile(papers, profile_scores(papers, vectors, embedder, profile), profile, k, among, query_model)


def profile_scores(
    papers: pd.DataFrame, vectors: np.ndarray, embedder: QueryEmbedder, profile: Profile
) -> ProfileScores:
    """`score_profile` with the profile papers embedded by `embedder` (the map's query model)."""
    profile_vectors = embedder.embed(profile_texts(profile)) if profile.papers else np.zeros((0, vectors.shape[1]))
    return score_profile(papers, vectors, np.asarray(profile_vectors), profile)


def profile_table(ranked: pd.DataFrame) -> pd.DataFrame:
    """Display rows of `top_for_profile`'s papers: rank, similarity, title, why it is near and the
    nearest of the reader's papers, then link, authors, subfield and topic (`paper_table`'s)."""
    table = paper_table(ranked).drop(columns=["keywords"])
    table.insert(0, "rank", np.arange(1, len(ranked) + 1))
    at = table.columns.get_loc("title") + 1
    table.insert(at, "why", ranked["reason"].to_numpy())
    table.insert(at + 1, "nearest", ranked["nearest"].to_numpy())
    return table


def profile_highlight(ranked: pd.DataFrame, own: Collection[str]) -> dict[str, Collection[str]]:
    """The `highlight` of `lib.views.map.figure.map_figure`: the ranked papers, and the reader's own
    papers when the map holds them."""
    highlight: dict[str, Collection[str]] = {"nearest your papers": ranked["paper_id"]}
    if own:
        highlight["your papers"] = list(own)
    return highlight


def profile_notes(profile: Profile, scores: ProfileScores, ranked: pd.DataFrame) -> list[str]:
    """What the page says about a ranking, in plain sentences: what it is ranked by, the reader's own
    papers found on the map (left out of it), and the profile papers that share no word with the map."""
    count = len(profile.papers)
    notes = [f"{len(ranked)} papers in view nearest your {count} paper{'' if count == 1 else 's'}, best first."]
    if scores.own:
        own = len(scores.own)
        notes.append(
            f"{own} of the map's papers {'is' if own == 1 else 'are'} yours by title: ringed as your papers "
            "and left out of the ranking."
        )
    if scores.unmatched:
        notes.append(f"No word of these is on this map, so they rank nothing: {'; '.join(scores.unmatched)}.")
    return notes


_COLOUR_NAMES = {"#FFD700": "gold", "#FF2D95": "magenta"}


def ring_caption(ranked: pd.DataFrame, own: Collection[str]) -> str:
    """What the rings of `profile_highlight` mean, for a map drawn without its legend: plain text."""
    colours = [_COLOUR_NAMES.get(c, c) for c in HIGHLIGHT_COLOURS]
    text = f"Ringed in {colours[0]}: the {len(ranked)} papers nearest yours"
    if own:
        text += f"; in {colours[1]}: your own {'paper' if len(own) == 1 else f'{len(own)} papers'} on this map"
    return text + ". Hover a point for its title."
