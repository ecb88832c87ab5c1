"""One session writing a reading list from its own process, for tests/test_reading_lists_processes.py.

python tests/reading_list_writer.py DB LIST append PREFIX BATCH
    adds batches of BATCH papers to LIST until killed, printing each batch's name once its
    transaction has committed.
python tests/reading_list_writer.py DB LIST edit PREFIX SEED STEPS
    prints "ready", waits for a line on stdin, then makes STEPS seeded edits to its own papers in
    LIST (adds, moves to the front or the back, notes, removes), and prints what its papers must
    look like now as JSON: their order among themselves (no other session's edit changes it),
    their notes, how many edits of each kind it made and when it started and ended.
"""

from __future__ import annotations

import json
import random
import sys
import time
from contextlib import closing
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from lib.store import reading_lists as rl

DATASET = "planted2025.json"
FRONT, BACK = 0, 10**6  # move_entry clamps a position past the end to the last place


def new_papers(ids: list[str]) -> pd.DataFrame:
    return pd.DataFrame({"paper_id": ids, "title": [f"Title of {i}" for i in ids]})


def append(db, name: str, prefix: str, batch: int) -> None:
    for number in range(10**9):
        rl.add_papers(db, name, new_papers([f"{prefix}{number}-{k}" for k in range(batch)]), DATASET)
        print(f"{prefix}{number}", flush=True)


def edit(db, name: str, prefix: str, seed: int, steps: int) -> None:
    rng = random.Random(seed)
    order: list[str] = []
    notes: dict[str, str] = {}
    done = dict.fromkeys(["add", "move", "note", "remove"], 0)
    print("ready", flush=True)
    sys.stdin.readline()
    started = time.time()
    for step in range(steps):
        kind = "add" if len(order) < 2 else rng.choices(list(done), weights=[3, 3, 3, 1])[0]
        if kind == "add":
            ids = [f"{prefix}{step}-{k}" for k in range(2)]
            rl.add_papers(db, name, new_papers(ids), DATASET)
            order += ids
        else:
            paper = rng.choice(order)
            (entry_id,) = [e.entry_id for e in rl.entries(db, name) if e.paper_id == paper]
            if kind == "move":
                to_front = rng.random() < 0.5
                rl.move_entry(db, name, entry_id, FRONT if to_front else BACK)
                order.remove(paper)
                order.insert(0 if to_front else len(order), paper)
            elif kind == "note":
                notes[paper] = f"{prefix} at step {step}"
                rl.update_entry(db, name, entry_id, presenter=prefix, note=notes[paper])
            else:
                rl.remove_entry(db, name, entry_id)
                order.remove(paper)
                notes.pop(paper, None)
        done[kind] += 1
    print(
        json.dumps({"order": order, "notes": notes, "done": done, "started": started, "ended": time.time()}), flush=True
    )


def main(db_path: str, name: str, mode: str, prefix: str, *numbers: str) -> None:
    with closing(rl.connect(db_path)) as db:
        if mode == "append":
            append(db, name, prefix, *map(int, numbers))
        else:
            edit(db, name, prefix, *map(int, numbers))


if __name__ == "__main__":
    main(*sys.argv[1:])
