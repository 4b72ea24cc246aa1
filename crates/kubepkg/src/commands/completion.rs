//! `kubepkg completion bash|zsh|fish|powershell`: the shell's registration script
//! ([`crate::completion`] says how completion works).

use anyhow::{Context, Result};

use crate::cli::CompletionArgs;
use crate::exit::Exit;

pub fn run(args: CompletionArgs) -> Result<Exit> {
    let program = std::env::args_os()
        .next()
        .unwrap_or_else(|| "kubepkg".into());
    let mut out = std::io::stdout().lock();
    crate::completion::write_script(args.shell, &program, &mut out)
        .context("writing the completion script")?;
    Ok(Exit::Succeeded)
}
