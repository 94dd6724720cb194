# %% [markdown]
# # Mahler & Yum (2024): the life cycle of a simulated panel
#
# A notebook-style script (cells marked `# %%`: run it as a script, or cell by
# cell in VS Code, Spyder or Jupyter with jupytext).  It loads
# models/mahler_yum_2024.lua at reduced grid sizes, solves it at the published
# estimates, simulates subjects from age 25, and plots mean consumption,
# wealth and effort by age, by education, with V at age 25 against wealth.
#
#     python policy_plot.py [OUTDIR]      # OUTDIR: where the figure goes (default: the current folder)
#
# With matplotlib it writes OUTDIR/policy_plot.png; without it, it says so and
# writes the figure's data as OUTDIR/policy_plot.csv (and the V curves as
# OUTDIR/policy_plot_V.csv) instead.

# %%
import pathlib
import sys
import time

import pandas as pd

import lcmgen

# this folder (in a notebook, which has no __file__: the folder it runs in)
HERE = pathlib.Path(__file__).resolve().parent if "__file__" in globals() else pathlib.Path.cwd()
sys.path.insert(0, str(HERE))
from estimate import PARAMS, MODEL, SIZES, initial_conditions  # noqa: E402  (the estimation's subjects)

# the output folder: the first argument (a notebook kernel's arguments start with "-")
OUT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else ".")
OUT.mkdir(parents=True, exist_ok=True)

# %% [markdown]
# ## Load, solve, simulate
# The small size of estimate.py; the solver is compiled once and then taken
# from the cache (~/.cache/lcm, or $LCM_CACHE_DIR).

# %%
options = SIZES["small"]["options"]
model = lcmgen.load(MODEL, options=options)
solver = model.solver()
params = lcmgen.read_params(PARAMS)
t = time.perf_counter()
solution = solver.solve(params)
panel = solver.simulate(solution, initial_conditions(4000, options, seed=1), seed=1, targets=["consumption"])
print(f"{model}: solved and simulated {panel.rows} rows in {time.perf_counter() - t:.2f} s")

# %% [markdown]
# ## Means by age and education, of the living

# %%
df = panel.to_pandas()
df = df[df["regime"] == "alive"].assign(effort=lambda d: d["effort"].cat.codes / (options["effort_points"] - 1))
by_age = (df.groupby(["education", "age"], observed=True)[["consumption", "wealth", "effort"]].mean()
          .unstack("education"))
by_age.columns = [f"{var}_{edu}" for var, edu in by_age.columns]
print(by_age.round(3).head())

# %% [markdown]
# ## V at age 25 against wealth
# `solution.V(period, regime)` is a numpy view shaped by the regime's states
# (`model.states`); `solution.axes` gives their coordinates.  The curves take
# good health, the lowest habit level, the middle productivity shock, the
# lower adjustment cost, both discount types, education low and high, with
# productivity and health types low.

# %%
V = solution.V(0, "alive")
axes = solution.axes(0, "alive")
states = model.states("alive")
points = {st.name: st.points for st in states}
pick = {"health": "good", "lagged_effort": "0", "productivity": "low", "health_type": "low",
        "productivity_shock": points["productivity_shock"] // 2, "adjustment_cost": 0,
        "education": slice(None), "discount_type": slice(None), "wealth": slice(None)}
index = tuple(st.labels.index(pick[st.name]) if isinstance(pick[st.name], str) else pick[st.name] for st in states)
curves = V[index]          # axes: education, discount_type, wealth
v_rows = {f"V_{e}_{d}": curves[i, j] for i, e in enumerate(axes["education"])
          for j, d in enumerate(axes["discount_type"])}
v_table = pd.DataFrame(v_rows, index=pd.Index(axes["wealth"], name="wealth"))
print(v_table.round(2))

# %% [markdown]
# ## The figure (or its data)

# %%
try:
    import matplotlib.pyplot as plt     # without a display it draws with Agg
except ImportError:
    plt = None

if plt is None:
    by_age.to_csv(OUT / "policy_plot.csv")
    v_table.to_csv(OUT / "policy_plot_V.csv")
    print(f"matplotlib is not installed: wrote the figure's data to {OUT / 'policy_plot.csv'} and "
          f"{OUT / 'policy_plot_V.csv'} instead of {OUT / 'policy_plot.png'}")
else:
    fig, ax = plt.subplots(1, 4, figsize=(17, 4))
    for k, var in enumerate(["consumption", "wealth", "effort"]):
        for edu in ("low", "high"):
            ax[k].plot(by_age.index, by_age[f"{var}_{edu}"], marker=".", label=f"education {edu}")
        ax[k].set(xlabel="age", title=f"mean {var}")
        ax[k].legend()
    for name, v in v_table.items():
        education, discount = name.split("_")[1:]
        ax[3].plot(v_table.index, v, marker=".", label=f"education {education}, discount {discount}")
    ax[3].set(xlabel="wealth", title="V at 25 (good health)")
    ax[3].legend()
    fig.tight_layout()
    fig.savefig(OUT / "policy_plot.png", dpi=100)
    print(f"wrote {OUT / 'policy_plot.png'}")
