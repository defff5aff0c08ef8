#!/usr/bin/env bash
# Browser tests of the web front end (web/tests/*.test.mjs): Debian's Chromium driven by playwright-core
# against a real `feixingqi serve`. Usage: ./web/run-browser-tests.sh   (from anywhere)
# Screenshots go to test-output/ at the repository root.
set -euo pipefail
WEB="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$WEB/.." && pwd)"
cd "$ROOT"

# 1. Chromium (Debian's; browsers downloaded by playwright do not work here)
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "installing Debian chromium"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "error: /usr/bin/chromium is missing (apt-get install chromium as root)"; exit 1
  fi
fi
# CJK glyphs for readable screenshots (optional: the tests do not depend on them)
if ! fc-list 2>/dev/null | grep -qi "CJK" && [ "$(id -u)" = 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-cjk >/dev/null 2>&1 || echo "note: fonts-noto-cjk not installed"
fi

# 2. playwright-core and typescript from the npm registry, exactly as locked; type-check the modules
(cd "$WEB" && npm ci --no-audit --no-fund --loglevel=error)
echo "tsc --checkJs (web/jsconfig.json)"
(cd "$WEB" && npm run --silent check)

# 3. the server binary (./test.sh builds it first; build it here when run alone)
BIN="${FEIXINGQI_BIN:-$ROOT/target/release/feixingqi}"
if [ ! -x "$BIN" ]; then
  cargo build --release --locked -p feixingqi
fi

# 4. a server on a free port with a fresh data dir
DATA="$(mktemp -d)"
PORT="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
# (computers in rooms pause 250 ms instead of 900 before each action: room games then fit the
# tests' time limits, the same code runs)
"$BIN" serve --addr "127.0.0.1:$PORT" --data-dir "$DATA" --bot-delay-ms 250 >"$DATA/server.log" 2>&1 &
SERVER=$!
cleanup() { kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; rm -rf "$DATA"; }
trap cleanup EXIT
for _ in $(seq 1 100); do
  if curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$SERVER" 2>/dev/null; then echo "server exited:"; cat "$DATA/server.log"; exit 1; fi
  sleep 0.1
done
curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null || { echo "server did not become healthy"; cat "$DATA/server.log"; exit 1; }

# 5. the tests
mkdir -p "$ROOT/test-output"
export FXQ_URL="http://127.0.0.1:$PORT/"
export FXQ_OUT="$ROOT/test-output"
echo "browser tests against $FXQ_URL"
node --test --test-concurrency=1 "$WEB/tests/"
