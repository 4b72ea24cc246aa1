// Differential fuzzing: random templates and values, rendered by Helm's engine here and by
// kubepkg's engine in `cargo test --test it corpus` (see fuzz.sh). `oracle fuzz N SEED` writes N
// random cases with Helm's results as corpus JSON Lines on stdout; cases Helm cannot record
// (a hang, or a path disagreement) are dropped.
package main

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
)

// fuzzFuncs are the deterministic functions the generator calls, with argument kinds:
// a = any expression, s = string-ish, i = small int literal, l = list-ish, m = map-ish,
// * = any number (0-3) of further "a" arguments.
var fuzzFuncs = map[string]string{
	"upper": "s", "lower": "s", "title": "s", "untitle": "s", "trim": "s", "nospace": "s", "initials": "s", "swapcase": "s",
	"snakecase": "s", "camelcase": "s", "kebabcase": "s", "quote": "*", "squote": "*", "toString": "a", "trunc": "is", "abbrev": "is",
	"substr": "iis", "repeat": "is", "trimAll": "ss", "trimSuffix": "ss", "trimPrefix": "ss", "contains": "ss", "hasPrefix": "ss",
	"hasSuffix": "ss", "cat": "*", "indent": "is", "nindent": "is", "replace": "sss", "plural": "ssa", "split": "ss", "splitList": "ss",
	"splitn": "sis", "join": "sa", "sortAlpha": "a", "toStrings": "a", "default": "aa", "empty": "a", "coalesce": "*", "ternary": "aaa",
	"typeOf": "a", "kindOf": "a", "toJson": "a", "toYaml": "a", "toPrettyJson": "a", "toRawJson": "a", "fromJson": "s", "fromYaml": "s",
	"list": "*", "dict": "*", "first": "l", "last": "l", "rest": "l", "initial": "l", "append": "la", "prepend": "la", "concat": "ll",
	"reverse": "l", "uniq": "l", "without": "la", "has": "al", "compact": "l", "slice": "lii", "keys": "m", "values": "m", "pick": "ms",
	"omit": "ms", "get": "ms", "hasKey": "ms", "pluck": "sm", "dig": "sam", "merge": "mm", "mergeOverwrite": "mm", "deepCopy": "a",
	"add": "aa", "sub": "aa", "mul": "aa", "div": "aa", "mod": "aa", "max": "aa", "min": "aa", "addf": "aa", "subf": "aa", "mulf": "aa",
	"divf": "aa", "add1": "a", "floor": "a", "ceil": "a", "round": "ai", "int": "a", "int64": "a", "float64": "a", "atoi": "s",
	"b64enc": "s", "b64dec": "s", "b32enc": "s", "sha256sum": "s", "sha1sum": "s", "adler32sum": "s", "regexMatch": "ss", "regexFind": "ss",
	"regexReplaceAll": "sss", "regexSplit": "ssi", "semverCompare": "ss", "base": "s", "dir": "s", "ext": "s", "clean": "s",
	"len": "a", "index": "ai", "print": "*", "printf": "s*", "eq": "aa", "ne": "aa", "lt": "aa", "le": "aa", "gt": "aa", "ge": "aa",
	"and": "aa", "or": "aa", "not": "a", "html": "a", "js": "a", "urlquery": "a", "duration": "a", "durationRound": "a",
	"toDecimal": "a", "biggest": "aa", "until": "i", "untilStep": "iii", "chunk": "il", "seq": "ii", "all": "*", "any": "*",
	"deepEqual": "aa", "typeIs": "sa", "kindIs": "sa", "set": "msa", "unset": "ms", "urlParse": "s", "wrap": "is", "toToml": "a",
	"fromYamlArray": "s", "fromJsonArray": "s", "include": "sa", "tpl": "sa", "required": "sa", "toYamlPretty": "a", "regexQuoteMeta": "s",
}

var fuzzFuncNames = func() []string {
	names := make([]string, 0, len(fuzzFuncs))
	for k := range fuzzFuncs {
		names = append(names, k)
	}
	sortStrings(names)
	return names
}()

var fuzzVerbs = []string{"%v", "%d", "%s", "%q", "%x", "%f", "%.2f", "%g", "%e", "%t", "%T", "%+v", "%#v", "%5s", "%-4d", "%c", "%o", "%b", "%U", "%08.3f"}
var fuzzStrings = []string{"", "a", "hello", "Hello World", "a,b,c", "x-y_z", "1.2.3", ">=1.0", "42", "3.5", "true", "yes", "null", "é✓日本", " spaced ", "a\nb", "{{ .Values.a }}", "[0-9]+", "a.b", "k", "<&>", "'q'", "\"dq\"", "%", "-1", "1e3", "0x10", "{\"a\":1}", "[1,2]", "a: 1"}
var fuzzKeys = []string{"a", "b", "c", "d", "e", "k", "name", "list", "map", "n"}

type fuzzGen struct {
	r    *rand.Rand
	vars []string
}

func (g *fuzzGen) pick(xs []string) string { return xs[g.r.Intn(len(xs))] }

func (g *fuzzGen) yamlScalar() string {
	switch g.r.Intn(12) {
	case 0:
		return strconv.Itoa(g.r.Intn(200) - 50)
	case 1:
		return strconv.FormatFloat(float64(g.r.Intn(10000))/float64(1+g.r.Intn(100)), 'g', -1, 64)
	case 2:
		return g.pick([]string{"true", "false", "yes", "no", "on", "off", "~", "null"})
	case 3:
		return g.pick([]string{"1e6", "1000000", "0.0001", "-0", "1e21", "123456789", "0x1F", "017", "1.0"})
	case 4:
		return "[" + strings.Join([]string{g.yamlScalar(), g.yamlScalar()}, ", ") + "]"
	case 5:
		return "[]"
	case 6:
		return "{}"
	case 7:
		return strconv.Quote(g.pick([]string{"0123", "1e3", "True", "NO", "~", ":", "- a", "#c", "a: b", "x #y", "*a", "&a", "!t", "%p", "@a", "'q'", " lead", "trail ", "\u2028", "2024-01-02", "12:30", ".inf", "+1", "1_000", "<<", "?", "|", ">", "a\nb\n", "tab\there", "long words " + strings.Repeat("and more words ", 6)}))
	default:
		return strconv.Quote(g.pick(fuzzStrings))
	}
}

func (g *fuzzGen) yamlMap(indent string, depth int) string {
	var b strings.Builder
	n := 1 + g.r.Intn(5)
	if depth == 0 {
		n = 6 + g.r.Intn(6)
	}
	used := map[string]bool{}
	for i := 0; i < n; i++ {
		k := g.pick(fuzzKeys)
		if used[k] {
			continue
		}
		used[k] = true
		if depth < 3 && g.r.Intn(3) == 0 {
			fmt.Fprintf(&b, "%s%s:\n%s", indent, k, g.yamlMap(indent+"  ", depth+1))
		} else if depth < 3 && g.r.Intn(6) == 0 {
			fmt.Fprintf(&b, "%s%s:\n%s-\n%s", indent, k, indent, g.yamlMap(indent+"  ", depth+1))
		} else {
			fmt.Fprintf(&b, "%s%s: %s\n", indent, k, g.yamlScalar())
		}
	}
	if b.Len() == 0 {
		return indent + "z: 1\n"
	}
	return b.String()
}

func (g *fuzzGen) path() string {
	p := ".Values"
	depth := 1
	if x := g.r.Intn(10); x >= 9 {
		depth = 3
	} else if x >= 6 {
		depth = 2
	}
	for i := 0; i < depth; i++ {
		p += "." + g.pick(fuzzKeys)
	}
	return p
}

func (g *fuzzGen) literal() string {
	switch g.r.Intn(7) {
	case 0:
		return strconv.Itoa(g.r.Intn(20) - 5)
	case 1:
		return g.pick([]string{"1.5", "0.1", "1e6", "-2.25", "3.0", "1e21"})
	case 2:
		return g.pick([]string{"true", "false", "nil"})
	default:
		return strconv.Quote(g.pick(fuzzStrings))
	}
}

func (g *fuzzGen) expr(depth int, kind byte) string {
	if kind == 'i' {
		return strconv.Itoa(g.r.Intn(8) - 2)
	}
	if depth > 3 || g.r.Intn(3) == 0 {
		switch {
		case len(g.vars) > 0 && g.r.Intn(5) == 0:
			return g.pick(g.vars)
		case kind == 's' && g.r.Intn(2) == 0:
			return strconv.Quote(g.pick(fuzzStrings))
		case kind == 'l' && g.r.Intn(2) == 0:
			return "(list " + g.literal() + " " + g.literal() + ")"
		case kind == 'm' && g.r.Intn(2) == 0:
			return "(dict " + strconv.Quote(g.pick(fuzzKeys)) + " " + g.literal() + ")"
		case g.r.Intn(2) == 0:
			return g.path()
		default:
			return g.literal()
		}
	}
	return "(" + g.call(depth+1) + ")"
}

func (g *fuzzGen) call(depth int) string {
	name := g.pick(fuzzFuncNames)
	kinds := fuzzFuncs[name]
	args := []string{name}
	if name == "printf" {
		args = append(args, strconv.Quote(g.pick(fuzzVerbs)+" "+g.pick(fuzzVerbs)))
		kinds = "*"
	}
	if name == "include" {
		return "include \"h\" " + g.expr(depth+1, 'a')
	}
	for _, k := range []byte(kinds) {
		if k == '*' {
			for j := 0; j < g.r.Intn(4); j++ {
				args = append(args, g.expr(depth+1, 'a'))
			}
			continue
		}
		args = append(args, g.expr(depth+1, k))
	}
	return strings.Join(args, " ")
}

func (g *fuzzGen) pipeline(depth int) string {
	p := g.call(depth)
	if g.r.Intn(3) == 0 {
		p = g.expr(depth, 'a') + " | " + g.pick([]string{"upper", "quote", "toJson", "len", "default \"d\"", "print", "toString", "typeOf", "b64enc", "indent 2", "trim", "toYaml", "empty", "not"})
	}
	return p
}

func (g *fuzzGen) body(depth int) string {
	var b strings.Builder
	saved := len(g.vars)
	defer func() { g.vars = g.vars[:saved] }()
	for i := 0; i < 1+g.r.Intn(4); i++ {
		l, r := "{{ ", " }}"
		if g.r.Intn(5) == 0 {
			l = "{{- "
		}
		if g.r.Intn(5) == 0 {
			r = " -}}"
		}
		switch x := g.r.Intn(12); {
		case x < 4:
			b.WriteString(l + g.pipeline(depth) + r)
		case x == 4 && depth < 3:
			fmt.Fprintf(&b, "%sif %s%s%s{{ else }}%s{{ end }}", l, g.expr(depth, 'a'), r, g.body(depth+1), g.body(depth+1))
		case x == 5 && depth < 3:
			v := fmt.Sprintf("$v%d", len(g.vars))
			fmt.Fprintf(&b, "%srange $i, %s := %s%s", l, v, g.expr(depth, 'a'), r)
			g.vars = append(g.vars, v, "$i")
			b.WriteString(g.body(depth + 1))
			g.vars = g.vars[:len(g.vars)-2]
			b.WriteString("{{ else }}none{{ end }}")
		case x == 6 && depth < 3:
			fmt.Fprintf(&b, "%swith %s%s{{ . }}%s{{ end }}", l, g.expr(depth, 'a'), r, g.body(depth+1))
		case x == 7:
			v := fmt.Sprintf("$x%d", len(g.vars))
			fmt.Fprintf(&b, "%s%s := %s%s", l, v, g.pipeline(depth), r)
			g.vars = append(g.vars, v)
		case x == 8 && len(g.vars) > 0:
			fmt.Fprintf(&b, "%s%s = %s%s", l, g.pick(g.vars), g.expr(depth, 'a'), r)
		case x == 9:
			b.WriteString(l + g.path() + r)
		case x == 10 && g.r.Intn(2) == 0:
			dump := g.pick([]string{"toYaml", "toJson", "toPrettyJson", "toToml", "print", "toYamlPretty", "toRawJson"})
			b.WriteString(l + dump + " " + g.pick([]string{".Values", g.path()}) + r)
		default:
			b.WriteString(g.pick([]string{"text ", "\n", " - ", "a: ", "\n  ", ""}))
		}
	}
	return b.String()
}

func fuzz(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: oracle fuzz N SEED")
	}
	n, err1 := strconv.Atoi(args[0])
	seed, err2 := strconv.ParseInt(args[1], 10, 64)
	if err1 != nil || err2 != nil {
		return fmt.Errorf("usage: oracle fuzz N SEED")
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for i := 0; i < n; i++ {
		g := &fuzzGen{r: rand.New(rand.NewSource(seed + int64(i)))}
		values := g.yamlMap("", 0)
		c := Case{
			Name: fmt.Sprintf("fuzz/s%d", seed+int64(i)),
			Templates: map[string]string{
				mainTemplate:   g.body(0),
				"_helpers.tpl": "{{ define \"h\" }}[{{ . }}]{{ end }}",
			},
			Values: values,
		}
		if err := runCase(&c); err != nil {
			continue
		}
		if err := encodeCase(w, c); err != nil {
			return err
		}
	}
	return nil
}

func sortStrings(xs []string) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}
