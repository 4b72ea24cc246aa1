#!/usr/bin/env bash
# Stops kubepkg's local control plane started by testenv/up.sh (state in
# $KUBEPKG_TESTENV_DIR, default <repo>/.testenv). Idempotent: does nothing
# when nothing runs. Logs stay in the state directory.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
dir="${KUBEPKG_TESTENV_DIR:-$repo/.testenv}"
state="$dir/state.json"
# The planes some tests start beside this one first: a second plane (a remote target:
# kubepkg-testkit's target_plane) and the fleet's API servers over this plane's etcd
# (fleet_plane).
for other in "$dir/target" "$dir"/fleet/*; do
	if [[ -f "$other/state.json" ]]; then
		KUBEPKG_TESTENV_DIR="$other" "$here/down.sh"
	fi
done
[[ -f "$state" ]] || exit 0

# The binary that started the plane is recorded in its state.
bin="$(sed -n 's/^ *"binary": "\(.*\)",$/\1/p' "$state")"
if [[ -z "$bin" || ! -x "$bin" ]]; then
	bin="$("$here/build.sh")"
fi
exec "$bin" down --dir "$dir"
