#!/bin/sh
# The main job: install what is missing, build, then solve a bundled model
# (Iskhakov et al. 2017, the published 'five_periods' case) and simulate
# its 1,000 bundled subjects into results/.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
sh scripts/build.sh
./build/bin/lcm run models/iskhakov_2017.lua --out-dir results
