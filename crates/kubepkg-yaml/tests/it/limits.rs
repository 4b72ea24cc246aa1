//! Hostile input never panics or exhausts the stack: deep nesting hits kubepkg's limit (1000
//! levels, go-yaml's is 10 000) with a clear error, and alias bombs stop with go-yaml's
//! "excessive aliasing" error after a bounded amount of work.

use kubepkg_yaml::{YamlError, from_yaml_str, json, to_yaml};

use crate::alias_bomb::alias_bomb;

/// Run on a thread with the default 2 MiB test stack, like any caller.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("thread")
        .join()
        .expect("no panic")
}

#[test]
fn flow_nesting_beyond_parser_limit_is_an_error() {
    // saphyr-parser stops at 255 nested flow collections (go-yaml at 10 000): a clear error.
    let src = format!("a: {}{}\n", "[".repeat(20_000), "]".repeat(20_000));
    let err = on_small_stack(move || from_yaml_str(&src)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "error converting YAML to JSON: yaml: flow collections nested deeper than 255 levels are not supported"
    );
}

#[test]
fn block_nesting_beyond_go_limit_is_an_error() {
    let src = format!("{}1\n", "- ".repeat(1_050));
    let r = on_small_stack(move || from_yaml_str(&src));
    assert!(matches!(r, Err(YamlError::Syntax { .. })), "{r:?}");
    assert!(
        r.unwrap_err()
            .to_string()
            .contains("exceeded max depth of 1000")
    );
}

#[test]
fn nesting_within_limit_round_trips_without_overflow() {
    // Reading, writing and JSON conversion grow their stack on demand; the nesting limit (1000)
    // exists because dropping a `Value` is recursive (kubepkg-value's drop glue).
    let depth = 999;
    let src: String = (0..depth)
        .map(|i| format!("{}- \n", " ".repeat(i * 2)))
        .collect::<String>()
        + &" ".repeat(depth * 2)
        + "1\n";
    let out = on_small_stack(move || {
        let v = from_yaml_str(&src).expect("parses");
        let y = to_yaml(&v).expect("writes");
        let j = json::to_json(&v).expect("json");
        let back = json::from_json(&j).expect("json parses");
        (y.len(), back == v)
    });
    assert!(out.0 > depth);
    assert!(out.1);
}

#[test]
fn json_nesting_is_bounded() {
    let src = format!("{}{}", "[".repeat(50_000), "]".repeat(50_000));
    let r = on_small_stack(move || json::from_json(&src));
    assert!(r.is_err());
}

#[test]
fn alias_bomb_is_stopped() {
    let src = alias_bomb();
    // That it stops after a bounded number of decode steps (not how long it takes) is
    // asserted where the steps are counted: `decode.rs`'s
    // `an_alias_bomb_stops_after_a_bounded_number_of_steps`.
    let err = on_small_stack(move || from_yaml_str(&src)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "error converting YAML to JSON: yaml: document contains excessive aliasing"
    );
}

/// Found by the fuzzer (`kubepkg-chart` `fuzz_yaml_json_and_toml_readers`): a carriage return
/// inside a flow collection made the indentation repair re-read the document 10 000 times
/// (60 s for 40 bytes). Both read to go-yaml's answer; that each is re-read at most once is
/// asserted where reads are counted (`decode.rs`'s
/// `a_carriage_return_in_a_flow_collection_is_repaired_once_at_most`).
#[test]
fn a_carriage_return_in_a_flow_collection_is_read() {
    for (src, want) in [
        (
            "me{tadata:\n  name: {{\r .Release.Name }}p\n",
            "error: error converting YAML to JSON: yaml: line 2: did not find expected key",
        ),
        ("a{b:\n n: {\r}\n", r#"ok: {"a{b":{"false":{}}}"#),
    ] {
        let got = match kubepkg_yaml::from_yaml_str(src) {
            Ok(v) => format!("ok: {}", kubepkg_yaml::json::to_json(&v).unwrap()),
            Err(e) => format!("error: {e}"),
        };
        assert_eq!(got, want, "{src:?}");
    }
}
