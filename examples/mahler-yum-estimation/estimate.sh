#!/bin/sh
# estimate.sh - the estimation loop of the Makefile (which exports LCM, BUILD,
# SUBJECTS and MODELS).
#   sh estimate.sh targets              the moments at the estimated parameters
#   sh estimate.sh estimate TARGETS     golden-section search of the mean
#                                       discount factor on [0.90, 0.98]
#   sh estimate.sh check RESULT         whether the final bracket holds the
#                                       value the targets were made at
# A trial writes a params file that changes the structural estimates and
# makes the model's parameters with the model's own inputs.lua, then solves
# and simulates the generated model: the solver is compiled once (cached),
# and every trial simulates the same subjects with the same seed.
set -eu

# The moments of a panel by age group (ages 25-33, 35-43, ..., from the
# living): mean wealth, share in good health, mean effort, share working.
moments() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
    $c["regime"] != "alive" || $c["value"] == "" { next }
    {
      g = int(($c["age"] - 25) / 10); n[g]++
      w[g] += $c["wealth"]; h[g] += $c["health"] == "good"; e[g] += $c["effort_value"]
      work[g] += $c["labor_supply"] != "retired"; if (g > last) last = g
    }
    END {
      print "ages,wealth,good_health,effort,working"
      for (g = 0; g <= last; ++g)
        if (n[g]) printf "%d-%d,%.10g,%.10g,%.10g,%.10g\n", 25 + 10 * g, 33 + 10 * g,
          w[g] / n[g], h[g] / n[g], e[g] / n[g], work[g] / n[g]
    }' "$1"
}

# moments at mean discount factor $1 into $2
# the estimate the targets are made at (estimates.lua)
TRUE_MEAN=0.942749393405227

trial() {
  cat > "$BUILD/trial.params.lua" <<LUA
local estimates = require("mahler_yum_2024.estimates")
estimates.discount_factor.mean = $1
return require("mahler_yum_2024.inputs").model_params(estimates, "benchmark")
LUA
  "$LCM" simulate "$BUILD/mahler_yum" --params "$BUILD/trial.params.lua" \
    --initial "$MODELS/mahler_yum_2024.initial.lua" --subjects "$SUBJECTS" --seed 7 \
    --targets effort_value --csv "$BUILD/trial.panel.csv" --log-level warning
  moments "$BUILD/trial.panel.csv" > "$2"
}

# the distance of moments $1 from targets $2: the sum of squared differences,
# each relative to its target (at least 0.01)
distance() {
  awk -F, 'FNR == 1 { next }
    NR == FNR { for (i = 2; i <= NF; ++i) t[$1, i] = $i; next }
    { for (i = 2; i <= NF; ++i) { s = t[$1, i] < 0 ? -t[$1, i] : t[$1, i]; if (s < 0.01) s = 0.01
        d = ($i - t[$1, i]) / s; sum += d * d } }
    END { printf "%.12g\n", sum }' "$2" "$1"
}

case ${1:-} in
targets)
  trial "$TRUE_MEAN" "$BUILD/targets.csv"
  cat "$BUILD/targets.csv" ;;
estimate)
  targets=$2
  f() { trial "$1" "$BUILD/m.csv"; distance "$BUILD/m.csv" "$targets"; }
  lo=0.90 hi=0.98 trials=0
  # golden section: keeps the bracket around the smallest distance
  x1=$(awk -v a=$lo -v b=$hi 'BEGIN { printf "%.12g", b - (b - a) * 0.6180339887498949 }')
  x2=$(awk -v a=$lo -v b=$hi 'BEGIN { printf "%.12g", a + (b - a) * 0.6180339887498949 }')
  f1=$(f "$x1") f2=$(f "$x2") trials=2
  while awk -v a=$lo -v b=$hi 'BEGIN { exit !(b - a > 0.002) }'; do
    if awk -v p="$f1" -v q="$f2" 'BEGIN { exit !(p <= q) }'; then
      hi=$x2 x2=$x1 f2=$f1
      x1=$(awk -v a=$lo -v b=$hi 'BEGIN { printf "%.12g", b - (b - a) * 0.6180339887498949 }'); f1=$(f "$x1")
    else
      lo=$x1 x1=$x2 f1=$f2
      x2=$(awk -v a=$lo -v b=$hi 'BEGIN { printf "%.12g", a + (b - a) * 0.6180339887498949 }'); f2=$(f "$x2")
    fi
    trials=$((trials + 1))
  done
  best=$(awk -v a=$lo -v b=$hi 'BEGIN { printf "%.4f", (a + b) / 2 }')
  echo "mean discount factor $best (bracket [$lo, $hi], $trials trials of $SUBJECTS subjects; the targets were made at $TRUE_MEAN)" ;;
check)
  awk -v t="$TRUE_MEAN" '/^mean discount factor/ { gsub(/[][,]/, " "); ok = $6 <= t && t <= $7 }
    END { if (!ok) print "the bracket misses " t; exit !ok }' "$2" ;;
*)
  echo "usage: sh estimate.sh targets | estimate TARGETS | check RESULT" >&2; exit 2 ;;
esac
