// Command kpk-cluster is kubepkg's local Kubernetes control plane in one
// multi-call binary (busybox style), so the slow Kubernetes build links once.
//
// Test tooling only, never part of the kubepkg product. Subcommands:
//
//	kpk-cluster etcd ...                 the real etcd server (etcdmain)
//	kpk-cluster kube-apiserver ...       the real kube-apiserver
//	kpk-cluster kube-controller-manager  the real kube-controller-manager
//	kpk-cluster kube-scheduler ...       the real kube-scheduler
//	kpk-cluster kubectl ...              the real kubectl
//	kpk-cluster kubelet|kube-proxy ...   the real node's kubelet and kube-proxy (see realnode.go)
//	kpk-cluster nodesim ...              simulated kubelets (see nodesim.go)
//	kpk-cluster certs ...                writes the local PKI (see certs.go)
//	kpk-cluster up|down|status ...       starts, stops, checks the whole plane (see plane.go)
//	kpk-cluster kstatus < objects.json   kstatus' verdict on each object, a test oracle (see kstatus.go)
//
// The subcommand is taken from the first argument, or from the name the
// binary was called by (so a symlink named kubectl behaves as kubectl).
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	name := filepath.Base(os.Args[0])
	args := os.Args[1:]
	if _, ok := commands[name]; !ok {
		if len(args) == 0 {
			usage()
			os.Exit(2)
		}
		name, args = args[0], args[1:]
	}
	run, ok := commands[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "kpk-cluster: unknown subcommand %q\n", name)
		usage()
		os.Exit(2)
	}
	// Each component parses os.Args itself in places (klog, kubectl's
	// verbosity), so present it the argument vector it would see as its
	// own binary.
	os.Args = append([]string{name}, args...)
	os.Exit(run(args))
}

var commands = map[string]func(args []string) int{
	"etcd":                    runEtcd,
	"kube-apiserver":          runAPIServer,
	"kube-controller-manager": runControllerManager,
	"kube-scheduler":          runScheduler,
	"kubectl":                 runKubectl,
	"kubelet":                 runKubelet,
	"kube-proxy":              runKubeProxy,
	"nodesim":                 runNodeSim,
	"certs":                   runCerts,
	"up":                      runUp,
	"down":                    runDown,
	"status":                  runStatus,
	"kstatus":                 runKstatus,
}

func usage() {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	fmt.Fprintf(os.Stderr, "usage: kpk-cluster <%s> [args...]\n", strings.Join(sortedCopy(names), "|"))
}

func sortedCopy(in []string) []string {
	out := append([]string(nil), in...)
	sort.Strings(out)
	return out
}
