"""`python -m lib build INPUT [--taxonomy FILE] [--out DIR] [--cache DIR] [--format FMT] [--embedder NAME] [--model PATH]
[--timings FILE] [--workers N [--worker-memory GB] | --scheduler ADDRESS] [--partition-size N]`,
`python -m lib extend MAP_DIR INPUT --out DIR [--taxonomy FILE]` and
`python -m lib fetch [CONFERENCE | --url URL] [--sources S,...] [--out DIR] [--timeout S] [--quiet]` and
`python -m lib passphrase` (the hashed passphrase that limits a served dashboard's editing to members)."""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any, Literal

from lib.builder.parallel import Runner
from lib.builder.partition_sizes import AUTO, LARGEST_CLUSTER_PARTITION, SMALLEST_CLUSTER_PARTITION
from lib.builder.pipeline import STAGES, BuildParams, build, default_out_dir
from lib.builder.runner import Progress
from lib.errors import PaperMapError, ParameterError
from lib.paths import DEFAULT_CACHE_DIR, DEFAULT_TAXONOMY
from lib.stages.embed import EMBEDDERS, make_embedder
from lib.stages.readers import FORMATS
from lib.store.datasets import DEFAULT_DATA_DIR
from lib.store.fetch_settings import DEFAULT_TIMEOUT, SOURCES

# A Dask worker takes some 150 MB before its first task.
MIN_WORKER_MEMORY_GB = 0.5


def parser() -> argparse.ArgumentParser:
    """The command line: `build`, `fetch`, `extend` and `passphrase`."""
    root = argparse.ArgumentParser(prog="python -m lib", description="PaperMap: paper lists in, topic maps out.")
    commands = root.add_subparsers(dest="command", required=True)
    _add_build_command(commands)
    _add_fetch_command(commands)
    _add_extend_command(commands)
    commands.add_parser(
        "passphrase",
        help="hash a passphrase for members-only editing (asked twice, or read from stdin) and print the setting",
    )
    return root


def _add_build_command(commands: argparse._SubParsersAction) -> None:
    """`build INPUT [INPUT ...]`: paper lists to an output folder, and where and how the stages run."""
    build_cmd = commands.add_parser("build", help="build the topic map of a paper list into papers.parquet")
    build_cmd.add_argument(
        "input",
        type=Path,
        nargs="+",
        help="paper list: seed text, Paper Copilot or OpenReview JSON, JSONL, CSV, TSV or Parquet; "
        "several make one map of their editions, each paper keeping its list's (column `edition`)",
    )
    build_cmd.add_argument(
        "--taxonomy", type=Path, default=DEFAULT_TAXONOMY, help="taxonomy YAML or JSON (default: ICML 2025's)"
    )
    build_cmd.add_argument("--out", type=Path, default=None, help="output folder (default: data/build/<input name>)")
    build_cmd.add_argument(
        "--cache", type=Path, default=DEFAULT_CACHE_DIR, help="stage cache folder (default: data/cache)"
    )
    build_cmd.add_argument(
        "--format", choices=FORMATS, default="auto", help="input format (default: detected from content)"
    )
    build_cmd.add_argument(
        "--embedder",
        choices=EMBEDDERS,
        default="tfidf-svd",
        help="text embedding backend (default: tfidf-svd; the others need requirements-embed.txt)",
    )
    build_cmd.add_argument(
        "--model",
        default=None,
        help="minilm or sentence-transformers model folder (default: the packaged all-MiniLM-L6-v2)",
    )
    build_cmd.add_argument(
        "--timings",
        type=Path,
        default=None,
        help="also write each stage's seconds and whether it came from the cache to FILE as JSON (for bench/build.py)",
    )
    cluster = build_cmd.add_mutually_exclusive_group()
    cluster.add_argument(
        "--workers",
        type=int,
        default=None,
        help="run keywords and subfields on a local Dask cluster of N worker processes (needs requirements-dask.txt)",
    )
    cluster.add_argument(
        "--scheduler", default=None, help="run them on the existing Dask cluster at ADDRESS (such as tcp://host:8786)"
    )
    build_cmd.add_argument(
        "--worker-memory",
        type=float,
        default=None,
        metavar="GB",
        help="memory each --workers process keeps to, spilling what it holds to disk past 60%% of it "
        "(default: the machine's shared equally by the workers and the build)",
    )
    build_cmd.add_argument(
        "--partition-size",
        type=int,
        default=None,
        help="papers per partition: on Dask, of every spread stage (default: two per worker thread, "
        f"within {SMALLEST_CLUSTER_PARTITION:,}-{LARGEST_CLUSTER_PARTITION:,}); else of the keywords "
        "(default: one); the output does not change",
    )
    build_cmd.add_argument("--quiet", action="store_true", help="no progress bar, no skipped-record lines")


def _add_fetch_command(commands: argparse._SubParsersAction) -> None:
    """`fetch [CONFERENCE | --url URL]`: a paper list from public sources into the data folder."""
    fetch_cmd = commands.add_parser(
        "fetch",
        help="gather a conference (default icml2025) from its public sources into one paper list in the data folder",
    )
    fetch_cmd.add_argument(
        "conference",
        nargs="?",
        default=None,
        help="icml, neurips or iclr and a year, such as icml2025 (the default, unless --url is given)",
    )
    fetch_cmd.add_argument("--url", default=None, help="download this one paper list instead of a conference")
    fetch_cmd.add_argument(
        "--sources",
        default=",".join(SOURCES),
        help=f"comma-separated sources to ask (default: {','.join(SOURCES)})",
    )
    fetch_cmd.add_argument(
        "--out", type=Path, default=None, help="data folder to save it in (default: PAPERMAP_DATA_DIR, else data/)"
    )
    fetch_cmd.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        help=f"seconds to wait for a server (default: {DEFAULT_TIMEOUT:g})",
    )
    fetch_cmd.add_argument("--quiet", action="store_true", help="no progress lines")


def _add_extend_command(commands: argparse._SubParsersAction) -> None:
    """`extend MAP_DIR INPUT --out DIR`: a finished map grown by another list's papers."""
    extend_cmd = commands.add_parser(
        "extend", help="add the papers of another list to a finished map without moving any paper on it"
    )
    extend_cmd.add_argument("map", type=Path, help="output folder of a finished build (holding papers.parquet)")
    extend_cmd.add_argument("input", type=Path, help="paper list with the papers to add")
    extend_cmd.add_argument("--out", type=Path, required=True, help="output folder for the grown map")
    extend_cmd.add_argument(
        "--taxonomy", type=Path, default=DEFAULT_TAXONOMY, help="taxonomy for the new papers' subfields"
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return {"fetch": _fetch, "extend": _extend, "passphrase": _passphrase}.get(args.command, _build)(args)
    except PaperMapError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted; the cache keeps only the stages that finished", file=sys.stderr)
        return 130


def _build(args: argparse.Namespace) -> int:
    embedder = make_embedder(args.embedder, args.model)  # a missing backend fails before any work
    bar, progress = (nullcontext(), None) if args.quiet else _progress_bar()
    if args.partition_size is not None and args.partition_size < 1:
        raise ParameterError(f"--partition-size must be at least 1; got {args.partition_size}")
    dask = args.workers is not None or args.scheduler is not None
    worker_memory = _worker_memory(args)
    partition_size: int | Literal["auto"] = args.partition_size or AUTO
    runner: AbstractContextManager[Runner | None]
    if dask:
        from lib.builder.cluster import DaskRunner

        runner = DaskRunner(workers=args.workers, scheduler=args.scheduler, worker_memory=worker_memory)
    else:
        runner = nullcontext(None)
    with bar, runner as running:
        result = build(
            args.input,
            taxonomy_path=args.taxonomy,
            out_dir=args.out or default_out_dir(args.input),
            cache_dir=args.cache,
            embedder=embedder,
            params=BuildParams(input_format=args.format),
            progress=progress,
            runner=running,
            partition_size=partition_size,
        )
    if not args.quiet:
        for line in result.report.lines():
            print(line, file=sys.stderr)
    if args.timings:
        stages = [{"name": s.name, "seconds": s.seconds, "cached": s.cached} for s in result.stages]
        args.timings.write_text(json.dumps({"seconds": result.seconds, "stages": stages}), encoding="utf-8")
    print(result.summary())
    return 0


def _worker_memory(args: argparse.Namespace) -> int | None:
    """`--worker-memory` in bytes (None: not given), checked before any work."""
    if args.worker_memory is None:
        return None
    if args.workers is None:
        raise ParameterError("--worker-memory sets the memory of --workers processes; give --workers too")
    if not args.worker_memory >= MIN_WORKER_MEMORY_GB:  # `not >=`: NaN is refused too
        raise ParameterError(f"--worker-memory must be at least {MIN_WORKER_MEMORY_GB} GB; got {args.worker_memory}")
    return int(args.worker_memory * 2**30)


def _progress_bar() -> tuple[AbstractContextManager[Any], Progress]:
    """A bar of the build's stages on standard error, and the progress callback that moves it."""
    from tqdm import tqdm  # only a build that shows progress imports it: a quiet cache hit answers sooner

    # disable=None: a bar on a terminal only; piped output stays free of carriage-return noise.
    bar = tqdm(
        total=len(STAGES),
        file=sys.stderr,
        disable=None,
        leave=False,
        bar_format="{desc:<10} {bar} {n_fmt}/{total_fmt} [{elapsed}]",
    )

    def progress(stage: str, done: int, total: int) -> None:
        bar.set_description_str(stage)
        bar.update(done - bar.n)

    return bar, progress


def _extend(args: argparse.Namespace) -> int:
    from lib.builder.extend import extend_map

    print(extend_map(args.map, args.input, out_dir=args.out, taxonomy_path=args.taxonomy).summary())
    return 0


def _fetch(args: argparse.Namespace) -> int:
    from lib.store.fetch import fetch_paper_list
    from lib.store.sources import OpenReviewAccount, SourceAddresses, fetch_conference

    out_dir = args.out or Path(os.environ.get("PAPERMAP_DATA_DIR") or DEFAULT_DATA_DIR)
    if args.url:
        if args.conference:
            raise ParameterError("give a conference or --url, not both")
        print(fetch_paper_list(args.url, out_dir, timeout=args.timeout).summary())
        return 0
    sources = tuple(s.strip() for s in args.sources.split(",") if s.strip())
    unknown = [s for s in sources if s not in SOURCES]
    if unknown or not sources:
        raise ParameterError(f"--sources takes {', '.join(SOURCES)}; got {args.sources!r}")

    def progress(message: str) -> None:
        if not args.quiet:
            print(message, file=sys.stderr, flush=True)

    fetched = fetch_conference(
        args.conference or "icml2025",
        out_dir,
        addresses=SourceAddresses.from_env(),
        account=OpenReviewAccount.from_env(),
        sources=sources,
        timeout=args.timeout,
        progress=progress,
    )
    print("\n".join(fetched.lines()))
    return 0


def _passphrase(args: argparse.Namespace) -> int:
    from lib.store.members import PASSPHRASE_ENV, SECRETS_SECTION, hash_passphrase

    if sys.stdin.isatty():
        passphrase = getpass.getpass("Passphrase for editing: ")
        if getpass.getpass("Again: ") != passphrase:
            raise ParameterError("the two passphrases differ; nothing was made")
    else:
        passphrase = sys.stdin.readline().rstrip("\n")
    stored = hash_passphrase(passphrase)
    print(
        f"# In .streamlit/secrets.toml (never committed), or as {PASSPHRASE_ENV}={stored!r} in the server's environment:",
        file=sys.stderr,
    )
    print(f'[{SECRETS_SECTION}]\neditor_passphrase = "{stored}"')
    return 0
