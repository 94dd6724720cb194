#!/bin/sh
# The main job: install what is missing, build, and solve a bundled model
# (Iskhakov et al. 2017, the published 'five_periods' case) into results/.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
sh scripts/build.sh
mkdir -p results
./build/bin/lcm solve models/iskhakov_2017.lua \
  --params models/iskhakov_2017_five_periods.params.lua \
  --out results/iskhakov_2017.h5 --csv results/iskhakov_2017.csv
echo "value functions written to results/iskhakov_2017.h5 and results/iskhakov_2017.csv"
