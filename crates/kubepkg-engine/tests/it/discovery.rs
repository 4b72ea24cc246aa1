//! `.Capabilities.APIVersions` from aggregated discovery (two requests) is the set the legacy
//! lists give (one request per group version), on the local plane with CRDs of its own: the
//! fast path cannot drift from the one held to real Helm (`release_cli::capabilities_and_dry_run_output_match_helm`).

use kubepkg_kube::discovery::{aggregated_api_versions, legacy_api_versions};
use kubepkg_testkit::TestNamespace;

#[tokio::test]
async fn aggregated_discovery_gives_what_the_legacy_lists_give() {
    let ns = TestNamespace::fresh("discovery").await;
    let _reading = kubepkg_testkit::API_SET.write().await;
    let aggregated = aggregated_api_versions(ns.client())
        .await
        .expect("the plane serves aggregated discovery");
    let legacy = legacy_api_versions(ns.client()).await.unwrap();
    assert_eq!(aggregated, legacy);
    // Subresource kinds and the core group are there.
    for entry in ["v1", "v1/Binding", "apps/v1/Scale", "apps/v1/Deployment"] {
        assert!(aggregated.contains(entry), "{entry} missing");
    }
}
