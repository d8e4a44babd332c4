#!/usr/bin/env bash
# Starts the server as `npm start` does (build, then node dist/src/main.js; embedded default),
# checks /health, stops it with SIGTERM (exit 0 expected), restarts it on the same data and checks
# that an account created before the restart is still there. Also: start refuses what
# docs/spec/design.md section 16 refuses (exit 78, a message naming the variable), the start line
# states the mode, trust proxy and limits, and the process listens on no port but its HTTP port.
# Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
data=$(mktemp -d)
port=${SMOKE_PORT:-3917}
log=$(mktemp)
shared=$(mktemp -d)
trap 'rm -rf "$data" "$log" "$shared"' EXIT

npm run build --silent

# refused NAME VAR=value...: start with these variables must exit 78 with a message naming NAME.
refused() {
  local name=$1 out code
  shift
  set +e
  out=$(env "$@" PORT="$port" node dist/src/main.js 2>&1)
  code=$?
  set -e
  if [ "$code" != 78 ] || ! grep -qF "$name" <<<"$out"; then echo "expected a refusal naming $name (exit 78), got exit $code: $out"; exit 1; fi
  echo "refused as expected: $out"
}
refused DATABASE_URL NODE_ENV=production DATA_DIR="$data"
refused METRICS_TOKEN HOST=0.0.0.0 DATA_DIR="$data"
refused METRICS_TOKEN TRUST_PROXY=1 DATA_DIR="$data"
chmod 777 "$shared"
refused "DATA_DIR $shared" DATA_DIR="$shared"
admin="smoke-admin-token-0123456789abcdef0123456789"
start() {
  if curl -fs "http://127.0.0.1:$port/health" >/dev/null 2>&1; then echo "port $port is taken"; exit 1; fi
  DATA_DIR="$data" PORT="$port" ADMIN_TOKEN="$admin" node dist/src/main.js >"$log" 2>&1 &
  pid=$!
  for i in $(seq 1 120); do
    if curl -fs "http://127.0.0.1:$port/health" >/dev/null 2>&1; then return 0; fi
    kill -0 "$pid" 2>/dev/null || { cat "$log"; echo "server exited"; exit 1; }
    sleep 0.5
  done
  cat "$log"; echo "server did not become healthy"; exit 1
}

stop() {
  kill -TERM "$pid"
  wait "$pid" || { echo "server did not stop cleanly"; cat "$log"; exit 1; }
}

wallet=9Fz8i2RGmyiN4WJAr7bvqSEJC3L3Rp1J4be6GK2DrB1u
start
curl -fs "http://127.0.0.1:$port/health"; echo
grep -q '"msg":"listening".*"mode":"embedded".*"trust_proxy"' "$log" || { cat "$log"; echo "the start line does not state mode and trust proxy"; exit 1; }
# The embedded database is reached in-process: the HTTP port is the process's only listener.
listeners=$(ss -Hltnp | grep "pid=$pid," | awk '{print $4}' | sort -u | tr '\n' ' ')
[ "$listeners" = "127.0.0.1:$port " ] || { echo "listeners of the server: $listeners (expected only 127.0.0.1:$port)"; exit 1; }
[ "$(stat -c %a "$data")" = 700 ] || { echo "DATA_DIR mode $(stat -c %a "$data"), expected 700"; exit 1; }
id=$(curl -fs -X POST "http://127.0.0.1:$port/v1/admin/accounts" -H "authorization: Bearer $admin" -H 'content-type: application/json' \
  -d "{\"wallet\":\"$wallet\",\"roles\":[\"taker\"]}" | sed -E 's/.*"account_id":([0-9]+).*/\1/')
stop
start
curl -fs "http://127.0.0.1:$port/v1/admin/accounts/$id" -H "authorization: Bearer $admin" | grep -q "$wallet" || { echo "account lost across restart"; exit 1; }
echo "account $id kept across restart"
stop
echo "smoke: ok"
