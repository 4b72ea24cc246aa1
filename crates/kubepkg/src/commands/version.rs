//! `kubepkg version`: the build's version.

use std::process::ExitCode;

pub fn run() -> anyhow::Result<ExitCode> {
    println!("kubepkg {}", env!("CARGO_PKG_VERSION"));
    Ok(ExitCode::SUCCESS)
}
