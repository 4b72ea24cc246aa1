//! Benchmark (not a test): listing 200 releases × 10 revisions held in the memory driver,
//! decoding only each release's latest record (kubepkg) versus decoding every record
//! (what Helm's `list` does). Records are the Helm 4.3.1 golden release, re-encoded.
//!
//! Run: `cargo run --release -p kubepkg-release --example list_bench`

use std::time::Instant;

use kubepkg_release::Release;
use kubepkg_release::record::Status;
use kubepkg_release::storage::{Driver, MemoryDriver, Store, StoredObject};

fn main() {
    let golden: Release =
        serde_json::from_str(include_str!("../tests/golden/helm-v4.3.1-install.json"))
            .expect("golden");
    let driver = MemoryDriver::new("bench");
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let mut bytes = 0usize;
    rt.block_on(async {
        for n in 0..200 {
            for v in 1..=10u64 {
                let mut r = golden.clone();
                r.name = format!("release-{n:03}");
                r.namespace = "bench".into();
                r.version = v;
                r.set_status(
                    if v == 10 {
                        Status::Deployed
                    } else {
                        Status::Superseded
                    },
                    "x",
                );
                let o = StoredObject::from_release(&r, ("createdAt", 0)).expect("encode");
                bytes += o.payload.len();
                driver.create(o).await.expect("create");
            }
        }
    });
    let store = Store::new(driver.clone());
    let rounds = 5;
    let t = Instant::now();
    for _ in 0..rounds {
        let l = rt.block_on(store.list_latest()).expect("list");
        assert_eq!(l.len(), 200);
    }
    let latest = t.elapsed() / rounds;
    let t = Instant::now();
    for _ in 0..rounds {
        let all: Vec<Release> = driver
            .objects()
            .iter()
            .map(|o| o.decode().expect("decode"))
            .collect();
        assert_eq!(all.len(), 2000);
    }
    let every = t.elapsed() / rounds;
    println!("2000 records, {} KiB encoded", bytes / 1024);
    println!("decode latest only (kubepkg list): {latest:?}");
    println!("decode every record (Helm's list):  {every:?}");
    println!("ratio: {:.1}x", every.as_secs_f64() / latest.as_secs_f64());
}
