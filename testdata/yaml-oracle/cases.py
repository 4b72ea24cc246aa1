#!/usr/bin/env python3
"""Hand-written edge cases for the kubepkg-yaml corpus: writes read-cases.jsonl, write-cases.jsonl
and json-cases.jsonl (inputs only) into the corpus directory given as argv[1]."""
import json, sys, os

out = sys.argv[1]

read = {}
def r(name, text):
    assert name not in read, name
    read[name] = text

# scalars: YAML 1.1 booleans and nulls as go-yaml v2 resolves them
for w in ["y","Y","yes","Yes","YES","n","N","no","No","NO","true","True","TRUE","false","False","FALSE",
          "on","On","ON","off","Off","OFF","yEs","oN","~","null","Null","NULL","nULL","","''",'""']:
    r(f"word-{w or 'empty'}-{len(read)}", f"k: {w}\n")
# numbers
for n in ["0","-0","+1","017","08","0o17","0x1F","0X1f","-0x1F","0b101","-0b101","0B11","1_000","1__0","_1","1_","1e3","1E3","1e+3","1e-3",
          "1.","1.5",".5","-.5","+.5","5.e2",".e2","1e400","-1e400","1e-400","9223372036854775807","9223372036854775808",
          "18446744073709551615","18446744073709551616","99999999999999999999","-9223372036854775808","-9223372036854775809",
          "12345678901234567890123","0.1","0.30000000000000004","3.14159265358979323846","1.7976931348623157e308",
          ".inf",".Inf",".INF","+.inf","-.inf",".nan",".NaN","inf","nan","Infinity","0x","0xG","1:20","1:20:30.5","190:20:30",
          "-","+","--1","1-2","1.2.3","1e","1e+","0.0","00","007","0009","1,000","$1","1 000","0x_1F","1_000.5","0b"]:
    r(f"num-{n}-{len(read)}", f"k: {n}\n")
# timestamps stay strings
for t in ["2001-12-14","2001-12-14t21:59:43.10-05:00","2001-12-14 21:59:43.10","2001-12-14T21:59:43Z","2002-12-14",
          "2001-02-30","2001-13-01","2001-1-2","20011-12-14","2001-12-14 21:59:43.10 -5","2006-01-02T15:04:05+07:00"]:
    r(f"time-{t}-{len(read)}", f"k: {t}\n")
# keys of other types become strings
r("key-int", "1: a\n2: b\n")
r("key-bool", "true: a\nno: b\non: c\n")
r("key-float", "1.5: a\n0.1: b\n1e10: c\n3.14159265358979: d\n")
r("key-inf", ".inf: a\n")
r("key-nan", ".nan: a\n")
r("key-null", "~: a\n")
r("key-null-empty", ": a\n")
r("key-uint", "18446744073709551615: a\n")
r("key-big", "99999999999999999999: a\n")
r("key-hex", "0x10: a\n")
r("key-ts", "2001-12-14: a\n")
r("key-map", "{a: 1}: b\n")
r("key-seq", "[a]: b\n")
r("key-complex", "? - a\n  - b\n: c\n")
r("key-dup", "a: 1\na: 2\n")
r("key-dup-map", "a: {x: 1}\na: {y: 2}\n")

# merge keys
r("merge-basic", "base: &b {a: 1, b: 2}\nx:\n  <<: *b\n  c: 3\n")
r("merge-override", "base: &b {a: 1, b: 2}\nx:\n  <<: *b\n  a: 9\n")
r("merge-before", "base: &b {a: 1, b: 2}\nx:\n  a: 9\n  <<: *b\n")
r("merge-list", "p: &p {a: 1}\nq: &q {a: 2, b: 2}\nx:\n  <<: [*p, *q]\n")
r("merge-inline", "x:\n  <<: {a: 1}\n  b: 2\n")
r("merge-scalar", "x:\n  <<: 1\n")
r("merge-list-scalar", "x:\n  <<: [1]\n")
r("merge-alias-scalar", "s: &s 1\nx:\n  <<: *s\n")
r("merge-quoted", "x:\n  '<<': {a: 1}\n")
r("merge-tagged", "x:\n  !!merge <<: {a: 1}\n")
r("merge-top", "<<: {a: 1}\nb: 2\n")
r("merge-nested-alias", "a: &a {x: 1}\nb: &b\n  <<: *a\n  y: 2\nc:\n  <<: *b\n  z: 3\n")
# anchors & aliases
r("alias-scalar", "a: &x hello\nb: *x\n")
r("alias-seq", "a: &x [1, 2]\nb: *x\n")
r("alias-unknown", "a: *nope\n")
r("alias-self", "a: &a [*a]\n")
r("alias-redefine", "a: &x 1\nb: *x\nc: &x 2\nd: *x\n")
bomb = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
prev = "a"
for i, n in enumerate("bcdefghi"):
    bomb += f"{n}: &{n} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"
    prev = n
r("alias-bomb", bomb)
small = "a: &a [x, x, x]\nb: &b [*a, *a, *a]\nc: &c [*b, *b, *b]\nd: [*c, *c]\n"
r("alias-small-ok", small)
# tags
r("tag-str", "a: !!str 123\nb: !!str true\n")
r("tag-int", "a: !!int '12'\n")
r("tag-int-bad", "a: !!int abc\n")
r("tag-float-int", "a: !!float 1\n")
r("tag-bool-bad", "a: !!bool yes\nb: !!bool 1\n")
r("tag-null", "a: !!null ''\n")
r("tag-binary", "a: !!binary aGVsbG8=\n")
r("tag-binary-bad", "a: !!binary '!!!'\n")
r("tag-binary-invalid-utf8", "a: !!binary /w==\n")
r("tag-custom", "a: !foo bar\n")
r("tag-timestamp", "a: !!timestamp 2001-12-14\n")
r("tag-timestamp-bad", "a: !!timestamp hello\n")
r("tag-seq-on-map", "a: !!seq {x: 1}\n")
r("tag-nonspecific", "a: ! 12\n")
# structure
r("empty", "")
r("comment-only", "# just a comment\n")
r("doc-start-only", "---\n")
r("null-doc", "null\n")
r("scalar-doc", "hello\n")
r("int-doc", "42\n")
r("list-doc", "- a\n- 1\n")
r("flow", "{a: [1, 2, {b: c}], d: \"e\"}\n")
r("nested", "a:\n  b:\n    c: [1, 2]\n  d:\n  - x\n  - y: z\n")
r("indentless-seq", "a:\n- 1\n- 2\nb: 3\n")
r("multi-doc", "a: 1\n---\nb: 2\n")
r("multi-doc-lead", "---\na: 1\n---\nb: 2\n...\n")
r("multi-doc-merge", "a: {x: 1, y: 2}\n---\na: {y: 3}\nb: 4\n")
r("multi-doc-list", "a: 1\n---\n- 2\n")
r("multi-doc-sep-text", "a: 1\n--- b\nc: 2\n")
r("multi-doc-sep-comment", "a: 1\n--- # c\nc: 2\n")
r("multi-doc-four-dash", "a: 1\n----\nc: 2\n")
r("multi-doc-bad-second", "a: 1\n---\nb: [\n")
r("multi-doc-empty", "---\n---\na: 1\n---\n")
r("doc-end", "a: 1\n...\n")
r("no-final-newline", "a: 1")
r("crlf", "a: 1\r\nb: two\r\n")
r("bom", "\ufeffa: 1\n")
r("directive", "%YAML 1.1\n---\na: 1\n")
r("directive-12", "%YAML 1.2\n---\na: 1\n")
r("tabs-in-value", "a: \"x\ty\"\nb: x\ty\n")
r("tab-after-colon", "a:\tb\n")
r("tab-after-colon-space", "a: \tb\n")
r("tab-after-dash", "-\tb\n")
r("tab-indent-seq", "a:\n\t- b\n")
r("tab-before-comment", "a: b\t# c\n")
r("tab-trailing", "a: b\t\n")
r("tab-line-start", "\ta: b\n")
# strings
r("literal", "a: |\n  line1\n  line2\n")
r("literal-strip", "a: |-\n  line1\n  line2\n")
r("literal-keep", "a: |+\n  line1\n\n\nb: 1\n")
r("folded", "a: >\n  one\n  two\n\n  three\n")
r("folded-more-indented", "a: >\n  one\n    two\n  three\n")
r("literal-indent-ind", "a: |2\n    x\n  y\n")
r("quoted-escapes", "a: \"\\x41\\u00e9\\U0001F600\\n\\t\\\\\\\"\\0\\a\\b\\e\\f\\v\\N\\_\\L\\P\"\n")
r("quoted-bad-escape", "a: \"\\q\"\n")
r("single-quoted", "a: 'it''s'\n")
r("multiline-plain", "a: one\n  two\n  three\n")
r("multiline-quoted", "a: \"one\n  two\"\n")
r("unicode", "a: 日本語\nb: \"\\u2028\"\nc: é\n")
r("long-line", "a: " + "word " * 40 + "\n")
r("colon-no-space", "a:b\n")
r("url", "a: http://x:80/y\n")
r("hash-in-value", "a: b#c\nd: e #f\n")
# shapes found in real-world files
r("block-at-eof-no-newline", "data: |\n  some: data")
r("block-keep-at-eof-no-newline", "data: |+\n  some: data")
r("block-at-eof-trailing-spaces", "labels: |\n  one\n  two\n    ")
r("folded-at-eof-no-newline", "a: >\n  x\n  y")
r("escape-slash", "re: \"^app\\/.+$\"\n")
r("escape-slash-after-multibyte", "a: \"é ü\"\nb: \"x/y\"\nc: \"ö\n  p\\/q\"\n")
r("escape-slash-late", "a: \"1/2\"\nb: [\"3/4\", \"5/6\"]\nc: {d: \"7/8\"}\ne: \"9\\/0\"\n")
# maps past the size at which the decoder indexes their keys, with later duplicates
r("key-dup-many", "k00: 0\nk01: 1\nk02: 2\nk03: 3\nk04: 4\nk05: 5\nk06: 6\nk07: 7\nk08: 8\nk09: 9\nk10: 10\nk11: 11\nk12: 12\nk13: 13\nk14: 14\nk15: 15\nk16: 16\nk17: 17\nk03: x\nk18: 18\nk17: y\nk19: 19\nk00: z\n")
# the block shapes kubepkg-yaml's fast reader takes (src/block.rs), next to ones it leaves
r("block-plain-folded", "a: one\n  two\n\n  three\n    four\n  # c\nb: 1\n")
r("block-literal-blank-lines", "a: |\n  x\n\n  y\n   \n\nb: |-\n  z\n\nc: |\n    x\ttab\n   \t\n")
r("block-literal-tab-first-line", "c: |\n    \ttab\n")
r("block-literal-tab-blank-first-line", "c: |\n \t\n  x\n")
r("block-literal-tab-later-line", "c: |\n  x\n \ty\n")
r("block-literal-tab-after", "c: |\n  x\n\td: 1\n")
r("block-flow-nested", "a: [1, \"two\", {b: c, 'd': [e, []]}, {}]\nf:\n  {}\ng: [ ]\n")
r("block-root-flow", "{a: 1, b: [x, 'y''s']}\n")
r("block-compact-seq-maps", "- a: 1\n  b:\n  - c\n  - d: e\n    f: g\n-\n  h: i\n- 'q': r\n- \"s\\u00e9\\t\": [t]\n")
r("block-document-start", "# c\n---\na: 1\n")
r("block-literal-less-indented", "a:\n  b: |\n    x\n   c: 1\n")
r("block-plain-then-key", "a: b\n  c: d\n")
r("escape-single-quote", "a: \"it\\'s\"\n")
r("template-flow-dash", "metadata:\n  name: {{- .Release.Name }}\n")
r("template-action-key", "{{ .Chart.Name }}: x\n")
r("template-action-value", "metadata:\n  name: {{ template \"x\" . }}\n")
r("template-if-line", "{{- if .Values.enabled }}\napiVersion: v1\n{{- end }}\n")
# errors
r("err-mapping-values", "a: b: c\n")
r("err-unclosed-flow", "a: [1, 2\n")
r("err-unclosed-map", "a: {b: 1\n")
r("err-bad-indent", "a:\n  b: 1\n c: 2\n")
r("err-bad-indent2", "a: 1\n  b: 2\n")
r("err-tab-indent", "a:\n\tb: 1\n")
r("err-unclosed-quote", "a: \"abc\n")
r("err-unclosed-single", "a: 'abc\n")
r("err-at-start", "@foo\n")
r("err-backtick", "a: `b`\n")
r("err-seq-in-map", "a: 1\n- b\n")
r("err-map-in-seq", "- a\nb: 1\n")
r("err-line5", "a: 1\nb: 2\nc: 3\nd: 4\ne: f: g\n")
r("err-flow-comma", "[1,,2]\n")
r("err-anchor-no-node", "a: &x\n")
r("err-block-scalar-bad", "a: |x\n  y\n")
r("err-directive-dup", "%YAML 1.1\n%YAML 1.1\n---\na: 1\n")
r("err-key-too-long", "\"" + "k" * 1100 + "\": v\n")
r("err-question-complex", "? a\n? b\n")
r("err-flow-key", "{a: 1, b}\n")
r("err-stray-close", "a: 1]\n")
# An implicit key in a flow collection must have its `:` on the line where it starts and at
# most 1024 characters on (libyaml drops the key otherwise, and its parser meets the `:`).
r("err-flow-map-key-two-lines", "a: {x\n  y: z}\n")
r("err-flow-map-quoted-key-colon-below", "a: {\"x\"\n: 1}\n")
r("err-flow-map-later-key-two-lines", "a: {x: 1, y\n z: 2}\n")
r("err-flow-map-anchored-key", "a: {&an x\n y: 1}\n")
r("err-flow-map-comment-before-colon", "a: {x # c\n : 1}\n")
r("err-flow-map-quoted-key-two-lines", "a: {\"x\n y\": 1}\n")
r("err-flow-map-root-key-two-lines", "{x\ny: 1}\n")
r("err-flow-map-in-seq", "a: [b, {x\ny: z}]\n")
r("err-flow-map-long-key", "a: {" + "k" * 1025 + ": 1}\n")
r("err-flow-seq-pair-key-two-lines", "a: [x\ny: z]\n")
r("err-flow-seq-pair-blank-lines", "a: [x\n\n\ny: 1]\n")
r("err-flow-seq-quoted-pair-colon-below", "q: 1\na: [ \"x\"\n  : 1]\n")
r("err-flow-seq-in-map-pair-two-lines", "a: {b: [x\ny: z]}\n")
r("err-flow-seq-long-pair-key", "a: [" + "k" * 1025 + ": 1]\n")
r("flow-map-key-1024", "a: {" + "k" * 1024 + ": 1}\n")
r("flow-seq-pair-key-1024", "a: [" + "k" * 1024 + ": 1]\n")
r("flow-map-explicit-key-two-lines", "a: {? x\n  y : z}\n")
r("flow-seq-explicit-pair-two-lines", "a: [? x\n : 1]\n")
r("flow-map-later-explicit-key-two-lines", "a: {x: 1, ? y\n : 2}\n")
r("flow-map-anchored-key-colon-below", "a: {&an\n x: 1}\n")
r("flow-map-key-without-value-two-lines", "a: {x\n  y}\n")
r("flow-map-keys-a-line-each", "a: {\n  x: 1,\n  # note\n  y: 2, z:\n   3\n}\n")
r("flow-map-values-two-lines", "a: {x: [1,\n 2], y: {b:\n c}}\n")
r("deep-flow", "a: " + "[" * 50 + "]" * 50 + "\n")

write = {}
def w(name, val):
    assert name not in write, name
    write[name] = val

strs = ["", " ", "a", "yes", "Yes", "no", "on", "off", "y", "n", "Y", "N", "true", "false", "null", "Null", "~", "1", "1.0",
        "-1", "+1", "0x1F", "017", "08", "1e3", "1_000", ".5", ".inf", ".nan", "2006-01-02", "2001-12-14t21:59:43.10-05:00",
        "2001-02-30", "12:30", "1:20", "190:20:30", "1:60", "<<", "=", "-", "--", "---", "...", "- a", "-a", "a:", "a: b",
        "a:b", "a :b", "#a", "a#b", "a #b", "&a", "*a", "!a", "|a", ">a", "'a", "\"a", "%a", "@a", "`a", "?", "? a", "?a",
        ",a", "[a", "]a", "{a", "}a", "a,b", "a[b]", "a{b}", " lead", "trail ", "two  spaces", "tab\there", "\ttab",
        "a\nb", "a\n", "\na", "\n", "\n\n", "a\n\n", "a\n\nb", " a\nb", "a\n b", "a \nb", "a\r\nb", "a\rb",
        "ü", "日本語", "😀", "\u00a0", "\u0085", "\u2028", "\u2029", "\ufeff", "\x7f", "\x00", "\x01", "\x1b", "\ufffe",
        "<>&", "C:\\path", "http://example.com/a?b=c#d", "key=value", "1e400", "0b101", "0o17", "1:2:3.5", "0.", "00",
        "y\n", "on\n", "\u00e9t\u00e9", "a" * 100, ("word " * 30).strip(), "x" * 79 + " y", "x" * 80 + " y",
        ("a " * 50).strip(), "a  " + "b " * 45, "line one\nline two is " + "long " * 20,
        "trailing spaces  \nnext", " \n", "\t\n", "a\tb\nc", "# comment\nline", "- item\n- item",
        "first\n\n\nlast\n\n", "\u2028line", "null\nx", "a" + "\u0085" + "b"]
for i, s in enumerate(strs):
    w(f"str-{i}", {"k": s})
w("str-list", strs)
w("str-root", "plain")
w("str-root-yes", "yes")
w("str-root-multiline", "a\nb\n")
nums = [0, 1, -1, 1000000, 123456789, 9223372036854775807, -9223372036854775808]
for i, n in enumerate(nums):
    w(f"int-{i}", {"k": n})
floats = ["0.0", "-0.0", "1.0", "1.5", "0.1", "1e6", "1e-6", "1e-7", "1e20", "1e21", "1.5e300", "123456.0", "1234567.0",
          "0.0001", "0.00001", "3.141592653589793", "2.5e-5", "100000.0", "9007199254740993.0", "1e19", "1.8446744073709552e19",
          "-1e21", "5e-324", "1.7976931348623157e308"]
for i, f in enumerate(floats):
    w(f"float-{i}", {"k": {"$f": f}})
for s in ["NaN", "+Inf", "-Inf"]:
    w(f"float-special-{s}", {"k": {"$f": s}})
w("uint-max", {"k": {"$u": "18446744073709551615"}})
w("bytes", {"k": {"$b": "aGVsbG8gd29ybGQ="}})
w("bytes-empty", {"k": {"$b": ""}})
w("empty-map", {})
w("empty-list", [])
w("nested-empty", {"a": {}, "b": [], "c": [{}], "d": [[]], "e": None})
w("null-root", None)
w("bool-root", True)
w("int-root", 5)
w("list-of-maps", [{"a": 1, "b": 2}, {"c": [1, 2]}, [3, [4]]])
w("map-of-lists", {"a": [1, 2, 3], "b": {"c": ["x", "y"]}, "d": [[1, 2], [3]]})
w("key-order", {"b": 1, "a": 2, "a10": 3, "a2": 4, "A": 5, "_": 6, "1": 7, "10": 8, "2": 9, "a01": 11, "é": 12, "": 13, "z": 14, "Z9": 15, "a-1": 16, "a.2": 17})
w("key-order-numeric", {str(i): i for i in [1, 2, 10, 20, 100, 3, 33, 9, 0, -1, 11]})
w("key-quoting", {"yes": 1, "on": 2, "1": 3, "1.5": 4, "null": 5, "a: b": 6, "- x": 7, "": 8, "a\nb": 9, "~": 10, "2006-01-02": 11, "x" * 130: 12})
w("key-long", {"k" * 200: "v"})
w("deep", {"a": {"b": {"c": {"d": {"e": [1, {"f": "g"}]}}}}})
w("seq-in-seq", [[1, 2], [], [[3]]])
w("multiline-in-list", ["a\nb", "c\n", {"k": "x\ny\n"}])
w("long-in-list", ["word " * 30, {"k": "word " * 30}])
w("long-key-value", {"key": "x" * 100})
w("block-in-nested", {"a": {"b": {"c": "line1\nline2\n"}}})
w("leading-space-multiline", {"k": "  indented\nnext"})
w("trailing-newlines", {"k": "a\n\n\n"})
w("only-newlines", {"k": "\n\n"})
w("html", {"k": "<script>alert('x')</script> & more"})
w("toml-nested", {"a": 1, "t": {"x": "y", "sub": {"z": [1, 2]}, "arr": [{"n": 1}, {"n": 2, "deep": {"q": True}}]}, "b": [1, {"m": 1}], "c": None, "e": {}, "f": []})
w("toml-nil-in-list", {"a": [1, None]})
w("toml-nil-nested-list", {"a": [[None]]})
w("toml-keys", {"bare_key-1": 1, "needs quote": 2, "": 3, "dot.key": 4, "ü": 5, "t": {"q k": {"x": 1}}})
w("toml-inline-nil", {"a": [{"x": None, "y": 1}, 2]})
w("toml-floats", {"a": {"$f": "100"}, "b": {"$f": "1e6"}, "c": {"$f": "0.000001"}, "d": {"$f": "-0"}, "e": {"$f": "NaN"}, "f": {"$f": "-Inf"}})
w("toml-strings", {"a": "q\"b\\s\x01\x7f\u00e9\n\t"})
w("toml-top-list", [1, 2])
w("toml-top-tables", [{"a": 1}])
w("float-tie-even", {"a": {"$f": "1.2993909193068512e+15"}, "b": {"$f": "-2.1666448331416462e+14"}})
w("nan-before-control-char", {"a": "\x7f", "b": {"$f": "NaN"}})

jsn = {}
def j(name, text):
    jsn[name] = text
for i, t in enumerate(['{"a":1}', '[1,2]', '1', '1.5', '"s"', 'true', 'null', '', ' ', '{', '[', '{"a"', '{"a":', '{"a":1',
                       '{"a":1,}', '[1,]', 'x', 'tru', 'nul', 'truex', '{"a":1}x', '{"a":1} ', '01', '-', '-a', '1.', '1.e3',
                       '1e', '1e+', '"\\x"', '"\\u12"', '"\\u12G4"', '"a\nb"', '"\\ud83d\\ude00"', '"\\ud83d"', '"\\ude00"',
                       '{"a":1,"a":2}', '{1:2}', "{'a':1}", '[1 2]', '{"a" 1}', '{"a":1 "b":2}', '1e400', '-1e400', '1e-400',
                       '123456789012345678901234567890', '{"a":[1,{"b":null}]}', '"\\u003c"', '\ufeff{}', '"é"', '[]', '{}',
                       '{"a":{}}', '{"a":[]}', '  {"a" : 1 }  ', '\t[\n1\r\n]', '"\\/"', '-0', '0.1e1', '1E2', '[-]', '{"":1}',
                       'a = 1', 'a = "x"\n[t]\nb = 2', '[[arr]]\nx = 1\n[[arr]]\nx = 2', 'a = 1979-05-27T07:32:00Z', 'a = [1, 2]',
                       'a = 1.5\nb = true\nc = "s"', 'a = ', 'x.y.z = 1', 'a = 9223372036854775807', 'a = inf', 'a = {b = 1}']):
    j(f"json-{i}", t)

toml_cases = ['a = 0xff\nb = 0o17\nc = 0b101\nd = 1_000', 'a = 1e3\nb = -0.0\nc = +inf\nd = nan', 'a = "x\\ty\\u00e9"',
    "a = 'lit\\eral'", 'a = """\nmulti\nline"""', "a = '''\nraw\n'''", 'a = 1979-05-27T00:32:00.999999-07:00',
    'a = 1979-05-27T07:32:00', 'a = 1979-05-27', 'a = 07:32:00', 'a = [[1, 2], ["a"]]', 'a = [{x = 1}, {y = 2}]',
    '[a.b.c]\nd = 1\n[a]\ne = 2', '[[p]]\nname = "a"\n[[p.q]]\nz = 1', 'a = 1\na = 2', '[a]\n[a]', 'a = "unterminated',
    '"quoted key" = 1\n"" = 2', 'a.b = 1\na.c = 2', 'a = true\nb = false', 'a = 9223372036854775808', 'a = 1.7976931348623157e308',
    '# comment only', '', 'a = [1, "mixed"]', 'a = { b = { c = 1 } }', 'x = 1 # trailing', 'a = 01', 'a = 1__0', 'a = .5',
    'a = 2021-13-01', 'a = "\\x41"', 'a = [\n  1,\n  2,\n]']
for i, t in enumerate(toml_cases):
    j(f"toml-{i}", t)

j("json-deep-1000", "[" * 1000 + "]" * 1000)
j("json-deep-1001", "[" * 1001 + "]" * 1001)
j("json-deep-10001", "[" * 10001 + "]" * 10001)
j("json-deep-obj", '{"a":' * 10001 + "1" + "}" * 10001)
j("json-deep-bad", "[" * 20 + "x")
r("deep-flow-255", "a: " + "[" * 255 + "]" * 255 + "\n")
r("deep-block-300", "".join(" " * i + "k:\n" for i in range(300)))
r("deep-block-seq-999", "- " * 999 + "1\n")
r("deep-block-seq-1001", "- " * 1001 + "1\n")
r("deep-block-seq-10050", "- " * 10050 + "1\n")

def dump(name, rows):
    with open(os.path.join(out, name), "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")

dump("read-cases.jsonl", [{"name": k, "yaml": v} for k, v in read.items()])
dump("write-cases.jsonl", [{"name": k, "value": v} for k, v in write.items()])
dump("json-cases.jsonl", [{"name": k, "json": v} for k, v in jsn.items()])
print(f"{len(read)} read, {len(write)} write, {len(jsn)} json cases")
