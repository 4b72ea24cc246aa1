#!/usr/bin/env bash
# How long kubepkg takes to refuse hostile input, whole process, wall time (median of RUNS,
# default 5). The tests assert that each case stops after bounded work and with which answer
# (issue 33: no timing assertions in tests); this measures the time that work takes:
#   alias-bomb     `kubepkg template` with a "billion laughs" values file (13 levels of 9
#                  aliases): excessive aliasing (kubepkg-yaml decode.rs counts the steps)
#   cr-in-flow     `kubepkg template` with a values file holding a carriage return inside a flow
#                  collection (once 10 000 re-reads, 60 s for 40 bytes)
#   100k-entries   `kubepkg plan` of a package archive of 100 000 entries: refused at 10 000
#   silent-cluster bash completion of `kubepkg status ` against an API server that accepts
#                  connections and never answers: gives up after its budget (5 s), offers nothing
# Needs: python3 (the 100 000 files, the silent server), tar. kubepkg is built here in release mode unless
# KUBEPKG=path.
#   bench/hostile-inputs.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
runs="${RUNS:-5}"
# shellcheck source=bench/lib/tools.sh
source bench/lib/tools.sh
bench_kubepkg
tmp="$(mktemp -d)"
server=""
trap '[[ -n "$server" ]] && kill "$server" 2>/dev/null; rm -rf "$tmp"' EXIT

# A chart to render, and the values files.
"$KUBEPKG" create --chart "$tmp/chart" >/dev/null
{
	printf 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
	prev=a
	for n in b c d e f g h i j k l m; do
		printf '%s: &%s [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n' "$n" "$n" "$prev" "$prev" "$prev" "$prev" "$prev" "$prev" "$prev" "$prev" "$prev"
		prev=$n
	done
} >"$tmp/bomb.yaml"
printf 'me{tadata:\n  name: {{\r .Release.Name }}p\n' >"$tmp/cr.yaml"

# A package archive of 100 000 empty entries.
mkdir -p "$tmp/many/c"
(cd "$tmp/many/c" && python3 -c 'import pathlib; [pathlib.Path(f"f{i}").touch() for i in range(100000)]')
tar -C "$tmp/many" -czf "$tmp/many.tgz" c
rm -rf "$tmp/many"

# An API server that takes connections and never answers.
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
python3 -c '
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(64)
held = []
while True:
    c, _ = s.accept(); held.append(c)
' "$port" &
server=$!
cat >"$tmp/silent.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: s, cluster: {server: "https://127.0.0.1:$port"}}]
contexts: [{name: s, context: {cluster: s, user: s}}]
current-context: s
users: [{name: s, user: {}}]
EOF
"$KUBEPKG" completion bash >"$tmp/complete.bash"
cat >"$tmp/complete.sh" <<EOF
source $tmp/complete.bash
COMP_WORDS=(kubepkg status '')
COMP_CWORD=2
COMP_LINE="kubepkg status "
COMP_POINT=\${#COMP_LINE}
COMP_TYPE=9
_clap_complete_kubepkg kubepkg '' status
printf '%s\n' "\${COMPREPLY[@]}"
EOF

# median wall seconds of RUNS runs of "$@" (its exit status ignored: these are refusals)
median() {
	local times=() i start end
	for ((i = 0; i < runs; i++)); do
		start="$(date +%s.%N)"
		"$@" >/dev/null 2>&1 || true
		end="$(date +%s.%N)"
		times+=("$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')")
	done
	printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'
}

printf '%-16s %s\n' case "median wall (s), $runs runs"
printf '%-16s %s\n' alias-bomb "$(median "$KUBEPKG" template x "$tmp/chart" -f "$tmp/bomb.yaml")"
printf '%-16s %s\n' cr-in-flow "$(median "$KUBEPKG" template x "$tmp/chart" -f "$tmp/cr.yaml")"
printf '%-16s %s\n' 100k-entries "$(median "$KUBEPKG" plan p "$tmp/many.tgz")"
printf '%-16s %s\n' silent-cluster "$(median env KUBECONFIG="$tmp/silent.kubeconfig" bash "$tmp/complete.sh")"
