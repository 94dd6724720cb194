"""The Python side of bench/python/overhead.sh: estimation_loop.c's loop
through lcmgen -- a params dict per iteration, solve, simulate into the
panel before (out=), the mean wealth at age 60 -- timed.

    python estimation_loop.py DIR INITIAL.csv ITERATIONS [--space]

--space gives the parameters as a vector (Model.param_space), the way an
optimizer's loop does, instead of a dict."""
import sys
import time

import numpy as np

import lcmgen


def main(model_dir, initial, iterations, space):
    model = lcmgen.load(model_dir)
    solver = model.solver(backend="cpu")
    subjects = model.initial(initial)
    base = {"discount_factor": 0.9, "disutility_of_work": 1.0, "interest_rate": 0.0, "wage": 20.0}
    vector = model.param_space(["discount_factor"], base) if space else None
    panel, total = None, 0.0
    t0 = time.perf_counter()
    for i in range(iterations):
        beta = 0.90 + 0.09 * i / iterations
        params = vector.from_vector(np.array([beta])) if space else dict(base, discount_factor=beta)
        solution = solver.solve(params)
        panel = solver.simulate(solution, subjects, seed=1, out=panel)
        age, wealth = panel.column("age"), panel.column("wealth")
        at60 = age == 60
        total += wealth[at60].sum() / at60.sum() if at60.any() else 0.0
        del age, wealth  # the next simulate(out=) takes the panel's memory
    seconds = time.perf_counter() - t0
    print(f"python{'-space' if space else ''} {iterations} iterations {seconds:.6f} s moments {total:.12g}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), "--space" in sys.argv[4:])
