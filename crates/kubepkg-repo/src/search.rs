//! `helm search repo`: the cached indexes of every configured repository searched by keyword
//! (a literal, case-insensitive, or a regular expression with `--regexp`), scored by where the
//! match is (chart name, `REPO/NAME`, description, keywords), sorted by score, name and newest
//! version, then filtered by the version constraint (`--version`, or `>0.0.0` / `>0.0.0-0` with
//! `--devel`), one line per chart unless `--versions`.

use std::collections::{BTreeMap, BTreeSet};

use kubepkg_semver::{Constraints, Version};

use crate::index::{ChartVersion, IndexFile};

/// Helm's `searchMaxScore`.
const MAX_SCORE: usize = 25;
const SEP: char = '\u{b}';

/// One line of the result.
#[derive(Debug, Clone)]
pub struct Hit {
    /// `REPO/CHART`.
    pub name: String,
    pub score: usize,
    pub chart: ChartVersion,
}

/// What to search for (the flags of `search repo`).
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// The keywords joined by a space; `None`: every chart.
    pub keyword: Option<String>,
    pub regexp: bool,
    pub versions: bool,
    pub devel: bool,
    pub version: Option<String>,
}

/// Why a search failed (Helm's texts).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SearchError {
    #[error(transparent)]
    Regex(#[from] regex::Error),
    #[error("an invalid version/constraint format")]
    Constraint(#[source] kubepkg_semver::SemverError),
}

/// Searches `indexes` (repository name → its index, in repositories.yaml's order).
pub fn search(indexes: &[(String, IndexFile)], query: &Query) -> Result<Vec<Hit>, SearchError> {
    let version = match &query.version {
        Some(v) if !v.is_empty() => v.clone(),
        _ if query.devel => ">0.0.0-0".into(),
        _ => ">0.0.0".into(),
    };
    // Helm sets the constraint before it builds its search index, so the index always holds
    // every version (`AddRepo(…, all = versions || version != "")` with `version` never empty).
    // Helm's index: a map keyed by name (and version), so a later repository's chart of the same
    // REPO/NAME replaces an earlier one.
    let mut lines: BTreeMap<String, (String, ChartVersion)> = BTreeMap::new();
    for (repo, index) in indexes {
        for (name, versions) in &index.entries {
            for cv in versions {
                let key = format!("{repo}/{name}$${}", cv.version());
                lines.insert(key, (line(repo, cv), cv.clone()));
            }
        }
    }
    let name_of = |key: &str| key.split("$$").next().unwrap_or(key).to_string();
    let mut hits: Vec<Hit> = match &query.keyword {
        None => lines
            .iter()
            .map(|(k, (_, cv))| Hit {
                name: name_of(k),
                score: 0,
                chart: cv.clone(),
            })
            .collect(),
        Some(term) if query.regexp => {
            let re = regex::Regex::new(term)?;
            lines
                .iter()
                .filter_map(|(k, (l, cv))| {
                    let at = re.find(l)?.start();
                    let score = score(at, l);
                    (score < MAX_SCORE).then(|| Hit {
                        name: name_of(k),
                        score,
                        chart: cv.clone(),
                    })
                })
                .collect()
        }
        Some(term) => {
            let term = term.to_lowercase();
            lines
                .iter()
                .filter_map(|(k, (l, cv))| {
                    let lower = l.to_lowercase();
                    let at = lower.find(&term)?;
                    let score = score(at, &lower);
                    (score < MAX_SCORE).then(|| Hit {
                        name: name_of(k),
                        score,
                        chart: cv.clone(),
                    })
                })
                .collect()
        }
    };
    hits.sort_by(|a, b| {
        a.score.cmp(&b.score).then_with(|| {
            if a.name == b.name {
                match (
                    Version::parse(a.chart.version()),
                    Version::parse(b.chart.version()),
                ) {
                    (Ok(x), Ok(y)) => y.compare(&x),
                    _ => std::cmp::Ordering::Equal,
                }
            } else {
                a.name.cmp(&b.name)
            }
        })
    });
    let constraint = Constraints::parse(&version).map_err(SearchError::Constraint)?;
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for hit in hits {
        if !query.versions && seen.contains(&hit.name) {
            continue;
        }
        let Ok(v) = Version::parse(hit.chart.version()) else {
            continue;
        };
        if constraint.check(&v) {
            seen.insert(hit.name.clone());
            out.push(hit);
        }
    }
    Ok(out)
}

fn line(repo: &str, cv: &ChartVersion) -> String {
    let md = &cv.metadata;
    format!(
        "{name}{SEP}{repo}/{name}{SEP}{}{SEP}{}",
        md.description,
        md.keywords.join(" "),
        name = md.name
    )
}

/// Which field (0: name, 1: REPO/NAME, 2: description, 3: keywords) the byte offset `at` is in.
fn score(at: usize, line: &str) -> usize {
    let splits: Vec<usize> = line.match_indices(SEP).map(|(i, _)| i).collect();
    splits
        .iter()
        .position(|&pos| at <= pos)
        .unwrap_or(splits.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::load_index;

    fn indexes() -> Vec<(String, IndexFile)> {
        let text = r#"apiVersion: v1
entries:
  nginx:
  - {apiVersion: v2, name: nginx, version: 1.0.0, description: "web server", keywords: [http]}
  - {apiVersion: v2, name: nginx, version: 1.1.0-rc.1, description: "web server"}
  - {apiVersion: v2, name: nginx, version: 0.9.0, description: "web server"}
  redis:
  - {apiVersion: v2, name: redis, version: 2.0.0, description: "a cache, not nginx"}
"#;
        vec![("r".into(), load_index(text.as_bytes(), "x").unwrap().index)]
    }

    fn names(q: Query) -> Vec<String> {
        search(&indexes(), &q)
            .unwrap()
            .into_iter()
            .map(|h| format!("{} {}", h.name, h.chart.version()))
            .collect()
    }

    #[test]
    fn matches_in_the_name_come_first_and_prereleases_need_devel() {
        let q = |keyword: &str| Query {
            keyword: Some(keyword.into()),
            ..Query::default()
        };
        assert_eq!(names(q("NGINX")), ["r/nginx 1.0.0", "r/redis 2.0.0"]);
        assert_eq!(
            names(Query {
                devel: true,
                ..q("nginx")
            }),
            ["r/nginx 1.1.0-rc.1", "r/redis 2.0.0"]
        );
        assert_eq!(
            names(Query {
                versions: true,
                ..q("nginx")
            }),
            ["r/nginx 1.0.0", "r/nginx 0.9.0", "r/redis 2.0.0"]
        );
        assert_eq!(
            names(Query {
                version: Some("<1".into()),
                ..q("nginx")
            }),
            ["r/nginx 0.9.0"]
        );
        assert_eq!(
            names(Query {
                regexp: true,
                ..q("^re")
            }),
            ["r/redis 2.0.0"]
        );
        assert_eq!(names(Query::default()), ["r/nginx 1.0.0", "r/redis 2.0.0"]);
    }
}
