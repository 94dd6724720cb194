#!/bin/bash
# Druedahl (2021), models/durables.lua, at small grid sizes (the paper's
# sizes take minutes: docs/models.md):
# - V of the last period equals the closed form max(u(m, n), max over the
#   durable grid of u(x - d, d)) at every grid point (2160);
# - the cpu backend and the interpreter give the same V to 1e-12 in every period;
# - lcm run simulates the bundled initial conditions: every subject in every
#   period, keepers with d = n and no durable share, end-of-period assets
#   >= 0, and in the last period the value is the closed form at the
#   subject's own state;
# - bench/durables.initial.lua draws its subjects from the authors' initial
#   distribution, the same on every run.
. "${BASH_SOURCE%/*}/common.sh"
work_dir durables
model=$SRC/models/durables.lua
params=$SRC/models/durables.params.lua
Nd=7
small="-D n_periods=3 -D a_points=8 -D p_points=5 -D n_points=6 -D psi_points=3 -D xi_points=3 -D c_points=9 -D d_points=$Nd"
# the parameters of durables.params.lua
par="-v R=1.03 -v tau=0.10 -v alpha=0.9 -v rho=2.0 -v du=1e-2 -v Nd=$Nd"

"$LCM" solve "$model" $small --params "$params" --backend cpu --out "$work/cpu.h5" --log-level warning
check "the small model solves on cpu" "[ -s '$work/cpu.h5' ]"
"$LCM" solve "$model" $small --params "$params" --backend interp --out "$work/interp.h5" --log-level warning
check "the small model solves on interp" "[ -s '$work/interp.h5' ]"
for ds in /V/period_0/alive /V/period_1/alive /V/period_2/last; do
  "$VCMP" "$work/interp.h5" $ds "$work/cpu.h5" $ds --rtol 1e-12 > "$work/cmp" 2>&1
  rc=$?
  cat "$work/cmp"
  check "cpu and interp agree on $ds to 1e-12" "[ $rc -eq 0 ] && grep -q '^2160 values compared' '$work/cmp'"
done

# one dataset as comma-separated numbers, row-major
values() { h5dump -y -w 0 -m %.17g -d "$2" "$1" | awk '/DATA {/ { ++f; next } f == 1 && /}/ { exit } f == 1' | tr -d ' \n'; echo; }

# the terminal utility's maximum, for awk: keep (c = m, d = n) or adjust
# (d = min(d_share x, n_max = 3), d_share on linspace(0, 1 - 1/Nd, Nd), c = x - d)
closed_form='
function u(c, d) { return (c ^ alpha * (d + du) ^ (1 - alpha)) ^ (1 - rho) / (1 - rho) }
function v_last(m, n,    x, best, h, j, s, d, v) {
  x = m + (1 - tau) * n
  best = u(m, n)
  h = (1 - 1 / Nd) / (Nd - 1)
  for (j = 0; j < Nd; ++j) {
    s = (j == Nd - 1) ? 1 - 1 / Nd : j * h
    d = s * x; if (d > 3) d = 3
    v = u(x - d, d)
    if (v > best) best = v
  }
  return best
}
function rel(a, b) { return (a > b ? a - b : b - a) / ((b > 1 || b < -1) ? (b < 0 ? -b : b) : 1) }'

if command -v h5dump > /dev/null; then
  for ax in a_lag p_lag n psi xi; do values "$work/cpu.h5" /axes/last/grid_$ax > "$work/$ax"; done
  values "$work/cpu.h5" /V/period_2/last > "$work/V"
  awk $par "$closed_form"'
    { line[FILENAME] = $0 }
    END {
      na = split(line[A], a, ","); np = split(line[P], p, ","); nn = split(line[N], n, ",")
      npsi = split(line[PSI], psi, ","); nxi = split(line[XI], xi, ","); nv = split(line[V], v, ",")
      if (nv != na * np * nn * npsi * nxi) { print "V has " nv " values"; exit 1 }
      k = 0; worst = 0
      for (i = 1; i <= na; ++i) for (j = 1; j <= np; ++j) for (l = 1; l <= nn; ++l)
        for (s = 1; s <= npsi; ++s) for (t = 1; t <= nxi; ++t) {
          pp = psi[s] * p[j]; if (pp < 1e-4) pp = 1e-4; if (pp > 3) pp = 3
          m = R * a[i] + xi[t] * pp
          e = rel(v[++k], v_last(m, n[l])); if (e > worst) worst = e
        }
      printf "last period: %d grid points, largest relative difference %.3g\n", k, worst
      exit !(worst <= 1e-12)
    }' A="$work/a_lag" P="$work/p_lag" N="$work/n" PSI="$work/psi" XI="$work/xi" V="$work/V" \
    "$work/a_lag" "$work/p_lag" "$work/n" "$work/psi" "$work/xi" "$work/V"
  check "V of the last period is the closed form at every grid point" "[ $? -eq 0 ]"
else
  echo "h5dump is not installed (hdf5-tools): the closed form at the grid points is not checked"
fi

# lcm run with the bundled parameters and initial conditions
"$LCM" run "$model" $small --out-dir "$work/run" --targets all --seed 7 --log-level warning 2> "$work/run.err"
cat "$work/run.err"
panel=$work/run/durables.panel.csv
check "lcm run simulates the small model" "[ -s '$panel' ]"
subjects=$(($(wc -l < "$SRC/models/durables.initial.csv") - 1))
check "$subjects subjects, 3 periods each" "[ \$((\$(wc -l < '$panel') - 1)) -eq $((3 * subjects)) ]"
awk -F, $par "$closed_form"'
  NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
  { if ($c["value"] !~ /^-?[0-9]/) { print "not a number: " $0; bad = 1 } }
  $c["adjust"] == "keep" && ($c["d"] != $c["n"] || $c["d_share"] != 0) { print "keeper with a new durable: " $0; bad = 1 }
  $c["regime"] == "alive" && $c["resources"] - $c["c"] < 0 { print "negative assets: " $0; bad = 1 }
  $c["regime"] == "last" {
    ++last
    e = rel($c["value"], v_last($c["m"], $c["n"]))
    if (e > 1e-12) { print "last period value " $c["value"] " is not " v_last($c["m"], $c["n"]) ": " $0; bad = 1 }
  }
  $c["adjust"] == "adjust" { ++adjusters }
  END { printf "%d subjects in the last period, %d adjustments\n", last, adjusters; exit bad || last == 0 }' "$panel"
check "the panel's choices are feasible and its last values the closed form" "[ $? -eq 0 ]"

# bench/durables.initial.lua draws the authors' initial distribution: at age
# 0, a_lag = 0.2 LN(0, 0.1^2) (mean 0.201), p_lag = LN(0, 0.2^2) (mean 1.020)
# and n = 0.85 * 0.8 LN(0, 0.2^2) (mean 0.694), the same on every run
draws() { "$LCM" simulate "$model" $small --params "$params" --initial "$SRC/bench/durables.initial.lua" --subjects 2000 \
          --csv - --log-level warning; }
draws > "$work/draws1.csv" && draws > "$work/draws2.csv"
check "bench/durables.initial.lua gives the same subjects on every run" "cmp -s '$work/draws1.csv' '$work/draws2.csv'"
awk -F, '
  NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
  $c["period"] == 0 { ++k; a += $c["a_lag"]; p += $c["p_lag"]; n += $c["n"] }
  END {
    a /= k; p /= k; n /= k
    printf "%d subjects: means a_lag %.4f, p_lag %.4f, n %.4f\n", k, a, p, n
    exit !(k == 2000 && a > 0.195 && a < 0.207 && p > 1.0 && p < 1.04 && n > 0.68 && n < 0.71)
  }' "$work/draws1.csv"
check "its subjects have the authors' initial means" "[ $? -eq 0 ]"

rm -rf "$work"
exit $fail
