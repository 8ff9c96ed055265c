#!/usr/bin/env bash
# Runs failover scenarios on the high-availability rig and prints their figures (docs/high-availability.md).
#
#   ha/scenarios.sh SCENARIOS [RUNS]      e.g.  ha/scenarios.sh 2 3      ha/scenarios.sh 1,2,3,4 3
#
#   1  the primary's Patroni and postgres killed (kill -9) under the storm      (also in every build)
#   2  a planned switchover (patronictl switchover) under the storm: 0 client-visible errors
#   3  the Redis master killed under the storm                                   (also in every build)
#   4  both at once: the Redis master killed, then the primary 5 s later
#
# Each scenario runs RUNS times (default 3) in one FailoverIT run: one rig (ha/rig.sh, in target/ha-rig), two
# replicas of the packaged jar, the rig healed between runs. Every run prints one HA-FIGURES line; they are collected
# at the end. The full output is kept in target/ha-scenarios-<time>.log.
set -euo pipefail
cd "$(dirname "$0")/.."

scenarios=${1:?usage: ha/scenarios.sh SCENARIOS [RUNS], e.g. ha/scenarios.sh 2 3}
runs=${2:-3}
[[ $scenarios =~ ^[1-4](,[1-4])*$ ]] || { echo "scenarios are 1-4, comma-separated: $scenarios" >&2; exit 2; }
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "runs must be a positive number: $runs" >&2; exit 2; }

mkdir -p target
log=target/ha-scenarios-$(date +%Y%m%d-%H%M%S).log
rc=0
./mvnw -B verify -Dit.test=FailoverIT -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
  -Dha.scenarios="$scenarios" -Dha.runs="$runs" > "$log" 2>&1 || rc=$?
echo "---- figures (full output: $log)"
grep -h 'HA-FIGURES' "$log" | sed 's/^.*HA-FIGURES //' || true
grep -h -E 'Tests run:.*FailoverIT|BUILD (SUCCESS|FAILURE)' "$log" | tail -2 || true
exit $rc
