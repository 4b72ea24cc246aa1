//! The pages, one module each, as functions of what [`crate::read`] read: HTML strings built
//! with [`crate::html`], every cluster text escaped.

pub mod history;
pub mod list;
pub mod package;
pub mod plan;
pub mod values;

#[cfg(test)]
mod tests;
