# shellcheck shell=bash
# Shared by the application tests (docs/testing.md, "The real programs"):
# the provider enabled system-wide through OPENSSL_CONF, as a user enables it,
# and servers that live and die with the test.
#   apps_setup MODULE MODE   MODE is "provider" (cryptoaccel preferred) or
#                            "default-only" (OpenSSL's providers only: proves
#                            the harness). Sets $WORK, $MODE and exports
#                            OPENSSL_CONF and CRYPTOACCEL_STATS=1.
#   apps_served ALG FILE...  the provider served ALG (in default-only mode:
#                            the provider was not loaded at all)
#   apps_background PID      killed at exit (from subshells too)
#   check NAME COMMAND...    runs COMMAND in a subshell, where `fail` ends
#                            only that check; apps_result sums them up
#   free_port                a free TCP port on 127.0.0.1
#   wait_port PORT           until something listens there (10 s at most)
#   brief FILE...            errors for a message: distinct lines, no counters
# Everything lives in $WORK, removed at exit; servers bind 127.0.0.1 only.
# shellcheck source=../provider/provider-env.sh
source "$(dirname "${BASH_SOURCE[0]}")/../provider/provider-env.sh"

# shellcheck disable=SC2034  # used by the scripts that source this file
APPS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Debian's interpreter: the one whose python3-cryptography uses the system
# OpenSSL (a python3 earlier in PATH may carry a wheel with its own).
PYTHON=/usr/bin/python3

apps_cleanup() {
  local pid pids=()
  [ -f "$WORK/.pids" ] && mapfile -t pids <"$WORK/.pids"
  for pid in "${pids[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    # `timeout` in front of every server bounds this wait too.
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  # The VPN tests' namespaces (netns-env.sh), once nothing runs in them.
  if declare -F netns_cleanup >/dev/null; then netns_cleanup; fi
  rm -rf "$WORK"
}

apps_setup() {
  # Absolute: OpenSSL looks for a relative `module` in its modules directory.
  local module
  module=$(readlink -m "$1")
  MODE=$2
  case $MODE in
    provider | default-only) ;;
    *) fail "mode must be provider or default-only, not '$MODE'" ;;
  esac
  provider_setup "$module"
  trap apps_cleanup EXIT
  trap 'exit 130' INT TERM
  if [ "$MODE" = provider ]; then
    export OPENSSL_CONF=$PROVIDER_CONF
  else
    export OPENSSL_CONF=$WORK/reference.cnf
  fi
  export CRYPTOACCEL_STATS=1
}

apps_background() { echo "$1" >>"$WORK/.pids"; }

_apps_failed=()
check() {
  local name=$1 status
  shift
  # Not `if ! (...)`: errexit would be off inside.
  set +e
  (
    set -e
    "$@"
  )
  status=$?
  set -e
  [ $status -eq 0 ] || _apps_failed+=("$name")
}

apps_result() {
  if [ ${#_apps_failed[@]} -gt 0 ]; then
    echo "FAILED ($MODE): ${_apps_failed[*]}" >&2
    exit 1
  fi
  echo "all passed ($MODE)"
}

apps_served() {
  local alg=$1
  shift
  if [ "$MODE" = default-only ]; then
    ! grep -Eqs '^  [^ ]+ [^ ]+ requests=' "$@" || fail "default-only, yet the provider counted: $(cat "$@")"
    return 0
  fi
  cat "$@" >"$WORK/stats" 2>/dev/null || true
  served "$alg"
}

free_port() {
  "$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

wait_port() {
  local port=$1
  for _ in $(seq 100); do
    if "$PYTHON" -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' \
      "$port" 2>/dev/null; then
      return 0
    fi
    sleep 0.1
  done
  fail "nothing listens on 127.0.0.1:$port after 10 s"
}

# A file of `size` MiB of random bytes (from OpenSSL's reference config).
random_file() {
  OPENSSL_CONF=$WORK/reference.cnf openssl rand -out "$1" $(($2 * 1024 * 1024))
}

sha() { sha256sum "$1" | cut -d' ' -f1; }

# The first few distinct lines of error files, without the provider's counters.
brief() { grep -Ehv '^  |^cryptoaccel provider usage' "$@" | awk '!seen[$0]++' | head -n 5; }
