#!/usr/bin/env bash
# Webhook dispatch at scale (issue 46), process-level: the packaged jar with WEBHOOKS_ENDPOINTS enabled endpoints on
# loopback receivers (50 to a receiver, as endpoints on hosts of their own) plus WEBHOOKS_SILENT that never answer,
# WEBHOOKS_WRITERS clients creating WEBHOOKS_ORDERS orders as fast as the service answers (one event each), a reader
# following GET /events. Prints the feed's lag, a healthy endpoint's p99 latency and deliveries/s, from
# EventPipelineIT's first test at this size (the test tier runs it at 500 + 1).
#
#   bench/webhooks.sh            # 1,000 endpoints + 10 silent, 300 orders by 16 writers: 300,000 deliveries
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ENDPOINTS=${WEBHOOKS_ENDPOINTS:-1000}
SILENT=${WEBHOOKS_SILENT:-10}
ORDERS=${WEBHOOKS_ORDERS:-300}
WRITERS=${WEBHOOKS_WRITERS:-16}
mkdir -p bench/target
./mvnw -B -q verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dredocly.skip -Dasyncapi.skip \
  -Dit.test='EventPipelineIT#shouldShowEveryOrderInTheFeedWithinSecondsAndDeliverItToEveryHealthyEndpointWhileOthersHang' \
  -Dpipeline.endpoints="$ENDPOINTS" -Dpipeline.silent="$SILENT" -Dpipeline.orders="$ORDERS" \
  -Dpipeline.writers="$WRITERS" 2>&1 | tee bench/target/webhooks.log | grep -E "endpoints \+|Tests run|FAIL" || true
