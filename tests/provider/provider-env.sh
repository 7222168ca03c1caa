# Shared by the provider test scripts: a configuration that loads
# cryptoaccel.so through openssl.cnf (the path a user takes), and helpers.
#   provider_setup MODULE [DRIVER] -> sets $PROVIDER_CONF, $WORK (removed at exit)
#   ours ARGS...   runs openssl with the provider preferred (?provider=cryptoaccel)
#   theirs ARGS... runs openssl with OpenSSL's default and legacy providers only
set -euo pipefail

provider_setup() {
  local module=$1 driver=${2:-}
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
  PROVIDER_CONF=$WORK/openssl.cnf
  {
    echo "openssl_conf = openssl_init"
    echo "[openssl_init]"
    echo "providers = provider_sect"
    echo "alg_section = algorithm_sect"
    echo "[provider_sect]"
    echo "cryptoaccel = cryptoaccel_sect"
    echo "default = default_sect"
    echo "[cryptoaccel_sect]"
    echo "module = $module"
    [ -n "$driver" ] && echo "driver = $driver"
    echo "activate = 1"
    echo "[default_sect]"
    echo "activate = 1"
    echo "[algorithm_sect]"
    echo "default_properties = ?provider=cryptoaccel"
  } >"$PROVIDER_CONF"
  {
    echo "openssl_conf = openssl_init"
    echo "[openssl_init]"
    echo "providers = provider_sect"
    echo "[provider_sect]"
    echo "default = default_sect"
    echo "legacy = legacy_sect"
    echo "[default_sect]"
    echo "activate = 1"
    echo "[legacy_sect]"
    echo "activate = 1"
  } >"$WORK/reference.cnf"
}

ours() { OPENSSL_CONF=$PROVIDER_CONF CRYPTOACCEL_STATS=1 openssl "$@" 2>>"$WORK/stats"; }
theirs() { OPENSSL_CONF=$WORK/reference.cnf openssl "$@"; }

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# The provider must have served `alg` (and with `driver`, on that driver)
# since the stats file was last cleared.
served() {
  local alg=$1 driver=${2:-} pattern='[^ ]+'
  # Driver names may hold regex characters: afalg:hmac(sha256-generic).
  [ -n "$driver" ] && pattern=$(printf '%s' "$driver" | sed 's/[][().*^$+?{}|\\]/\\&/g')
  grep -Eq "^  $alg $pattern requests=[1-9]" "$WORK/stats" ||
    fail "the provider did not serve $alg${driver:+ on $driver}: $(cat "$WORK/stats")"
  : >"$WORK/stats"
}
