#!/bin/sh
# What the recipes in ci/ (a CI matrix) and k8s/ (an Indexed Job) do, on one machine: runs
# `cancelcheck run` (or, with COMMAND=explore, an explore sweep) in N shards as N processes at
# once, each writing its `--json` summary to $OUT/shard-I.json, then merges them into the
# summary the whole run would have printed.
#
#   examples/run-shards.sh N [flags...]     e.g. examples/run-shards.sh 4 --seeds 0..100000
#   COMMAND=explore examples/run-shards.sh 4 --dialect all --behavior all --transport reordering
#
# Environment: COMMAND, `run` (default) or `explore`; CANCELCHECK, the binary (default: cancelcheck on the PATH); OUT, the folder for
# the shards' outputs (default: shards; emptied of earlier shard-*.json first); MERGE_FLAGS,
# flags for `merge` (e.g. --json). Exit code: merge's (0 no violation, 1 violations found), or
# 2 when a shard did not finish.
set -eu
n=${1:?usage: run-shards.sh N [flags...]}
shift
bin=${CANCELCHECK:-cancelcheck}
out=${OUT:-shards}
mkdir -p "$out"
rm -f "$out"/shard-*.json
pids=""
i=0
while [ "$i" -lt "$n" ]; do
    "$bin" "${COMMAND:-run}" "$@" --shard "$i/$n" --json >"$out/shard-$i.json" &
    pids="$pids $!"
    i=$((i + 1))
done
failed=0
for pid in $pids; do
    # Exit 1 is a shard that found violations (or, in a sweep, an unexpected outcome): a result, which the merge reports.
    wait "$pid" || [ $? -eq 1 ] || failed=1
done
if [ "$failed" -ne 0 ]; then
    echo "run-shards.sh: a shard did not finish (see its errors above); nothing merged" >&2
    exit 2
fi
# shellcheck disable=SC2086
exec "$bin" merge ${MERGE_FLAGS:-} "$out"/shard-*.json
