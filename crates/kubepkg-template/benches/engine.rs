//! Engine benchmark against Go: renders every successful case of `tests/go-cases.jsonl`
//! (parse + execute, as Helm does for each file) N times and prints per-case median
//! nanoseconds, one `index<TAB>ns` line per case. `tests/go-oracle/bench.sh` runs this and the
//! Go oracle's identical loop and reports the median ratio.

#[path = "../tests/it/common/mod.rs"]
mod common;

use std::time::Instant;

use common::funcs;
use kubepkg_yaml::json::from_json;
use std::sync::Arc;

use kubepkg_template::{FuncTable, MissingKey, Templates, Value};

fn main() {
    let n: usize = std::env::var("BENCH_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    let corpus = include_str!("../tests/go-cases.jsonl");
    // Built once and shared, as a chart renderer does (Go rebuilds its FuncMap per template set).
    let fns = Arc::new(FuncTable::new(funcs()));
    let only: Option<usize> = std::env::var("BENCH_CASE")
        .ok()
        .and_then(|s| s.parse().ok());
    for (idx, line) in corpus.lines().enumerate() {
        if only.is_some_and(|o| o != idx) {
            continue;
        }
        let c: serde_json::Value = serde_json::from_str(line).expect("corpus line");
        if c["output"].is_null() || c["missingkey"].is_string() {
            continue;
        }
        let text = c["template"].as_str().unwrap_or("");
        if text.contains("template \"r\"") {
            continue; // the depth-limit case measures recursion, not rendering
        }
        let data_s = c["data"].as_str().unwrap_or("");
        let data = if data_s.is_empty() {
            Value::Nil
        } else {
            from_json(data_s).expect("data")
        };
        let mut samples = Vec::with_capacity(n);
        for _ in 0..n {
            let start = Instant::now();
            let mut t = Templates::with_funcs(fns.clone());
            t.set_missing_key(MissingKey::Zero);
            t.parse("t", text).expect("parses");
            let out = t.execute("t", &data).expect("executes");
            std::hint::black_box(out);
            samples.push(start.elapsed().as_nanos());
        }
        samples.sort_unstable();
        println!("{idx}\t{}", samples[n / 2]);
        if only.is_some() {
            // Breakdown for a single case: medians of parse alone and execute alone.
            let mut ps: Vec<u128> = (0..n)
                .map(|_| {
                    let start = Instant::now();
                    let mut t = Templates::with_funcs(fns.clone());
                    t.parse("t", text).expect("parses");
                    std::hint::black_box(&t);
                    start.elapsed().as_nanos()
                })
                .collect();
            ps.sort_unstable();
            let parse = ps[n / 2];
            let mut ls: Vec<u128> = (0..n)
                .map(|_| {
                    let start = Instant::now();
                    std::hint::black_box(kubepkg_template::lex::lex(text));
                    start.elapsed().as_nanos()
                })
                .collect();
            ls.sort_unstable();
            eprintln!("lex {} ns", ls[n / 2]);
            let mut t = Templates::with_funcs(fns.clone());
            t.parse("t", text).expect("parses");
            let mut es: Vec<u128> = (0..n)
                .map(|_| {
                    let start = Instant::now();
                    std::hint::black_box(t.execute("t", &data).expect("executes"));
                    start.elapsed().as_nanos()
                })
                .collect();
            es.sort_unstable();
            let exec = es[n / 2];
            eprintln!("parse {parse} ns, execute {exec} ns");
        }
    }
}
