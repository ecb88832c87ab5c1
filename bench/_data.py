"""Shared by the benches: a paper list (optionally a seeded sample of it) as the papers table and its texts."""

from __future__ import annotations

import json
import random
import sys
import tempfile
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from lib.schema import analysis_texts  # noqa: E402
from lib.stages.load import load_papers  # noqa: E402


def load(path: Path, sample: int | None = None, seed: int = 0) -> tuple[pd.DataFrame, list[str], str]:
    """The papers, their analysis texts and a display name; `sample` papers drawn with `seed` when given."""
    name = path.name
    if sample:
        records = json.loads(path.read_text(encoding="utf-8"))
        if len(records) > sample:
            records = random.Random(seed).sample(records, sample)
            name = f"{path.name} (sample of {sample:,}, seed {seed})"
        with tempfile.TemporaryDirectory() as scratch:
            sampled = Path(scratch) / path.name
            sampled.write_text(json.dumps(records), encoding="utf-8")
            papers = load_papers(sampled).papers
    else:
        papers = load_papers(path).papers
    return papers, analysis_texts(papers), name


def area_labels(papers: pd.DataFrame) -> pd.Series | None:
    """`primary_area` where the list has one for some papers; None when it has none."""
    areas = papers["primary_area"]
    return areas if (areas != "").any() else None
