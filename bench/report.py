"""What ``make bench`` prints and keeps: the report's lines and targets, shared by its sections.

``run.py`` makes one :class:`Report` and hands it to every section (its own, and those of
``diagnosis.py``, ``saving.py``, ``scaling.py``); a section run alone makes its own. Stdlib only.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Target:
    name: str
    figure: str
    limit: str
    ok: bool | None  # None: not measurable here

    @property
    def verdict(self) -> str:
        return "n/a" if self.ok is None else ("PASS" if self.ok else "MISS")


@dataclass
class Report:
    lines: list[str] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)

    def out(self, text: str = "") -> None:
        print(text, flush=True)
        self.lines.append(text)

    def table(self, header: list[str], rows: list[list[str]]) -> None:
        self.out("| " + " | ".join(header) + " |")
        self.out("|" + "|".join(" --- " for _ in header) + "|")
        for row in rows:
            self.out("| " + " | ".join(row) + " |")
        self.out()

    def target(self, name: str, value: float | None, limit: float, fmt: str = "{:.2f}") -> None:
        figure = "n/a" if value is None else fmt.format(value)
        ok = None if value is None else value <= limit
        self.targets.append(Target(name, figure, fmt.format(limit), ok))
