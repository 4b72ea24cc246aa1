//! Integration tests of the cluster layer that need no cluster: the retry layer against a
//! scripted local HTTP server (`retry.rs`).

mod retry;
