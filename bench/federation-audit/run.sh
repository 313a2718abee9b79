#!/usr/bin/env bash
# The Apollo Federation compatibility suite of The Guild (graphql-hive/federation-gateway-audit:
# 46 suites, 199 tests) against this project's gateway component, or against stock @apollo/gateway:
#
#   bash bench/federation-audit/run.sh ours     # SVC_ROLE=gateway over each suite's supergraph
#   bash bench/federation-audit/run.sh stock    # @apollo/gateway + @apollo/server, stock settings
#
# Prints "passed X of Y" and the id (<suite>_<index>) of every failing test. The audit is fetched
# once, at a pinned commit, into FEDERATION_AUDIT_DIR (default: ~/.cache/svc-federation-audit/<commit>;
# needs GitHub and the npm registry the first time). Ports: FA_AUDIT_PORT (4200, the audit's
# subgraphs), FA_GW_PORT (4400), FA_GW_INTERNAL_PORT (4401, ours), FA_HEALTH_PORT (4402, stock).
# FA_ANON_COST (ours): the anonymous cost budget, 100000 by default (the audit's client is
# anonymous); `default` keeps the project's 1,000. Logs: $FA_WORK/{cli.log,results.txt,logs/}.
set -euo pipefail
MODE="${1:-}"
case "$MODE" in ours|stock) ;; *) echo "usage: $0 ours|stock" >&2; exit 2 ;; esac
HERE="$(cd "$(dirname "$0")" && pwd)"
export FA_ROOT="$(cd "$HERE/../.." && pwd)"
COMMIT=f59c05e3f48f4a4f8e8a731d67a1b71a9788a96f
AUDIT="${FEDERATION_AUDIT_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/svc-federation-audit/$COMMIT}"
export FA_MODE="$MODE"
export FA_AUDIT_PORT="${FA_AUDIT_PORT:-4200}" FA_GW_PORT="${FA_GW_PORT:-4400}"
export FA_GW_INTERNAL_PORT="${FA_GW_INTERNAL_PORT:-4401}" FA_HEALTH_PORT="${FA_HEALTH_PORT:-4402}"
export FA_ANON_COST="${FA_ANON_COST:-100000}"
export FA_WORK="${FA_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/svc-federation-audit-$MODE.XXXXXX")}"
export GATEWAY_TIMEOUT="${GATEWAY_TIMEOUT:-60000}"   # the audit's wait for a gateway's health check
DEADLINE_S="${FA_DEADLINE_S:-900}"

# The audit at its pinned commit, its own dependencies, and this project's graphql as its peer.
if [ ! -f "$AUDIT/package.json" ]; then
  git clone --quiet https://github.com/graphql-hive/federation-gateway-audit.git "$AUDIT"
  git -C "$AUDIT" checkout --quiet "$COMMIT"
fi
if [ ! -d "$AUDIT/node_modules/@apollo/composition" ]; then
  # Without devDependencies: they hold other vendors' gateways, one of them not on the npm registry.
  (cd "$AUDIT" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund)
fi
[ -e "$AUDIT/node_modules/graphql" ] || ln -s "$FA_ROOT/node_modules/graphql" "$AUDIT/node_modules/graphql"

# Stock means Apollo's code as published: the project's @apollo/query-planner, @apollo/query-graphs and @apollo/gateway
# carry the patches under patches/ (applied by patch-package at install), so stock runs on copies
# with those patches taken out again (unpatched-apollo.cjs points the stock gateway at them).
if [ "$MODE" = stock ]; then
  export FA_STOCK_APOLLO="$FA_WORK/unpatched-apollo"
  mkdir -p "$FA_STOCK_APOLLO/node_modules/@apollo"
  for patch in "$FA_ROOT"/patches/@apollo+query-graphs+*.patch "$FA_ROOT"/patches/@apollo+query-planner+*.patch "$FA_ROOT"/patches/@apollo+gateway+*.patch; do
    [ -f "$patch" ] || continue
    pkg="$(basename "$patch" | sed -E 's/^@apollo\+([a-z-]+)\+.*$/\1/')"
    rm -rf "$FA_STOCK_APOLLO/node_modules/@apollo/$pkg"
    cp -R "$FA_ROOT/node_modules/@apollo/$pkg" "$FA_STOCK_APOLLO/node_modules/@apollo/$pkg"
    if (cd "$FA_STOCK_APOLLO" && git apply -R --check "$patch" 2>/dev/null); then
      (cd "$FA_STOCK_APOLLO" && git apply -R "$patch")
    elif ! (cd "$FA_STOCK_APOLLO" && git apply --check "$patch" 2>/dev/null); then
      echo "node_modules/@apollo/$pkg matches neither $patch nor its original; run npm ci" >&2; exit 1
    fi
  done
fi

# The audit's CLI stops whatever listens on the gateway port before each suite: never run on a busy one.
for port in "$FA_AUDIT_PORT" "$FA_GW_PORT" "$FA_GW_INTERNAL_PORT" "$FA_HEALTH_PORT"; do
  if ss -Htln "sport = :$port" | grep -q .; then echo "port $port is in use; set FA_*_PORT" >&2; exit 1; fi
done
if [ "$MODE" = ours ]; then HEALTH="http://127.0.0.1:$FA_GW_PORT/health"; else HEALTH="http://127.0.0.1:$FA_HEALTH_PORT/health"; fi

CLI=""
cleanup() {
  trap - EXIT INT TERM
  if [ -n "$CLI" ] && kill -0 "$CLI" 2>/dev/null; then
    kill -TERM -- "-$CLI" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 -- "-$CLI" 2>/dev/null || break; sleep 0.2; done
  fi
  if [ -n "$CLI" ]; then kill -KILL -- "-$CLI" 2>/dev/null || true; fi
  if [ -f "$FA_WORK/gateway.pid" ]; then kill -KILL "$(cat "$FA_WORK/gateway.pid")" 2>/dev/null || true; fi
  rm -rf "$FA_WORK/data"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

started=$(date +%s)
cd "$AUDIT"
# One process group (the CLI, its subgraph server, the test runs and each gateway), stopped at the end.
setsid node --import "$HERE/polyfill.mjs" --import "$FA_ROOT/node_modules/tsx/dist/loader.mjs" src/cli.ts test \
  --cwd "$FA_WORK" --run-script "$HERE/gateway.sh" --reporter dot --port "$FA_AUDIT_PORT" \
  --graphql "http://127.0.0.1:$FA_GW_PORT/graphql" --healthcheck "$HEALTH" --write results.txt \
  > "$FA_WORK/cli.log" 2>&1 < /dev/null &
CLI=$!
while kill -0 "$CLI" 2>/dev/null; do
  if [ $(( $(date +%s) - started )) -gt "$DEADLINE_S" ]; then echo "no result within ${DEADLINE_S}s; stopping" >&2; exit 1; fi
  sleep 1
done
wait "$CLI" || { echo "the audit's CLI failed; see $FA_WORK/cli.log" >&2; tail -20 "$FA_WORK/cli.log" >&2; exit 1; }

RESULTS="$FA_WORK/results.txt"
[ -f "$RESULTS" ] || { echo "no $RESULTS; see $FA_WORK/cli.log" >&2; exit 1; }
# results.txt: pairs of lines, a suite's id then one "." (passed) or "X" per test, until a blank line.
EXTRA=""; [ "$MODE" = ours ] && EXTRA=" (anonymous cost budget: $FA_ANON_COST)"
awk -v mode="$MODE" -v extra="$EXTRA" -v secs="$(( $(date +%s) - started ))" '
  /^$/ { done = 1 } done { next }
  NR % 2 == 1 { suite = $0; suites++; next }
  { n = split($0, r, ""); for (i = 1; i <= n; i++) { total++; if (r[i] == ".") passed++; else failed[++nf] = suite "_" (i - 1) } if (n == 0) empty[++ne] = suite }
  END {
    printf "%s%s: passed %d of %d (%d suites, %ds)\n", mode, extra, passed, total, suites, secs
    for (i = 1; i <= nf; i++) print "FAILED " failed[i]
    for (i = 1; i <= ne; i++) print "NO RESULTS FOR SUITE " empty[i]
  }' "$RESULTS"
echo "logs: $FA_WORK"
