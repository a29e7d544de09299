"""What can stop a pull, and why each is one kind.

Every failure of a pull is the target's answers or the command's input being
unusable (a refused credential, a page that repeats, a body too large, a 500,
a 429 storm); the command reports each as one line on stderr and exit status
2, and writes no scenario file. A pull that stopped part way keeps the pages
it read in its state file beside the output, so `--resume` goes on from there.
"""

from __future__ import annotations

__all__ = ["PastReach", "PullError"]


class PullError(RuntimeError):
    """The target cannot be pulled: the message says which call and why."""


class PastReach(PullError):
    """A list holds more than its pages reach and no other way past them was
    given: a caller with another source of the same objects (the history's
    orders, from its redemptions) catches this one kind and reads them there."""
