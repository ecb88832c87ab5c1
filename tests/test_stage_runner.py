"""The build's stage runner (lib.builder.runner): a value it lets go is made again only when a stage
takes it; a stage that stores its own value goes on from the cache's copy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lib.builder.cache import ArtifactCache
from lib.builder.runner import StageRunner
from lib.builder.stages_table import Stage
from lib.errors import PaperMapError


def test_a_value_let_go_is_not_held_and_is_made_again_for_a_stage_that_takes_it(tmp_path):
    # The build lets go of its texts once the side stages have them; one made here after all (its
    # artifact damaged) still takes them, made again from the papers.
    remade = []

    def remake(values):
        remade.append(True)
        return values["papers"] * 10

    doubled = Stage(
        name="doubled",
        version=1,
        upstream=(),
        params={},
        inputs=("texts",),
        compute=lambda texts: (texts * 2, {}),
        provides=lambda value, meta: {"doubled": value},
    )
    values = {"papers": np.arange(3), "texts": np.arange(3) * 10}
    stages = StageRunner((doubled,), {"doubled": "key"}, ArtifactCache(tmp_path), lambda *_: None, 1, values)
    stages.let_go("texts", remake)
    assert "texts" not in values and not remade
    stages.run("doubled")
    assert remade == [True]
    assert values["doubled"].tolist() == [0, 20, 40]


def _storing_stage(store_it):
    return Stage(
        name="stored",
        version=1,
        upstream=(),
        params={"n": 3},
        inputs=("papers",),
        compute=store_it,
        provides=lambda value, meta: {"stored": value, "stored_meta": meta},
        stores=True,
    )


def test_a_stage_that_stores_its_own_value_goes_on_with_the_caches_copy(tmp_path):
    # The load stores the papers table where it parsed it (a worker process); the build goes on
    # from the cache's file, as a warm build would, and reads from it only what it asks for.
    def store_it(papers, store):
        table = pd.DataFrame({"paper_id": [f"p{i}" for i in papers], "abstract": ["text"] * len(papers)})
        store(table, {"report": {"loaded": len(papers)}})

    values = {"papers": np.arange(3)}
    cache = ArtifactCache(tmp_path)
    stages = StageRunner((_storing_stage(store_it),), {"stored": "key"}, cache, lambda *_: None, 1, values)
    stages.run("stored")
    hit = cache.get("stored", "key")
    pd.testing.assert_frame_equal(values["stored"].read(["paper_id", "abstract"]), hit.value)
    assert values["stored"].read(["paper_id"]).columns.tolist() == ["paper_id"]
    assert values["stored_meta"] == hit.meta
    assert hit.meta["params"] == {"n": 3} and hit.meta["report"] == {"loaded": 3}


def test_a_stored_value_the_cache_cannot_give_back_stops_the_build_with_one_sentence(tmp_path):
    def store_nowhere(papers, store):
        pass  # as if its file were lost between the write and the read

    stages = StageRunner(
        (_storing_stage(store_nowhere),), {"stored": "key"}, ArtifactCache(tmp_path), lambda *_: None, 1, {"papers": []}
    )
    with pytest.raises(PaperMapError, match="stored stage's value could not be read back"):
        stages.run("stored")
