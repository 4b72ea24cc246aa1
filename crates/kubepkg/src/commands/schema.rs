//! `kubepkg schema`: the JSON Schema of `kubepkg.yaml`, generated from the manifest's own
//! types (`kubepkg_model::parse::json_schema`); `docs/kubepkg.schema.json` is this output.

use crate::exit::Exit;
use anyhow::Result;

pub fn run() -> Result<Exit> {
    println!("{}", kubepkg_model::parse::json_schema_text());
    Ok(Exit::Succeeded)
}
