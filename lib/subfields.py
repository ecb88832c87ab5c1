"""Taxonomy files and the scorer that files each paper under its best-fitting subfield.

A taxonomy is YAML or JSON of one shape::

    {"name": "...", "description": "...",
     "subfields": [{"name": "...", "description": "...", "terms": ["..."], "children": [...]}]}

`terms` and `children` are optional; children have the same shape, to any depth.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml
from sklearn.feature_extraction.text import TfidfVectorizer

from .errors import ParameterError, TaxonomyError
from .keywords import candidate_phrases

# Part of this stage's cache key: bump it when a change alters what the stage outputs.
VERSION = 1

UNASSIGNED = "Unassigned"


@dataclass(frozen=True)
class Entry:
    """One node of a taxonomy; `parent` is None for a top-level area."""

    name: str
    description: str
    terms: tuple[str, ...]
    parent: str | None
    depth: int

    @property
    def text(self) -> str:
        # Terms twice: they are the author's strongest hint, descriptions are prose.
        return " . ".join([self.name, self.description, *self.terms, *self.terms])


@dataclass(frozen=True)
class Taxonomy:
    name: str
    entries: tuple[Entry, ...]

    def children(self, parent: str | None) -> list[Entry]:
        return [e for e in self.entries if e.parent == parent]


def load_taxonomy(path: str | Path) -> Taxonomy:
    """Read and validate a taxonomy file; raises `TaxonomyError` naming the file and the problem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise TaxonomyError(f"{path}: no such taxonomy file") from None
    except OSError as error:
        raise TaxonomyError(f"{path}: cannot read taxonomy ({error.strerror})") from None
    except UnicodeDecodeError:
        raise TaxonomyError(f"{path}: taxonomy is not UTF-8 text") from None
    try:
        data = json.loads(text) if path.suffix.lower() == ".json" else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as error:
        raise TaxonomyError(f"{path}: not valid {'JSON' if path.suffix.lower() == '.json' else 'YAML'} ({error})".replace("\n", " ")) from None
    return parse_taxonomy(data, str(path))


def parse_taxonomy(data: Any, source: str = "taxonomy") -> Taxonomy:
    """Validate the documented shape and flatten it into entries, parents before children."""
    if not isinstance(data, dict) or not isinstance(data.get("subfields"), list) or not data["subfields"]:
        raise TaxonomyError(f"{source}: expected a mapping with a non-empty 'subfields' list")
    entries: list[Entry] = []
    seen: set[str] = set()

    def walk(items: list[Any], parent: str | None, where: str, depth: int) -> None:
        for n, item in enumerate(items, 1):
            place = f"{where}[{n}]"
            if not isinstance(item, dict) or not isinstance(item.get("name"), str) or not item["name"].strip():
                raise TaxonomyError(f"{source}: {place} needs a 'name' string")
            name = item["name"].strip()
            if name in seen or name == UNASSIGNED:
                raise TaxonomyError(f"{source}: {place}: the name {name!r} is used twice or reserved")
            terms = item.get("terms", [])
            children = item.get("children", [])
            if not isinstance(terms, list) or not all(isinstance(t, str) for t in terms):
                raise TaxonomyError(f"{source}: {place} ({name}): 'terms' must be a list of strings")
            if not isinstance(children, list):
                raise TaxonomyError(f"{source}: {place} ({name}): 'children' must be a list")
            seen.add(name)
            entries.append(Entry(name, str(item.get("description") or ""), tuple(terms), parent, depth))
            walk(children, name, f"{place}.children", depth + 1)

    walk(data["subfields"], None, "subfields", 0)
    return Taxonomy(str(data.get("name") or source), tuple(entries))


def assign_subfields(texts: Sequence[str], taxonomy: Taxonomy, min_score: float = 0.03) -> pd.DataFrame:
    """File each text under an area and its finest confident subfield.

    Scores are TF-IDF cosine similarities between the paper and each entry's name, description and
    terms; an entry scores at least as well as its best descendant. The walk goes down from the
    best area to the best child while that child scores at least `min_score`.

    Returns columns `area`, `subfield`, `subfield_score`, one row per text.
    """
    if not 0 <= min_score < 1:
        raise ParameterError(f"min_score must be in [0, 1); got {min_score}")
    entries = taxonomy.entries
    vectorizer = TfidfVectorizer(analyzer=candidate_phrases, sublinear_tf=True)
    # Fit on papers and entries together so that IDF reflects this corpus's own vocabulary.
    matrix = vectorizer.fit_transform(list(texts) + [e.text for e in entries])
    scores = (matrix[: len(texts)] @ matrix[len(texts) :].T).toarray()
    column = {e.name: i for i, e in enumerate(entries)}
    # An entry fits as well as its best-fitting descendant: an area with many varied children
    # would be diluted if its words were pooled into one vector. Children come after parents.
    for entry in reversed(entries):
        if entry.parent is not None:
            parent = column[entry.parent]
            scores[:, parent] = np.maximum(scores[:, parent], scores[:, column[entry.name]])
    areas = [column[e.name] for e in taxonomy.children(None)]

    rows = []
    for paper_scores in scores:
        best = max(areas, key=lambda i: (paper_scores[i], -i))
        if paper_scores[best] <= 0:
            rows.append((UNASSIGNED, UNASSIGNED, 0.0))
            continue
        area, chosen = entries[best].name, best
        while children := [column[c.name] for c in taxonomy.children(entries[chosen].name)]:
            child = max(children, key=lambda i: (paper_scores[i], -i))
            if paper_scores[child] < min_score:
                break
            chosen = child
        rows.append((area, entries[chosen].name, float(np.clip(paper_scores[chosen], 0.0, 1.0))))
    return pd.DataFrame(rows, columns=["area", "subfield", "subfield_score"]).astype(
        {"area": "str", "subfield": "str", "subfield_score": "float64"}
    )
