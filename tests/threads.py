"""Running one piece of work in several threads at once, for the tests of what threads share."""

from __future__ import annotations

import threading
from collections.abc import Callable


def in_threads(work: Callable[[], None], n: int, *, together: bool = False) -> None:
    """``work`` in ``n`` threads, returning once all have ended. ``together``: each waits at a barrier first, so
    that they run at the same moment (what a race between them needs). An exception in ``work`` ends its thread
    only: the caller checks what the threads left behind."""
    start = threading.Barrier(n)

    def run() -> None:
        if together:
            start.wait()
        work()

    threads = [threading.Thread(target=run) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
