//! What the terminal allows, decided once at start-up (by `crate::cli::Cli::settings`, from
//! the same environment the settings read): the colour [`Palette`] of standard output and of standard
//! error, and whether progress may be drawn live ([`Terminal::live`]). Printers are handed the
//! result; nothing else looks at the environment or asks whether a stream is a terminal.
//!
//! Colour, per stream, the first rule that applies (as `anstream` and cargo read them, from
//! no-color.org and the CLICOLOR convention):
//! 1. `--color always`: colour (a flag given on the command line overrides `NO_COLOR`, as
//!    no-color.org asks);
//! 2. `NO_COLOR` set to anything but the empty string: none;
//! 3. `--no-color` or `--color never`: none;
//! 4. `CLICOLOR_FORCE` set, not empty and not `0`: colour, even on a pipe or a file;
//! 5. `CLICOLOR=0`: none;
//! 6. otherwise colour exactly when the stream is a terminal and `TERM` is not `dumb`.
//!
//! Live progress (`--progress auto`): when standard error is a terminal, `TERM` is set and not
//! `dumb` (such a terminal cannot move the cursor), and `CI` is not set (CI logs keep every
//! line); `--progress live` draws live lines whatever the stream, `--progress plain` never.

use std::io::IsTerminal as _;

use crate::present::style::Palette;

/// The values of `--color`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// No colour.
    Never,
    /// Colour on a terminal, by the environment's rules.
    #[default]
    Auto,
    /// Colour, also on a pipe or in a file (a flag on the command line overrides NO_COLOR).
    Always,
}

/// The values of `--progress`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ProgressMode {
    /// Live on a terminal that can redraw lines, outside CI; plain otherwise.
    #[default]
    Auto,
    /// Live lines always: also in CI, with TERM=dumb, or on a pipe (escape codes and all).
    Live,
    /// One line per event, as on a pipe.
    Plain,
}

/// Which of the process's streams are terminals (probed once, by [`Streams::probe`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Streams {
    pub stdout: bool,
    pub stderr: bool,
}

impl Streams {
    /// The process's standard output and standard error.
    pub fn probe() -> Streams {
        Streams {
            stdout: std::io::stdout().is_terminal(),
            stderr: std::io::stderr().is_terminal(),
        }
    }
}

/// The terminal decisions of one run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Terminal {
    /// The colours of standard output (`plan`, the summary of an apply).
    pub stdout: Palette,
    /// The colours of standard error (`Error:`, live progress).
    pub stderr: Palette,
    /// `--progress auto` draws live lines (see the module docs).
    live_by_default: bool,
}

impl Terminal {
    /// The decisions for `streams`, `--color`/`--no-color` (`choice`) and the environment
    /// (`env`: a variable's value, as `crate::cli::Cli::resolve` reads it).
    pub fn resolve(
        choice: ColorChoice,
        streams: Streams,
        env: impl Fn(&str) -> Option<String>,
    ) -> Terminal {
        let set = |name: &str| env(name).filter(|v| !v.is_empty());
        let term = env("TERM");
        let redraws = term
            .as_deref()
            .is_some_and(|t| !t.is_empty() && t != "dumb");
        let colour = |tty: bool| {
            if choice == ColorChoice::Always {
                true
            } else if set("NO_COLOR").is_some() || choice == ColorChoice::Never {
                false
            } else if set("CLICOLOR_FORCE").is_some_and(|v| v != "0") {
                true
            } else if env("CLICOLOR").as_deref() == Some("0") {
                false
            } else {
                tty && term.as_deref() != Some("dumb")
            }
        };
        Terminal {
            stdout: Palette::new(colour(streams.stdout)),
            stderr: Palette::new(colour(streams.stderr)),
            live_by_default: streams.stderr && redraws && set("CI").is_none(),
        }
    }

    /// Whether progress is drawn live in `mode`.
    pub fn live(&self, mode: ProgressMode) -> bool {
        match mode {
            ProgressMode::Auto => self.live_by_default,
            ProgressMode::Live => true,
            ProgressMode::Plain => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::vars;

    const TTY: Streams = Streams {
        stdout: true,
        stderr: true,
    };
    const PIPE: Streams = Streams {
        stdout: false,
        stderr: false,
    };

    /// An environment: `(variable, value)` pairs.
    type Env<'a> = &'a [(&'a str, &'a str)];

    fn resolve(no_color: bool, streams: Streams, env: Env<'_>) -> Terminal {
        let choice = if no_color {
            ColorChoice::Never
        } else {
            ColorChoice::Auto
        };
        Terminal::resolve(choice, streams, vars(env))
    }

    /// (--no-color, streams, environment) → colour of stdout and stderr.
    #[test]
    fn colour_decision_table() {
        let xterm = ("TERM", "xterm-256color");
        let cases: &[(bool, Streams, Env<'_>, bool)] = &[
            // A terminal is coloured; a pipe or a file never, unless forced.
            (false, TTY, &[xterm], true),
            (false, PIPE, &[xterm], false),
            (false, TTY, &[], true),
            // NO_COLOR: any non-empty value turns colour off, even forced; empty is unset.
            (false, TTY, &[xterm, ("NO_COLOR", "1")], false),
            (false, TTY, &[xterm, ("NO_COLOR", "0")], false),
            (false, TTY, &[xterm, ("NO_COLOR", "")], true),
            (
                false,
                PIPE,
                &[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")],
                false,
            ),
            // --no-color: off, also over CLICOLOR_FORCE.
            (true, TTY, &[xterm], false),
            (true, PIPE, &[("CLICOLOR_FORCE", "1")], false),
            // CLICOLOR_FORCE: non-empty and not "0" colours a pipe.
            (false, PIPE, &[("CLICOLOR_FORCE", "1")], true),
            (false, PIPE, &[("CLICOLOR_FORCE", "yes")], true),
            (false, PIPE, &[("CLICOLOR_FORCE", "0")], false),
            (false, PIPE, &[("CLICOLOR_FORCE", "")], false),
            (
                false,
                TTY,
                &[("TERM", "dumb"), ("CLICOLOR_FORCE", "1")],
                true,
            ),
            // CLICOLOR=0 and a dumb terminal: off.
            (false, TTY, &[xterm, ("CLICOLOR", "0")], false),
            (false, TTY, &[("TERM", "dumb")], false),
        ];
        for (no_color, streams, env, want) in cases {
            let t = resolve(*no_color, *streams, env);
            let got = (t.stdout.is_colour(), t.stderr.is_colour());
            assert_eq!(
                got,
                (*want, *want),
                "--no-color={no_color} {streams:?} {env:?}"
            );
        }
    }

    #[test]
    fn helms_color_flag_never_and_always() {
        let xterm: Env<'_> = &[("TERM", "xterm")];
        let t = Terminal::resolve(ColorChoice::Never, TTY, vars(xterm));
        assert!(!t.stdout.is_colour());
        // `always` colours a pipe, and beats NO_COLOR (a flag overrides the environment).
        let t = Terminal::resolve(ColorChoice::Always, PIPE, vars(&[("NO_COLOR", "1")]));
        assert!(t.stdout.is_colour() && t.stderr.is_colour());
        let t = Terminal::resolve(ColorChoice::Auto, PIPE, vars(xterm));
        assert!(!t.stdout.is_colour());
    }

    #[test]
    fn each_stream_is_decided_on_its_own() {
        let t = resolve(
            false,
            Streams {
                stdout: false,
                stderr: true,
            },
            &[("TERM", "xterm")],
        );
        assert_eq!((t.stdout, t.stderr), (Palette::PLAIN, Palette::ANSI));
    }

    /// (streams, environment) → `--progress auto` live; `live` and `plain` as they say.
    #[test]
    fn live_progress_decision_table() {
        let xterm = ("TERM", "xterm");
        let stderr_only = Streams {
            stdout: false,
            stderr: true,
        };
        let cases: &[(Streams, Env<'_>, bool)] = &[
            (TTY, &[xterm], true),
            (stderr_only, &[xterm], true),
            (PIPE, &[xterm], false),
            (TTY, &[xterm, ("CI", "true")], false),
            (TTY, &[xterm, ("CI", "")], true),
            (TTY, &[("TERM", "dumb")], false),
            (TTY, &[], false),
            // Colour and live progress are separate choices.
            (TTY, &[xterm, ("NO_COLOR", "1")], true),
        ];
        for (streams, env, want) in cases {
            let t = resolve(false, *streams, env);
            assert_eq!(t.live(ProgressMode::Auto), *want, "{streams:?} {env:?}");
            assert!(t.live(ProgressMode::Live));
            assert!(!t.live(ProgressMode::Plain));
        }
    }
}
