// Command kpk-redis is the Redis that Argo CD's application controller and repo server cache
// into during kubepkg's tests: github.com/alicebob/miniredis/v2 (an in-process Redis server in
// Go, the one `argocd --core` runs for the same caches) on a loopback port.
//
//	kpk-redis [--addr 127.0.0.1:0]
//
// prints "listening on 127.0.0.1:PORT" once it accepts connections, and exits when its parent
// process goes away (so a killed test leaves none running) or on SIGTERM/SIGINT.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/alicebob/miniredis/v2"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	flag.Parse()
	server := miniredis.NewMiniRedis()
	if err := server.StartAddr(*addr); err != nil {
		fmt.Fprintf(os.Stderr, "kpk-redis: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("listening on %s\n", server.Addr())
	go exitWithParent()
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	<-signals
	server.Close()
}

// exitWithParent ends the process once its parent is gone (it is re-parented).
func exitWithParent() {
	parent := os.Getppid()
	for {
		time.Sleep(300 * time.Millisecond)
		if os.Getppid() != parent {
			os.Exit(0)
		}
	}
}
