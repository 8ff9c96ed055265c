#!/usr/bin/env bash
# Installs promtool (Debian's prometheus package) when it is missing, without letting the package start the
# Prometheus service. The alert rules and their unit tests need it: cd k8s/monitoring && promtool test rules *.test.yaml
set -euo pipefail
command -v promtool >/dev/null 2>&1 && exit 0
[ "$(id -u)" -eq 0 ] || { echo "promtool is missing: apt-get install -y prometheus (as root)" >&2; exit 1; }
# policy-rc.d exit 101 = "do not start services"; put back exactly what was there before
policy=/usr/sbin/policy-rc.d saved=""
if [ -e "$policy" ]; then saved=$(mktemp); cp -p "$policy" "$saved"; fi
printf '#!/bin/sh\nexit 101\n' > "$policy"; chmod 755 "$policy"
rc=0
{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus \
    >/dev/null; } || rc=$?
if [ -n "$saved" ]; then mv "$saved" "$policy"; else rm -f "$policy"; fi
exit $rc
