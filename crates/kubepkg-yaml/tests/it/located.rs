//! The located reading (`kubepkg_yaml::located`) and the strict serde reading over it
//! (`kubepkg_yaml::de`): positions as libyaml reports them (expected lists printed by go-yaml
//! v3's `yaml.Node` Line/Column for the same texts), values exactly as Helm's reading (the Go
//! corpus), and the strict reader's refusals placed.

use std::collections::BTreeMap;

use kubepkg_yaml::de::{Error, Spanned, from_str};
use kubepkg_yaml::located::{Located, LocatedNode, Mark, read};

use crate::alias_bomb::alias_bomb;

/// Every node as `path=line:column`, keys as `path/key:key=line:column` (the oracle's format).
fn places(src: &str) -> Vec<String> {
    fn walk(n: &Located, path: &str, out: &mut Vec<String>) {
        out.push(format!("{path}={}:{}", n.mark.line, n.mark.column));
        match &n.node {
            LocatedNode::Scalar(_) => {}
            LocatedNode::Seq(items) => {
                for (i, item) in items.iter().enumerate() {
                    walk(item, &format!("{path}/{i}"), out);
                }
            }
            LocatedNode::Map(entries) => {
                for e in entries {
                    let Mark { line, column } = e.key_mark;
                    out.push(format!("{path}/{}:key={line}:{column}", e.key));
                    walk(&e.value, &format!("{path}/{}", e.key), out);
                }
            }
        }
    }
    let doc = read(src).expect("reads");
    let mut out = Vec::new();
    walk(doc.root.as_ref().expect("a document"), "", &mut out);
    out
}

/// Expected lists: go-yaml v3 (`yaml.Unmarshal` into a `yaml.Node`, walked in order) on the
/// same text. Block and flow collections, indentless sequences, quoted keys and values.
#[test]
fn nodes_are_placed_as_libyaml_places_them_in_block_and_flow_style() {
    let src = "a: 1\nb:\n  c: [x, {d: y}]\n  e:\n  - f\n  - g: h\n\"q\": 'r'\n";
    let want = [
        "=1:1",
        "/a:key=1:1",
        "/a=1:4",
        "/b:key=2:1",
        "/b=3:3",
        "/b/c:key=3:3",
        "/b/c=3:6",
        "/b/c/0=3:7",
        "/b/c/1=3:10",
        "/b/c/1/d:key=3:11",
        "/b/c/1/d=3:14",
        "/b/e:key=4:3",
        "/b/e=5:3",
        "/b/e/0=5:5",
        "/b/e/1=6:5",
        "/b/e/1/g:key=6:5",
        "/b/e/1/g=6:8",
        "/q:key=7:1",
        "/q=7:6",
    ];
    assert_eq!(places(src), want);
}

/// A node with an anchor or a tag starts at it; an alias is placed where it is written, what it
/// stands for where the anchor's node is (go-yaml v3 lists `/base/k` at 2:3 and 2:6).
#[test]
fn anchors_tags_and_aliases_are_placed() {
    let src = "base: &b\n  k: v\nuse: *b\nlist: &l [1, 2]\nt: !!str 3\n";
    let want = [
        "=1:1",
        "/base:key=1:1",
        "/base=1:7",
        "/base/k:key=2:3",
        "/base/k=2:6",
        "/use:key=3:1",
        "/use=3:6",
        "/use/k:key=2:3",
        "/use/k=2:6",
        "/list:key=4:1",
        "/list=4:7",
        "/list/0=4:11",
        "/list/1=4:14",
        "/t:key=5:1",
        "/t=5:4",
    ];
    assert_eq!(places(src), want);
}

/// Block scalars (with a header comment and a blank line), nested block sequences and a
/// manifest-shaped document (go-yaml v3's places).
#[test]
fn block_scalars_and_nested_block_sequences_are_placed() {
    let src = "package: {name: a, version: 1.0.0}\ncomponents:\n- name: web\n  path: web\n  values:\n    x: |\n      text\n    z: >- # a | comment\n\n      folded\n    list:\n      - - a\n        - b\n";
    let want = [
        "=1:1",
        "/package:key=1:1",
        "/package=1:10",
        "/package/name:key=1:11",
        "/package/name=1:17",
        "/package/version:key=1:20",
        "/package/version=1:29",
        "/components:key=2:1",
        "/components=3:1",
        "/components/0=3:3",
        "/components/0/name:key=3:3",
        "/components/0/name=3:9",
        "/components/0/path:key=4:3",
        "/components/0/path=4:9",
        "/components/0/values:key=5:3",
        "/components/0/values=6:5",
        "/components/0/values/x:key=6:5",
        "/components/0/values/x=6:8",
        "/components/0/values/z:key=8:5",
        "/components/0/values/z=8:8",
        "/components/0/values/list:key=11:5",
        "/components/0/values/list=12:7",
        "/components/0/values/list/0=12:9",
        "/components/0/values/list/0/0=12:11",
        "/components/0/values/list/0/1=13:11",
    ];
    assert_eq!(places(src), want);
}

/// The located reading gives Helm's value for every readable case of the Go corpus, and
/// Helm's error for every refused one.
#[test]
fn the_located_reading_is_helms_reading() {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../testdata/yaml-corpus/read-cases.jsonl"),
    )
    .expect("corpus");
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: serde_json::Value = serde_json::from_str(line).expect("row");
        let src = case["yaml"].as_str().expect("yaml");
        let name = &case["name"];
        let helm = kubepkg_yaml::from_yaml_str(src);
        match (read(src), helm) {
            (Ok(doc), Ok(helm)) => {
                let got = doc.root.map(|r| r.to_value()).unwrap_or_default();
                assert_eq!(got, helm, "{name}: {src:?}");
            }
            (Err(e), Err(helm)) => assert_eq!(e.error, helm, "{name}: {src:?}"),
            (got, helm) => panic!("{name}: {src:?}: located {got:?}, Helm {helm:?}"),
        }
        checked += 1;
    }
    assert!(checked > 200, "{checked}");
}

/// A syntax error is placed where the parser stopped, with go-yaml's wording.
#[test]
fn a_syntax_error_is_placed() {
    // sigs.k8s.io/yaml: `yaml: line 3: mapping values are not allowed in this context`.
    let e = read("a: 1\nb: 2\nc: d: e\n").unwrap_err();
    assert_eq!(
        e.error.problem(),
        "mapping values are not allowed in this context",
        "{e:?}"
    );
    assert_eq!(e.mark, Some(Mark { line: 3, column: 5 }), "{e:?}");
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Manifest {
    name: Spanned<String>,
    port: Option<Spanned<u16>>,
    #[serde(default)]
    tags: Vec<Spanned<String>>,
    extra: Option<serde_json::Value>,
}

fn refusal(src: &str) -> Error {
    from_str::<Manifest>(src).expect_err("refused")
}

#[track_caller]
fn assert_refused(src: &str, message: &str, line: usize, column: usize) {
    let e = refusal(src);
    assert_eq!(
        (e.message(), e.mark()),
        (message, Some(Mark { line, column })),
        "{src:?}"
    );
}

#[test]
fn spanned_values_carry_their_place() {
    let m: Manifest = from_str("name: web\nport: 80\ntags:\n- a\n- b\n").unwrap();
    assert_eq!(m.name.value, "web");
    assert_eq!(m.name.mark, Mark { line: 1, column: 7 });
    let port = m.port.expect("port");
    assert_eq!((port.value, port.mark), (80, Mark { line: 2, column: 7 }));
}

#[test]
fn a_duplicate_key_is_refused_with_both_lines() {
    assert_refused(
        "name: a\nport: 1\nname: b\n",
        "duplicate key `name` (first on line 1); write each key once",
        3,
        1,
    );
    // Inside a value read as JSON too, and in flow style.
    assert_refused(
        "name: a\nextra: {x: 1, y: 2, x: 3}\n",
        "duplicate key `x` (first on line 2); write each key once",
        2,
        21,
    );
    // Keys equal after Helm's key conversion: `n` is the key "false".
    assert_refused(
        "name: a\nextra:\n  n: 1\n  \"false\": 2\n",
        "duplicate key `false` (first on line 3); write each key once",
        4,
        3,
    );
}

/// What a `<<` merge brings in is not a duplicate, and an explicit key overrides it as in
/// go-yaml.
#[test]
fn merged_keys_are_not_duplicates() {
    let m: Manifest =
        from_str("name: a\nextra:\n  base: &b {x: 1, z: 2}\n  more:\n    <<: *b\n    x: 3\n")
            .unwrap();
    assert_eq!(
        m.extra.expect("extra")["more"],
        serde_json::json!({"x": 3, "z": 2})
    );
}

#[test]
fn unknown_fields_wrong_types_and_missing_fields_are_placed() {
    assert_refused(
        "name: a\nprot: 80\n",
        "unknown field `prot`, expected one of `name`, `port`, `tags`, `extra`",
        2,
        1,
    );
    assert_refused(
        "name: a\nport: eighty\n",
        "invalid type: string \"eighty\", expected u16",
        2,
        7,
    );
    // go-yaml's scalars: `yes` is a boolean, `1.5` a number; neither is a string.
    assert_refused(
        "name: yes\n",
        "invalid type: boolean `true`, expected a string (YAML reads it unquoted as a boolean: quote it to keep it text)",
        1,
        7,
    );
    assert_refused(
        "name: a\ntags: [x, 1.5]\n",
        "invalid type: floating point `1.5`, expected a string (YAML reads it unquoted as a number: quote it to keep it text)",
        2,
        11,
    );
    assert_refused("port: 80\n", "missing field `name`", 1, 1);
    // An empty document is a null: a struct with no fields set.
    assert_refused("", "missing field `name`", 1, 1);
}

#[test]
fn a_second_document_is_refused() {
    assert_refused(
        "name: a\n---\nname: b\n",
        "a second YAML document starts here; the file holds one document",
        2,
        1,
    );
    // A leading `---` starts the one document; an empty document after it is nothing.
    from_str::<Manifest>("---\nname: a\n").expect("one document");
    from_str::<Manifest>("name: a\n---\n---\n").expect("empty documents after it");
    // A second document that does not parse is a second document too.
    assert_refused(
        "name: a\n---\n---\nb: [\n",
        "a second YAML document starts here; the file holds one document",
        3,
        1,
    );
}

/// Hostile input: the alias bomb stops after a bounded amount of work with go-yaml's error;
/// nesting past kubepkg's limit, also through aliases, is refused, both placed.
#[test]
fn hostile_input_is_refused_and_placed() {
    let e = read(&alias_bomb()).unwrap_err();
    assert_eq!(e.error.problem(), "document contains excessive aliasing");
    assert!(e.mark.is_some(), "{e:?}");
    let src = format!("name: a\nextra: {}\n", "[".repeat(200) + &"]".repeat(200));
    from_str::<Manifest>(&src).expect("200 levels are fine");
    // Each anchor nests 200 levels and holds the one before: 1 200 levels through aliases.
    let deep = |name: &str, inner: &str| {
        format!(
            "{name}: &{name} {}{inner}{}\n",
            "[".repeat(200),
            "]".repeat(200)
        )
    };
    let mut src = deep("a", "1");
    src += &deep("b", "*a");
    src += &deep("c", "*b");
    src += &deep("d", "*c");
    src += &deep("e", "*d");
    src += &deep("f", "*e");
    let e = read(&src).unwrap_err();
    assert!(
        e.error.problem().starts_with("exceeded max depth of 1000"),
        "{e:?}"
    );
    assert!(e.mark.is_some(), "{e:?}");
}

/// Keys are placed where written; values of merged keys where the anchor's are.
#[test]
fn entries_of_a_merge_are_marked_merged() {
    let doc = read("a: &a {x: 1}\nb:\n  <<: *a\n  z: 2\n").unwrap();
    let LocatedNode::Map(top) = &doc.root.unwrap().node else {
        panic!("a mapping")
    };
    let LocatedNode::Map(b) = &top[1].value.node else {
        panic!("a mapping")
    };
    let got: BTreeMap<&str, (bool, usize)> = b
        .iter()
        .map(|e| (e.key.as_str(), (e.merged, e.key_mark.line)))
        .collect();
    assert_eq!(got, BTreeMap::from([("x", (true, 1)), ("z", (false, 4))]));
}
