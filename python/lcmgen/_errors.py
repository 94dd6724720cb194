"""lcmgen's exceptions: one class per lcm_status of liblcm (lcm.h).

Every failing call of the library raises the class of its status with the
message the ``lcm`` command prints for the same failure.  The binding
(python/src/core.cpp) calls :func:`from_status`; this module owns the
mapping.
"""


class LcmError(Exception):
    """A failure reported by lcm; ``status`` is the lcm_status (the ``lcm``
    command's exit code), ``message`` its one-line explanation."""

    status = 1

    def __init__(self, message, status=None):
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status


class UsageError(LcmError, ValueError):
    """A call the API does not allow (a closed solver, a busy one, bad options)."""
    status = 2


class ModelError(LcmError):
    """The model file: Lua errors, DSL misuse, bad grids."""
    status = 3


class ParamsError(LcmError, ValueError):
    """Parameters: unknown, missing, NaN or of the wrong shape."""
    status = 4


class LcmIOError(LcmError, OSError):
    """Reading or writing files."""
    status = 5


class CompileError(LcmError):
    """Compiling the generated kernels."""
    status = 6


class NumericError(LcmError, ArithmeticError):
    """A check of the solve or simulation failed (NaN in V, probabilities
    that do not sum to one); the message is lcm's report of where."""
    status = 7


class InputError(LcmError, ValueError):
    """Initial conditions and other data inputs."""
    status = 8


class DeviceError(LcmError):
    """The GPU or its driver."""
    status = 9


class LcmMemoryError(LcmError, MemoryError):
    """The problem does not fit in the memory the process may use."""
    status = 10


class CancelledError(LcmError):
    """The progress callback cancelled the solve or simulation (it returned False)."""
    status = 11


class InternalError(LcmError):
    """A bug in lcm: please report it."""
    status = 70


_BY_STATUS = {c.status: c for c in (UsageError, ModelError, ParamsError, LcmIOError, CompileError, NumericError,
                                    InputError, DeviceError, LcmMemoryError, CancelledError,
                                    InternalError)}


def from_status(status, message):
    """The exception for an lcm_status and its message."""
    return _BY_STATUS.get(status, LcmError)(message, status)
