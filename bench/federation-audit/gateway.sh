#!/bin/sh
# What the audit's CLI runs for each test suite: `sh gateway.sh <suite id>`. It fetches the suite's
# supergraph from the audit's subgraph server and replaces itself (exec) with the gateway, so that
# the CLI's SIGTERM reaches the gateway. Environment from run.sh: FA_ROOT, FA_MODE (ours|stock),
# FA_AUDIT_PORT, FA_GW_PORT, FA_GW_INTERNAL_PORT, FA_HEALTH_PORT, FA_WORK, FA_STOCK_APOLLO (stock).
set -eu
id="$1"
supergraph="$FA_WORK/supergraphs/$id.graphql"
mkdir -p "$FA_WORK/supergraphs"
curl -sf "http://127.0.0.1:$FA_AUDIT_PORT/$id/supergraph" -o "$supergraph"
echo "$$" > "$FA_WORK/gateway.pid"
cd "$FA_ROOT"
case "$FA_MODE" in
  ours)
    data="$FA_WORK/data/$id"
    rm -rf "$data"; mkdir -p "$data"
    # The audit's client is anonymous, and some of its operations cost more than the anonymous
    # budget (1,000): FA_ANON_COST raises it (as bench/gateway-compare.ts does); `default` keeps it.
    if [ "$FA_ANON_COST" != default ]; then export SVC_GRAPHQL_COST_ANONYMOUS="$FA_ANON_COST"; fi
    SVC_ROLE=gateway SVC_SUPERGRAPH="$supergraph" SVC_PORT="$FA_GW_PORT" SVC_INTERNAL_PORT="$FA_GW_INTERNAL_PORT" \
      SVC_DATA_DIR="$data" SVC_HOST=127.0.0.1 SVC_RATE_LIMITS=off SVC_LOG_LEVEL=warn \
      exec node --import tsx server.ts
    ;;
  stock)
    # Apollo's planner as published, not the project's patched copy (run.sh prepares FA_STOCK_APOLLO).
    exec node --require "$FA_ROOT/bench/federation-audit/unpatched-apollo.cjs" --import tsx \
      bench/federation-audit/stock-gateway.ts "$supergraph" "$FA_GW_PORT" "$FA_HEALTH_PORT"
    ;;
  *) echo "unknown FA_MODE $FA_MODE" >&2; exit 2 ;;
esac
