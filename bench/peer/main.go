// kpk-bench-peer: the Go side of kubepkg's benchmarks (bench/rsa-keygen.sh, bench/render-api.sh).
//
//	kpk-bench-peer rsa N BITS          N keys of Go's rsa.GenerateKey(rand.Reader, BITS), one
//	                                   "ns" line per key
//	kpk-bench-peer render N CHART...   per chart: loaded once (loader.Load), then N renders through
//	                                   Helm's SDK as `helm template` runs it (action.Install,
//	                                   client-only dry run, default values); prints
//	                                   "chart<TAB>median ns<TAB>renders per second"
//
// Go is used here only as the peer the benchmarks compare against, never in kubepkg itself.
package main

import (
	"crypto/rand"
	"crypto/rsa"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strconv"
	"time"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
)

func main() {
	if len(os.Args) < 3 {
		fail("usage: kpk-bench-peer rsa N BITS | render N CHART...")
	}
	n, err := strconv.Atoi(os.Args[2])
	if err != nil || n < 1 {
		fail("bad count %q", os.Args[2])
	}
	switch os.Args[1] {
	case "rsa":
		if len(os.Args) != 4 {
			fail("usage: kpk-bench-peer rsa N BITS")
		}
		bits, err := strconv.Atoi(os.Args[3])
		if err != nil {
			fail("bad bit size %q", os.Args[3])
		}
		for range n {
			start := time.Now()
			if _, err := rsa.GenerateKey(rand.Reader, bits); err != nil {
				fail("rsa.GenerateKey: %v", err)
			}
			fmt.Println(time.Since(start).Nanoseconds())
		}
	case "render":
		slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
		for _, path := range os.Args[3:] {
			ch, err := loader.Load(path)
			if err != nil {
				fail("loading %s: %v", path, err)
			}
			render := func() {
				client := action.NewInstall(&action.Configuration{})
				client.DryRunStrategy = action.DryRunClient
				client.ReleaseName = "rel"
				client.Namespace = "default"
				client.Replace = true
				if _, err := client.Run(ch, map[string]any{}); err != nil {
					fail("rendering %s: %v", path, err)
				}
			}
			render() // warm-up
			samples := make([]time.Duration, n)
			total := time.Duration(0)
			for i := range n {
				start := time.Now()
				render()
				samples[i] = time.Since(start)
				total += samples[i]
			}
			sort.Slice(samples, func(a, b int) bool { return samples[a] < samples[b] })
			fmt.Printf("%s\t%d\t%.1f\n", path, samples[n/2].Nanoseconds(), float64(n)/total.Seconds())
		}
	default:
		fail("unknown command %q", os.Args[1])
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "kpk-bench-peer: "+format+"\n", args...)
	os.Exit(1)
}
