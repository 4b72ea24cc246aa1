#!/usr/bin/env bash
# The steps every testenv build script shares (sourced, never run): each builds test tooling
# from the Go module proxy into
#   ${KUBEPKG_CACHE_DIR:-~/.cache/kubepkg}/<name>/<hash of its inputs and the Go version>/
# once, reuses it while its inputs stay the same, lets one of several concurrent callers build
# while the others wait, and prints what it built (or, with --path, where that is).

# gobuild_init SCRIPT NAME: checks that Go is there; sets $cache_root and $go_version. SCRIPT
# names the caller in messages.
gobuild_init() {
	gobuild_script=$1
	cache_root="${KUBEPKG_CACHE_DIR:-$HOME/.cache/kubepkg}/$2"
	if ! command -v go >/dev/null 2>&1; then
		echo "$gobuild_script: the go command is missing; install Go 1.26 (see .ci/run)" >&2
		exit 1
	fi
	go_version="$(go env GOVERSION)"
}

# gobuild_hash: the cache key of the Go version and what comes on standard input (16 hex digits).
gobuild_hash() {
	{
		echo "$go_version"
		cat
	} | sha256sum | cut -c1-16
}

# gobuild_cached RESULT DONE [ARG]: with ARG --path, or when DONE (the executable a build writes
# last) exists, prints RESULT and ends the script. Otherwise takes the build lock of DONE's
# directory, ends the same way if a concurrent build finished meanwhile, and returns to build
# (with $gobuild_start set).
gobuild_cached() {
	local result=$1 done_file=$2 arg=${3:-} dir
	if [[ "$arg" == "--path" || -x "$done_file" ]]; then
		echo "$result"
		exit 0
	fi
	dir="$(dirname "$done_file")"
	mkdir -p "$dir"
	exec 9>"$dir/.build.lock"
	flock 9
	if [[ -x "$done_file" ]]; then
		echo "$result"
		exit 0
	fi
	gobuild_start=$(date +%s)
}

# gobuild_done RESULT: says how long the build took and prints RESULT.
gobuild_done() {
	echo "$gobuild_script: built in $(($(date +%s) - gobuild_start)) s" >&2
	echo "$1"
}
