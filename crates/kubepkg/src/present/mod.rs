//! What the CLI prints, as text: [`report`] has the summary of a package run and the `status`,
//! `history` and `list` tables. Commands and printers call these; nothing here reads flags or
//! the environment.

pub mod report;
