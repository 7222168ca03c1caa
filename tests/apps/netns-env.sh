# shellcheck shell=bash
# Two network namespaces joined by a veth pair, for the VPN tests: the two
# ends of a tunnel must be in different namespaces, or the kernel would route
# their traffic over lo and never through the tunnel. Sourced after
# apps-env.sh (apps_setup first).
#   netns_pair TAG   creates them; sets $NS_SERVER and $NS_CLIENT, whose veth
#                    ends hold $SERVER_ADDR and $CLIENT_ADDR; both have lo up
#   in_server CMD... / in_client CMD...   CMD inside that namespace; a
#                    process started in the background is started with
#                    `ip netns exec "$NS_SERVER" CMD... &` instead, so that
#                    $! is the process itself and not a subshell around it
# The namespaces (and with them the veth pair and any tunnel device) are
# removed at exit, after the processes that apps_background recorded.
SERVER_ADDR=10.199.0.1
CLIENT_ADDR=10.199.0.2

netns_pair() {
  local tag=$1
  [ "$(id -u)" -eq 0 ] || fail "network namespaces need root"
  command -v ip >/dev/null || fail "no ip (Debian's iproute2)"
  # Unique per test process: ctest runs tests side by side.
  NS_SERVER=ca-$tag-$$-s
  NS_CLIENT=ca-$tag-$$-c
  printf '%s\n' "$NS_SERVER" "$NS_CLIENT" >>"$WORK/.netns"
  ip netns add "$NS_SERVER" || fail "ip netns add $NS_SERVER"
  ip netns add "$NS_CLIENT" || fail "ip netns add $NS_CLIENT"
  ip link add "vs$$" netns "$NS_SERVER" type veth peer name "vc$$" netns "$NS_CLIENT" ||
    fail "could not make a veth pair between the namespaces"
  in_server ip link set lo up
  in_client ip link set lo up
  in_server ip addr add "$SERVER_ADDR/24" dev "vs$$"
  in_client ip addr add "$CLIENT_ADDR/24" dev "vc$$"
  in_server ip link set "vs$$" up
  in_client ip link set "vc$$" up
}

in_server() { ip netns exec "$NS_SERVER" "$@"; }
in_client() { ip netns exec "$NS_CLIENT" "$@"; }

netns_cleanup() {
  local ns
  [ -f "$WORK/.netns" ] || return 0
  while read -r ns; do
    ip netns del "$ns" 2>/dev/null || true
  done <"$WORK/.netns"
}
