//! `kubepkg version`: the build's version, as text (`kubepkg v0.1.0`), `--short` (`v0.1.0`)
//! or `-o json|yaml` (`{"version": "v0.1.0", …}`), as `helm version` offers them.

use anyhow::Result;
use serde_json::json;

use crate::cli::VersionArgs;
use crate::exit::Exit;

/// The version as Helm writes its own: with a leading `v`.
pub fn version() -> String {
    format!("v{}", env!("CARGO_PKG_VERSION"))
}

pub fn run(args: VersionArgs) -> Result<Exit> {
    if args.short {
        println!("{}", version());
        return Ok(Exit::Succeeded);
    }
    let info = json!({
        "version": version(),
        "kubeClientVersion": "v1.37",
        "platform": format!("{}/{}", std::env::consts::OS, std::env::consts::ARCH),
    });
    super::print_structured(info, args.output, || format!("kubepkg {}\n", version()))?;
    Ok(Exit::Succeeded)
}
