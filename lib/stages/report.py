"""What a load read: counts, and every record skipped or altered with the reason.

Kept apart from `lib.stages.load` (and free of pandas) so that reading a finished build's report, as the
CLI does on a cache hit, imports nothing heavy.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class RecordIssue:
    """One record that was skipped or changed, and why."""

    record: str  # "record 12 (id 'abc')"
    problem: str

    def line(self, source: str) -> str:
        return f"{source}: {self.record}: {self.problem}"


@dataclass
class LoadReport:
    """What a load read: counts, and every record skipped or altered with the reason."""

    source: str
    format: str
    records_read: int = 0
    loaded: int = 0
    skipped: list[RecordIssue] = field(default_factory=list)
    warnings: list[RecordIssue] = field(default_factory=list)

    def summary(self) -> str:
        text = f"{self.source}: loaded {self.loaded} of {self.records_read} records ({self.format})"
        if self.skipped:
            text += f", skipped {len(self.skipped)}"
        if self.warnings:
            text += f", {len(self.warnings)} warnings"
        return text

    def lines(self) -> list[str]:
        """One line per skipped record, then per warning."""
        return [f"skipped {i.line(self.source)}" for i in self.skipped] + [
            f"warning {i.line(self.source)}" for i in self.warnings
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "format": self.format,
            "records_read": self.records_read,
            "loaded": self.loaded,
            "skipped": [[i.record, i.problem] for i in self.skipped],
            "warnings": [[i.record, i.problem] for i in self.warnings],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LoadReport:
        return cls(
            source=data["source"],
            format=data["format"],
            records_read=data["records_read"],
            loaded=data["loaded"],
            skipped=[RecordIssue(*pair) for pair in data["skipped"]],
            warnings=[RecordIssue(*pair) for pair in data["warnings"]],
        )
