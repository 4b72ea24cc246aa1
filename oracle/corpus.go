// The corpus file format (JSON Lines, one case per line; see testdata/template-corpus/README.md),
// regeneration of expectations, and shape checks for nondeterministic functions.
package main

import (
	"bufio"
	"bytes"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// Case is one corpus case. Inputs: Name, Templates, Values, Check. Expectations (written by the
// oracle): exactly one of Output/OutputB64 (success) or Error+GoError (failure).
type Case struct {
	Name      string            `json:"name"`
	Templates map[string]string `json:"templates"`
	Values    string            `json:"values"`
	Check     string            `json:"check"`
	Output    *string           `json:"output,omitempty"`
	OutputB64 *string           `json:"output_b64,omitempty"`
	Error     *string           `json:"error,omitempty"`
	GoError   *string           `json:"go_error,omitempty"`
	// ValuesError is set when Helm cannot read the values file at all (nothing is rendered).
	ValuesError *string `json:"values_error,omitempty"`
}

func readCases(file string) ([]Case, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return decodeCases(f, file)
}

func decodeCases(r io.Reader, file string) ([]Case, error) {
	var cases []Case
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var c Case
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, line, err)
		}
		cases = append(cases, c)
	}
	return cases, sc.Err()
}

func encodeCase(w io.Writer, c Case) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

func writeCases(file string, cases []Case) error {
	var buf bytes.Buffer
	for _, c := range cases {
		if err := encodeCase(&buf, c); err != nil {
			return err
		}
	}
	return os.WriteFile(file, buf.Bytes(), 0o644)
}

// runCase renders a case through both paths and fills in its expectations.
func runCase(c *Case) error {
	if _, ok := c.Templates[mainTemplate]; !ok {
		return fmt.Errorf("case %s: no %s", c.Name, mainTemplate)
	}
	if c.Check == "" {
		c.Check = "exact"
	}
	type both struct{ helm, gor Result }
	done := make(chan both, 1)
	var valuesErr error
	go func() {
		ch := buildChart(c.Templates)
		top, err := renderValues(ch, c.Values)
		if err != nil {
			valuesErr = err
			done <- both{}
			return
		}
		h := helmRender(ch, top)
		ch2 := buildChart(c.Templates)
		top2, _ := renderValues(ch2, c.Values)
		g := goRender(ch2, top2)
		done <- both{h, g}
	}()
	var r both
	select {
	case r = <-done:
	case <-time.After(60 * time.Second):
		return fmt.Errorf("case %s: Helm did not finish within 60s", c.Name)
	}
	c.Output, c.OutputB64, c.Error, c.GoError, c.ValuesError = nil, nil, nil, nil, nil
	if valuesErr != nil {
		e := valuesErr.Error()
		c.ValuesError = &e
		return nil
	}
	if (r.helm.Err == nil) != (r.gor.Err == nil) {
		return fmt.Errorf("case %s: Helm and text/template paths disagree: %v / %v", c.Name, r.helm.Err, r.gor.Err)
	}
	if r.helm.Err != nil {
		e, g := r.helm.Err.Error(), r.gor.Err.Error()
		c.Error, c.GoError = &e, &g
		if c.Check != "exact" {
			return fmt.Errorf("case %s: a shape-checked case failed: %s", c.Name, e)
		}
		return nil
	}
	if r.helm.Output != r.gor.Output && c.Check == "exact" {
		return fmt.Errorf("case %s: Helm and text/template paths disagree:\n%q\n%q", c.Name, r.helm.Output, r.gor.Output)
	}
	out := r.helm.Output
	if utf8.ValidString(out) {
		c.Output = &out
	} else {
		b := base64.StdEncoding.EncodeToString([]byte(out))
		c.OutputB64 = &b
	}
	if err := checkShape(c.Check, out); err != nil {
		return fmt.Errorf("case %s: Go's own output fails its check %q: %w\n%s", c.Name, c.Check, err, out)
	}
	if err := checkShape(c.Check, r.gor.Output); err != nil {
		return fmt.Errorf("case %s: Go's own output fails its check %q: %w", c.Name, c.Check, err)
	}
	return nil
}

func regen(files []string) error {
	seen := map[string]string{}
	var failures []string
	defer func() {
		for _, f := range failures {
			fmt.Fprintln(os.Stderr, f)
		}
	}()
	for _, file := range files {
		cases, err := readCases(file)
		if err != nil {
			return err
		}
		for i := range cases {
			if prev, dup := seen[cases[i].Name]; dup {
				return fmt.Errorf("case %s in %s duplicates one in %s", cases[i].Name, file, prev)
			}
			seen[cases[i].Name] = file
			if err := runCase(&cases[i]); err != nil {
				failures = append(failures, fmt.Sprintf("%s: %v", file, err))
			}
		}
		if err := writeCases(file, cases); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "%s: %d cases\n", file, len(cases))
	}
	if len(failures) > 0 {
		return fmt.Errorf("%d cases could not be recorded", len(failures))
	}
	return nil
}

// renderStdin renders each case read from stdin (JSON Lines) and writes it back with expectations.
// A case the oracle cannot record is written with "check":"invalid:<reason>".
func renderStdin() error {
	cases, err := decodeCases(os.Stdin, "stdin")
	if err != nil {
		return err
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for i := range cases {
		if err := runCase(&cases[i]); err != nil {
			cases[i].Check = "invalid:" + err.Error()
		}
		if err := encodeCase(w, cases[i]); err != nil {
			return err
		}
	}
	return nil
}

// checkShape verifies an output against a case's check rule.
//
//	exact                       (compared byte for byte elsewhere)
//	shape:regex:<RE2>           the whole output matches the pattern
//	shape:pem:<TYPE>[;<TYPE>]   the output is exactly these PEM blocks, in order, each parsable
//	shape:certchain             the output is two CERTIFICATE blocks; the first is signed by the second
func checkShape(check, out string) error {
	switch {
	case check == "exact":
		return nil
	case strings.HasPrefix(check, "shape:regex:"):
		re, err := regexp.Compile(`\A(?:` + strings.TrimPrefix(check, "shape:regex:") + `)\z`)
		if err != nil {
			return err
		}
		if !re.MatchString(out) {
			return fmt.Errorf("output does not match")
		}
		return nil
	case strings.HasPrefix(check, "shape:pem:"):
		want := strings.Split(strings.TrimPrefix(check, "shape:pem:"), ";")
		_, err := pemBlocks(out, want)
		return err
	case check == "shape:certchain":
		blocks, err := pemBlocks(out, []string{"CERTIFICATE", "CERTIFICATE"})
		if err != nil {
			return err
		}
		leaf, err := x509.ParseCertificate(blocks[0].Bytes)
		if err != nil {
			return err
		}
		ca, err := x509.ParseCertificate(blocks[1].Bytes)
		if err != nil {
			return err
		}
		return leaf.CheckSignatureFrom(ca)
	}
	return fmt.Errorf("unknown check %q", check)
}

func pemBlocks(out string, want []string) ([]*pem.Block, error) {
	rest := []byte(strings.TrimSpace(out))
	var blocks []*pem.Block
	for i, typ := range want {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			return nil, fmt.Errorf("PEM block %d (%s) missing", i+1, typ)
		}
		if b.Type != typ {
			return nil, fmt.Errorf("PEM block %d is %s, want %s", i+1, b.Type, typ)
		}
		var err error
		switch typ {
		case "CERTIFICATE":
			_, err = x509.ParseCertificate(b.Bytes)
		case "RSA PRIVATE KEY":
			_, err = x509.ParsePKCS1PrivateKey(b.Bytes)
		case "EC PRIVATE KEY":
			_, err = x509.ParseECPrivateKey(b.Bytes)
		case "PRIVATE KEY":
			_, err = x509.ParsePKCS8PrivateKey(b.Bytes)
		case "DSA PRIVATE KEY":
			// Go's x509 has no DSA parser; the block decoding above is the check.
		default:
			return nil, fmt.Errorf("unknown PEM type %s", typ)
		}
		if err != nil {
			return nil, fmt.Errorf("PEM block %d (%s): %w", i+1, typ, err)
		}
		blocks = append(blocks, b)
		rest = bytes.TrimSpace(rest)
	}
	if len(bytes.TrimSpace(rest)) != 0 {
		return nil, fmt.Errorf("trailing data after %d PEM blocks", len(want))
	}
	return blocks, nil
}
