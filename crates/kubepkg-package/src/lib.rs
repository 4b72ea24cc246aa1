//! kubepkg's package layer (offline core).
#![forbid(unsafe_code)]
