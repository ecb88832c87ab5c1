"""The one runner of the build's stages (`lib.builder.stages_table`): a stage at a time through the cache.

It knows no stage: each is a row of the table, its value read from the cache or computed from the
build's values it takes, and what it provides added to them. What runs when, and where, is the
schedule's (`lib.builder.pipeline`), which calls `start`, `run` and `charge` in its order.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from lib.builder.cache import StagePut
from lib.builder.parallel import InProcess
from lib.builder.stages_table import SideRun, Stage, Values
from lib.errors import PaperMapError

if TYPE_CHECKING:
    from lib.builder.cache import Artifact, ArtifactCache
    from lib.builder.parallel import Handle, Runner

# progress(stage, stages done, stages in all): called before each stage and once at the end.
Progress = Callable[[str, int, int], None]
T = TypeVar("T")


@dataclass(frozen=True)
class StageRun:
    name: str
    seconds: float
    cached: bool


class StageRunner:
    """Runs the stages of `table` through `cache` on the build's `values`, one at a time: each run is
    reported to `progress` first (as stage n of `total`) and timed, with what was charged to it ahead."""

    def __init__(
        self,
        table: tuple[Stage, ...],
        keys: dict[str, str],
        cache: ArtifactCache,
        progress: Progress,
        total: int,
        values: Values,
    ) -> None:
        self.table = {stage.name: stage for stage in table}
        self.keys, self.cache, self.progress, self.total = keys, cache, progress, total
        self.values = values
        self.runs: list[StageRun] = []
        self.charged: dict[str, float] = {}
        self.started: dict[str, Handle] = {}
        self.remakes: dict[str, Callable[[Values], Any]] = {}

    def missing(self, name: str) -> bool:
        """Whether the cache lacks stage `name` (one it seems to hold may still turn out damaged when read)."""
        return not self.cache.has(name, self.keys[name])

    def start(self, name: str, runner: Runner, partition_size: int | None = None) -> None:
        """Start side stage `name` on `runner`; its `run` collects the value."""
        stage = self.table[name]
        where = SideRun(runner, self.cache, self.keys[name], partition_size, self.values.get("cluster"))
        self.started[name] = stage.compute(where, *self._inputs(stage))

    def let_go(self, name: str, remake: Callable[[Values], Any]) -> None:
        """Drop value `name`, which `remake` makes again from the other values should a stage still take it."""
        del self.values[name]
        self.remakes[name] = remake

    def run(self, name: str) -> None:
        """Run stage `name`: its value from the cache, else computed (and stored), added to the values."""
        stage = self.table[name]

        def value() -> tuple[tuple[Any, dict[str, Any]], bool]:
            hit = self._hit(stage)
            return ((hit.value, hit.meta), True) if hit is not None else (self._compute(stage), False)

        result, meta = self._timed(name, value)
        self.values.update(stage.provides(result, meta))

    def run_step(self, name: str, work: Callable[[], T]) -> T:
        """Run `work` as stage `name`, one of no table's and outside the cache (the output's write):
        reported and timed as the others."""
        return self._timed(name, lambda: (work(), False))

    def charge(self, name: str, work: Callable[[], T]) -> T:
        """Do `work` for stage `name` ahead of its run; its time is counted in the stage's."""
        start = time.perf_counter()
        result = work()
        self.charged[name] = self.charged.get(name, 0.0) + time.perf_counter() - start
        return result

    def again(self, name: str) -> Any:
        """The value of a stage that has run, from the cache; computed and stored again only when the
        cache lost it since (deleted by hand). Not a stage run: neither timed nor reported."""
        hit = self._hit(self.table[name])
        return hit.value if hit is not None else self._compute(self.table[name])[0]

    def _compute(self, stage: Stage) -> tuple[Any, dict[str, Any]]:
        meta = {"params": stage.params, "upstream": [self.keys[u] for u in stage.upstream]}
        if stage.stores:
            return self._stored(stage, meta)
        if stage.side:
            # Started beside the build, or here: one the cache seemed to hold turned out damaged when read.
            handle = self.started.pop(stage.name, None)
            if handle is None:
                handle = stage.compute(SideRun(InProcess(), self.cache, self.keys[stage.name]), *self._inputs(stage))
            value, extra = handle.result(), {}
        else:
            value, extra = stage.compute(*self._inputs(stage))
        meta |= extra
        self.cache.put(stage.name, self.keys[stage.name], value, meta)
        return value, meta

    def _stored(self, stage: Stage, meta: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """Run a stage that stores its value where it makes it, and take the value back as a cache hit:
        a large list's papers table is never sent between processes, and a cold build goes on from the
        same table as a warm one."""
        key = self.keys[stage.name]
        stage.compute(*self._inputs(stage), StagePut(self.cache, stage.name, key, meta))
        hit = self._hit(stage)
        if hit is None:
            raise PaperMapError(
                f"{self.cache.root}: the {stage.name} stage's value could not be read back from the cache"
            )
        return hit.value, hit.meta

    def _hit(self, stage: Stage) -> Artifact | None:
        """Stage `stage`'s artifact in the cache: a stage that stores its own value (a table) gives its
        file, read as asked (`StoredTable`); the others their value."""
        read = self.cache.get_table if stage.stores else self.cache.get
        return read(stage.name, self.keys[stage.name])

    def _timed(self, name: str, work: Callable[[], tuple[T, bool]]) -> T:
        """Report stage `name`, run `work` (its result, and whether the cache gave it), time it with what was charged to it."""
        self.progress(name, len(self.runs), self.total)
        start = time.perf_counter()
        result, cached = work()
        seconds = time.perf_counter() - start + self.charged.pop(name, 0.0)
        self.runs.append(StageRun(name, seconds, cached))
        return result

    def _inputs(self, stage: Stage) -> list[Any]:
        return [self.values[name] if name in self.values else self.remakes[name](self.values) for name in stage.inputs]
