#!/usr/bin/env bash
# Starts Debian's searx on 127.0.0.1:18888 with tests/proxy/searx/settings.yml, for the proxy's tests.
#   tests/proxy/searx/start-searx.sh          install searx if missing, start it (or reuse a running one),
#                                             wait until it answers, print SEARXNG_TEST_URL=<url>
#   tests/proxy/searx/start-searx.sh --stop   stop the instance this script started
# The URL is also written to $SEARX_STATE_DIR/url (default /tmp/nexus-searx/url); the log and pid are
# there too. Installing needs root (or passwordless sudo) and apt-get; without them it fails loudly.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
settings="$here/settings.yml"
state="${SEARX_STATE_DIR:-/tmp/nexus-searx}"
port="$(sed -n 's/^  port: *\([0-9][0-9]*\).*/\1/p' "$settings" | head -n1)"
url="http://127.0.0.1:${port}"
mkdir -p "$state"

answers() {
  # A real searx answer: JSON with a "results" key. Uses curl when present, else bash's /dev/tcp.
  if command -v curl >/dev/null 2>&1; then
    curl -fsS --max-time 2 "$url/search?q=nexus-probe&format=json&engines=fixture" 2>/dev/null | grep -q '"results"'
  else
    (exec 3<>"/dev/tcp/127.0.0.1/$port" && printf 'GET /search?q=nexus-probe&format=json&engines=fixture HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3 && grep -q '"results"' <&3) 2>/dev/null
  fi
}

if [ "${1:-}" = "--stop" ]; then
  if [ -f "$state/searx.pid" ]; then
    kill "$(cat "$state/searx.pid")" 2>/dev/null || true
    rm -f "$state/searx.pid" "$state/url"
    echo "searx stopped"
  fi
  exit 0
fi

if answers; then
  echo "$url" >"$state/url"
  echo "SEARXNG_TEST_URL=$url"
  exit 0
fi

if ! command -v searx-run >/dev/null 2>&1; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "start-searx: searx is not installed and apt-get is not available. Install Debian's 'searx' package, or set SEARXNG_TEST_URL to a running instance using $settings." >&2
    exit 1
  fi
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; else
      echo "start-searx: installing searx needs root: run 'sudo apt-get install searx' once, then re-run the tests." >&2
      exit 1
    fi
  fi
  echo "start-searx: installing Debian's searx package..." >&2
  export DEBIAN_FRONTEND=noninteractive
  if ! $sudo apt-get install -y -qq --no-install-recommends searx >"$state/apt.log" 2>&1; then
    $sudo apt-get update -qq >>"$state/apt.log" 2>&1 || true
    if ! $sudo apt-get install -y -qq --no-install-recommends searx >>"$state/apt.log" 2>&1; then
      echo "start-searx: apt-get could not install searx; see $state/apt.log:" >&2
      tail -n 20 "$state/apt.log" >&2
      exit 1
    fi
  fi
fi

# Port taken by something that is not our searx?
if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
  echo "start-searx: 127.0.0.1:$port is in use by something that does not answer like searx; stop it or change server.port in $settings." >&2
  exit 1
fi

SEARX_SETTINGS_PATH="$settings" nohup setsid searx-run >"$state/searx.log" 2>&1 </dev/null &
echo $! >"$state/searx.pid"
for _ in $(seq 1 150); do
  if answers; then
    echo "$url" >"$state/url"
    echo "SEARXNG_TEST_URL=$url"
    exit 0
  fi
  if ! kill -0 "$(cat "$state/searx.pid")" 2>/dev/null; then
    echo "start-searx: searx-run exited; its log ($state/searx.log):" >&2
    tail -n 30 "$state/searx.log" >&2
    exit 1
  fi
  sleep 0.2
done
echo "start-searx: searx did not answer on $url within 30 s; its log ($state/searx.log):" >&2
tail -n 30 "$state/searx.log" >&2
exit 1
