# shellcheck shell=bash
# In the guest: the virtio-crypto device and its interrupts, which tell
# whether requests reached it. Sourced by the guest scripts.
#   $dev          the device's virtio index ("virtio0"); the script exits 1
#                 with a message when there is none
#   interrupts    the device's interrupts so far, over every CPU
dev=$(basename "$(readlink -f /sys/bus/virtio/drivers/virtio_crypto/virtio*)")
[ -n "$dev" ] || { echo "FAIL: no virtio_crypto device" >&2; exit 1; }
interrupts() { awk -v d="$dev-" 'index($0, d) { for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+$/) s += $i } END { print s + 0 }' /proc/interrupts; }
