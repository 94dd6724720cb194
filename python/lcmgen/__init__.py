"""lcmgen: lifecycle models written in Lua, solved by generated kernels.

    import lcmgen
    model = lcmgen.load("models/iskhakov_2017.lua")
    solver = model.solver()                       # compiles, or takes the cache
    solution = solver.solve({"discount_factor": 0.98, ...})
    V = solution.V(period=0, regime="working_life")   # numpy, no copy
    panel = solver.simulate(solution, initial_df, seed=1)
    df = panel.to_pandas()

docs/python.md is the guide; the C library underneath is liblcm (lcm.h).
"""
from . import _core
from ._errors import (CancelledError, CompileError, DeviceError, InputError, InternalError, LcmError, LcmIOError, LcmMemoryError,
                      ModelError, NumericError, ParamsError, UsageError)
from ._model import Initial, Model, State, load
from ._panel import Panel
from ._params import ParamSpace, Resolved
from ._progress import Progress
from ._report import make_report
from ._solver import Solution, Solver, load_solution

__version__ = _core.version()


def read_params(path):
    """A params file written in Lua (``return { ... }``) as a dict."""
    import os
    return _core.read_params(os.fspath(path))


__all__ = ["load", "load_solution", "read_params", "make_report", "Model", "Solver", "Solution", "Panel", "Initial", "State",
           "ParamSpace", "Resolved", "Progress", "LcmError", "UsageError", "ModelError", "ParamsError", "LcmIOError",
           "CompileError", "NumericError", "InputError", "DeviceError", "LcmMemoryError", "CancelledError",
           "InternalError"]
