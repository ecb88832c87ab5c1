"""The project stage on a runner's workers (a Dask cluster): the sampled map's fit as one task, its
other papers placed a block at a time (`lib.stages.project.place_block`), the same bits as
`lib.stages.project.project` in one process. The build's process only sends vectors and gathers
coordinates; a list at or under the sample threshold is one UMAP fit, made here as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lib.builder.parallel import Runner, passed

if TYPE_CHECKING:
    import numpy as np


def project_in_partitions(
    vectors: np.ndarray,
    runner: Runner,
    n_neighbors: int,
    min_dist: float,
    spread: float,
    random_state: int,
    sample_threshold: int,
) -> np.ndarray:
    """`project(vectors, ...)` with these settings (the build's), its placement blocks sent to `runner`."""
    import numpy as np

    from lib.stages.project import (
        LayoutSettings,
        check_settings,
        fit_sampled_map,
        place_block,
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
    placed = runner.map([(place_block, (vectors[rows], shared, i, layout)) for i, rows in enumerate(plan.blocks)])
    coords = np.empty((len(vectors), 2), dtype=np.float64)
    coords[plan.fitted] = fitted.result().layout
    for rows, block in zip(plan.blocks, placed):
        coords[rows] = block.result()
    return standardize(coords)
