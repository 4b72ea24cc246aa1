// Command go-oracle records what Go's text/template (missingkey=zero, Helm's setting) does with
// each case of kubepkg-template's engine corpus. Test tooling only: it reads cases (JSON Lines:
// name, template, data as JSON) on stdin and writes them back with "output" or "error" filled in.
// Regenerate with ./regen.sh.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
	"text/template"
)

type Case struct {
	Name     string  `json:"name"`
	Template string  `json:"template"`
	Data     string  `json:"data"`
	Missing  string  `json:"missingkey,omitempty"`
	Output   *string `json:"output,omitempty"`
	Error    *string `json:"error,omitempty"`
}

var funcs = template.FuncMap{
	"upper": func(s string) string { return strings.ToUpper(s) },
	"add1":  func(i int) int { return i + 1 },
	"half":  func(f float64) float64 { return f / 2 },
	"join": func(l []interface{}, sep string) string {
		parts := make([]string, len(l))
		for i, x := range l {
			parts[i] = fmt.Sprint(x)
		}
		return strings.Join(parts, sep)
	},
	"strs":  func() []string { return []string{"b", "a"} },
	"boom":  func(s string) (string, error) { return "", errors.New("boom: " + s) },
	"cat":   func(a ...interface{}) string { return fmt.Sprint(a...) },
	"dict1": func(k string, v interface{}) map[string]interface{} { return map[string]interface{}{k: v} },
	"i64":   func(i interface{}) int64 { return 7 },
}

func run(c *Case) {
	t := template.New(c.Name).Funcs(funcs)
	mk := c.Missing
	if mk == "" {
		mk = "zero"
	}
	t.Option("missingkey=" + mk)
	var data interface{}
	if c.Data != "" {
		if err := json.Unmarshal([]byte(c.Data), &data); err != nil {
			s := "bad data: " + err.Error()
			c.Error = &s
			return
		}
	}
	if _, err := t.Parse(c.Template); err != nil {
		s := err.Error()
		c.Error = &s
		return
	}
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		s := err.Error()
		c.Error = &s
		return
	}
	s := b.String()
	c.Output = &s
}

// bench times parse+execute of every successful case (the loop benches/engine.rs runs).
func bench(n int) {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	idx := -1
	for sc.Scan() {
		idx++
		var c Case
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if c.Output == nil || c.Missing != "" || strings.Contains(c.Template, "template \"r\"") {
			continue
		}
		var data interface{}
		if c.Data != "" {
			_ = json.Unmarshal([]byte(c.Data), &data)
		}
		samples := make([]time.Duration, n)
		for i := range n {
			start := time.Now()
			t := template.New(c.Name).Funcs(funcs)
			t.Option("missingkey=zero")
			if _, err := t.Parse(c.Template); err != nil {
				panic(err)
			}
			var b strings.Builder
			if err := t.Execute(&b, data); err != nil {
				panic(err)
			}
			samples[i] = time.Since(start)
		}
		sort.Slice(samples, func(a, b int) bool { return samples[a] < samples[b] })
		fmt.Fprintf(w, "%d\t%d\n", idx, samples[n/2].Nanoseconds())
	}
}

func main() {
	if len(os.Args) > 2 && os.Args[1] == "bench" {
		n, _ := strconv.Atoi(os.Args[2])
		bench(n)
		return
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for sc.Scan() {
		var c Case
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		c.Output, c.Error = nil, nil
		run(&c)
		if err := enc.Encode(c); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
