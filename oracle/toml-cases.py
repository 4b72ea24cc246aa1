#!/usr/bin/env python3
"""Writes the inputs of testdata/template-corpus/toml.jsonl: TOML documents (valid ones of
every kind and malformed ones for each error BurntSushi/toml reports) fed to Helm's `fromToml`.
Helm's results are then recorded by `oracle regen` (see toml-regen.sh); the corpus test
compares kubepkg with them."""
import json, sys

# Documents meant to be valid TOML (BurntSushi still refuses a few, e.g. `0x_1`, `unicodé = 1`).
VALID = [
    "", "a = 1", 'a = 1\n[b]\nc = "x"', "# comment\na = 'raw' # trailing",
    "a.b.c = 1\na.b.d = 2", "\"quoted key\" = 1\n'lit key' = 2\n\"a.b\" = 3",
    "[a.b]\nc = 1\n[a]\nd = 2", "[[p]]\nn = 1\n[[p]]\nn = 2",
    "[[p]]\n[p.q]\nx = 1\n[[p.r]]\ny = 2\n[[p]]", "t = {a = 1, b = {c = 'x'}}",
    "t = {a.b = 1, a.c = 2}", "arr = [1, 2, 3]\nmixed = [1, 'a', 2.5, true]",
    "arr = [\n  1,\n  2, # c\n]", "arr = [{a = 1}, {b = 2}]", "nested = [[1, 2], ['a']]",
    's = "tab\\tnl\\nq\\"bs\\\\ b\\b f\\f r\\r"', 's = "\\u00e9\\U0001F600\\x41\\e"',
    's = """\nline1\nline2"""', 's = """a \\\n   b \\\n\n  c"""', "s = '''\nraw\\n'''",
    's = """a"""""', "s = '''a'''''", 's = """a\\"""b"""',
    "i = +99\nj = -17\nk = 0\nl = 1_000\nm = -0\nn = +0",
    "h = 0xDEADbeef\no = 0o755\nb = 0b1101\nu = 0x_1", "h = 0xdead_beef\no = 0o7_5\nb = 0b1_0",
    "big = 9223372036854775807\nsmall = -9223372036854775808",
    "f = 3.1415\ng = -0.01\nh = 5e+22\ni = 1e06\nj = -2E-2\nk = 6.626e-34\nl = 224_617.445_991",
    "a = inf\nb = +inf\nc = -inf\nd = nan\ne = +nan\nf = -nan",
    "t = true\nf = false", "d = 1979-05-27T07:32:00Z", "d = 1979-05-27T00:32:00-07:00",
    "d = 1979-05-27T00:32:00.999999+07:00", "d = 1979-05-27 07:32:00Z",
    "d = 1979-05-27T07:32:00", "d = 1979-05-27T00:32:00.999999", "d = 1979-05-27",
    "d = 07:32:00", "d = 00:32:00.999999", "d = 1979-05-27T07:32", "d = 07:32",
    "d = 1979-05-27t07:32:00z", "d = 2024-02-29", "d = 1979-05-27T07:32:00+00:00",
    "d = 1979-05-27T07:32:00.1234567891Z", "d = 1979-05-27T07:32Z", "d = 1979-05-27 # date",
    "d = [1979-05-27, 07:32:00]",
    "a = 1\n\n\n[b]\n\n", '"" = 1', "a = {}\nb = []", "[a]\n[a.b]\n[a.c]",
    "a.b = 1\n[a.c]\nd = 2", "\ufeffa = 1", "a = 1\r\nb = 2\r\n", "t = {\n a = 1,\n b = 2,\n}",
    "a = [{b = 1}]\na = [{c = 1}]", "a = {b = 1}\na.c = 2", "a.b = 1\na = 2",
    "x = 0.1\ny = 1e308\nz = 1e-400", "k = 'C:\\Users\\x'", "[a]\nb.c = 1\n[a.b.d]\ne = 2",
    "[ a . b ]\n[ 'q' . \"r\" ]", "[[a.b]]\nc = 1\n[[a.b]]\nc = 2\n[a]\nd = 3",
    "a = [ [ {b = 1} ] ]", "a = [] # empty\nb = [ ]", "unicodé = 1", "a = 'ü ✓'",
]

# Documents meant to be malformed (BurntSushi accepts a few, e.g. `a = [1]` then `a.b = 2`).
INVALID = [
    "a = ", "a", "a = 1\na = 2", "[a]\n[a]", "a = 1\n[a]", "[[a]]\n[a]", "a = []\n[[a]]",
    "a = 1\n[a.b]", "a = 01", "a = 1__0", "a = 1_", "a = 9223372036854775808",
    "a = -9223372036854775809", "a = 1.5.5", "a = 1.", "a = .5", "a = 1e", "a = 1e400",
    "a = 00.5", "a = +0x10", "a = 0xZ", "a = 0b2", "a = 0o8", 'a = "abc', 'a = "ab\ncd"',
    "a = 'ab", 'a = """abc', "a = '''abc", 'a = "\\q"', 'a = "\\u12"', 'a = "\\uD800"',
    'a = "a\\ b"', "a = tru", "a = yes", "a = 1979-13-01", "a = 1979-05-27T7:32:00",
    "a = 1979-05-32", "a = 25:00:00", "a = 2023-02-29", "[a", "[]", "[a.]", "[[a]", "[[a] ]",
    "a = [1 2]", "a = [1,,2]", "a = {b = 1 c = 2}", "a = {,}", "= 1", ".a = 1", "a. = 1",
    "a b = 1", "a = 1 b = 2", "a = \x01", 'a = """x""""""', "a = '''x''''''",
    "a = {b = 1}\n[a]", "a = [1]\na.b = 2", "t = {a = 1, a = 2}", "t = {a.b = 1, a = 2}",
    'a = "\\x4"', "a\n= 1", "a =\n1", "\n\n[a]\nb = 1\nb = 2", 'a = 1\n\n\nb = "x',
    "a = -inf_", "a = nanx", "a = \x00", "a = 1\r", "a = 1979-05-27T07:32:00+25:00",
    "a = -0b1", "a = +", "a = 'x' = 1", "[a]\nb = 1\n[a.b]", "a = [1, 2", "a = {b = 1",
    "[a.\"b\".c]\nd = 1\nd = 2", "a = ina", "a = -", "x = 1\n[[x.y]]", "a = 1 # c\n\x7f",
    "[a]\nb = {c = 1}\n[a.b]", "a = [{b = 1}]\n[[a]]", "a.b = 1\na.b = 2", "a = 0x",
    'a = "\\U0011FFFF"', "a = 1e5.5", "a = 1_000.0_", "a = -01", "a = 1979-05-27T07:32:00.Z",
    "a = 07:32:60", "a = {b = 1,}", "[a]b = 1", "a = [,]", "key = # no value",
    # found by toml-fuzz.py: Go's %q escapes a byte-order mark that is not at the start
    "a = 1\n\ufeffb = 2", "\ufeff\ufeffa = 1",
]

VALUES_HEAD = "doc: "

def case(i, kind, doc):
    return {
        "name": f"toml/{kind}_{i:03d}",  # kind: the intent; Helm's result decides
        "templates": {"main.tpl": "{{ $m := fromToml .Values.doc }}{{ $m }}{{ range $k, $v := $m }} {{ $k }}:{{ typeOf $v }}{{ end }}"},
        "values": VALUES_HEAD + json.dumps(doc, ensure_ascii=True) + "\n",
        "check": "exact",
    }

out = sys.argv[1]
with open(out, "w") as f:
    for i, d in enumerate(VALID):
        f.write(json.dumps(case(i, "doc", d), ensure_ascii=False) + "\n")
    for i, d in enumerate(INVALID):
        f.write(json.dumps(case(i, "malformed", d), ensure_ascii=False) + "\n")
print(f"{len(VALID)} valid, {len(INVALID)} malformed documents", file=sys.stderr)
