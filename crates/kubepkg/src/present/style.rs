//! The colours of kubepkg's text output: one [`Palette`] value that a report is given (the
//! plan's text, an outcome line, the CLI's live progress and its `Error:` prefix), either
//! `Palette::ANSI` or [`Palette::PLAIN`], so each report has one path and colour is only an
//! option of it. Which palette a stream gets is decided once, at start-up (`crate::terminal`:
//! `NO_COLOR`, `--no-color`, `CLICOLOR_FORCE`, a terminal).
//!
//! The styles are those of `git diff` and helm-diff (which `kubectl diff` users read too):
//! added lines green, removed lines red, hunk headers cyan, file headers bold, a changed object
//! yellow; states as kubectl, flux and cargo colour them: done green, waiting yellow, failed
//! red, under way cyan. ANSI sequences come from `anstyle` (clap's own styling crate), which
//! writes each style's escape and its reset.

use std::fmt;

use anstyle::{AnsiColor, Effects, Style};

/// Whether, and how, text is coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Palette {
    colour: bool,
}

/// What a piece of text is, for its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Done and fine: ready, applied, unchanged, uninstalled, `Succeeded`; a diff's added line.
    Good,
    /// Waiting: for an object, for requirements, for a lease; a warning; a changed object.
    Waiting,
    /// Failed: a failed component, an `Error:`, a failure reason; a diff's removed line.
    Bad,
    /// Under way: applying, hook running, uninstalling; a diff's hunk header (`@@ … @@`).
    Active,
    /// A heading: the plan's first line, a diff's `---`/`+++` lines, a component's name.
    Heading,
    /// Of little weight: elapsed times.
    Dim,
}

impl Role {
    fn style(self) -> Style {
        let fg = |c: AnsiColor| Style::new().fg_color(Some(c.into()));
        match self {
            Role::Good => fg(AnsiColor::Green),
            Role::Waiting => fg(AnsiColor::Yellow),
            Role::Bad => fg(AnsiColor::Red),
            Role::Active => fg(AnsiColor::Cyan),
            Role::Heading => Style::new().effects(Effects::BOLD),
            Role::Dim => Style::new().effects(Effects::DIMMED),
        }
    }
}

impl Palette {
    /// No colour: the text exactly as kubepkg prints it to a file or a pipe.
    pub const PLAIN: Palette = Palette { colour: false };
    /// ANSI colours (the CLI gets them by [`Palette::new`]).
    #[cfg(test)]
    pub const ANSI: Palette = Palette { colour: true };

    /// `Palette::ANSI` when `colour`, else [`Palette::PLAIN`].
    pub fn new(colour: bool) -> Palette {
        Palette { colour }
    }

    /// Whether this palette colours anything.
    pub fn is_colour(self) -> bool {
        self.colour
    }

    /// `text` in the colour of `role` (as it is without colour).
    pub fn paint<T: fmt::Display>(self, role: Role, text: T) -> Painted<T> {
        Painted {
            style: if self.colour {
                role.style()
            } else {
                Style::new()
            },
            text,
        }
    }

    /// One line of a unified diff (without its newline) in the colour of its kind: `---`/`+++`
    /// headers (`header`: among the lines a diff starts with), `@@` hunks, added and removed
    /// lines; context lines and anything else as they are.
    pub fn diff_line(self, line: &str, header: bool) -> String {
        let role = if header && (line.starts_with("--- ") || line.starts_with("+++ ")) {
            Some(Role::Heading)
        } else if line.starts_with("@@") {
            Some(Role::Active)
        } else if line.starts_with('+') {
            Some(Role::Good)
        } else if line.starts_with('-') {
            Some(Role::Bad)
        } else {
            None
        };
        match role {
            Some(role) => self.paint(role, line).to_string(),
            None => line.to_string(),
        }
    }
}

/// Text with a style, written with its escape and reset (none for the plain palette or a plain
/// role).
#[derive(Debug, Clone, Copy)]
pub struct Painted<T> {
    style: Style,
    text: T,
}

impl<T: fmt::Display> fmt::Display for Painted<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}{}",
            self.style.render(),
            self.text,
            self.style.render_reset()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_palette_leaves_text_as_it_is() {
        for role in [
            Role::Good,
            Role::Waiting,
            Role::Bad,
            Role::Active,
            Role::Heading,
            Role::Dim,
        ] {
            assert_eq!(Palette::PLAIN.paint(role, "ready").to_string(), "ready");
        }
        assert_eq!(Palette::PLAIN.diff_line("+a: 1", false), "+a: 1");
    }

    #[test]
    fn ansi_palette_colours_each_role() {
        let p = Palette::ANSI;
        for (role, text, painted) in [
            (Role::Good, "ready", "\x1b[32mready\x1b[0m"),
            (Role::Waiting, "w", "\x1b[33mw\x1b[0m"),
            (Role::Bad, "Error:", "\x1b[31mError:\x1b[0m"),
            (Role::Active, "a", "\x1b[36ma\x1b[0m"),
            (Role::Heading, "h", "\x1b[1mh\x1b[0m"),
            (Role::Dim, "3s", "\x1b[2m3s\x1b[0m"),
        ] {
            assert_eq!(p.paint(role, text).to_string(), painted, "{role:?}");
        }
    }

    /// As `git diff` colours a unified diff: headers only where a diff starts (a removed YAML
    /// line `-- x` is a removed line, not a header).
    #[test]
    fn diff_lines_are_coloured_by_kind() {
        let p = Palette::ANSI;
        // Where a diff starts.
        for (line, coloured) in [
            ("--- a (deployed)", "\x1b[1m--- a (deployed)\x1b[0m"),
            ("+++ a (planned)", "\x1b[1m+++ a (planned)\x1b[0m"),
        ] {
            assert_eq!(p.diff_line(line, true), coloured, "{line:?}");
        }
        // In its body.
        for (line, coloured) in [
            ("@@ -1,2 +1,2 @@", "\x1b[36m@@ -1,2 +1,2 @@\x1b[0m"),
            ("+  image: b", "\x1b[32m+  image: b\x1b[0m"),
            ("-  image: a", "\x1b[31m-  image: a\x1b[0m"),
            ("--- x", "\x1b[31m--- x\x1b[0m"),
            ("   kind: Service", "   kind: Service"),
        ] {
            assert_eq!(p.diff_line(line, false), coloured, "{line:?}");
        }
    }
}
