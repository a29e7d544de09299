"""What can stop a shadow run, and how the command line reports each.

`ShadowInputError` and its kinds are bad input, found before anything is
sent (exit status 2, one line on stderr); `ShadowInterrupted` is a run that
started and stopped part way, its cassette holding every line done so far
(exit status 3: resume it with `--resume`).
"""

from __future__ import annotations

__all__ = ["CassetteError", "RateLimited", "ShadowInputError", "ShadowInterrupted", "WritesRefused"]


class ShadowInputError(ValueError):
    """A script, cassette, credential or option that cannot be used."""


class WritesRefused(ShadowInputError):
    """The script writes and the run was not given `allow_writes`."""

    def __init__(self, lines: list[tuple[int, str]]) -> None:
        listed = ", ".join(f"{line} ({op})" for line, op in lines)
        super().__init__(
            f"the script writes to the target on {len(lines)} line(s): {listed}; "
            "a shadow run against a real project changes it: pass --allow-writes (allow_writes=True) "
            "if that is what you want"
        )
        self.lines = lines


class CassetteError(ShadowInputError):
    """A cassette line that cannot be read back: `.line` is 1-based."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"cassette line {line}: {message}")
        self.line = line


class RateLimited(RuntimeError):
    """The target kept answering 429, or asked for a longer wait than allowed."""


class ShadowInterrupted(RuntimeError):
    """A run stopped part way; `.done` lines are in its cassette."""

    def __init__(self, line: int, done: int, reason: str) -> None:
        super().__init__(f"stopped at script line {line} ({reason}); {done} line(s) are in the cassette: "
                         "run again with --resume (resume=True) to go on from there")
        self.line = line
        self.done = done
        self.reason = reason
