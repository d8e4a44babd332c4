#!/usr/bin/env bash
# The Python quick start of clients/python/README.md, run as a new user would, in a fresh clone:
# its shell blocks are read from the README and run as they are written (terminal by terminal),
# then the stumbles of issue 34 are checked: the bootstrap survives a restart of the exchange and
# a rerun reuses its accounts, a wrong admin token is reported as such, the receipts are version 2,
# and the engine example of step 4 passes mypy --strict. Exits non-zero on any failure.
#
# QUICKSTART_PORT picks the exchange's port (default: 3000 when free, else a free one; the README's
# commands read PORT). node_modules is hard-linked from this checkout when present, so `npm install`
# (run as the README says) only checks it; the clone is of HEAD: commit before running this.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -- "-$pid" 2>/dev/null || true; done
  sleep 1
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "QUICKSTART FAILED: $*"; for f in "$work"/*.log; do echo "--- $f"; tail -n 30 "$f"; done; exit 1; }
say() { echo "== quickstart: $*"; }
# wait_for FILE PATTERN SECONDS
wait_for() {
  for _ in $(seq 1 "$3"); do grep -qE "$2" "$1" 2>/dev/null && return 0; sleep 1; done
  fail "no line matching '$2' in $1 within $3 s"
}
# background NAME SCRIPT: runs SCRIPT in its own process group (so that it can be ended by its id).
background() {
  setsid bash -c "$2" >"$work/$1.log" 2>&1 &
  pids+=("$!")
  eval "${1}_pid=$!"
}

say "the clone"
git clone -q "$repo" "$work/legwork"
cd "$work/legwork"
[ -d "$repo/node_modules" ] && cp -al "$repo/node_modules" node_modules
port=${QUICKSTART_PORT:-3000}
if curl -s "http://127.0.0.1:$port/health" >/dev/null 2>&1; then port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'); fi
export PORT=$port

# The shell blocks of the README: the apt line of "Install", then every block of "Quick start".
/usr/bin/python3 - clients/python/README.md "$work" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
install = text[text.index("## Install"):text.index("## Quick start")]
quick = text[text.index("## Quick start"):text.index("\n## ", text.index("## Quick start") + 1)]
apt = [line.strip() for line in install.splitlines() if "apt-get install" in line]
blocks = [re.sub(r"^   ", "", b, flags=re.M) for b in re.findall(r"```sh\n(.*?)```", quick, re.S)]
engine = re.findall(r"```python\n(.*?)```", quick, re.S)
assert len(apt) == 1 and len(blocks) == 4 and len(engine) == 1, (apt, len(blocks), len(engine))
open(f"{sys.argv[2]}/apt.sh", "w").write(apt[0] + "\n")
for i, block in enumerate(blocks, 1):
    open(f"{sys.argv[2]}/block{i}.sh", "w").write(block)
open(f"{sys.argv[2]}/engine.py", "w").write(re.sub(r"^   ", "", engine[0], flags=re.M))
PY

say "the apt line (only what is missing is installed)"
missing=$(for p in $(sed 's/.*apt-get install//' "$work/apt.sh"); do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ]; then sed 's/^sudo //' "$work/apt.sh" | bash; else bash "$work/apt.sh"; fi
fi

say "step 1: npm install, then npm start (port $PORT)"
install_line=$(sed -n 1p "$work/block1.sh")
start_line=$(sed -n 2p "$work/block1.sh")
[ "$install_line" = "npm install" ] || fail "step 1 does not begin with npm install: $install_line"
bash -c "$install_line --no-audit --no-fund" >"$work/install.log" 2>&1 || fail "npm install"
background exchange "$start_line"
for _ in $(seq 1 600); do curl -fs "http://127.0.0.1:$PORT/health" >/dev/null 2>&1 && break; sleep 1; done
curl -fs "http://127.0.0.1:$PORT/health" >/dev/null || fail "the exchange is not healthy"

say "step 2: the bootstrap"
background bootstrap "$(cat "$work/block2.sh")"
wait_for "$work/bootstrap.log" "bootstrap  ready" 60
[ -f legwork-quickstart.env ] || fail "no legwork-quickstart.env"

say "step 3: the maker, then the taker"
background maker "$(cat "$work/block3.sh")"
wait_for "$work/maker.log" "maker  signed in as account" 60
bash -c "$(cat "$work/block4.sh")" >"$work/taker.log" 2>&1 || fail "the taker"
grep -q "taker  done" "$work/taker.log" || fail "the taker did not finish"
grep -q "receipt #[0-9]* (version 2) verified" "$work/taker.log" || fail "the taker's receipt is not version 2"
wait_for "$work/maker.log" "filled .* receipt #[0-9]+ \(v2\) verified" 30

say "the exchange restarted: the bootstrap and the maker ride it out"
kill -- "-$exchange_pid"
wait "$exchange_pid" 2>/dev/null || true
wait_for "$work/bootstrap.log" "not answering" 30
background exchange "$start_line"
for _ in $(seq 1 600); do curl -fs "http://127.0.0.1:$PORT/health" >/dev/null 2>&1 && break; sleep 1; done
kill -0 "$bootstrap_pid" || fail "the bootstrap died with the exchange"
wait_for "$work/maker.log" "maker  reconnected" 60
sleep 11  # one more post of market data by the bootstrap, after the restart
bash -c "$(cat "$work/block4.sh")" >"$work/taker2.log" 2>&1 || fail "the taker after the restart"
grep -q "taker  done" "$work/taker2.log" || fail "the taker after the restart did not finish"

say "a rerun of the bootstrap reuses the wallets and accounts"
kill -- "-$bootstrap_pid"
background bootstrap "$(cat "$work/block2.sh")"
wait_for "$work/bootstrap.log" "bootstrap  ready" 60
grep -q "reusing the wallets" "$work/bootstrap.log" || fail "the rerun made new wallets"
[ "$(grep -c 'exists already' "$work/bootstrap.log")" = 2 ] || fail "the rerun made new accounts"

say "a wrong admin token is reported as one"
set +e
wrong=$(LEGWORK_ADMIN_TOKEN=not-the-token bash -c "$(sed 's/LEGWORK_ADMIN_TOKEN=[^ ]*//' "$work/block2.sh")" 2>&1)
code=$?
set -e
[ "$code" = 1 ] && grep -q "the admin token was refused" <<<"$wrong" || fail "a wrong admin token said: $wrong (exit $code)"

say "step 4: the engine example passes mypy --strict"
cp "$work/engine.py" "$work/legwork/engine_example.py"
(cd clients/python && mypy --strict --no-incremental --cache-dir /dev/null ../../engine_example.py) || fail "the engine example does not type-check"
say "passed"
