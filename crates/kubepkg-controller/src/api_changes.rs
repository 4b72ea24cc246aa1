//! What changes the cluster's served APIs, watched: CustomResourceDefinitions and APIServices
//! (metadata only). While both watches run, the discovery cache keeps `.Capabilities` between
//! reconciles ([`kubepkg_kube::discovery::Discovery::capabilities`]) instead of asking
//! `/version`, `/api` and `/apis` for every Package; any change of either kind makes the next
//! reconcile ask again. A watch the controller may not run (no `list`/`watch` on either kind)
//! or that breaks leaves the capabilities asked for every time, as before.

use futures::StreamExt;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::APIService;
use kube::Api;
use kube::core::PartialObjectMeta;
use kube::runtime::{WatchStreamExt, watcher};
use kubepkg_kube::discovery::Discovery;

/// What one watch saw, whatever its kind.
enum Seen {
    /// A (re)list began.
    Listing,
    /// An object of a (re)list.
    Present,
    /// The initial list is complete.
    Listed,
    /// An object was added, changed or removed.
    Changed,
    /// The watch failed (it is tried again with backoff).
    Failed(String),
}

impl<K> From<Result<watcher::Event<K>, watcher::Error>> for Seen {
    fn from(event: Result<watcher::Event<K>, watcher::Error>) -> Seen {
        match event {
            Ok(watcher::Event::Init) => Seen::Listing,
            Ok(watcher::Event::InitApply(_)) => Seen::Present,
            Ok(watcher::Event::InitDone) => Seen::Listed,
            Ok(watcher::Event::Apply(_) | watcher::Event::Delete(_)) => Seen::Changed,
            Err(e) => Seen::Failed(e.to_string()),
        }
    }
}

/// What each of the two watches has listed.
#[derive(Default)]
struct Listed {
    /// Listed now (not since failed).
    crds: bool,
    api_services: bool,
    /// Listed once: objects of a later list may have changed unseen (the watch was down).
    crds_ever: bool,
    api_services_ever: bool,
}

/// Watches both kinds until the stream ends (never, unless the runtime stops): tells
/// `discovery` of every change, and whether it may keep the capabilities.
pub async fn watch(client: kube::Client, discovery: Discovery) {
    let crds: Api<PartialObjectMeta<CustomResourceDefinition>> = Api::all(client.clone());
    let api_services: Api<PartialObjectMeta<APIService>> = Api::all(client);
    let config = watcher::Config::default;
    let mut events = futures::stream::select(
        watcher::watcher(crds, config())
            .default_backoff()
            .map(|e| (true, Seen::from(e)))
            .boxed(),
        watcher::watcher(api_services, config())
            .default_backoff()
            .map(|e| (false, Seen::from(e)))
            .boxed(),
    );
    let mut listed = Listed::default();
    let mut refused = false;
    while let Some((is_crd, seen)) = events.next().await {
        let (done, ever) = if is_crd {
            (&mut listed.crds, &mut listed.crds_ever)
        } else {
            (&mut listed.api_services, &mut listed.api_services_ever)
        };
        match seen {
            Seen::Listed => {
                *done = true;
                *ever = true;
            }
            Seen::Listing => {}
            Seen::Present if *ever => discovery.capabilities_changed(),
            Seen::Present => {}
            Seen::Changed => discovery.capabilities_changed(),
            Seen::Failed(e) => {
                // Listed again after the error: until then, nothing is kept.
                *done = false;
                if !refused {
                    tracing::info!(
                        "the served APIs are asked for at every reconcile until the watch of CustomResourceDefinitions and APIServices runs again: {e}"
                    );
                    refused = true;
                }
            }
        }
        let watching = listed.crds && listed.api_services;
        if watching {
            refused = false;
        }
        discovery.keep_capabilities(watching);
    }
}
