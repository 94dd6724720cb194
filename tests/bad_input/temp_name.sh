#!/bin/bash
# temp_name.sh PATH PID [START]: the name of a temporary of PATH as lcm
# names it (ir/tempname.h) for process PID started at START (clock ticks
# since boot; default: PID's own start time, from /proc), in this boot and
# pid namespace.  For the catalogue's cases of stale temporaries: a dead
# PID's (a child that ended), a live one's, a reused pid's (a live PID with
# another START).
set -eu
path=$1 pid=$2
start=${3:-$(sed 's/.*) //' "/proc/$pid/stat" | cut -d' ' -f20)}
boot=$(head -c 8 /proc/sys/kernel/random/boot_id)
ns=$(printf '%08x' $(($(readlink /proc/self/ns/pid | tr -dc 0-9) & 0xffffffff)))
echo "$path.tmp.$boot$ns.$pid.$start.AbCdEfGhIj"
