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

# The dashboard's queries are PromQL too: as recording rules (Grafana's variables replaced by what
# they expand to), promtool parses each one.
dashboard_rules=$(mktemp --suffix .yml)
trap 'rm -f "$dashboard_rules"' EXIT
node - deploy/grafana/legwork.json >"$dashboard_rules" <<'JS'
const dashboard = JSON.parse(require('node:fs').readFileSync(process.argv[2], 'utf8'));
const exprs = [];
const walk = (panels = []) => panels.forEach((p) => ((p.targets ?? []).forEach((t) => t.expr && exprs.push(t.expr)), walk(p.panels)));
walk(dashboard.panels);
for (const a of dashboard.annotations?.list ?? []) if (a.expr) exprs.push(a.expr);
const grafana = (e) => e.replace(/\$__rate_interval|\$__interval|\$__range/g, '5m').replace(/\$\{?\w+\}?/g, '.*');
const rules = exprs.map((e, i) => ({ record: `legwork_dashboard:query${i}`, expr: grafana(e) }));
console.log(JSON.stringify({ groups: [{ name: 'dashboard', rules }] }, null, 2));
JS
echo "deploy/grafana/legwork.json: $(grep -c '"record"' "$dashboard_rules") queries"
promtool check rules "$dashboard_rules"
