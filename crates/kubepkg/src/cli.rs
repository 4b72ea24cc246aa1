//! Command-line definitions (clap). Only argument shapes live here; behaviour is in `commands`.

use clap::{Parser, Subcommand};

/// kubepkg installs and upgrades packages of Helm charts safely: components one at a time in
/// dependency order, each waiting until really ready.
#[derive(Debug, Parser)]
#[command(name = "kubepkg", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the kubepkg version.
    Version,
}
