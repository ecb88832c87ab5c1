"""Shared by the benches: the processes of a build's tree, read from Linux's /proc."""

from __future__ import annotations

from pathlib import Path

PPID, UTIME, STIME, RSS = 1, 11, 12, 21  # in a process's stat fields from the third on (after its name)


def tree_stats(root: int) -> dict[int, list[str]]:
    """Each process of `root`'s tree now, itself and its descendants, by pid: its stat fields from the
    third on (`PPID`, `UTIME`, `STIME`, `RSS` in pages index them); empty where there is no /proc."""
    children: dict[int, list[int]] = {}
    stats: dict[int, list[str]] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # ended meanwhile
        children.setdefault(int(fields[PPID]), []).append(int(entry.name))
        stats[int(entry.name)] = fields
    tree, todo = {}, [root]
    while todo:
        pid = todo.pop()
        todo += children.get(pid, [])
        if pid in stats:
            tree[pid] = stats[pid]
    return tree
