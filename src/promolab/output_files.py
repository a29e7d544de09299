"""The files a command writes, all of them or none.

Every `promolab` command that writes files (`sweep`, `forecast`, `replay`,
`shadow`) keeps one promise: a command that exits nonzero because of an error
leaves nothing behind, neither a new file, nor a half-written one, nor a
mix of new files and old ones. Why here: the promise is one rule, so it has
one implementation, which each command's writers go through.

How: each file is written to a temporary name beside its target (same folder,
so the rename cannot cross a file system; the target's suffix kept, so a
writer that picks the format from the suffix picks the same one), and only
once every file is complete is each renamed over its target (`os.replace`,
atomic per file on POSIX and Windows). An exception on the way, Ctrl-C
included, removes the temporary files and propagates.

It imports nothing of promolab (every layer may use it) and no pandas: a
writer is any function that writes its file at the path it is given.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path

__all__ = ["Writer", "temporary_name", "write_all"]

#: Writes one file at the path it is given (a temporary name of the target).
Writer = Callable[[Path], None]


def temporary_name(path: Path) -> Path:
    """A name beside `path` that no other run picks (pid and a random part), hidden
    (leading dot) and with `path`'s suffix. Our own name rather than mkstemp's, so
    that the file gets the usual permissions (umask), not 0600."""
    return path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp{path.suffix}")


def write_all(writers: Mapping[Path, Writer]) -> None:
    """Run every writer on a temporary name beside its target, then rename each
    over its target; on any exception, remove the temporary files and re-raise.
    Missing parent folders are created (a folder is not an output file)."""
    done: list[tuple[Path, Path]] = []
    try:
        for path, write in writers.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = temporary_name(path)
            done.append((temporary, path))
            write(temporary)
        for temporary, path in done:
            os.replace(temporary, path)
    except BaseException:
        for temporary, _ in done:
            temporary.unlink(missing_ok=True)
        raise
