#!/usr/bin/env bash
# RSA key generation of Sprig's functions (`genCA`, `genSelfSignedCert`, `genSignedCert`: 2048
# bits; `genPrivateKey "rsa"`: 4096 bits) against Go's `rsa.GenerateKey(rand.Reader, BITS)` (the
# peer program bench/peer, Go of this machine), in one run: N keys per size and side, alternating
# Go and kubepkg in rounds of 5 keys, and the median time per key of each with the ratio.
#
#   bench/rsa-keygen.sh [N]     (default 20 keys per size and side)
#   RSA_KEYGEN=<binary> bench/rsa-keygen.sh [N]   (a saved rsa_keygen build, e.g. an earlier
#                                                 commit's, instead of building this tree's)
#
# Needs Go (builds bench/peer, cached) and cargo (builds crates/kubepkg-funcs/examples/rsa_keygen
# in release mode).
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-20}"
peer="$(bench/peer/build.sh)"
if [[ -n "${RSA_KEYGEN:-}" ]]; then
  ours="$RSA_KEYGEN"
else
  cargo build -q --release -p kubepkg-funcs --example rsa_keygen >&2
  ours="${CARGO_TARGET_DIR:-target}/release/examples/rsa_keygen"
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
printf "%-6s %6s %12s %12s %8s\n" bits keys go_ms kubepkg_ms ratio
for bits in 2048 4096; do
  : > "$tmp/go"; : > "$tmp/kp"
  done_keys=0
  while (( done_keys < n )); do
    k=$(( n - done_keys < 5 ? n - done_keys : 5 ))
    "$peer" rsa "$k" "$bits" >> "$tmp/go"
    "$ours" "$k" "$bits" >> "$tmp/kp"
    done_keys=$(( done_keys + k ))
  done
  g=$(median < "$tmp/go"); r=$(median < "$tmp/kp")
  printf "%-6s %6s %12.1f %12.1f %8.2f\n" "$bits" "$n" "$(awk -v t="$g" 'BEGIN{print t/1e6}')" \
    "$(awk -v t="$r" 'BEGIN{print t/1e6}')" "$(awk -v g="$g" -v r="$r" 'BEGIN{print r/g}')"
done
echo "ratio: kubepkg median time / Go median time per key (goal: at most 1)"
