// Command yaml-oracle computes, with the real Go libraries Helm uses, what Helm's YAML/JSON/TOML
// functions produce for each case of the kubepkg-yaml corpus. Test tooling only.
//
//	yaml-oracle read   < read-cases.jsonl   > read-expected.jsonl
//	yaml-oracle write  < write-cases.jsonl  > write-expected.jsonl
//	yaml-oracle json   < json-cases.jsonl   > json-expected.jsonl
//	yaml-oracle random N SEED               > random-write-cases.jsonl (inputs only)
package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	"github.com/Masterminds/sprig/v3"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"sigs.k8s.io/yaml"
	goYaml "sigs.k8s.io/yaml/goyaml.v3"
)

type result struct {
	Value *string `json:"value,omitempty"`
	Error *string `json:"error,omitempty"`
}

func ok(s string) result  { return result{Value: &s} }
func fail(e error) result { s := e.Error(); return result{Error: &s} }

// jsonOf is the value as json.Marshal prints it (exact: floats are shortest round-trip).
func jsonOf(v interface{}, err error) result {
	if err != nil {
		return fail(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fail(fmt.Errorf("oracle: %w", err))
	}
	return ok(string(b))
}

func catch(f func() result) (r result) {
	defer func() {
		if p := recover(); p != nil {
			r = fail(fmt.Errorf("panic: %v", p))
		}
	}()
	return f()
}

// decodeAll records under "any", "map" and "array" what unmarshal makes of text decoded into
// each of the targets Helm's functions decode into (a nil map or array as an empty one; an
// error is the result whatever was decoded).
func decodeAll(out map[string]interface{}, text string, unmarshal func([]byte, interface{}) error) {
	out["any"] = catch(func() result {
		var v interface{}
		err := unmarshal([]byte(text), &v)
		return jsonOf(v, err)
	})
	out["map"] = catch(func() result {
		m := map[string]interface{}{}
		err := unmarshal([]byte(text), &m)
		if m == nil {
			m = map[string]interface{}{}
		}
		return jsonOf(m, err)
	})
	out["array"] = catch(func() result {
		a := []interface{}{}
		err := unmarshal([]byte(text), &a)
		if a == nil {
			a = []interface{}{}
		}
		return jsonOf(a, err)
	})
}

type readCase struct {
	Name string `json:"name"`
	YAML string `json:"yaml"`
}

func doRead(c readCase) map[string]interface{} {
	out := map[string]interface{}{"name": c.Name, "yaml": c.YAML}
	decodeAll(out, c.YAML, func(b []byte, v interface{}) error { return yaml.Unmarshal(b, v) })
	out["yamlToJson"] = catch(func() result {
		j, err := yaml.YAMLToJSON([]byte(c.YAML))
		return str(string(j), err)
	})
	out["values"] = catch(func() result {
		v, err := loader.LoadValues(bytes.NewReader([]byte(c.YAML)))
		return jsonOf(v, err)
	})
	return out
}

// typed decodes the corpus' typed JSON: numbers with '.', 'e' or 'E' are float64, others int;
// {"$f": "NaN"|"+Inf"|"-Inf"|"1.5"} float64, {"$u": "…"} uint64, {"$b": base64} []byte.
func typed(v interface{}) interface{} {
	switch t := v.(type) {
	case json.Number:
		s := string(t)
		if strings.ContainsAny(s, ".eE") {
			f, _ := strconv.ParseFloat(s, 64)
			return f
		}
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			u, _ := strconv.ParseUint(s, 10, 64)
			return u
		}
		return int(i)
	case map[string]interface{}:
		if len(t) == 1 {
			if s, ok := t["$f"].(string); ok {
				f, _ := strconv.ParseFloat(s, 64)
				return f
			}
			if s, ok := t["$u"].(string); ok {
				u, _ := strconv.ParseUint(s, 10, 64)
				return u
			}
			if s, ok := t["$b"].(string); ok {
				b, _ := base64.StdEncoding.DecodeString(s)
				return b
			}
		}
		m := map[string]interface{}{}
		for k, x := range t {
			m[k] = typed(x)
		}
		return m
	case []interface{}:
		a := make([]interface{}, len(t))
		for i, x := range t {
			a[i] = typed(x)
		}
		return a
	}
	return v
}

func str(s string, err error) result {
	if err != nil {
		return fail(err)
	}
	return ok(s)
}

var sprigFuncs = sprig.TxtFuncMap()

func doWrite(name string, raw json.RawMessage) map[string]interface{} {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v interface{}
	if err := d.Decode(&v); err != nil {
		panic(err)
	}
	v = typed(v)
	out := map[string]interface{}{"name": name, "value": raw}
	out["toYaml"] = catch(func() result {
		b, err := yaml.Marshal(v)
		return str(string(b), err)
	})
	out["toYamlPretty"] = catch(func() result {
		var data bytes.Buffer
		enc := goYaml.NewEncoder(&data)
		enc.SetIndent(2)
		err := enc.Encode(v)
		return str(data.String(), err)
	})
	out["toJson"] = catch(func() result {
		b, err := json.Marshal(v)
		return str(string(b), err)
	})
	out["toPrettyJson"] = catch(func() result {
		s, err := sprigFuncs["mustToPrettyJson"].(func(interface{}) (string, error))(v)
		return str(s, err)
	})
	out["toRawJson"] = catch(func() result {
		s, err := sprigFuncs["mustToRawJson"].(func(interface{}) (string, error))(v)
		return str(s, err)
	})
	out["toToml"] = catch(func() result {
		b := bytes.NewBuffer(nil)
		err := toml.NewEncoder(b).Encode(v)
		return str(b.String(), err)
	})
	return out
}

type jsonCase struct {
	Name string `json:"name"`
	JSON string `json:"json"`
}

func doJSON(c jsonCase) map[string]interface{} {
	out := map[string]interface{}{"name": c.Name, "json": c.JSON}
	decodeAll(out, c.JSON, json.Unmarshal)
	out["fromToml"] = catch(func() result {
		m := map[string]interface{}{}
		err := toml.Unmarshal([]byte(c.JSON), &m)
		return jsonOf(m, err)
	})
	return out
}

// ---- random values -------------------------------------------------------------------------

var words = []string{"", "a", "yes", "no", "on", "off", "y", "n", "true", "null", "~", "1.0", "0x1F", "017",
	"1e3", "2006-01-02", "2001-12-14t21:59:43.10-05:00", "12:30", "1:20", ".inf", "-", "- a", "a: b", "a:b", "#x", "x #y",
	"&a", "*a", "!t", "|", ">", "'q'", "\"d\"", "@at", "`bt", "%p", "a\nb", "a\n", "\n", "  lead", "trail  ", "tab\there",
	"ü", "日本語", "emoji 😀", "\u00a0nbsp", "\u2028", "\x7f", "\x01", "\ufeffbom", "<html>&", "[x]", "{x}", "a,b", "?", "? x",
	"key=value", "http://example.com/path?q=1", "C:\\path", "0", "-1", "+1", "1_000", "0b101", "0o17", ".5", "5.", "1e400"}

func randString(r *rand.Rand) string {
	switch r.Intn(5) {
	case 0, 1:
		return words[r.Intn(len(words))]
	case 2:
		n := r.Intn(4) + 1
		parts := make([]string, n)
		for i := range parts {
			parts[i] = words[r.Intn(len(words))]
		}
		seps := []string{" ", "\n", "", " \n", "\n\n", ": ", "  "}
		return strings.Join(parts, seps[r.Intn(len(seps))])
	case 3:
		// long text to exercise folding
		n := r.Intn(30) + 5
		var b strings.Builder
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString([]string{" ", " ", " ", "  ", "\n", "-"}[r.Intn(6)])
			}
			b.WriteString(strings.Repeat("x", r.Intn(12)+1))
		}
		return b.String()
	default:
		const alphabet = "ab :#-\n\t'\"\\{}[],&*!|>%@`?~=0123456789.eE+_üé\u2028\x00"
		rs := []rune(alphabet)
		n := r.Intn(12)
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteRune(rs[r.Intn(len(rs))])
		}
		return b.String()
	}
}

func randFloatText(r *rand.Rand) interface{} {
	switch r.Intn(6) {
	case 0:
		return json.Number(strconv.FormatFloat(r.NormFloat64()*math.Pow(10, float64(r.Intn(40)-20)), 'g', -1, 64))
	case 1:
		return json.Number(strconv.Itoa(r.Intn(2000000)-1000000) + ".0")
	case 2:
		return map[string]interface{}{"$f": []string{"NaN", "+Inf", "-Inf", "-0", "1e21", "1e20", "1e-7", "1e-6", "123456789", "1000000", "100000", "0.1", "1e308"}[r.Intn(13)]}
	case 3:
		return json.Number(strconv.FormatFloat(float64(r.Int63n(1<<60)), 'e', -1, 64))
	default:
		return json.Number(strconv.FormatFloat(r.Float64()*1000, 'g', -1, 64))
	}
}

func randValue(r *rand.Rand, depth int) interface{} {
	k := r.Intn(10)
	if depth > 3 && k >= 7 {
		k = r.Intn(7)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return r.Intn(2) == 0
	case 2:
		return json.Number(strconv.FormatInt(r.Int63n(1<<62)-(1<<61), 10)[:1+r.Intn(10)])
	case 3:
		return randFloatText(r)
	case 4, 5, 6:
		return randString(r)
	case 7:
		n := r.Intn(4)
		a := make([]interface{}, n)
		for i := range a {
			a[i] = randValue(r, depth+1)
		}
		return a
	default:
		n := r.Intn(5)
		m := map[string]interface{}{}
		for i := 0; i < n; i++ {
			m[randString(r)] = randValue(r, depth+1)
		}
		return m
	}
}

// jsonNumbersToGo turns the generator's json.Number leaves into Go numbers (typed()).
func jsonNumbersToGo(v interface{}) interface{} {
	b, _ := json.Marshal(v)
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var x interface{}
	_ = d.Decode(&x)
	return typed(x)
}

var snippets = []string{":", ": ", "-", "- ", " ", "  ", "\n", "\n  ", "[", "]", "{", "}", ",", "'", "\"", "#", " #x", "&a ", "*a",
	"!!str ", "!!int ", "|", ">", "<<: ", "? ", "~", "\t", "yes", "0x1F", "1e3", "---\n", "...\n", "%", "@", "\\", "&b [1]\nc: *b\n"}

// mutate damages or extends YAML text a little, to reach both valid and invalid documents.
func mutate(r *rand.Rand, s string) string {
	k := r.Intn(6)
	for j := 0; j < k; j++ {
		if len(s) == 0 {
			break
		}
		p := r.Intn(len(s) + 1)
		for p < len(s) && !utf8.RuneStart(s[p]) {
			p++
		}
		switch r.Intn(4) {
		case 0: // insert
			s = s[:p] + snippets[r.Intn(len(snippets))] + s[p:]
		case 1: // delete a few bytes (whole runes)
			q := p + r.Intn(4)
			for q < len(s) && !utf8.RuneStart(s[q]) {
				q++
			}
			if q > len(s) {
				q = len(s)
			}
			s = s[:p] + s[q:]
		case 2: // truncate
			s = s[:p]
		default: // duplicate a line
			lines := strings.Split(s, "\n")
			li := r.Intn(len(lines))
			lines = append(lines[:li+1], lines[li:]...)
			s = strings.Join(lines, "\n")
		}
	}
	return s
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: yaml-oracle read|write|json|random")
		os.Exit(2)
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	if os.Args[1] == "random" {
		n, _ := strconv.Atoi(os.Args[2])
		seed, _ := strconv.ParseInt(os.Args[3], 10, 64)
		r := rand.New(rand.NewSource(seed))
		for i := 0; i < n; i++ {
			v := randValue(r, 0)
			if r.Intn(3) > 0 {
				v = map[string]interface{}{"root": v, randString(r): randValue(r, 1)}
			}
			b, _ := json.Marshal(v)
			enc.Encode(map[string]interface{}{"name": fmt.Sprintf("random-%d-%d", seed, i), "value": json.RawMessage(b)})
		}
		return
	}
	if os.Args[1] == "bench" {
		// yaml-oracle bench FILE: Go's time to read and write FILE as Helm does.
		b, err := os.ReadFile(os.Args[2])
		if err != nil {
			panic(err)
		}
		t := time.Now()
		var v interface{}
		if err := yaml.Unmarshal(b, &v); err != nil {
			panic(err)
		}
		read := time.Since(t)
		t = time.Now()
		y, _ := yaml.Marshal(v)
		fmt.Printf("go   read %v write %v (%d bytes in, %d bytes out)\n", read, time.Since(t), len(b), len(y))
		return
	}
	if os.Args[1] == "randomread" {
		n, _ := strconv.Atoi(os.Args[2])
		seed, _ := strconv.ParseInt(os.Args[3], 10, 64)
		r := rand.New(rand.NewSource(seed))
		for i := 0; i < n; i++ {
			v := jsonNumbersToGo(randValue(r, 0))
			var text string
			if r.Intn(2) == 0 {
				b, _ := yaml.Marshal(v)
				text = string(b)
			} else {
				var data bytes.Buffer
				e := goYaml.NewEncoder(&data)
				e.SetIndent(2 + 2*r.Intn(2))
				_ = e.Encode(v)
				text = data.String()
			}
			text = mutate(r, text)
			enc.Encode(map[string]interface{}{"name": fmt.Sprintf("random-read-%d-%d", seed, i), "yaml": text})
		}
		return
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<20), 64<<20)
	var rows []map[string]interface{}
	for in.Scan() {
		line := in.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		switch os.Args[1] {
		case "read":
			var c readCase
			if err := json.Unmarshal(line, &c); err != nil {
				panic(err)
			}
			rows = append(rows, doRead(c))
		case "write":
			var c struct {
				Name  string          `json:"name"`
				Value json.RawMessage `json:"value"`
			}
			if err := json.Unmarshal(line, &c); err != nil {
				panic(err)
			}
			rows = append(rows, doWrite(c.Name, c.Value))
		case "json":
			var c jsonCase
			if err := json.Unmarshal(line, &c); err != nil {
				panic(err)
			}
			rows = append(rows, doJSON(c))
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return false })
	for _, r := range rows {
		enc.Encode(r)
	}
}
