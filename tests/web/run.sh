#!/usr/bin/env bash
# The real-browser test of the web page (make test-web): starts tools/serve on a free loopback
# port, drives Debian's chromium with playwright-core (pinned in package-lock.json) through
# play_and_review.mjs, saves screenshots in build/web-screenshots, and stops the server.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
shots=${ZZ_SCREENSHOTS:-$root/build/web-screenshots}
archive=${ZZ_BOARDSPACE_DIR:-$root/../shared/boardspace}
review_sgf=${ZZ_REVIEW_SGF:-$archive/sgf/37/2006/U_Z-Dumbot-ego404-2006-10-25-0927.sgf}
if [ ! -f "$review_sgf" ]; then
    echo "test-web: the review game $review_sgf is missing (set ZZ_REVIEW_SGF or ZZ_BOARDSPACE_DIR)" >&2
    exit 1
fi
command -v chromium >/dev/null || { echo "test-web: chromium is not installed (apt-get install chromium)" >&2; exit 1; }
if ! command -v npm >/dev/null; then
    if [ "$(id -u)" = 0 ]; then DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null
    else echo "test-web: npm is not installed (sudo apt-get install npm)" >&2; exit 1; fi
fi
(cd tests/web && { [ -d node_modules/playwright-core ] || npm ci --silent --no-audit --no-fund; })
mkdir -p "$shots" build
log=build/web-serve.log
tools/serve --port 0 --threads 1 > "$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null || true' EXIT
url=""
for _ in $(seq 1 100); do
    url=$(sed -n 's|^serve: open \(http://[0-9.:]*\)/.*|\1|p' "$log" | head -1)
    [ -n "$url" ] && break
    kill -0 $pid 2>/dev/null || { cat "$log" >&2; exit 1; }
    sleep 0.1
done
[ -n "$url" ] || { echo "test-web: the server did not start" >&2; cat "$log" >&2; exit 1; }
echo "test-web: server at $url, screenshots in $shots"
ZZ_SERVE_URL=$url ZZ_SCREENSHOTS=$shots ZZ_REVIEW_SGF=$review_sgf ZZ_REPLAY=$root/tools/replay \
    node tests/web/play_and_review.mjs
