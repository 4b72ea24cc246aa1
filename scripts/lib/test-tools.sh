# shellcheck shell=bash
# The Go tools the tests run besides the local plane (testenv/build.sh): sourced by scripts/test
# (the README's test command) and by .ci/run, which starts them before its lints.
#
#   kubepkg_build_test_tools_in_background LOG
#
# builds them in the background, one after another, appending their messages to LOG, while the
# caller goes on (on a fresh machine they are most of the Go work, and the Rust build and the
# cluster tests leave a core idle much of the time). Each build script takes a lock, so a test
# (or a second call of this) that needs a tool still building waits for it; a build that
# failed here is built again by the test that needs it, which reports the error. A built tool
# is cached, and then its script returns at once.
kubepkg_build_test_tools_in_background() {
	local log=$1
	# All of it in the background job, quiet: where it cannot even make the log's directory,
	# the caller goes on as if nothing had been started.
	(
		mkdir -p "$(dirname "$log")" || exit 0
		for build in testenv/registry/build.sh testenv/argocd/build.sh \
			"tools/helm-ref/install-helm.sh v4.3.1" testenv/flux/build.sh testenv/cosign/build.sh \
			"tools/helm-ref/install-helm.sh v3.22.0" testenv/kustomize/build.sh; do
			# shellcheck disable=SC2086 # a script and its argument
			$build >/dev/null 2>>"$log" || echo "$build failed (see above)" >>"$log"
		done
	) </dev/null 2>/dev/null &
}
