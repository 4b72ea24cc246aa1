# Sourced by the benchmarks that run kubepkg (and helm) as whole processes, from the
# repository root: the one way each builds or finds what it measures.
# Not a script: `source bench/lib/tools.sh`.
#
#   bench_kubepkg [CARGO_FLAG...]   sets KUBEPKG (an absolute path) to a release build of kubepkg
#                                   made here, unless KUBEPKG=path is given
#   bench_heavy_modules             prints the corpus charts of the heavy set, one a line: the 15
#                                   largest of testdata/charts/modules (scripts/build-release
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
	# awk reads all of sort's output: `head` would close the pipe early, and sort's SIGPIPE
	# would end a caller running under `set -o pipefail`.
	du -s testdata/charts/modules/* | sort -rn | awk 'NR <= 15 {print $2}'
}

bench_vs_helm() {
	RUNS="${RUNS:-10}"
	HELM_VERSION="${HELM_VERSION:-v4.3.1}"
	command -v hyperfine >/dev/null || apt-get install -y hyperfine >/dev/null
	[[ -x /usr/bin/time ]] || apt-get install -y time >/dev/null
	HELM="$(tools/helm-ref/install-helm.sh "$HELM_VERSION")"
}
