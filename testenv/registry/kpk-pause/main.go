// Command kpk-pause is the real node's pod sandbox process (test tooling only, never part of
// kubepkg): what Kubernetes' pause container does — it holds the pod's namespaces, reaps the
// orphans it inherits as PID 1, and exits on SIGINT or SIGTERM. Built static, it is the only
// file of the kpk/pause image (kpk-registry image).
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range signals {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		// Reap every child that has exited.
		for {
			var status syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
