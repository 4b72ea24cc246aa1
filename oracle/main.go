// Command oracle is kubepkg's test oracle: it renders template cases through Helm's real engine
// (helm.sh/helm/v4 pkg/engine) and records the outputs and errors kubepkg must reproduce.
//
//	oracle funcs                 print the function names Helm's engine exposes, one per line
//	oracle regen FILE.jsonl...   fill in the expected output/error of every case, in place
//	oracle render                read one case (JSON) on stdin, print its result (JSON)
//	oracle bench N FILE.jsonl... time N renders of every case; print per-case median ns (JSON Lines)
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: oracle funcs | regen FILE... | render | bench N FILE...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "funcs":
		for _, n := range FunctionNames() {
			fmt.Println(n)
		}
	case "regen":
		err = regen(os.Args[2:])
	case "render":
		err = renderStdin()
	case "bench":
		err = bench(os.Args[2:])
	case "fuzz":
		err = fuzz(os.Args[2:])
	case "gencases":
		err = genCases(os.Args[2:])
	default:
		err = fmt.Errorf("unknown mode %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		os.Exit(1)
	}
}
