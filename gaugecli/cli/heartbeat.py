"""Progress off a terminal (a log file, CI): a heartbeat of flushed lines, the first within
:data:`FIRST_LINE` seconds and then at least every :data:`EVERY` seconds, each with the share done,
the time elapsed and the time left at the rate the work was measured to go lately.

Why a heartbeat and not a line per tenth: the tenths of a long run are minutes apart (a first line
after 26–39 s was seen), and a log that stays silent for minutes reads as a hang. Why the recent
rate: a run's early share is no sample of its later speed (a flow relaxes fast, then aligns slowly;
a sweep's first points are its cheapest), so an extrapolation of the whole elapsed time over the
whole share done misleads — "10 % after 59.0 s, ≈ 8 min 24 s left" for a run that ended a second
later. The rate is measured between the reports of the last :data:`RATE_WINDOW` seconds (the work's
own units: a report is work done), or from the report before where the window holds one; where the
work did not move for a whole window, the time left is not guessed ("?").

The clock and the writer are injected (tests step a fake clock); :class:`Ticker` calls
:meth:`ProgressLines.tick` from a thread, so that a line is due on time even while the work is
between two reports of its progress."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable

FIRST_LINE = 10.0
"""Seconds after the start at which the first line is printed (a shorter run prints none)."""
EVERY = 30.0
"""Most seconds between two lines after the first."""
RATE_WINDOW = 30.0
"""The time left is measured on the work done in the last this many seconds."""
TICK = 1.0
"""How often the ticker thread looks whether a line is due: a line comes at most this late."""
STEP = 1e-3
"""Reports that move the share done by less are dropped before the lock: a flow reports at every
right-hand side (19 000 times in one call of the fig3 sweep), and a kept report costs ≈ 2 µs; a
line shows whole per cent."""


def elapsed_text(seconds: float) -> str:
    """``8.2 s``, ``3 min 05 s`` or ``1 h 02 min`` (``?`` for NaN: not known)."""
    if not seconds == seconds:
        return "?"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, sec = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {sec:02d} s"
    return f"{minutes // 60} h {minutes % 60:02d} min"


def _stderr_line(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class ProgressLines:
    """The progress callback (``self(fraction)``) that prints the heartbeat of the module docstring
    for the work ``label``; ``clock`` gives seconds (monotonic), ``write`` takes one line."""

    def __init__(
        self,
        label: str,
        clock: Callable[[], float] = time.monotonic,
        write: Callable[[str], None] = _stderr_line,
    ) -> None:
        self.label, self.clock, self.write = label, clock, write
        self.started = clock()
        self.done = 0.0
        self.samples: list[tuple[float, float]] = [(self.started, 0.0)]  # (time, share done) as reported
        self.last_line: float | None = None
        self.finished = False
        self._lock = threading.Lock()

    def __call__(self, fraction: float) -> None:
        """The work reports its share done (0…1)."""
        fraction = min(max(float(fraction), 0.0), 1.0)
        if fraction < 1.0 and fraction - self.done < STEP:  # read without the lock: at worst one more report kept
            return
        with self._lock:
            if self.finished or fraction <= self.done:
                return
            now = self.clock()
            self.done = fraction
            self.samples.append((now, fraction))
            # the samples of the last window, and the one before them (the rate of a lone report)
            while len(self.samples) > 2 and self.samples[1][0] <= now - RATE_WINDOW:
                self.samples.pop(0)
            if fraction >= 1.0:
                self.finished = True
                if self.last_line is not None:  # a run that showed progress says that it ended
                    self.write(f"{self.label}: 100 % after {elapsed_text(now - self.started)}")
                return
            self._maybe_print(now)

    def tick(self) -> None:
        """Print a line if one is due (the ticker calls this between reports)."""
        with self._lock:
            if not self.finished:
                self._maybe_print(self.clock())

    def time_left(self, now: float) -> float:
        """Seconds left at the rate of the last :data:`RATE_WINDOW` seconds (NaN: no work measured there)."""
        t1, f1 = self.samples[-1]
        recent = [s for s in self.samples if s[0] >= t1 - RATE_WINDOW]
        t0, f0 = recent[0] if len(recent) >= 2 else self.samples[max(len(self.samples) - 2, 0)]
        if f1 <= f0 or t1 <= t0 or now - t1 > RATE_WINDOW:
            return float("nan")
        return (1.0 - f1) * (t1 - t0) / (f1 - f0)

    def _maybe_print(self, now: float) -> None:
        elapsed = now - self.started
        due = elapsed >= FIRST_LINE if self.last_line is None else now - self.last_line >= EVERY
        if not due:
            return
        self.last_line = now
        self.write(
            f"{self.label}: {100 * self.done:.0f} % after {elapsed_text(elapsed)}, "
            f"≈ {elapsed_text(self.time_left(now))} left"
        )


class Ticker:
    """A daemon thread calling ``lines.tick()`` every :data:`TICK` seconds until :meth:`stop`."""

    def __init__(self, lines: ProgressLines) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(lines,), name="progress-lines", daemon=True)
        self._thread.start()

    def _run(self, lines: ProgressLines) -> None:
        while not self._stop.wait(TICK):
            lines.tick()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()
