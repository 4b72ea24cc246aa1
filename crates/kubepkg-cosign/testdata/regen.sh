#!/usr/bin/env bash
# Regenerates the fixtures of kubepkg-cosign's unit tests with the real cosign CLI
# (testenv/cosign/build.sh) and openssl:
#   cosign.key, cosign.pub  `cosign generate-key-pair` (password kubepkg-test-password)
#   other.pub               another cosign key pair's public key
#   payload.json            `cosign generate` of registry.example/charts/app@sha256:<fixed>
#   payload.json.sigs       six `cosign sign-blob --key cosign.key` signatures of it, one a line
#   sec1.key, pkcs8.key, pkcs8.pub   one P-256 key as `openssl ecparam -genkey`, PKCS#8, its SPKI
#   rsa.pub, p384.key, p384.pub      keys of other types, to be refused
# Everything is offline: no transparency log, no registry.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
cosign="$(bash "$root/testenv/cosign/build.sh")"
cd "$here"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

export COSIGN_PASSWORD=kubepkg-test-password
rm -f cosign.key cosign.pub
"$cosign" generate-key-pair --output-key-prefix cosign 2>/dev/null
(cd "$tmp" && COSIGN_PASSWORD=other "$cosign" generate-key-pair --output-key-prefix other 2>/dev/null)
cp "$tmp/other.pub" other.pub

digest="sha256:$(printf 'kubepkg-cosign fixture' | sha256sum | cut -c1-64)"
"$cosign" generate "registry.example/charts/app@$digest" > payload.json
: > payload.json.sigs
for _ in 1 2 3 4 5 6; do
	# It prints the base64 signature and a newline.
	"$cosign" sign-blob --key cosign.key --tlog-upload=false --yes payload.json 2>/dev/null >> payload.json.sigs
done

openssl ecparam -name prime256v1 -genkey -out sec1.key
openssl pkcs8 -topk8 -nocrypt -in sec1.key -out pkcs8.key
openssl ec -in sec1.key -pubout -out pkcs8.pub 2>/dev/null
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$tmp/rsa.key" 2>/dev/null
openssl pkey -in "$tmp/rsa.key" -pubout -out rsa.pub
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384 -out p384.key 2>/dev/null
openssl pkey -in p384.key -pubout -out p384.pub
echo "regenerated $(ls | wc -l) files in $here" >&2
