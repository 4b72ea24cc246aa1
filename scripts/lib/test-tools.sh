# shellcheck shell=bash
# The Go tools the tests run: sourced by scripts/test (the README's test command) and by .ci/run,
# which starts them before its lints.
#
#   kubepkg_build_test_tools_in_background LOG
#
# builds them in the background, appending their messages to LOG, while the caller goes on: the
# local plane (testenv/build.sh) in a job of its own, since every cluster test waits for it, and
# beside it the other tools one after another (on a fresh machine they are most of the Go work,
# and the Rust build and the cluster tests leave a core idle much of the time). Each build
# script takes a lock, so a caller (scripts/test, a test, a second call of this) that needs a
# tool still building waits for it; a build that failed here is built again by the one that
# needs it, which reports the error. A built tool is cached, and then its script returns at once.
kubepkg_build_test_tools_in_background() {
	local log=$1
	# All of it in the background job, quiet: where it cannot even make the log's directory,
	# the caller goes on as if nothing had been started.
	(
		mkdir -p "$(dirname "$log")" || exit 0
		{ testenv/build.sh >/dev/null 2>>"$log" || echo "testenv/build.sh failed (see above)" >>"$log"; } &
		for build in testenv/registry/build.sh testenv/argocd/build.sh \
			"tools/helm-ref/install-helm.sh v4.3.1" testenv/flux/build.sh testenv/cosign/build.sh \
			"tools/helm-ref/install-helm.sh v3.22.0" testenv/kustomize/build.sh; do
			# shellcheck disable=SC2086 # a script and its argument
			$build >/dev/null 2>>"$log" || echo "$build failed (see above)" >>"$log"
		done
	) </dev/null 2>/dev/null &
}
