//! `kubepkg list`: the releases `helm list` shows, chosen by `kubepkg_release::query::list`
//! (Helm 4's state mask: every status by default) and printed as `helm list` prints them.
//! `kubepkg list --packages` lists packages.

use anyhow::Result;
use kubepkg_release::Status;
use kubepkg_release::output;
use kubepkg_release::query::{self, Filter, ListOptions, Selector, StateMask};

use crate::cli::ListArgs;
use crate::exit::Exit;
use crate::settings::Settings;

/// The state flags as Helm's mask (`-a`: every state, as Helm 3's flag).
fn states(a: &ListArgs) -> StateMask {
    if a.all {
        return StateMask::all();
    }
    let flags = [
        (a.deployed, &[Status::Deployed][..]),
        (a.uninstalled, &[Status::Uninstalled]),
        (a.uninstalling, &[Status::Uninstalling]),
        (
            a.pending,
            &[
                Status::PendingInstall,
                Status::PendingRollback,
                Status::PendingUpgrade,
            ],
        ),
        (a.failed, &[Status::Failed]),
        (a.superseded, &[Status::Superseded]),
    ];
    let states: Vec<Status> = flags
        .into_iter()
        .filter(|(on, _)| *on)
        .flat_map(|(_, s)| s.iter().cloned())
        .collect();
    StateMask::of(&states)
}

pub async fn run(args: ListArgs, settings: &Settings) -> Result<Exit> {
    let cluster = settings.connect().await?;
    if args.packages {
        return super::package::list(&cluster, args.all_namespaces, args.output).await;
    }
    let opts = ListOptions {
        states: states(&args),
        filter: args.filter.as_deref().map(Filter::new).transpose()?,
        selector: Selector::parse(args.selector.as_deref().unwrap_or(""))?,
        by_date: args.date,
        reverse: args.reverse,
        max: args.max,
        offset: args.offset,
    };
    let store = settings.store(&cluster, args.all_namespaces)?;
    let list = query::list(&store.driver, &opts).await?;
    let text = if args.short {
        output::list_names(&list, args.output.helm())?
    } else {
        output::list(&list, args.output.helm(), args.no_headers)?
    };
    print!("{text}");
    Ok(Exit::Succeeded)
}
