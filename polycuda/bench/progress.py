"""A small progress bar on stderr: redrawn in place on a terminal, one line per message
otherwise (logs stay short)."""

from __future__ import annotations

import sys
import time
from typing import TextIO

WIDTH = 28


class Progress:
    """`advance(label)` after each step of `total`; `message(text)` prints a line above the
    bar (on a terminal) or alone (in a log)."""

    def __init__(self, total: int, stream: TextIO | None = None, enabled: bool = True):
        self.total, self.done = max(total, 1), 0
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = enabled and hasattr(self.stream, "isatty") and self.stream.isatty()
        self.start = time.perf_counter()
        self.label = ""

    def bar(self) -> str:
        filled = int(WIDTH * self.done / self.total)
        elapsed = time.perf_counter() - self.start
        return (f"[{'#' * filled}{'.' * (WIDTH - filled)}] {self.done}/{self.total} "
                f"{elapsed:5.0f} s")

    def add(self, steps: int) -> None:
        """More steps than planned (discovered while running)."""
        self.total += steps

    def advance(self, label: str = "", steps: int = 1) -> None:
        self.done = min(self.total, self.done + steps)
        self.label = label
        if self.tty:
            self.stream.write(f"\r\033[K{self.bar()} {label}"[:200])
            self.stream.flush()

    def message(self, text: str) -> None:
        if not self.enabled:
            return
        if self.tty:
            self.stream.write(f"\r\033[K{text}\n{self.bar()} {self.label}"[:2000])
        else:
            self.stream.write(f"{self.bar()} {text}\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\r\033[K")
            self.stream.flush()
