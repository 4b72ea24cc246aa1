//! Test support of the rollout decisions' unit tests (`decide`, `rollback`).

use crate::view::Phase;

/// Asserts that `message` mentions `text`, showing it when it does not.
#[track_caller]
pub(crate) fn assert_mentions(message: &str, text: &str) {
    assert!(message.contains(text), "{message}");
}

/// Asserts that a decision halted the rollout and rolls no cluster back, saying `why`.
#[track_caller]
pub(crate) fn assert_halted_without_rollback(
    phase: Phase,
    roll_back: &[String],
    message: &str,
    why: &str,
) {
    assert_eq!(phase, Phase::Halted);
    assert!(roll_back.is_empty());
    assert_mentions(message, why);
}
