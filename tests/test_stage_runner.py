"""The build's stage runner (lib.builder.runner): a value it lets go is made again only when a stage takes it."""

from __future__ import annotations

import numpy as np

from lib.builder.cache import ArtifactCache
from lib.builder.runner import StageRunner
from lib.builder.stages_table import Stage


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
