"""Running a command's coroutine so that Ctrl-C ends the process at once.

``asyncio.run`` waits, once its task is cancelled, for every call still running in the
default executor's threads, and the interpreter joins those threads again at exit. A call
blocked on the network (a credential lookup, a synchronous filesystem's connect) would hold
Ctrl-C up for as long as its own timeout. Commands run here on a loop that runs such calls in
daemon threads instead: what is still running when the command ends is abandoned.
"""

from __future__ import annotations

import asyncio
import os
import queue
import sys
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Executor, Future
from typing import Any, TypeVar, TypeVarTuple

T = TypeVar("T")
Ts = TypeVarTuple("Ts")

_Call = tuple["Future[Any]", Callable[..., Any], tuple[Any, ...], dict[str, Any]] | None
"""A call to make, or ``None``: the thread that takes it ends."""


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)``, with worker threads that never delay the end of the command."""
    with asyncio.Runner(loop_factory=_Loop) as runner:
        return runner.run(main)


if sys.platform == "win32":
    _EventLoop = asyncio.ProactorEventLoop
else:
    _EventLoop = asyncio.SelectorEventLoop


class _Loop(_EventLoop):
    """An event loop whose calls without an executor (``asyncio.to_thread``) use daemon threads.

    ``set_default_executor`` accepts only a ``ThreadPoolExecutor``, whose threads are joined.
    """

    def __init__(self) -> None:
        super().__init__()
        self._daemon_threads = DaemonThreads()

    def run_in_executor(
        self, executor: Executor | None, func: Callable[[*Ts], T], *args: *Ts
    ) -> asyncio.Future[T]:
        """Run ``func(*args)`` in ``executor``, or in a daemon thread when it is ``None``."""
        return super().run_in_executor(executor or self._daemon_threads, func, *args)

    def close(self) -> None:
        """Close the loop; its threads end once idle, and nothing waits for them."""
        self._daemon_threads.shutdown(wait=False)
        super().close()


class DaemonThreads(Executor):
    """A pool of daemon threads: nothing waits for them when the work is abandoned.

    Threads start as calls arrive, up to ``max_workers`` (the standard pool's default), and
    an idle thread takes the next call. ``shutdown`` returns at once, whatever ``wait`` says:
    each thread ends when it is next idle.
    """

    def __init__(self, max_workers: int = min(32, (os.cpu_count() or 1) + 4)) -> None:
        self._calls: queue.SimpleQueue[_Call] = queue.SimpleQueue()
        self._idle = threading.Semaphore(0)
        self._lock = threading.Lock()
        self._threads = 0
        self._max_workers = max_workers

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        """Run ``fn(*args, **kwargs)`` in a daemon thread."""
        future: Future[T] = Future()
        self._calls.put((future, fn, args, kwargs))
        if not self._idle.acquire(blocking=False):
            with self._lock:
                if self._threads < self._max_workers:
                    self._threads += 1
                    threading.Thread(target=self._work, name="skillfs-worker", daemon=True).start()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Let every thread end once it is idle, without waiting for any."""
        with self._lock:
            for _ in range(self._threads):
                self._calls.put(None)
            self._threads = 0

    def _work(self) -> None:
        while (call := self._calls.get()) is not None:
            future, fn, args, kwargs = call
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args, **kwargs))
                except BaseException as exc:  # delivered to the caller, as ThreadPoolExecutor does
                    future.set_exception(exc)
            del call, future, fn, args, kwargs  # drop references before waiting for the next
            self._idle.release()
