// The corpus's case inputs, generated systematically (every function × typical arguments, every
// fmt verb × value type, …). `oracle gencases DIR` writes DIR/<group>.jsonl with inputs only;
// `oracle regen` then records Helm's outputs. Cases found by fuzzing live in fuzz-findings.jsonl
// and are not generated here.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// stdValues is the values file most cases render over: one entry per shape of data Helm reads.
const stdValues = `str: hello
empty: ""
num: 42
neg: -7
flt: 3.75
big: 1000000
huge: 12345678901234567890
tiny: 0.000001
zero: 0
bool: true
fls: false
nul: null
list: [a, b, c]
nums: [3, 1, 2]
mixed: [1, "two", 3.5, true, null]
map: {b: 2, a: 1, c: {d: x}}
nested: {a: {b: {c: {d: deep}}}}
uni: "héllo wörld ✓"
multi: "line1\nline2"
spaced: "  padded  "
emptylist: []
emptymap: {}
numstr: "123"
fltstr: "3.5"
ver: "1.29.3-gke.1200"
url: "https://user:pw@example.com:8443/a/b?x=1&y=2#frag"
path: "/usr/local/lib/file.tar.gz"
`

type corpusGen struct {
	groups map[string][]Case
	order  []string
	names  map[string]bool
}

var slugRe = regexp.MustCompile(`[^a-zA-Z0-9]+`)

func slug(s string) string {
	s = strings.Trim(slugRe.ReplaceAllString(s, "_"), "_")
	if len(s) > 48 {
		s = s[:48]
	}
	if s == "" {
		s = "case"
	}
	return s
}

func (g *corpusGen) addCase(group string, c Case) {
	if _, ok := g.groups[group]; !ok {
		g.order = append(g.order, group)
	}
	base := group + "/" + c.Name
	name := base
	for i := 2; g.names[name]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	g.names[name] = true
	c.Name = name
	if c.Check == "" {
		c.Check = "exact"
	}
	g.groups[group] = append(g.groups[group], c)
}

// t adds a case whose name is derived from its template, over the standard values.
func (g *corpusGen) t(group string, tpls ...string) {
	for _, tpl := range tpls {
		g.addCase(group, Case{Name: slug(tpl), Templates: map[string]string{mainTemplate: tpl}, Values: stdValues})
	}
}

// tv adds a case with its own values.
func (g *corpusGen) tv(group, name, tpl, values string) {
	g.addCase(group, Case{Name: name, Templates: map[string]string{mainTemplate: tpl}, Values: values})
}

// tf adds a case with several template files (main.tpl plus helpers).
func (g *corpusGen) tf(group, name string, files map[string]string, values string) {
	g.addCase(group, Case{Name: name, Templates: files, Values: values})
}

// shape adds a nondeterministic case checked by a rule (see checkShape).
func (g *corpusGen) shape(group, name, tpl, check string) {
	g.addCase(group, Case{Name: name, Templates: map[string]string{mainTemplate: tpl}, Values: stdValues, Check: check})
}

func genCases(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: oracle gencases DIR")
	}
	g := &corpusGen{groups: map[string][]Case{}, names: map[string]bool{}}
	for _, f := range []func(*corpusGen){
		genBuiltins, genFmt, genControl, genVariables, genErrors, genStrings, genLists, genDicts,
		genMath, genConversion, genDates, genEncoding, genHashes, genCrypto, genSemver, genRegex,
		genSerialization, genHelm, genPaths, genEdge, genTruth,
	} {
		f(g)
	}
	total := 0
	for _, group := range g.order {
		if err := writeCases(filepath.Join(args[0], group+".jsonl"), g.groups[group]); err != nil {
			return err
		}
		total += len(g.groups[group])
	}
	fmt.Fprintf(os.Stderr, "gencases: %d cases in %d groups\n", total, len(g.order))
	return nil
}
