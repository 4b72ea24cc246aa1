//! `kubepkg get all|values|manifest|hooks|notes|metadata NAME`: parts of a stored revision, as
//! Helm prints them (`values --all`: the computed values, `kubepkg_engine::verbs`).

use anyhow::Result;
use kubepkg_engine::verbs::computed_values;
use kubepkg_release::output;
use kubepkg_release::query;

use crate::cli::GetArgs;
use crate::exit::Exit;
use crate::settings::Settings;

pub async fn run(args: GetArgs, settings: &Settings) -> Result<Exit> {
    let cluster = settings.connect().await?;
    let store = settings.store(&cluster, false)?;
    let (r, labels) = query::revision_with_labels(&store, &args.name, args.revision).await?;
    let text = match args.what.as_str() {
        "values" if args.all => output::values(&computed_values(&r), true, args.output.helm())?,
        "values" => output::values(&r.config, false, args.output.helm())?,
        "all" => output::get_all(&r, &computed_values(&r))?,
        "metadata" => output::metadata(&r, &labels, args.output.helm())?,
        "manifest" => output::manifest(&r),
        "hooks" => output::hooks(&r),
        "notes" => output::notes(&r),
        other => anyhow::bail!(
            "unknown `get` subject {other:?}: use all, values, manifest, hooks, notes or metadata"
        ),
    };
    print!("{text}");
    Ok(Exit::Succeeded)
}
