"""Progress of solves and simulations from Python (liblcm's progress callback).

``Model.solver(progress=...)`` takes a callable, called after every step
(a period of a solve; a period of a batch of subjects in a simulation) with
a :class:`Progress`, on the thread that solves; returning a false value
(``False``, ``0``; ``None`` goes on) cancels
the work (``lcmgen.CancelledError``, nothing returned), and so does an
exception, which the solve then raises.  ``progress=True`` shows a bar: tqdm's
where tqdm is installed, else one line on stderr that updates in place.
"""
import sys
import time
from collections import namedtuple

Progress = namedtuple("Progress", "what model period age periods done total subjects batch_first batch_size seconds")
Progress.__doc__ = """A step of a solve or simulation: what ("solve" or "simulate"), the model's
name, the period just done and its age, the model's periods, steps done of
total, the subjects and the batch (simulations), seconds since it began."""


def make_callback(progress):
    """The binding's callback for Model.solver's progress argument (None: none)."""
    if progress is None or progress is False:
        return None
    if progress is True:
        progress = Bar()
    if not callable(progress):
        from ._errors import UsageError
        raise UsageError(f"solver: progress must be True, False, None or a callable, not {progress!r}")
    def told(**info):
        done = progress(Progress(**info))
        return False if done is not None and not bool(done) else None  # any false value but None cancels

    return told


class Bar:
    """A progress bar of one solve or simulation at a time: tqdm, else a line on stderr."""

    def __init__(self):
        try:
            from tqdm.auto import tqdm
        except ImportError:
            tqdm = None
        self._tqdm, self._bar, self._key, self._last = tqdm, None, None, 0.0

    def __call__(self, p):
        key = (p.what, p.model, p.total)
        if key != self._key or p.done == 1:
            self._close()
            self._key = key
            if self._tqdm:
                self._bar = self._tqdm(total=p.total, desc=f"{p.what} {p.model}", unit="step", leave=False)
        if self._bar is not None:
            self._bar.update(p.done - self._bar.n)
        elif p.done == p.total or time.monotonic() - self._last > 0.1:
            self._last = time.monotonic()
            left = p.seconds / p.done * (p.total - p.done)
            sys.stderr.write(f"\r{p.what} {p.model}: period {p.period} (age {p.age:g}), step {p.done} of {p.total}, "
                             f"{p.seconds:.1f} s, about {left:.0f} s left\033[K")
            sys.stderr.flush()
        if p.done == p.total:
            self._close()

    def _close(self):
        if self._bar is not None:
            self._bar.close()
        elif self._key is not None:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
        self._bar, self._key = None, None
