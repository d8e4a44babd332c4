#!/usr/bin/env bash
# Runs the ledger property test (test/e2e/ledger-property.e2e-spec.ts) once per seed, FROM to TO
# (default 1 to 20), one after another; stops at the first failing seed and prints it.
# Uses DATABASE_URL / REDIS_URL as the e2e tests do (unset: embedded PGlite, in-process jobs).
set -euo pipefail
from=${1:-1}
to=${2:-20}
cd "$(dirname "$0")/.."
for seed in $(seq "$from" "$to"); do
  start=$(date +%s)
  if ! LEDGER_PROPERTY_SEED=$seed npx jest test/e2e/ledger-property.e2e-spec.ts -t 'random walk' >"/tmp/ledger-property-$seed.log" 2>&1; then
    echo "seed $seed FAILED (log: /tmp/ledger-property-$seed.log)"
    exit 1
  fi
  echo "seed $seed passed in $(( $(date +%s) - start )) s: $(grep -o 'ledger property seed [0-9]*: .*' "/tmp/ledger-property-$seed.log" | head -1)"
done
