"""The project stage on a runner's workers (a Dask cluster): the sampled map's fit as one task, its
other papers placed a block at a time (`lib.stages.project.place_block`) from the partitions'
vectors already on the workers (`lib.builder.text_partitions.send_vectors`), the same bits as
`lib.stages.project.project` in one process. The build's process only sends the sample's vectors
and gathers coordinates; a list at or under the sample threshold is one UMAP fit, made here as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lib.builder.parallel import Runner, passed
from lib.builder.text_partitions import SentParts

if TYPE_CHECKING:
    import numpy as np

    from lib.stages.project import LayoutSettings, SampledMap


def project_in_partitions(
    vectors: np.ndarray,
    sent: SentParts,
    runner: Runner,
    n_neighbors: int,
    min_dist: float,
    spread: float,
    random_state: int,
    sample_threshold: int,
) -> np.ndarray:
    """`project(vectors, ...)` with these settings (the build's), its placement blocks on `runner`
    (`sent`: the `vectors` there)."""
    import numpy as np

    from lib.stages.project import (
        LayoutSettings,
        check_settings,
        fit_sampled_map,
        project,
        sample_plan,
        standardize,
    )

    if len(vectors) <= sample_threshold:
        return project(
            vectors, n_neighbors, min_dist, random_state=random_state, sample_threshold=sample_threshold, spread=spread
        )
    check_settings(n_neighbors, min_dist, spread, sample_threshold)
    layout = LayoutSettings(n_neighbors, min_dist, spread, random_state)
    plan = sample_plan(len(vectors), sample_threshold, random_state)
    (fitted,) = runner.map([(fit_sampled_map, (vectors[plan.fitted], layout, plan.rng))])
    shared = passed(runner, fitted)
    calls = []
    for i, rows in enumerate(plan.blocks):
        first_row, parts = sent.covering(int(rows[0]), int(rows[-1]) + 1)
        calls.append((placed_rows, (rows - first_row, shared, i, layout, *[passed(runner, p) for p in parts])))
    placed = runner.map(calls)
    coords = np.empty((len(vectors), 2), dtype=np.float64)
    coords[plan.fitted] = fitted.result().layout
    for rows, block in zip(plan.blocks, placed):
        coords[rows] = block.result()
    return standardize(coords)


def placed_rows(
    rows: np.ndarray, fitted: SampledMap, block: int, settings: LayoutSettings, *parts: np.ndarray
) -> np.ndarray:
    """`place_block` of block number `block`: the papers `rows` (numbered from the first of the
    consecutive partitions' `parts` of vectors)."""
    import numpy as np

    from lib.stages.project import place_block

    return place_block(np.concatenate(parts)[rows], fitted, block, settings)
