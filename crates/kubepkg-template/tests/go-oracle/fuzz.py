#!/usr/bin/env python3
"""Differential fuzzer: random templates run through Go's text/template (go-oracle) and
kubepkg-template (examples/run_cases.rs); prints the cases whose output or error differ.
Usage: fuzz.py GO_ORACLE RUST_RUNNER [count] [seed]   (see fuzz.sh)"""
import json, random, subprocess, sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from cases import D  # the data every corpus case uses

FIELDS = [".a", ".a.b", ".n", ".f", ".i", ".s", ".l", ".m", ".z", ".e", ".t", ".neg", ".tiny", ".mixed",
          ".nested.x", ".nested.x.y.z", ".missing", ".missing.x", ".ints", ".em", ".el", ".uni", ".fl", ".k",
          ".m.a", ".a.c", ".z.q", ".html", ".q", "."]
CONSTS = ["0", "1", "-1", "2", "3", "1.5", "-2.5", "1e3", "1e-7", "0x10", "0o7", "0b11", "1_000", "'a'", "'\\n'",
          "\"\"", "\"x\"", "\"hello\"", "\"a b\"", "`raw`", "true", "false", "nil", "1000000.0", "0.1", "100"]
FUNCS = {"and": (1, 3), "or": (1, 3), "not": (1, 1), "len": (1, 1), "index": (1, 3), "slice": (1, 3),
         "print": (0, 3), "println": (0, 2), "eq": (1, 3), "ne": (2, 2), "lt": (2, 2), "le": (2, 2),
         "gt": (2, 2), "ge": (2, 2), "html": (1, 2), "js": (1, 1), "urlquery": (1, 1), "upper": (1, 1),
         "add1": (1, 1), "half": (1, 1), "join": (2, 2), "cat": (0, 3), "dict1": (2, 2), "boom": (1, 1)}
VERBS = ["%v", "%d", "%s", "%q", "%x", "%X", "%f", "%.2f", "%e", "%g", "%t", "%T", "%5d", "%-5s|", "%05.1f",
         "%+d", "%c", "%U", "%o", "%b", "%8.3e", "%#v", "%%", "%", "%[1]v", "%*d", "%.3s", "% x", "%#x", "%10.4g"]


class Gen:
    def __init__(self, rnd):
        self.r = rnd
        self.vars = ["$"]

    def operand(self, depth):
        r = self.r.random()
        if r < 0.4:
            return self.r.choice(FIELDS)
        if r < 0.65:
            return self.r.choice(CONSTS)
        if r < 0.75:
            v = self.r.choice(self.vars)
            return v + self.r.choice(["", "", ".a", ".s", ".b", ".x"])
        if depth < 3 and r < 0.92:
            return "(" + self.pipeline(depth + 1) + ")"
        if r < 0.96:
            return "(" + self.r.choice(FIELDS) + ")" + self.r.choice([".a", ".b", ".x"])
        return self.r.choice(["strs", "(strs)"])

    def command(self, depth, piped):
        r = self.r.random()
        if r < 0.45 and not piped:
            return self.operand(depth)
        if r < 0.6:
            fmt = "".join(self.r.choice(VERBS + [" ", "-", "x"]) for _ in range(self.r.randint(1, 3)))
            args = [self.operand(depth) for _ in range(self.r.randint(0, 3))]
            return "printf " + json.dumps(fmt) + "".join(" " + a for a in args)
        name = self.r.choice(list(FUNCS))
        lo, hi = FUNCS[name]
        n = self.r.randint(max(0, lo - (1 if piped else 0)), hi)
        if self.r.random() < 0.05:
            n = self.r.randint(0, 4)
        return name + "".join(" " + self.operand(depth) for _ in range(n))

    def pipeline(self, depth=0):
        cmds = [self.command(depth, False)]
        while self.r.random() < 0.25:
            cmds.append(self.command(depth, True))
        return " | ".join(cmds)

    def action(self):
        l = self.r.choice(["{{", "{{", "{{- "])
        rr = self.r.choice(["}}", "}}", " -}}"])
        r = self.r.random()
        if r < 0.12:
            v = "$v%d" % self.r.randint(0, 3)
            self.vars.append(v)
            return f"{l} {v} := {self.pipeline()} {rr}"
        if r < 0.17 and len(self.vars) > 1:
            return f"{l} {self.r.choice(self.vars[1:])} = {self.pipeline()} {rr}"
        if r < 0.2:
            return "{{/* c */}}"
        return f"{l} {self.pipeline()} {rr}"

    def body(self, depth):
        out = []
        for _ in range(self.r.randint(1, 4)):
            r = self.r.random()
            if r < 0.25:
                out.append(self.r.choice(["x", " ", "\n", "a b", "  \n  "]))
            elif r < 0.7 or depth > 2:
                out.append(self.action())
            else:
                out.append(self.block(depth + 1))
        return "".join(out)

    def block(self, depth):
        kind = self.r.choice(["if", "with", "range", "range2", "define"])
        mark = len(self.vars)
        if kind == "range2":
            self.vars += ["$i", "$e"]
            head = "range $i, $e := " + self.pipeline()
        elif kind == "define":
            name = self.r.choice(["d1", "d2"])
            saved = self.vars
            self.vars = ["$"]
            b = self.body(depth)
            self.vars = saved
            return f'{{{{ define "{name}" }}}}{b}{{{{ end }}}}{{{{ template "{name}" {self.operand(0)} }}}}'
        else:
            head = kind + " " + self.pipeline()
        b = self.body(depth)
        if kind.startswith("range") and self.r.random() < 0.2:
            b += self.r.choice(["{{ break }}", "{{ continue }}"])
        e = ""
        if self.r.random() < 0.3:
            e = "{{ else }}" + self.body(depth)
        elif kind == "if" and self.r.random() < 0.15:
            e = "{{ else if " + self.pipeline() + " }}" + self.body(depth)
        self.vars = self.vars[:mark]
        return f"{{{{ {head} }}}}{b}{e}{{{{ end }}}}"


def main():
    go, rust = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    rnd = random.Random(seed)
    lines = []
    for _ in range(count):
        g = Gen(rnd)
        lines.append(json.dumps({"name": "t", "template": g.body(0), "data": D}, ensure_ascii=False))
    inp = "\n".join(lines) + "\n"
    want = subprocess.run([go], input=inp, capture_output=True, text=True, check=True).stdout.splitlines()
    got = subprocess.run([rust], input=inp, capture_output=True, text=True, check=True).stdout.splitlines()
    bad = 0
    for w, g in zip(want, got):
        w, g = json.loads(w), json.loads(g)
        if (w.get("output"), w.get("error")) != (g.get("output"), g.get("error")):
            bad += 1
            if bad <= 30:
                print(json.dumps({"template": w["template"], "go": w.get("output", w.get("error")),
                                  "ours": g.get("output", g.get("error"))}, ensure_ascii=False))
    ok = sum(1 for w in want if "output" in json.loads(w))
    print(f"fuzz: {len(want)} cases ({ok} render, {len(want) - ok} fail in Go), {bad} differ", file=sys.stderr)


main()
