//! kubepkg-kube: the cluster layer (client, discovery, apply, prune, readiness).
#![forbid(unsafe_code)]
