"""Model.solver(checks=...): the check policy is the solver's own, and the
log level only says what is printed (docs/debugging.md, section 1).  On a
model whose V is NaN (tests/bad_input/models/nan_log.lua): "raise" (the
default) raises NumericError, "warn" warns and solves, "off" checks nothing,
at every log level."""
import pytest

import lcmgen
from conftest import REPO

NAN = REPO / "tests" / "bad_input" / "models" / "nan_log.lua"


@pytest.fixture(scope="module")
def model():
    return lcmgen.load(NAN)


@pytest.mark.parametrize("level", ["off", "warning", "info", "debug"])
def test_policy_independent_of_level(model, level, capfd):
    try:
        with pytest.raises(lcmgen.NumericError, match="V is NaN"):
            model.solver(backend="cpu", log_level=level).solve({})
        with pytest.raises(lcmgen.NumericError, match="V is NaN"):
            model.solver(backend="cpu", log_level=level, checks="raise").solve({})
        capfd.readouterr()
        sol = model.solver(backend="cpu", log_level=level, checks="warn").solve({})
        err = capfd.readouterr().err
        assert sol.V(0, "dead").size == 10
        assert ("V is NaN" in err) == (level != "off")
        sol = model.solver(backend="cpu", log_level=level, checks="off").solve({})
        assert sol.V(0, "dead").size == 10
        assert "V is NaN" not in capfd.readouterr().err
    finally:
        lcmgen._core.set_log_level("info")


def test_unknown_policy_is_a_usage_error(model):
    with pytest.raises(lcmgen.UsageError, match="checks"):
        model.solver(backend="cpu", checks="loud")
