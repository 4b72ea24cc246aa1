//! The real kstatus library as a test oracle.
//!
//! kubepkg reads readiness with its own port of kstatus (`kubepkg_kube::readiness`) and writes
//! kstatus conditions on `Package` objects (`kubepkg_package::conditions`). To prove both agree
//! with what Flux, Argo CD and cli-utils' appliers see, tests ask the Go library itself:
//! `status.Compute` of `sigs.k8s.io/cli-utils/pkg/kstatus`, linked into the test tooling's
//! multi-call binary as `kpk-cluster kstatus` (testenv/README.md#kstatus-oracle).
//!
//! - [`classify`] judges a batch of objects (JSON, `status` included) in one run of the binary
//!   and returns one [`Verdict`] per object, in order. No cluster is needed.
//! - [`assert_status`] is the one-liner for cluster tests: given a live object read from the
//!   API server, it panics unless kstatus says `expected`, printing the verdict and the object.
//!
//! ```no_run
//! # async fn f(api: kube::Api<kube::core::DynamicObject>) {
//! use kubepkg_testkit::kstatus::{self, Status};
//! let live = serde_json::to_value(api.get("shop").await.unwrap()).unwrap();
//! let verdict = kstatus::assert_status(&live, Status::Current);
//! assert_eq!(verdict.message, "Resource is Ready");
//! # }
//! ```
//!
//! The binary is the one built from the sources of this checkout: its path is
//! `testenv/build.sh --path` (the same hash of go.mod, go.sum, `kpk-cluster/*.go`, `pki/*.go`
//! and the Go version that `build.sh` builds into, under `$KUBEPKG_CACHE_DIR` or
//! `~/.cache/kubepkg`). A binary of other sources (say, the one a running plane was started
//! from) is never used. When it has not been built, the helpers fail with [`Error::NotBuilt`],
//! which says to run `testenv/build.sh` (`scripts/test` does before any test); they never skip.

use std::fmt;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::Value;

/// kstatus' status of a resource (`status.Status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
pub enum Status {
    InProgress,
    Failed,
    Current,
    Terminating,
    NotFound,
    Unknown,
}

impl Status {
    /// kstatus' spelling (`"InProgress"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::InProgress => "InProgress",
            Status::Failed => "Failed",
            Status::Current => "Current",
            Status::Terminating => "Terminating",
            Status::NotFound => "NotFound",
            Status::Unknown => "Unknown",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What kstatus says about one object.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Verdict {
    pub status: Status,
    /// `Result.Message`.
    pub message: String,
    /// The reason of the condition kstatus reports with its result (the `Reconciling` or
    /// `Stalled` condition it read or made up, e.g. `LatestGenerationNotObserved`); empty when
    /// it reports none (Current, Terminating).
    pub reason: String,
}

/// A failure to run the oracle.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The binary of the current sources is not built.
    #[error(
        "the kstatus oracle {path} is not built for the current testenv sources: run testenv/build.sh"
    )]
    NotBuilt { path: PathBuf },
    /// `testenv/build.sh --path` could not say where the binary is.
    #[error("testenv/build.sh --path failed ({status}): {stderr}")]
    Locate { status: String, stderr: String },
    /// Running the binary failed.
    #[error("running {path} kstatus: {source}")]
    Run {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The binary refused the input (an object kstatus cannot judge).
    #[error("{path} kstatus failed ({status}): {stderr}")]
    Failed {
        path: PathBuf,
        status: String,
        stderr: String,
    },
    /// The binary's answer is not what this module expects.
    #[error("{path} kstatus answered {answer:?}: {message}")]
    Answer {
        path: PathBuf,
        answer: String,
        message: String,
    },
}

static BINARY: OnceLock<Result<PathBuf, (String, String)>> = OnceLock::new();

/// The `kpk-cluster` binary built from the current testenv sources (see the module docs).
pub fn binary() -> Result<PathBuf, Error> {
    let located = BINARY.get_or_init(|| {
        let script = crate::plane::repo_root().join("testenv/build.sh");
        let out = Command::new("bash")
            .arg(&script)
            .arg("--path")
            .output()
            .map_err(|e| ("not run".to_string(), format!("{}: {e}", script.display())))?;
        let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if !out.status.success() || path.is_empty() {
            return Err((
                out.status.to_string(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            ));
        }
        Ok(PathBuf::from(path))
    });
    let path = located
        .clone()
        .map_err(|(status, stderr)| Error::Locate { status, stderr })?;
    if !path.is_file() {
        return Err(Error::NotBuilt { path });
    }
    Ok(path)
}

/// kstatus' verdict on each of `objects` (full objects as JSON, `status` included), in order.
pub fn classify(objects: &[Value]) -> Result<Vec<Verdict>, Error> {
    let path = binary()?;
    let run_err = |source| Error::Run {
        path: path.clone(),
        source,
    };
    let input = serde_json::to_vec(objects).expect("JSON values always serialize");
    let mut child = Command::new(&path)
        .arg("kstatus")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(run_err)?;
    // The oracle reads all its input before it writes anything: no deadlock.
    let mut stdin = child.stdin.take().expect("stdin is piped");
    stdin.write_all(&input).map_err(run_err)?;
    drop(stdin);
    let out = child.wait_with_output().map_err(run_err)?;
    if !out.status.success() {
        return Err(Error::Failed {
            path,
            status: out.status.to_string(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    let answer = String::from_utf8_lossy(&out.stdout).into_owned();
    let verdicts: Vec<Verdict> = serde_json::from_str(&answer).map_err(|e| Error::Answer {
        path: path.clone(),
        answer: answer.clone(),
        message: e.to_string(),
    })?;
    if verdicts.len() != objects.len() {
        return Err(Error::Answer {
            path,
            answer,
            message: format!("{} verdicts for {} objects", verdicts.len(), objects.len()),
        });
    }
    Ok(verdicts)
}

/// kstatus' verdict on one object.
pub fn classify_one(object: &Value) -> Result<Verdict, Error> {
    Ok(classify(std::slice::from_ref(object))?.remove(0))
}

/// Panics unless kstatus says `expected` about `object` (e.g. a live `Package` read from the
/// API server); returns the verdict for further checks of its message or reason.
pub fn assert_status(object: &Value, expected: Status) -> Verdict {
    let verdict = classify_one(object).unwrap_or_else(|e| panic!("kstatus oracle: {e}"));
    assert_eq!(
        verdict.status,
        expected,
        "kstatus says {} ({}: {}) about {}",
        verdict.status,
        verdict.reason,
        verdict.message,
        serde_json::to_string_pretty(object).unwrap_or_default()
    );
    verdict
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_oracle_reads_generations_and_conditions() {
        let package = |generation: i64, observed: i64, conditions: Value| {
            json!({
                "apiVersion": "kubepkg.dev/v1alpha1",
                "kind": "Package",
                "metadata": {"name": "p", "namespace": "ns", "generation": generation},
                "status": {"observedGeneration": observed, "conditions": conditions},
            })
        };
        let stalled = json!([{"type": "Stalled", "status": "True", "reason": "UpgradeFailed",
                              "message": "component a failed"}]);
        let got = classify(&[package(4, 3, stalled.clone()), package(4, 4, stalled)]).unwrap();
        assert_eq!(
            got,
            [
                Verdict {
                    status: Status::InProgress,
                    message: "Package generation is 4, but latest observed generation is 3".into(),
                    reason: "LatestGenerationNotObserved".into(),
                },
                Verdict {
                    status: Status::Failed,
                    message: "component a failed".into(),
                    reason: "UpgradeFailed".into(),
                },
            ]
        );
        assert!(classify(&[]).unwrap().is_empty());
        let deleting = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c", "deletionTimestamp": "2026-01-01T00:00:00Z"}});
        assert_status(&deleting, Status::Terminating);
    }

    #[test]
    fn an_object_kstatus_cannot_judge_is_an_error() {
        let bad = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c", "generation": "three"}});
        let err = classify(&[bad]).unwrap_err();
        assert!(
            matches!(&err, Error::Failed { stderr, .. } if stderr.contains("object 0")),
            "{err}"
        );
    }
}
