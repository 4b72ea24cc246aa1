//! Accessibility audits of web pages with axe-core (Deque's rules engine, from npm), run in
//! the test's real browser ([`crate::browser::Browser`]).
//!
//! [`source`] installs the pinned axe-core once with `npm` into
//! `${KUBEPKG_CACHE_DIR:-~/.cache/kubepkg}/axe-core/<version>` (outside the clone) and returns
//! its `axe.min.js`; [`audit`] injects it into the page through WebDriver (a script run by the
//! driver is not the page's: the page's Content-Security-Policy stays as strict as served) and
//! returns the violations. A machine without `npm` fails the test with what to install.

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};

use crate::browser::Browser;
use crate::error::Error;

/// The axe-core version the audits run.
pub const VERSION: &str = "4.14.1";

/// One rule a page breaks: its id, impact (`minor`, `moderate`, `serious`, `critical`), what
/// it means, and the elements (CSS selectors) that break it.
#[derive(Debug, Clone)]
pub struct Violation {
    pub id: String,
    pub impact: String,
    pub help: String,
    pub targets: Vec<String>,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} ({}): {} at {}",
            self.id,
            self.impact,
            self.help,
            self.targets.join(", ")
        )
    }
}

fn cache_dir() -> PathBuf {
    let base = std::env::var_os("KUBEPKG_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/kubepkg")))
        .unwrap_or_else(|| std::env::temp_dir().join("kubepkg-cache"));
    base.join("axe-core").join(VERSION)
}

/// The text of `axe.min.js`, installed with `npm` on first use.
pub fn source() -> Result<String, Error> {
    let dir = cache_dir();
    let file = dir.join("node_modules/axe-core/axe.min.js");
    if !file.exists() {
        std::fs::create_dir_all(&dir).map_err(|source| Error::Io {
            what: "creating the axe-core cache",
            path: dir.clone(),
            source,
        })?;
        let command = format!(
            "npm install --no-save --no-audit --no-fund --prefix {} axe-core@{VERSION}",
            dir.display()
        );
        let out = Command::new("npm")
            .args([
                "install",
                "--no-save",
                "--no-audit",
                "--no-fund",
                "--prefix",
            ])
            .arg(&dir)
            .arg(format!("axe-core@{VERSION}"))
            .output()
            .map_err(|e| Error::Tool {
                command: command.clone(),
                output: format!("{e}: install Node.js and npm (apt-get install -y npm)"),
            })?;
        if !out.status.success() || !file.exists() {
            return Err(Error::Tool {
                command,
                output: format!(
                    "{}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ),
            });
        }
    }
    std::fs::read_to_string(&file).map_err(|source| Error::Io {
        what: "reading axe-core",
        path: file,
        source,
    })
}

/// Runs axe-core's WCAG 2 A and AA rules (and its best practices) on the page the browser
/// shows; the violations.
pub async fn audit(browser: &Browser, axe: &str) -> Result<Vec<Violation>, Error> {
    let loaded = browser
        .execute(&format!("{axe}\n;return typeof window.axe;"), json!([]))
        .await?;
    if loaded != "object" {
        return Err(Error::Tool {
            command: "loading axe-core into the page".into(),
            output: format!("window.axe is {loaded}"),
        });
    }
    let found = browser
        .execute_async(
            "var done = arguments[arguments.length - 1];
             window.axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa', 'best-practice']}, resultTypes: ['violations']})
               .then(function (r) { done(JSON.stringify(r.violations)); })
               .catch(function (e) { done(JSON.stringify({error: String(e)})); });",
            json!([]),
        )
        .await?;
    let v: Value = serde_json::from_str(found.as_str().unwrap_or("null")).unwrap_or(Value::Null);
    if let Some(e) = v.get("error") {
        return Err(Error::Tool {
            command: "axe.run".into(),
            output: e.to_string(),
        });
    }
    Ok(v.as_array()
        .into_iter()
        .flatten()
        .map(|x| Violation {
            id: x["id"].as_str().unwrap_or_default().to_string(),
            impact: x["impact"].as_str().unwrap_or_default().to_string(),
            help: x["help"].as_str().unwrap_or_default().to_string(),
            targets: x["nodes"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|n| n["target"].to_string())
                .collect(),
        })
        .collect())
}
