// Test tooling only: the throw-away certificates kpk-cluster and kpk-registry write, shared by
// both modules through a replace directive. Standard library only.
module kubepkg.dev/testenv/pki

go 1.26.0
