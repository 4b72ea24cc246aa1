#!/usr/bin/env python3
"""Differential fuzzing input for `fromToml`: mutates the documents of toml-cases.py (cut,
insert a TOML-significant character, delete, duplicate a line) and writes cases (JSON Lines,
without results) for `oracle render`. Usage: toml-fuzz.py N SEED > cases.jsonl"""
import importlib.util, json, os, random, sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("toml_cases", os.path.join(here, "toml-cases.py"))
src = open(os.path.join(here, "toml-cases.py")).read()
ns = {}
exec(src.split("VALUES_HEAD")[0], ns)  # only the document lists
docs = [d for d in ns["VALID"] + ns["INVALID"] if d]
ALPHABET = list("=[]{}.,'\"\\#\n \t_+-:eExob0123456789TZzuU") + ["\r\n", "é", "inf", "nan", "true", "\"\"\"", "'''"]

def mutate(rng, d):
    for _ in range(rng.randint(1, int(os.environ.get("TOML_FUZZ_OPS", "3")))):
        op = rng.randrange(4)
        i = rng.randint(0, len(d))
        if op == 0:
            d = d[:i]
        elif op == 1:
            d = d[:i] + rng.choice(ALPHABET) + d[i:]
        elif op == 2 and d:
            d = d[:i] + d[i + 1:]
        else:
            lines = d.split("\n")
            lines.insert(rng.randint(0, len(lines)), rng.choice(lines))
            d = "\n".join(lines)
    return d

n, seed = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(seed)
for k in range(n):
    d = mutate(rng, rng.choice(docs))
    print(json.dumps({
        "name": f"tomlfuzz/s{seed}_{k}",
        "templates": {"main.tpl": "{{ $m := fromToml .Values.doc }}{{ $m }}{{ range $k, $v := $m }} {{ $k }}:{{ typeOf $v }}{{ end }}"},
        "values": "doc: " + json.dumps(d, ensure_ascii=True) + "\n",
        "check": "exact",
    }, ensure_ascii=False))
