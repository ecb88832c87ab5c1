"""A synthetic paper list of any size, made reproducibly from the scale corpus, for bench/cluster.py.

    python bench/synthetic_corpus.py OUT.json [--papers 1000000] [--seed 0] [--data-dir ../shared/data]

Paper j keeps the title, authors and venue of a base paper (the corpus in a seeded order, taken
round and round) and its abstract's first sentence, which mostly says what the paper is about;
each later sentence is the base's own or, with probability `MIX`, a sentence drawn from another paper
of the same venue. So the vocabulary is the corpus's, each venue's subjects stay its own, and no
two papers' abstracts are the same. Ids are `<venue>:synthetic-<j>`. Written a record at a time:
the list is never held whole in memory.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path

DEFAULT_DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "data"
CORPUS_FILE = "scale_corpus.json"
MIX = 0.5  # the share of a synthetic abstract's later sentences taken from other papers of its venue
# A sentence ends at . ! or ? followed by a space and a capital letter (not at "e.g. the" or "Fig. 3").
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def sentences(abstract: str) -> list[str]:
    """`abstract` cut into its sentences."""
    return [part for part in SENTENCE_END.split(abstract.strip()) if part]


def synthetic_records(corpus: list[dict], n: int, seed: int = 0) -> Iterator[dict]:
    """`n` synthetic paper records made from `corpus` (records with title, abstract, author, venue)."""
    rng = random.Random(seed)
    bases = [record for record in corpus if record.get("abstract", "").strip()]
    rng.shuffle(bases)
    pools: dict[str, list[str]] = {}
    for record in bases:
        pools.setdefault(record["venue"], []).extend(sentences(record["abstract"]))
    for j in range(n):
        base = bases[j % len(bases)]
        own, pool = sentences(base["abstract"]), pools[base["venue"]]
        mixed = own[:1] + [rng.choice(pool) if rng.random() < MIX else sentence for sentence in own[1:]]
        yield {
            "id": f"{base['venue']}:synthetic-{j}",
            "title": base["title"],
            "author": base.get("author", ""),
            "abstract": " ".join(mixed),
            "venue": base["venue"],
        }


def write_corpus(out: Path, n: int, seed: int = 0, data_dir: Path = DEFAULT_DATA_DIR) -> Path:
    """Write `n` synthetic records to `out` as one JSON list, a record at a time; returns `out`."""
    corpus = json.loads((data_dir / CORPUS_FILE).read_text(encoding="utf-8"))
    partial = out.with_name(out.name + ".partial")
    with partial.open("w", encoding="utf-8") as stream:
        stream.write("[")
        for j, record in enumerate(synthetic_records(corpus, n, seed)):
            stream.write(("," if j else "") + "\n" + json.dumps(record, ensure_ascii=False))
        stream.write("\n]\n")
    partial.replace(out)  # whole or not at all: an interrupted run leaves no half list under the name
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--papers", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    args = parser.parse_args()
    write_corpus(args.out, args.papers, args.seed, args.data_dir)


if __name__ == "__main__":
    main()
