"""Stopping a reader between rows: Ctrl-C, SIGTERM and SIGHUP as a request (`StopGate`)."""

from __future__ import annotations

__all__ = ["StopGate"]


class StopGate:
    """Turns Ctrl-C (SIGINT), SIGTERM and SIGHUP (where the platform has it: a closed
    terminal) into a *request* to stop between rows; `signal` is the one that came.

    A signal arriving while a row is being processed only sets `requested`; the loop
    checks it after the row, so the monitor's state is never left half-updated (a
    `KeyboardInterrupt` in the middle of an update could not be undone). A signal
    arriving while the source *waits* (a poll at the end of a followed file, a read on
    standard input) raises `KeyboardInterrupt` there, so a stop does not wait for a
    next line that may never come. Use as a context manager (the previous handlers come
    back on exit; outside the main thread it installs nothing).
    """

    def __init__(self):
        self.requested = False
        self.blocking = False
        self.signal = None
        self._old: dict = {}

    def _handler(self, signum, frame):
        self.requested = True
        self.signal = signum
        if self.blocking:
            raise KeyboardInterrupt

    def __enter__(self):
        import signal
        import threading

        if threading.current_thread() is threading.main_thread():
            for name in ("SIGINT", "SIGTERM", "SIGHUP"):
                sig = getattr(signal, name, None)
                if sig is not None:
                    self._old[sig] = signal.signal(sig, self._handler)
        return self

    def __exit__(self, *exc):
        import signal

        for sig, old in self._old.items():
            signal.signal(sig, old)
        self._old.clear()
