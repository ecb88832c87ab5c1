"""Taxonomy files: reading, validating and flattening a tree of subfields.

A taxonomy is YAML or JSON of one shape::

    {"name": "...", "description": "...",
     "subfields": [{"name": "...", "description": "...", "terms": ["..."], "children": [...]}]}

`terms` and `children` are optional; children have the same shape, nested at most
`taxonomy_depth` levels (`lib.limits`). A file is at most `taxonomy_bytes` long with at most
`taxonomy_entries` entries, and YAML aliases (`*name`) are refused: a few lines of them can stand
for billions of entries.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from lib.errors import TaxonomyError, read_error
from lib.limits import limits

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


class _PlainYamlLoader(yaml.SafeLoader):
    """YAML without aliases, nested at most `max_nesting` collections deep."""

    max_nesting = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise TaxonomyError(f"line {mark.line + 1}: YAML aliases (*name) are not allowed in a taxonomy")
        self._nesting = getattr(self, "_nesting", 0) + 1
        try:
            if self._nesting > self.max_nesting:
                mark = self.peek_event().start_mark
                raise TaxonomyError(
                    f"line {mark.line + 1}: nested too deeply (entries nest at most {limits().taxonomy_depth} levels)"
                )
            return super().compose_node(parent, index)
        finally:
            self._nesting -= 1


def load_taxonomy(path: str | Path) -> Taxonomy:
    """Read and validate a taxonomy file; raises `TaxonomyError` naming the file and the problem."""
    path = Path(path)
    bound = limits()
    try:
        if path.stat().st_size > bound.taxonomy_bytes:
            raise TaxonomyError(
                f"{path}: {path.stat().st_size:,} bytes, over the {bound.taxonomy_bytes:,} a taxonomy may have "
                "(PAPERMAP_LIMIT_TAXONOMY_BYTES)"
            )
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise TaxonomyError(read_error(path, error, "taxonomy")) from None
    is_json = path.suffix.lower() == ".json"
    # An entry is a mapping in a list in a mapping: three collections a level, and the top mapping.
    loader = type("Loader", (_PlainYamlLoader,), {"max_nesting": 3 * bound.taxonomy_depth + 1})
    try:
        data = json.loads(text) if is_json else yaml.load(text, Loader=loader)
    except (ValueError, yaml.YAMLError) as error:
        raise TaxonomyError(f"{path}: not valid {'JSON' if is_json else 'YAML'} ({error})".replace("\n", " ")) from None
    except TaxonomyError as error:
        raise TaxonomyError(f"{path}: {error}") from None
    except RecursionError:
        raise TaxonomyError(f"{path}: nested too deeply (entries nest at most {bound.taxonomy_depth} levels)") from None
    return parse_taxonomy(data, str(path))


def parse_taxonomy(data: Any, source: str = "taxonomy") -> Taxonomy:
    """Validate the documented shape and flatten it into entries, parents before children."""
    if not isinstance(data, dict) or not isinstance(data.get("subfields"), list) or not data["subfields"]:
        raise TaxonomyError(f"{source}: expected a mapping with a non-empty 'subfields' list")
    entries: list[Entry] = []
    seen: set[str] = set()
    bound = limits()

    def walk(items: list[Any], parent: str | None, where: str, depth: int) -> None:
        if depth >= bound.taxonomy_depth:
            raise TaxonomyError(
                f"{source}: {where}: nested too deeply (entries nest at most {bound.taxonomy_depth} levels, "
                "PAPERMAP_LIMIT_TAXONOMY_DEPTH)"
            )
        for n, item in enumerate(items, 1):
            place = f"{where}[{n}]"
            if len(entries) >= bound.taxonomy_entries:
                raise TaxonomyError(
                    f"{source}: {place}: more than {bound.taxonomy_entries:,} entries (PAPERMAP_LIMIT_TAXONOMY_ENTRIES)"
                )
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
