#!/usr/bin/env bash
# The steps every testenv build script shares (sourced, never run): each builds test tooling
# from the Go module proxy into
#   ${KUBEPKG_CACHE_DIR:-~/.cache/kubepkg}/<name>/<hash of its inputs and the Go version>/
# once, reuses it while its inputs stay the same, lets one of several concurrent callers build
# while the others wait, and prints what it built (or, with --path, where that is).

# gobuild_init SCRIPT NAME DIR [LAYOUT [SOURCES]]: checks that Go is there; sets $cache_root,
# $go_version and $out_dir, the cache directory of this build: its key is LAYOUT (when not
# empty, as a line `layout LAYOUT`: bump it when the output directory's layout changes), DIR's
# go.mod and go.sum, and the Go files of each directory SOURCES names (space-separated, under
# DIR; when given). SCRIPT names the caller in
# messages; DIR is the Go module the build runs in (see gobuild_env).
gobuild_init() {
	gobuild_script=$1
	cache_root="${KUBEPKG_CACHE_DIR:-$HOME/.cache/kubepkg}/$2"
	gobuild_dir=$3
	local layout=${4:-} sources=${5:-} hash
	if ! command -v go >/dev/null 2>&1; then
		echo "$gobuild_script: the go command is missing; install Go 1.26 (see .ci/run)" >&2
		exit 1
	fi
	go_version="$(go env GOVERSION)"
	hash="$(
		cd "$gobuild_dir"
		{
			if [[ -n "$layout" ]]; then echo "layout $layout"; fi
			cat go.mod go.sum
			local dir
			for dir in $sources; do
				for f in "$dir"/*.go; do echo "== $f"; cat "$f"; done
			done
		} | gobuild_hash
	)"
	out_dir="$cache_root/$hash"
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

# gobuild_env: for a subshell that builds: enters the module's directory, sets CGO_ENABLED=0
# and Go's build cache: one for every tool built here (gobuild_gocache), so the standard
# library and the modules several tools share (client-go, gRPC, …) compile once on a fresh
# machine.
gobuild_env() {
	cd "$gobuild_dir"
	GOCACHE="$(gobuild_gocache)"
	export GOCACHE
	export CGO_ENABLED=0
}

# gobuild_gocache: the Go build cache of the test tooling: $KUBEPKG_GOCACHE when set (a cold
# measurement points it at an empty directory), else go-build/ under the cache root. Go's
# cache is safe for concurrent builds.
gobuild_gocache() {
	echo "${KUBEPKG_GOCACHE:-${KUBEPKG_CACHE_DIR:-$HOME/.cache/kubepkg}/go-build}"
}

# gobuild_go ARG...: runs `go ARG...` in the module's directory, set up by gobuild_env.
gobuild_go() {
	(
		gobuild_env
		go "$@"
	)
}

# gobuild_binary NAME PACKAGE [LDFLAGS]: builds PACKAGE (in the module, see gobuild_env) into
# $out_dir/NAME, stripped (`-s -w`) and linked with LDFLAGS, through a temporary file so that
# NAME is there only once complete; then says so (gobuild_done) and prints its path.
gobuild_binary() {
	local name=$1 package=$2 ldflags=${3:-} tmp
	echo "$gobuild_script: building $name into $out_dir" >&2
	tmp="$out_dir/$name.tmp.$$"
	gobuild_go build -trimpath -ldflags "-s -w $ldflags" -o "$tmp" "$package"
	mv -f "$tmp" "$out_dir/$name"
	gobuild_done "$out_dir/$name"
}

# gobuild_stage: makes $tmp, an empty staging directory (with crds/) beside the output, for
# builds whose output is a directory.
gobuild_stage() {
	tmp="$out_dir/.tmp.$$"
	rm -rf "$tmp"
	mkdir -p "$tmp/crds"
}

# gobuild_crds MODULE GLOB: copies the CRDs MODULE ships (the files GLOB names under its
# directory, which the build has downloaded) into $tmp/crds; fails when there are none.
gobuild_crds() {
	local module=$1 glob=$2 dir crd
	dir="$(go list -m -f '{{.Dir}}' "$module")"
	if [[ -z "$dir" ]] || ! compgen -G "$dir/$glob" >/dev/null; then
		echo "$gobuild_script: no CRDs under $dir/$(dirname "$glob") ($module)" >&2
		exit 1
	fi
	# GLOB unquoted on purpose: it is the pattern.
	# shellcheck disable=SC2231
	for crd in "$dir"/$glob; do
		install -m 0644 "$crd" "$tmp/crds/"
	done
}

# gobuild_unstage DONE ENTRY...: moves each ENTRY of $tmp into $out_dir (replacing what was
# there), then $tmp/DONE last, as $done_file, and removes $tmp.
gobuild_unstage() {
	local last=$1 entry
	shift
	for entry in "$@"; do
		rm -rf "${out_dir:?}/$entry"
		mv "$tmp/$entry" "$out_dir/$entry"
	done
	mv -f "$tmp/$last" "$done_file"
	rmdir "$tmp"
}

# gobuild_done RESULT: says how long the build took and prints RESULT.
gobuild_done() {
	echo "$gobuild_script: built in $(($(date +%s) - gobuild_start)) s" >&2
	echo "$1"
}
