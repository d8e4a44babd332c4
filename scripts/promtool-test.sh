#!/usr/bin/env bash
# The Prometheus rules of deploy/prometheus: `promtool check rules` (syntax, PromQL, templates) and
# `promtool test rules` (each alert fires and stays quiet when it should). Installs Debian's
# prometheus package (which carries promtool) when promtool is missing. Exits non-zero on a failure.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v promtool >/dev/null; then
  echo "promtool missing: installing Debian's prometheus package"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null
fi
promtool --version | head -1

shopt -s nullglob
rules=()
tests=()
for file in deploy/prometheus/*.yml; do
  case "$(basename "$file")" in
    *test*) tests+=("$file") ;;
    *) rules+=("$file") ;;
  esac
done
[ ${#rules[@]} -gt 0 ] || { echo "no rule files in deploy/prometheus"; exit 1; }
[ ${#tests[@]} -gt 0 ] || { echo "no rule tests (*test*.yml) in deploy/prometheus"; exit 1; }

promtool check rules "${rules[@]}"
promtool test rules "${tests[@]}"
