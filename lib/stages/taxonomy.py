"""Taxonomy files: reading, validating and flattening a tree of subfields.

A taxonomy is YAML or JSON of one shape::

    {"name": "...", "description": "...",
     "subfields": [{"name": "...", "description": "...", "terms": ["..."], "children": [...]}]}

`terms` and `children` are optional; children have the same shape, to any depth.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from lib.errors import TaxonomyError, read_error

# The area and subfield of a paper that fits no entry; no entry may take this name.
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
    except (OSError, UnicodeDecodeError) as error:
        raise TaxonomyError(read_error(path, error, "taxonomy")) from None
    try:
        data = json.loads(text) if path.suffix.lower() == ".json" else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as error:
        raise TaxonomyError(
            f"{path}: not valid {'JSON' if path.suffix.lower() == '.json' else 'YAML'} ({error})".replace("\n", " ")
        ) from None
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
