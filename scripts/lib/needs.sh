# shellcheck shell=bash
# What the tests need from the machine besides Rust and Go, in one place.
# Sourced by scripts/test (the README's test command) and by .ci/run, so the
# two cannot drift: a fresh machine running either gets the same tools.
#
#   kubepkg_needs CALLER [LIST]
#
# LIST is the name of the array to check: KUBEPKG_NEEDS (default: everything the tests need)
# or KUBEPKG_NEEDS_REAL_NODE (what scripts/demo needs: the real node's programs).
# checks every command below; when some are missing it installs their Debian
# packages (as root with apt-get: `apt-get update` once, then one
# `apt-get install -y PACKAGES` of just the missing ones), or, when it cannot
# install, fails with one line saying exactly what to install. It builds
# nothing, so callers run it first. CALLER names the script in messages.
# Tested by crates/kubepkg-testkit/tests/it/needs.rs.

# What the local plane's real node runs (testenv/up.sh --real-node: scripts/demo and the tests).
KUBEPKG_NEEDS_REAL_NODE=(
	"containerd containerd" # its container runtime (kubepkg_testkit::real_node) …
	"runc runc"             # … the OCI runtime that starts containers …
	"/usr/lib/cni/bridge containernetworking-plugins" # … the CNI plugins that give pods addresses …
	"busybox busybox-static" # … the static busybox its images are assembled from (kpk-registry image) …
	"ip iproute2"           # … the tool that makes and removes its bridge …
	"iptables iptables"     # … and what its kube-proxy programs Services with
)

# "COMMAND DEBIAN-PACKAGE", and why the tests need it.
KUBEPKG_NEEDS=(
	"sha256sum coreutils" # testenv/*/build.sh key their caches by a hash of their sources
	"sed sed"             # the build scripts
	"openssl openssl"     # the test kit's chart repositories and registries make their TLS certificates with it
	"tinyproxy tinyproxy" # the real HTTP proxy of the HTTPS_PROXY/NO_PROXY and kubeconfig proxy-url tests (kubepkg_testkit::proxy)
	"git git"             # the Git server of the Git-source tests (git http-backend, kubepkg_testkit::git_server) and the pushes to it
	"sshd openssh-server" # the git+ssh:// tests' SSH server (kubepkg_testkit::git_server::SshServer)
	"chromium chromium"   # the dashboard's tests run a real headless browser (kubepkg_testkit::browser)
	"chromedriver chromium-driver" # … which they drive over W3C WebDriver
	"npm npm"             # … and audit with axe-core, installed once by npm into ~/.cache/kubepkg/axe-core (kubepkg_testkit::axe)
	"${KUBEPKG_NEEDS_REAL_NODE[@]}"
)

# The Debian packages of the commands of list $1 (default KUBEPKG_NEEDS) that are not on PATH,
# one line, space-separated.
kubepkg_needs_missing() {
	local -n needs_list="${1:-KUBEPKG_NEEDS}"
	local entry missing=()
	for entry in "${needs_list[@]}"; do
		command -v "${entry%% *}" >/dev/null 2>&1 || missing+=("${entry#* }")
	done
	echo "${missing[*]}"
}

kubepkg_needs() {
	local caller="$1" list="${2:-KUBEPKG_NEEDS}" missing
	if ! command -v go >/dev/null 2>&1; then
		# Go is part of the machine image (Debian's golang is too old for the pinned modules).
		echo "$caller: FAILED: the go command is missing: install Go 1.26 and put it on PATH" >&2
		return 1
	fi
	missing="$(kubepkg_needs_missing "$list")"
	[[ -z "$missing" ]] && return 0
	if [[ "${EUID:-$(id -u)}" -ne 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
		echo "$caller: FAILED: missing tools; install them first: apt-get install -y $missing" >&2
		return 1
	fi
	echo "$caller: installing what it needs: apt-get install -y $missing" >&2
	# shellcheck disable=SC2086 # one word per package
	if ! { apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y $missing >&2; }; then
		echo "$caller: FAILED: apt-get could not install them; install them first: apt-get install -y $missing" >&2
		return 1
	fi
	missing="$(kubepkg_needs_missing "$list")"
	if [[ -n "$missing" ]]; then
		echo "$caller: FAILED: still missing after apt-get install; install them first: apt-get install -y $missing" >&2
		return 1
	fi
}
