//! Times kubepkg's engine on the template corpus, case by case, the way `oracle bench` times
//! Helm's: reading the values, building the render data, parsing and executing (what
//! `helm template` does per chart). Prints `name<TAB>median ns` for every exact-check case whose
//! output matches Helm's (a case we get wrong is not a fair comparison and is counted apart).
//! Run by `bench/template-bench.sh`; `cargo bench -p kubepkg-funcs --bench corpus -- N` runs N
//! iterations per case (default 50).

#[path = "../tests/it/support/mod.rs"]
mod support;

use std::io::Write as _;
use std::time::Instant;

fn main() {
    let iterations: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(50)
        .max(1);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let (mut timed, mut skipped) = (0, 0);
    for file in support::corpus_files() {
        let cases = support::load_cases(&file).unwrap_or_else(|e| panic!("{e}"));
        for case in cases {
            if case.check != "exact" || !matches!(case.expected, support::Outcome::Output(_)) {
                continue;
            }
            let ok = std::panic::catch_unwind(|| support::render(&case) == case.expected)
                .unwrap_or(false);
            if !ok {
                skipped += 1;
                continue;
            }
            let mut samples: Vec<u128> = (0..iterations)
                .map(|_| {
                    let start = Instant::now();
                    std::hint::black_box(support::render(std::hint::black_box(&case)));
                    start.elapsed().as_nanos()
                })
                .collect();
            samples.sort_unstable();
            let _ = writeln!(out, "{}\t{}", case.name, samples[iterations / 2]);
            timed += 1;
        }
    }
    eprintln!("corpus bench: {timed} cases timed, {skipped} skipped (output differs from Helm's)");
    // Where a simple case's time goes: building the function table, reading the values.
    let std_values = support::load_cases(&support::corpus_dir().join("builtins.jsonl"))
        .ok()
        .and_then(|c| c.first().map(|c| c.values.clone()))
        .unwrap_or_default();
    let median = |f: &dyn Fn()| {
        let mut s: Vec<u128> = (0..iterations)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_nanos()
            })
            .collect();
        s.sort_unstable();
        s[iterations / 2]
    };
    eprintln!(
        "per render: engine with Helm's functions {} ns, reading the standard values file {} ns",
        median(&|| drop(std::hint::black_box(support::engine()))),
        median(&|| drop(std::hint::black_box(kubepkg_yaml::read_values(&std_values))))
    );
}
