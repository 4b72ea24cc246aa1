//! The read verbs of Helm releases, returning data: `helm list` (its state mask, `--filter`,
//! `--selector`, sort, `--offset`/`--max`, deciding from the storage labels so that only one
//! record per release is decoded), `helm history` (the newest `--max` revisions), the revision
//! `helm status` and `helm get` read, and ([`resources`]) the live objects `helm status`
//! shows. Printing is [`crate::output`]'s.

mod resources;

use std::collections::BTreeMap;

use crate::record::{Release, Status};
use crate::storage::{Driver, Store, StoredObject, storage_key};

pub use resources::{Resources, resources};

/// Why a read verb failed.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    #[error(transparent)]
    Store(#[from] crate::Error),
    /// The release has no records (Helm's text).
    #[error("release: not found")]
    NotFound { name: String },
    /// `--filter` is not a regular expression.
    #[error("invalid --filter {pattern:?}")]
    Filter {
        pattern: String,
        #[source]
        source: regex::Error,
    },
    /// `--selector` is not a list of `k=v`, `k==v` or `k!=v`.
    #[error("invalid --selector {selector:?}: use k=v, k==v or k!=v")]
    Selector { selector: String },
}

/// The release states `helm list` shows (its `ListStates` bit mask).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateMask {
    all: bool,
    states: Vec<Status>,
}

impl StateMask {
    /// Every state.
    pub fn all() -> StateMask {
        StateMask {
            all: true,
            states: Vec::new(),
        }
    }

    /// Helm 4's mask from its state flags: the union of `states`, or every state when none is
    /// given. (Helm 3 showed only deployed and failed releases by default; kubepkg follows
    /// Helm 4.)
    pub fn of(states: &[Status]) -> StateMask {
        StateMask {
            all: states.is_empty(),
            states: states.to_vec(),
        }
    }

    /// Only superseded revisions asked for: Helm then skips its latest-revision step.
    fn only_superseded(&self) -> bool {
        !self.all && self.states == [Status::Superseded]
    }

    /// Whether `status` is shown.
    pub fn covers(&self, status: &Status) -> bool {
        self.all || self.states.contains(status)
    }
}

impl Default for StateMask {
    fn default() -> Self {
        StateMask::all()
    }
}

/// One `--selector` requirement on the storage labels.
#[derive(Debug, Clone, PartialEq, Eq)]
enum LabelRequirement {
    Equals(String, String),
    NotEquals(String, String),
}

/// `helm list --selector`: requirements on the storage objects' labels (`k=v`, `k==v`,
/// `k!=v`, comma-separated; empty: everything).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selector(Vec<LabelRequirement>);

impl Selector {
    /// Parses a selector.
    pub fn parse(s: &str) -> Result<Selector, QueryError> {
        s.split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| {
                if let Some((k, v)) = p.split_once("!=") {
                    Ok(LabelRequirement::NotEquals(
                        k.trim().into(),
                        v.trim().into(),
                    ))
                } else if let Some((k, v)) = p.split_once("==").or_else(|| p.split_once('=')) {
                    Ok(LabelRequirement::Equals(k.trim().into(), v.trim().into()))
                } else {
                    Err(QueryError::Selector {
                        selector: s.to_string(),
                    })
                }
            })
            .collect::<Result<_, _>>()
            .map(Selector)
    }

    fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.0.iter().all(|r| match r {
            LabelRequirement::Equals(k, v) => labels.get(k) == Some(v),
            LabelRequirement::NotEquals(k, v) => labels.get(k) != Some(v),
        })
    }
}

/// `helm list --filter`: a regular expression the release name must match.
#[derive(Debug, Clone)]
pub struct Filter(regex::Regex);

impl Filter {
    /// Compiles a filter.
    pub fn new(pattern: &str) -> Result<Filter, QueryError> {
        regex::Regex::new(pattern)
            .map(Filter)
            .map_err(|source| QueryError::Filter {
                pattern: pattern.to_string(),
                source,
            })
    }

    fn matches(&self, name: &str) -> bool {
        self.0.is_match(name)
    }
}

/// What `helm list` shows, in which order.
#[derive(Debug, Clone)]
pub struct ListOptions {
    pub states: StateMask,
    pub filter: Option<Filter>,
    pub selector: Selector,
    /// Sort by release date (`-d`) instead of by name.
    pub by_date: bool,
    /// Reverse the order (`-r`).
    pub reverse: bool,
    /// Maximum releases shown (`-m`; 0: no limit).
    pub max: usize,
    /// Releases skipped first (`--offset`).
    pub offset: usize,
}

impl Default for ListOptions {
    fn default() -> Self {
        ListOptions {
            states: StateMask::all(),
            filter: None,
            selector: Selector::default(),
            by_date: false,
            reverse: false,
            max: 256,
            offset: 0,
        }
    }
}

/// `helm list`: the releases the driver sees (one namespace or all), chosen, sorted and cut as
/// Helm does.
pub async fn list<D: Driver>(driver: &D, opts: &ListOptions) -> Result<Vec<Release>, QueryError> {
    let owner = BTreeMap::from([("owner".to_string(), "helm".to_string())]);
    let objects = driver.query(&owner).await?;
    let mut list = choose(&objects, opts)
        .into_iter()
        .map(StoredObject::decode)
        .collect::<Result<Vec<Release>, _>>()?;
    sort(&mut list, opts);
    Ok(list
        .into_iter()
        .skip(opts.offset)
        .take(if opts.max > 0 { opts.max } else { usize::MAX })
        .collect())
}

/// The records `helm list` shows: the latest revision of each release (namespace and name),
/// if its status is in the mask, its name matches the filter and its labels the selector.
/// When the mask is only `--superseded`, Helm skips the latest-revision step (a superseded
/// record is never the latest): every superseded record is shown, in storage-key order.
fn choose<'a>(objects: &'a [StoredObject], opts: &ListOptions) -> Vec<&'a StoredObject> {
    let candidates: Vec<&StoredObject> = if opts.states.only_superseded() {
        let mut all: Vec<&StoredObject> = objects.iter().collect();
        all.sort_by(|a, b| (&a.namespace, &a.key).cmp(&(&b.namespace, &b.key)));
        all
    } else {
        let mut latest: BTreeMap<(&str, &str), &StoredObject> = BTreeMap::new();
        for o in objects {
            let Some(name) = o.release_name() else {
                continue;
            };
            let slot = latest.entry((o.namespace.as_str(), name)).or_insert(o);
            if o.revision() > slot.revision() {
                *slot = o;
            }
        }
        latest.into_values().collect()
    };
    candidates
        .into_iter()
        .filter(|o| {
            o.status().is_some_and(|s| opts.states.covers(&s))
                && o.release_name()
                    .is_some_and(|n| opts.filter.as_ref().is_none_or(|f| f.matches(n)))
                && opts.selector.matches(&o.labels)
        })
        .collect()
}

/// Helm's sorts: by name, or with `-d` by deploy time in seconds (stable, so equal times
/// keep name order); `-r` reverses.
fn sort(list: &mut [Release], opts: &ListOptions) {
    list.sort_by(|a, b| a.name.cmp(&b.name));
    if opts.by_date {
        list.sort_by_key(|r| {
            r.info
                .as_ref()
                .and_then(|i| i.last_deployed)
                .map_or(i64::MIN, |t| t.as_second())
        });
    }
    if opts.reverse {
        list.reverse();
    }
}

/// `helm history`: the newest `max` revisions, oldest first; an error when there are none.
pub async fn history<D: Driver>(
    store: &Store<D>,
    name: &str,
    max: usize,
) -> Result<Vec<Release>, QueryError> {
    let mut history = store.history(name).await?;
    if history.is_empty() {
        return Err(QueryError::NotFound {
            name: name.to_string(),
        });
    }
    history.sort_by_key(|r| r.version);
    let skip = history.len().saturating_sub(max);
    Ok(history.split_off(skip))
}

/// The revision `helm status` / `helm get` read: `revision`, or the latest.
pub async fn revision<D: Driver>(
    store: &Store<D>,
    name: &str,
    revision: Option<u64>,
) -> Result<Release, QueryError> {
    match revision {
        Some(v) => Ok(store.get(name, v).await?),
        None => store.last(name).await?.ok_or_else(|| QueryError::NotFound {
            name: name.to_string(),
        }),
    }
}

/// [`revision`] with the storage labels `helm get metadata` prints: Helm reads the latest
/// revision through a storage query, which keeps every label; a `--revision` read keeps only
/// the custom ones.
pub async fn revision_with_labels<D: Driver>(
    store: &Store<D>,
    name: &str,
    rev: Option<u64>,
) -> Result<(Release, BTreeMap<String, String>), QueryError> {
    let r = revision(store, name, rev).await?;
    let labels = if rev.is_some() {
        r.labels.clone()
    } else {
        store
            .driver
            .get(&storage_key(&r.name, r.version))
            .await?
            .map(|o| o.labels)
            .unwrap_or_default()
    };
    Ok((r, labels))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::MemoryDriver;
    use crate::{Info, Release};

    fn release(ns: &str, name: &str, version: u64, status: Status, second: i64) -> Release {
        Release {
            name: name.into(),
            namespace: ns.into(),
            version,
            info: Some(Info {
                status,
                last_deployed: Some(jiff::Timestamp::from_second(second).unwrap()),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    async fn store(releases: &[Release]) -> MemoryDriver {
        let driver = MemoryDriver::new("");
        for r in releases {
            Store::new(driver.in_namespace(&r.namespace))
                .create_with(r, 0)
                .await
                .unwrap();
        }
        driver
    }

    fn names(list: &[Release]) -> Vec<String> {
        list.iter()
            .map(|r| format!("{}/{}.v{}", r.namespace, r.name, r.version))
            .collect()
    }

    /// Release `web` in namespace `a`: revisions 1 and 2 superseded, 3 deployed.
    async fn web_revisions() -> MemoryDriver {
        store(&[
            release("a", "web", 1, Status::Superseded, 10),
            release("a", "web", 2, Status::Superseded, 20),
            release("a", "web", 3, Status::Deployed, 30),
        ])
        .await
    }

    /// The names of the records `list` gives for `opts`.
    async fn listed(d: &MemoryDriver, opts: &ListOptions) -> Vec<String> {
        names(&list(d, opts).await.unwrap())
    }

    /// The options listing the records in `states`.
    fn in_states(states: &[Status]) -> ListOptions {
        ListOptions {
            states: StateMask::of(states),
            ..Default::default()
        }
    }

    #[tokio::test]
    async fn list_shows_the_latest_revision_of_each_release_by_name() {
        let d = store(&[
            release("a", "web", 1, Status::Superseded, 10),
            release("a", "web", 2, Status::Deployed, 20),
            release("a", "db", 1, Status::Failed, 30),
            release("b", "web", 1, Status::Deployed, 5),
        ])
        .await;
        let all = list(&d, &ListOptions::default()).await.unwrap();
        assert_eq!(names(&all), ["a/db.v1", "a/web.v2", "b/web.v1"]);
        let deployed = in_states(&[Status::Deployed]);
        assert_eq!(listed(&d, &deployed).await, ["a/web.v2", "b/web.v1"]);
        let by_date = ListOptions {
            by_date: true,
            ..Default::default()
        };
        assert_eq!(
            listed(&d, &by_date).await,
            ["b/web.v1", "a/web.v2", "a/db.v1"]
        );
        let newest_two_skipping_one = ListOptions {
            reverse: true,
            offset: 1,
            max: 2,
            ..Default::default()
        };
        assert_eq!(
            listed(&d, &newest_two_skipping_one).await,
            ["a/web.v2", "a/db.v1"]
        );
    }

    #[tokio::test]
    async fn superseded_alone_lists_every_superseded_record() {
        let d = web_revisions().await;
        let opts = in_states(&[Status::Superseded]);
        assert_eq!(listed(&d, &opts).await, ["a/web.v1", "a/web.v2"]);
        // With another state, only latest revisions count again.
        let opts = in_states(&[Status::Superseded, Status::Failed]);
        assert!(list(&d, &opts).await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn filter_and_selector_read_names_and_labels() {
        let d = store(&[
            release("a", "web", 1, Status::Deployed, 10),
            release("a", "db", 1, Status::Failed, 10),
        ])
        .await;
        let opts = ListOptions {
            filter: Some(Filter::new("^w").unwrap()),
            ..Default::default()
        };
        assert_eq!(listed(&d, &opts).await, ["a/web.v1"]);
        let opts = ListOptions {
            selector: Selector::parse("status!=deployed, owner==helm").unwrap(),
            ..Default::default()
        };
        assert_eq!(listed(&d, &opts).await, ["a/db.v1"]);
        assert_eq!(
            Selector::parse("a").unwrap_err().to_string(),
            r#"invalid --selector "a": use k=v, k==v or k!=v"#
        );
        assert_eq!(
            Filter::new("(").unwrap_err().to_string(),
            r#"invalid --filter "(""#
        );
    }

    #[tokio::test]
    async fn history_keeps_the_newest_max_revisions_oldest_first() {
        let d = web_revisions().await;
        let s = Store::new(d.in_namespace("a"));
        let h = history(&s, "web", 2).await.unwrap();
        assert_eq!(names(&h), ["a/web.v2", "a/web.v3"]);
        assert_eq!(
            history(&s, "nope", 2).await.unwrap_err().to_string(),
            "release: not found"
        );
        let (r, labels) = revision_with_labels(&s, "web", None).await.unwrap();
        assert_eq!((r.version, labels["status"].as_str()), (3, "deployed"));
        let (r, labels) = revision_with_labels(&s, "web", Some(1)).await.unwrap();
        assert_eq!((r.version, labels.len()), (1, 0));
    }
}
