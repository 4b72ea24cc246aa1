#!/usr/bin/env bash
# Builds the Go oracle (Helm's real template engine) and prints the binary's path.
# Cached in ~/.cache/kubepkg/oracle/<helm version>/<hash of the oracle's sources>/oracle.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
helm_version="$(grep -oE "helm.sh/helm/v4 v[0-9.]+" "$here/go.mod" | head -1 | cut -d" " -f2)"
src_hash="$(cat "$here"/go.mod "$here"/go.sum "$here"/*.go | sha256sum | cut -c1-16)"
dir="${XDG_CACHE_HOME:-$HOME/.cache}/kubepkg/oracle/${helm_version}/${src_hash}"
if [[ ! -x "$dir/oracle" ]]; then
  command -v go >/dev/null || { echo "oracle/build.sh: Go is required to build the oracle" >&2; exit 1; }
  mkdir -p "$dir"
  (cd "$here" && go build -trimpath -o "$dir/oracle.tmp" .) >&2
  mv "$dir/oracle.tmp" "$dir/oracle"
fi
echo "$dir/oracle"
