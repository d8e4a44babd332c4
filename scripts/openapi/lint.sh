#!/usr/bin/env bash
# Lints the OpenAPI document /openapi.json serves (written by scripts/openapi/write-document.ts,
# which builds the app in-process on a fresh embedded database): Redocly's recommended rules and
# Spectral's spectral:oas. Exits non-zero on any error (warnings are printed, not fatal).
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
node -r ./scripts/openapi/register-ts.cjs scripts/openapi/write-document.ts "$dir/openapi.json"
# No telemetry or update notice from Redocly in CI.
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true npx --no-install redocly lint --extends recommended --format stylish "$dir/openapi.json"
npx --no-install spectral lint --fail-severity error --ruleset scripts/openapi/spectral.yaml "$dir/openapi.json"
