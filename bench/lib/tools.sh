# Sourced by the benchmarks that run kubepkg (and helm) as whole processes, from the
# repository root: the one way each builds or finds what it measures.
# Not a script: `source bench/lib/tools.sh`.
#
#   bench_kubepkg [CARGO_FLAG...]   sets KUBEPKG (an absolute path) to a release build of kubepkg
#                                   made here, unless KUBEPKG=path is given
#   bench_heavy_modules             prints the corpus charts of the heavy set, one a line: the 15
#                                   largest of testdata/charts/modules that render with their
#                                   defaults (scripts/build-release
#                                   leaves them out of its training)
#   bench_vs_helm                   RUNS (default 10), HELM_VERSION (default v4.3.1), HELM (built
#                                   by tools/helm-ref/install-helm.sh); installs hyperfine and GNU
#                                   time (apt packages) if missing
# shellcheck shell=bash

bench_kubepkg() {
	local target
	if [[ -z "${KUBEPKG:-}" ]]; then
		cargo build "$@" --release -p kubepkg >&2
		target="${CARGO_TARGET_DIR:-target}"
		[[ "$target" == /* ]] || target="$(pwd)/$target"
		KUBEPKG="$target/release/kubepkg"
	fi
}

bench_heavy_modules() {
	# Only charts that render with their defaults (exit status 0 in the reference corpus): a
	# chart whose dependencies are missing from charts/ would time each tool's start and error
	# (until 2026-12-07 four of the fifteen did). awk reads all of its input: `head` would close
	# the pipe early, and the writer's SIGPIPE would end a caller under `set -o pipefail`.
	local c
	du -s testdata/charts/modules/* | sort -rn | awk '{print $2}' | while read -r c; do
		if [[ "$(cat "testdata/helm-reference/cases/modules__${c##*/}/exit" 2>/dev/null)" == 0 ]]; then
			echo "$c"
		fi
	done | awk 'NR <= 15'
}

bench_vs_helm() {
	RUNS="${RUNS:-10}"
	HELM_VERSION="${HELM_VERSION:-v4.3.1}"
	command -v hyperfine >/dev/null || apt-get install -y hyperfine >/dev/null
	[[ -x /usr/bin/time ]] || apt-get install -y time >/dev/null
	HELM="$(tools/helm-ref/install-helm.sh "$HELM_VERSION")"
}
