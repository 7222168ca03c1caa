# shellcheck shell=bash
# strongSwan endpoints for the VPN tests (tests/apps/strongswan) and the
# guest's VPN run (tests/vm/vpn-offload): one charon per network namespace
# (netns-env.sh), each with its own strongswan.conf, swanctl directory,
# vici socket and private /run (charon's pid file has a fixed path), the
# openssl plugin doing the cryptography and kernel-libipsec doing ESP in
# userland over a tun device. Sourced after vpn-env.sh, in $WORK, where
# ca.pem and server/client certificates (test_cert) are.
#   swan_inner_addresses     the addresses the tunnel carries: $SERVER_INNER
#                            and $CLIENT_INNER, on each namespace's lo
#   swan_up ESP_PROPOSAL     both charons configured, started, loaded and the
#                            tunnel initiated; sets $SWAN_SERVER_PID and
#                            $SWAN_CLIENT_PID (stop them with `stop`)
#   swan NS SIDE ARGS...     swanctl against that side's charon
#   swan_fail MESSAGE        fail with both charons' last words
# Each side's files are in $WORK/server and $WORK/client; charon's stderr
# (where the provider prints its counters) is SIDE/charon.err.
CHARON=/usr/lib/ipsec/charon
# Beside the IKE peers' addresses: a tunnel between the peers' own addresses
# would route its own ESP into itself.
SERVER_INNER=10.8.1.1
CLIENT_INNER=10.8.1.2

swan_inner_addresses() {
  in_server ip addr add $SERVER_INNER/32 dev lo
  in_client ip addr add $CLIENT_INNER/32 dev lo
}

swan_fail() {
  local side
  echo "FAIL: $*" >&2
  for side in server client; do
    [ -s "$WORK/$side/charon.log" ] &&
      grep -Ei 'error|fail|refus|no |unable|not |abort|invalid' "$WORK/$side/charon.log" |
      tail -n 8 | sed "s/^/  charon ($side): /" >&2
  done
  exit 1
}

# swan_endpoint NAME ADDR PEER_ADDR INNER PEER_INNER PEER_NAME ESP_PROPOSAL:
# the configuration of one charon in $WORK/NAME.
swan_endpoint() {
  local name=$1 addr=$2 peer=$3 inner=$4 peer_inner=$5 peer_name=$6 esp=$7 dir=$WORK/$1
  rm -rf "$dir"
  mkdir -p "$dir/swanctl/x509" "$dir/swanctl/x509ca" "$dir/swanctl/private"
  cp ca.pem "$dir/swanctl/x509ca/"
  cp "$name.pem" "$dir/swanctl/x509/"
  cp "$name.key" "$dir/swanctl/private/"
  cat >"$dir/strongswan.conf" <<EOF
charon {
  load = openssl kdf nonce pem pkcs1 pkcs8 x509 revocation constraints pubkey socket-default kernel-libipsec kernel-netlink vici
  install_routes = yes
  retransmit_tries = 3
  plugins {
    vici {
      socket = unix://$dir/charon.vici
    }
    kernel-libipsec {
      load = yes
    }
  }
  filelog {
    charon {
      path = $dir/charon.log
      default = 1
      time_format = %H:%M:%S
      flush_line = yes
    }
  }
}
swanctl {
  load = openssl pem pkcs1 pkcs8 x509 revocation constraints pubkey
}
EOF
  cat >"$dir/swanctl/swanctl.conf" <<EOF
connections {
  tunnel {
    version = 2
    local_addrs = $addr
    remote_addrs = $peer
    proposals = aes256gcm16-prfsha256-ecp256,aes128-sha256-ecp256
    local {
      auth = pubkey
      certs = $name.pem
      id = $name
    }
    remote {
      auth = pubkey
      id = $peer_name
    }
    children {
      inner {
        local_ts = $inner/32
        remote_ts = $peer_inner/32
        esp_proposals = $esp
        mode = tunnel
      }
    }
  }
}
EOF
}

swan_start() {
  local ns=$1 dir=$WORK/$2
  # A private /run for each charon: its pid file's path is fixed.
  ip netns exec "$ns" unshare -m --propagation private sh -c \
    'mount -t tmpfs tmpfs /run && exec "$@"' sh \
    env STRONGSWAN_CONF="$dir/strongswan.conf" timeout --kill-after=5 900 "$CHARON" \
    >"$dir/charon.err" 2>&1 &
  apps_background $!
  echo $!
}

swan() {
  local ns=$1 dir=$WORK/$2
  shift 2
  ip netns exec "$ns" env STRONGSWAN_CONF="$dir/strongswan.conf" SWANCTL_DIR="$dir/swanctl" \
    timeout 60 swanctl "$@" --uri "unix://$dir/charon.vici"
}

swan_wait_vici() {
  local dir=$WORK/$1 pid=$2
  for _ in $(seq 100); do
    [ -S "$dir/charon.vici" ] && return 0
    kill -0 "$pid" 2>/dev/null || swan_fail "charon ($1) exited: $(brief "$dir/charon.err" "$dir/charon.log")"
    sleep 0.1
  done
  swan_fail "charon ($1) did not open its vici socket in 10 s: $(brief "$dir/charon.err")"
}

swan_up() {
  local esp=$1 side ns
  swan_endpoint server "$SERVER_ADDR" "$CLIENT_ADDR" $SERVER_INNER $CLIENT_INNER client "$esp"
  swan_endpoint client "$CLIENT_ADDR" "$SERVER_ADDR" $CLIENT_INNER $SERVER_INNER server "$esp"
  SWAN_SERVER_PID=$(swan_start "$NS_SERVER" server)
  SWAN_CLIENT_PID=$(swan_start "$NS_CLIENT" client)
  swan_wait_vici server "$SWAN_SERVER_PID"
  swan_wait_vici client "$SWAN_CLIENT_PID"
  for side in server client; do
    ns=$NS_SERVER
    [ $side = client ] && ns=$NS_CLIENT
    swan "$ns" $side --load-all --noprompt >"$side.load" 2>&1 ||
      swan_fail "swanctl --load-all ($side): $(brief "$side.load")"
  done
  swan "$NS_CLIENT" client --initiate --child inner >initiate.out 2>&1 ||
    swan_fail "the client could not bring the tunnel up: $(grep -E 'failed|error|no ' initiate.out | head -3)"
}
