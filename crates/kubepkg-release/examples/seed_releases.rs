//! Bench fixture (not a test): writes N releases × M revisions of the Helm 4.3.1 golden
//! record as Helm-format Secrets into a namespace of the cluster in `$KUBECONFIG`.
//!
//! Run: `cargo run --release -p kubepkg-release --example seed_releases -- NAMESPACE 200 10`

use kubepkg_release::Release;
use kubepkg_release::record::Status;
use kubepkg_release::storage::{Driver, SecretDriver, StoredObject};

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let ns = args.get(1).cloned().unwrap_or_else(|| "bench-list".into());
    let names: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(200);
    let revisions: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(10);
    let golden: Release =
        serde_json::from_str(include_str!("../tests/golden/helm-v4.3.1-install.json"))
            .expect("golden");
    let client = kube::Client::try_default()
        .await
        .expect("client from KUBECONFIG");
    let driver = SecretDriver::new(client, Some(&ns));
    let mut tasks = Vec::new();
    for n in 0..names {
        let driver = driver.clone();
        let golden = golden.clone();
        let ns = ns.clone();
        tasks.push(tokio::spawn(async move {
            for v in 1..=revisions {
                let mut r = golden.clone();
                r.name = format!("release-{n:03}");
                r.namespace = ns.clone();
                r.version = v;
                let status = if v == revisions {
                    Status::Deployed
                } else {
                    Status::Superseded
                };
                r.set_status(status, "seeded");
                let o = StoredObject::from_release(&r, ("createdAt", 0)).expect("encode");
                driver.create(o).await.expect("create");
            }
        }));
    }
    for t in tasks {
        t.await.expect("task");
    }
    println!("seeded {names} releases x {revisions} revisions in {ns}");
}
