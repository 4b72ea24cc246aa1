//! What the CLI prints, as text and in colour: [`style`] the [`style::Palette`] a stream gets
//! (decided once, `crate::terminal`), [`plan`] a plan's text, [`report`] the summary of a
//! package run and the `status`, `history` and `list` tables. Commands and printers call these;
//! nothing here reads flags or the environment.

pub mod plan;
pub mod report;
pub mod style;
