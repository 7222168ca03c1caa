# shellcheck shell=bash
# Shared by the VPN tests (tests/apps/openvpn, tests/apps/strongswan) and
# the guest's VPN run (tests/vm/vpn-offload). Sourced after apps-env.sh and
# netns-env.sh; the functions work in the current directory ($WORK).
#   test_ca                        ca.pem/ca.key: an RSA-2048 CA (CA:TRUE)
#   test_cert NAME EXTENSION...    NAME.pem/NAME.key signed by it, with the
#                                  extension lines given (made with whatever
#                                  OPENSSL_CONF is set: use reference.cnf)
#   stop PID                       TERM, then KILL after 10 s
#   transfer FROM_NS TO_NS TO_ADDR FILE
#                                  FILE over TCP from FROM_NS to a receiver
#                                  at TO_ADDR in TO_NS; fails unless whole
#   openvpn_config SIDE CIPHER [REMOTE_PORT]
#                                  an endpoint's configuration (server or
#                                  client; the client connects to
#                                  $SERVER_ADDR:REMOTE_PORT, default the server's)
#   openvpn_start NS SIDE          starts it (SIDE.conf -> SIDE.log); echoes the pid
#   openvpn_wait_up SIDE PID       until its log says the tunnel is up (60 s)
# OpenVPN's tunnel addresses: $SERVER_TUN and $CLIENT_TUN; the server's
# port $OPENVPN_PORT.
OPENVPN=/usr/sbin/openvpn
OPENVPN_PORT=1194
SERVER_TUN=10.8.0.1
CLIENT_TUN=10.8.0.2

test_ca() {
  openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -subj /CN=cryptoaccel-test-ca \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
    -days 2 -out ca.pem 2>/dev/null
}

test_cert() {
  local name=$1
  shift
  openssl req -new -newkey rsa:2048 -nodes -keyout "$name.key" -subj "/CN=$name" \
    -out "$name.csr" 2>/dev/null
  # A file, not <(...): the guest of the test bed has no /dev/fd.
  {
    printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\n'
    printf '%s\n' "$@"
  } >"$name.ext"
  openssl x509 -req -in "$name.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
    -extfile "$name.ext" -out "$name.pem" 2>/dev/null
}

stop() {
  local pid=$1
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}

transfer() {
  local from=$1 to=$2 addr=$3 file=$4 port=5001 got
  ip netns exec "$to" "$PYTHON" "$APPS_DIR/tunnel-transfer" receive "$addr" $port \
    >"$file.got" 2>"$file.err" &
  local receiver=$!
  apps_background $receiver
  ip netns exec "$from" "$PYTHON" "$APPS_DIR/tunnel-transfer" send "$addr" $port "$file" \
    2>>"$file.err" || fail "sending $file: $(cat "$file.err")"
  wait $receiver || fail "receiving $file: $(cat "$file.err")"
  got=$(cat "$file.got")
  [ "$got" = "$(sha "$file") $(stat -c %s "$file")" ] ||
    fail "$file arrived altered: received '$got', sent $(sha "$file") $(stat -c %s "$file")"
}

# TLS mode, point to point over UDP, data channel offload off (the kernel's
# ovpn module would do the data channel, and OpenSSL would see none of it).
openvpn_config() {
  local side=$1 cipher=$2 remote_port=${3:-$OPENVPN_PORT}
  printf '%s\n' "dev tun" "dev-type tun" "proto udp" disable-dco "ca $WORK/ca.pem" \
    "cert $WORK/$side.pem" "key $WORK/$side.key" "tls-version-min 1.2" "data-ciphers $cipher" \
    "data-ciphers-fallback $cipher" "auth SHA256" persist-tun "ping 2" "ping-restart 60" \
    "verb 3" mute-replay-warnings
  if [ "$side" = server ]; then
    printf '%s\n' tls-server "dh none" "local $SERVER_ADDR" "lport $OPENVPN_PORT" float \
      "ifconfig $SERVER_TUN $CLIENT_TUN"
  else
    printf '%s\n' tls-client "remote $SERVER_ADDR $remote_port" nobind "remote-cert-tls server" \
      "ifconfig $CLIENT_TUN $SERVER_TUN"
  fi
}

openvpn_start() {
  local ns=$1 side=$2
  ip netns exec "$ns" timeout --kill-after=5 900 $OPENVPN --config "$side.conf" >"$side.log" 2>&1 &
  apps_background $!
  echo $!
}

openvpn_wait_up() {
  local side=$1 pid=$2
  for _ in $(seq 600); do
    grep -q "Initialization Sequence Completed" "$side.log" && return 0
    kill -0 "$pid" 2>/dev/null ||
      fail "openvpn ($side) exited before the tunnel came up: $(brief "$side.log")"
    sleep 0.1
  done
  fail "the tunnel did not come up in 60 s ($side): $(brief "$side.log")"
}
