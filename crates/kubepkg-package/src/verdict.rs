//! Verdicts from `PreUpgrade` hooks (docs/rules.md#verdicts-from-hooks): a check Job may say
//! whether the upgrade should go on, through its container's termination message
//! (Kubernetes' `terminationMessagePath`, `/dev/termination-log` by default) or the last line
//! of its log, as one JSON object:
//!
//! ```json
//! {"verdict": "refused", "message": "2 sessions cannot resume on the new worker image",
//!  "affected": [{"sessionId": "s-17"}, {"sessionId": "s-42"}],
//!  "approve": "--set-json 'werft.upgrade.approvedSessions=[\"s-17\",\"s-42\"]'"}
//! ```
//!
//! `proceed` lets the upgrade go on; `refused` stops it before anything else changed (reason
//! `UpgradeRefused`); `check_failed` stops it as a failed hook (`UpgradeFailed`). `message`,
//! `affected` and `approve` (how to approve a refusal) are optional. Text that is not a JSON
//! object with a `verdict` key is no verdict at all (an ordinary log line); a JSON object whose
//! `verdict` is not one of the three, or a line that starts like a verdict object but does not
//! parse, is an error naming what was read — a check whose answer cannot be read must not let
//! an upgrade through.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a check said about the upgrade.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerdictKind {
    Proceed,
    Refused,
    CheckFailed,
}

impl fmt::Display for VerdictKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            VerdictKind::Proceed => "proceed",
            VerdictKind::Refused => "refused",
            VerdictKind::CheckFailed => "check_failed",
        })
    }
}

/// One hook's verdict, as recorded in the package revision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    /// The hook component that reported it.
    #[serde(default)]
    pub hook: String,
    pub verdict: VerdictKind,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// What the refusal is about (sessions, objects…), as the check reported it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub affected: Vec<Value>,
    /// How to approve a refusal (e.g. the `--set-json` to give), as the check reported it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approve: Option<String>,
}

impl Verdict {
    /// `affected` as one line of JSON items (`"s-17", {"sessionId":"s-42"}`).
    pub fn affected_text(&self) -> String {
        self.affected
            .iter()
            .map(|v| match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "verdict {}", self.verdict)?;
        if !self.message.is_empty() {
            write!(f, ": {}", self.message)?;
        }
        if !self.affected.is_empty() {
            write!(f, " (affected: {})", self.affected_text())?;
        }
        Ok(())
    }
}

/// A verdict that was reported but cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{source_name} holds {text:?}, which is not a verdict kubepkg can read: {reason}; write one JSON object such as {{\"verdict\": \"proceed\"}} (verdict: proceed, refused or check_failed)"
)]
pub struct VerdictError {
    /// Where it was read ("the termination message of pod x", "the last log line of pod x").
    pub source_name: String,
    /// What was read (cut to 200 characters).
    pub text: String,
    pub reason: String,
}

/// What a hook's pods left behind: each terminated container's termination message, and the
/// tail of the newest pod's log, each with the place it was read from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookOutput {
    /// `(where, text)` of each non-empty termination message.
    pub termination_messages: Vec<(String, String)>,
    /// `(where, text)` of the log tail.
    pub log: Option<(String, String)>,
}

/// The verdict `hook` reported in `output`, if it reported one: a termination message first
/// (the last one that holds a verdict), else the last non-empty log line.
pub fn read(hook: &str, output: &HookOutput) -> Result<Option<Verdict>, VerdictError> {
    let mut found = None;
    for (place, text) in &output.termination_messages {
        if let Some(v) = parse(hook, place, text.trim())? {
            found = Some(v);
        }
    }
    if found.is_some() {
        return Ok(found);
    }
    let Some((place, log)) = &output.log else {
        return Ok(None);
    };
    match log.lines().rev().map(str::trim).find(|l| !l.is_empty()) {
        Some(line) => parse(hook, place, line),
        None => Ok(None),
    }
}

/// One text as a verdict: `None` when it is not meant as one (not a JSON object naming a
/// `verdict`).
fn parse(hook: &str, place: &str, text: &str) -> Result<Option<Verdict>, VerdictError> {
    if !text.starts_with('{') {
        return Ok(None);
    }
    let err = |reason: String| VerdictError {
        source_name: place.to_string(),
        text: text.chars().take(200).collect(),
        reason,
    };
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        // An object-looking line that mentions a verdict but does not parse was meant as one.
        Err(e) if text.contains("\"verdict\"") => return Err(err(e.to_string())),
        Err(_) => return Ok(None),
    };
    let Some(obj) = value.as_object() else {
        return Ok(None);
    };
    if !obj.contains_key("verdict") {
        return Ok(None);
    }
    let mut v: Verdict = serde_json::from_value(value.clone()).map_err(|e| err(e.to_string()))?;
    v.hook = hook.to_string();
    Ok(Some(v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn log(text: &str) -> HookOutput {
        HookOutput {
            termination_messages: vec![],
            log: Some(("the log of pod p".into(), text.into())),
        }
    }

    #[test]
    fn the_last_log_line_carries_the_verdict() {
        let v = read(
            "check",
            &log("checking 3 sessions\n{\"verdict\":\"refused\",\"message\":\"2 cannot resume\",\"affected\":[\"s-17\",{\"sessionId\":\"s-42\"}]}\n\n"),
        )
        .unwrap()
        .unwrap();
        assert_eq!(v.verdict, VerdictKind::Refused);
        assert_eq!(v.hook, "check");
        assert_eq!(
            v.to_string(),
            "verdict refused: 2 cannot resume (affected: s-17, {\"sessionId\":\"s-42\"})"
        );
        assert_eq!(v.affected[1], json!({"sessionId": "s-42"}));
    }

    #[test]
    fn a_termination_message_wins_over_the_log() {
        let out = HookOutput {
            termination_messages: vec![(
                "the termination message of pod p".into(),
                "{\"verdict\": \"check_failed\", \"message\": \"database unreachable\"}".into(),
            )],
            log: Some(("log".into(), "{\"verdict\": \"proceed\"}".into())),
        };
        let v = read("check", &out).unwrap().unwrap();
        assert_eq!(v.verdict, VerdictKind::CheckFailed);
        assert_eq!(v.message, "database unreachable");
    }

    #[test]
    fn ordinary_output_is_no_verdict() {
        for text in [
            "",
            "migrated 3 tables",
            "{\"level\":\"info\",\"msg\":\"done\"}",
            "[1,2]",
            "{not json at all",
        ] {
            assert_eq!(read("m", &log(text)).unwrap(), None, "{text:?}");
        }
        assert_eq!(read("m", &HookOutput::default()).unwrap(), None);
    }

    #[test]
    fn a_verdict_that_cannot_be_read_is_an_error() {
        let e = read("check", &log("{\"verdict\": \"maybe\"}")).unwrap_err();
        assert!(
            e.to_string().starts_with(
                "the log of pod p holds \"{\\\"verdict\\\": \\\"maybe\\\"}\", which is not a verdict kubepkg can read: unknown variant `maybe`"
            ),
            "{e}"
        );
        let e = read("check", &log("{\"verdict\": \"proceed\", ")).unwrap_err();
        assert!(e.reason.contains("EOF"), "{e}");
        let e = read("check", &log("{\"verdict\": 1}")).unwrap_err();
        assert!(e.reason.contains("invalid type"), "{e}");
    }
}
