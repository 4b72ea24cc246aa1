//! `render_api N CHART...`: the in-process render API ([`LoadedChart`]) as a controller uses
//! it. Per chart: loaded once, one warm-up render, then N renders (release `rel` in
//! `default`, default values, Helm's offline capabilities); prints
//! "chart<TAB>median ns<TAB>renders per second". The Rust side of `bench/render-api.sh` (its
//! peer: Helm's SDK, `bench/peer`).

use kubepkg_chart::objects::Capabilities;
use kubepkg_package::render::{LoadedChart, ReleaseTarget};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(n) = args
        .get(1)
        .and_then(|a| a.parse::<usize>().ok())
        .filter(|n| *n > 0)
    else {
        eprintln!("usage: render_api N CHART...");
        std::process::exit(2);
    };
    let caps = Capabilities::new(None, &[]);
    let values = serde_json::Map::new();
    let target = ReleaseTarget {
        release: "rel",
        namespace: "default",
        last_revision: None,
        post_renderers: &Default::default(),
    };
    for path in &args[2..] {
        let chart = match LoadedChart::load(std::path::Path::new(path)) {
            Ok(c) => c,
            Err(e) => fail(path, &e),
        };
        let render = || {
            if let Err(e) = chart.render(target, &values, None, &caps) {
                fail(path, &e);
            }
        };
        render();
        let mut samples = Vec::with_capacity(n);
        let all = std::time::Instant::now();
        for _ in 0..n {
            let start = std::time::Instant::now();
            render();
            samples.push(start.elapsed().as_nanos());
        }
        let total = all.elapsed().as_secs_f64();
        samples.sort_unstable();
        println!("{path}\t{}\t{:.1}", samples[n / 2], n as f64 / total);
    }
}

fn fail(path: &str, e: &dyn std::error::Error) -> ! {
    let mut msg = e.to_string();
    let mut src = e.source();
    while let Some(s) = src {
        msg.push_str(&format!(": {s}"));
        src = s.source();
    }
    eprintln!("render_api: {path}: {msg}");
    std::process::exit(1);
}
