// Timing Helm's engine on corpus cases, for bench/template-bench.sh.
package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strconv"
	"time"
)

// bench renders every exact-check success case N times (values reading, render-value assembly,
// parsing and execution, as `helm template` does per chart) and prints "name<TAB>median ns".
func bench(args []string) error {
	if len(args) < 2 {
		return fmt.Errorf("usage: oracle bench N FILE...")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 1 {
		return fmt.Errorf("bad iteration count %q", args[0])
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for _, file := range args[1:] {
		cases, err := readCases(file)
		if err != nil {
			return err
		}
		for _, c := range cases {
			if c.Check != "exact" || c.Output == nil {
				continue
			}
			samples := make([]time.Duration, n)
			for i := range n {
				start := time.Now()
				ch := buildChart(c.Templates)
				top, err := renderValues(ch, c.Values)
				if err != nil {
					return err
				}
				r := helmRender(ch, top)
				samples[i] = time.Since(start)
				if r.Err != nil || r.Output != *c.Output {
					return fmt.Errorf("case %s: output changed since regen", c.Name)
				}
			}
			sort.Slice(samples, func(a, b int) bool { return samples[a] < samples[b] })
			fmt.Fprintf(w, "%s\t%d\n", c.Name, samples[n/2].Nanoseconds())
		}
	}
	return nil
}
