//! The exit codes of `kubepkg`, in one enum ([`Exit`]): what each code means is said here
//! once, and `kubepkg --help` ([`help_section`]) and docs/cli.md's table ([`markdown_table`],
//! checked by a test) are made from it. A code is chosen by what happened — how a package run
//! ended ([`Exit::of_reason`]) or the kind of error a command stopped with
//! (`crate::error::CliError::exit`) — never by where an error was converted.

use std::fmt::Write as _;
use std::process::ExitCode;

use kubepkg_package::revision::Reason;

/// How a `kubepkg` run ended, as its process exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// The command did what it was asked (an apply with nothing to change too).
    Succeeded,
    /// An error before anything changed; for the single-release verbs, any failure (as `helm`).
    Failed,
    /// The command line is wrong (clap's usage errors; Helm flags kubepkg refuses).
    Usage,
    /// `RolledBack`: the upgrade failed and was rolled back (`rollback.safe: true`).
    RolledBack,
    /// `UpgradeFailed`: stopped, nothing more changed; fix forward.
    UpgradeFailed,
    /// `InstallFailed`: a first install failed; its state is kept for diagnosis.
    InstallFailed,
    /// `RequirementsNotMet`: required packages were not Ready before the timeout.
    RequirementsNotMet,
    /// `InvalidPackage`: `kubepkg.yaml`, its lock or one of its charts is invalid.
    InvalidPackage,
    /// `UpgradeRefused`: a `PreUpgrade` check hook refused the upgrade.
    UpgradeRefused,
    /// A package verb could not get a chart or package from its chart repository, registry or
    /// Git repository (network, HTTP status, credentials, a missing ref) or it failed its
    /// digest or signature check.
    Unavailable,
}

impl Exit {
    /// Every exit code, in order.
    pub const ALL: [Exit; 10] = [
        Exit::Succeeded,
        Exit::Failed,
        Exit::Usage,
        Exit::RolledBack,
        Exit::UpgradeFailed,
        Exit::InstallFailed,
        Exit::RequirementsNotMet,
        Exit::InvalidPackage,
        Exit::UpgradeRefused,
        Exit::Unavailable,
    ];

    /// The process exit code.
    pub const fn code(self) -> u8 {
        match self {
            Exit::Succeeded => 0,
            Exit::Failed => 1,
            Exit::Usage => 2,
            Exit::RolledBack => 3,
            Exit::UpgradeFailed => 4,
            Exit::InstallFailed => 5,
            Exit::RequirementsNotMet => 6,
            Exit::InvalidPackage => 7,
            Exit::UpgradeRefused => 8,
            Exit::Unavailable => 9,
        }
    }

    /// What the code means, as `kubepkg --help` and docs/cli.md say it.
    pub const fn meaning(self) -> &'static str {
        match self {
            Exit::Succeeded => "succeeded (or nothing to change)",
            Exit::Failed => {
                "error: for package verbs, before anything changed (bad flags or values, refused \
                 rollback, cluster unreachable, package not found); for single-release verbs, \
                 any failure (as helm)"
            }
            Exit::Usage => "command-line usage error",
            Exit::RolledBack => {
                "RolledBack: the upgrade failed and was rolled back (rollback.safe: true)"
            }
            Exit::UpgradeFailed => "UpgradeFailed: stopped, nothing more changed; fix forward",
            Exit::InstallFailed => {
                "InstallFailed: a first install failed; its state is kept for diagnosis"
            }
            Exit::RequirementsNotMet => {
                "RequirementsNotMet: required packages were not Ready before the timeout"
            }
            Exit::InvalidPackage => {
                "InvalidPackage: kubepkg.yaml, its lock or one of its charts is invalid; nothing \
                 applied"
            }
            Exit::UpgradeRefused => {
                "UpgradeRefused: a PreUpgrade check hook refused the upgrade; nothing else changed"
            }
            Exit::Unavailable => {
                "a package verb could not get a chart or package from its chart repository, \
                 registry or Git repository (network, HTTP status, credentials, a missing ref, \
                 digest or signature check)"
            }
        }
    }

    /// The code of a package run that ended with `reason`.
    pub const fn of_reason(reason: Reason) -> Exit {
        match reason {
            Reason::Succeeded => Exit::Succeeded,
            Reason::RolledBack => Exit::RolledBack,
            Reason::UpgradeFailed => Exit::UpgradeFailed,
            Reason::InstallFailed => Exit::InstallFailed,
            Reason::RequirementsNotMet => Exit::RequirementsNotMet,
            Reason::UpgradeRefused => Exit::UpgradeRefused,
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> ExitCode {
        ExitCode::from(e.code())
    }
}

/// The `Exit codes:` section of `kubepkg --help`: a line per code, wrapped at 96 columns.
pub fn help_section() -> String {
    let mut s = String::from("Exit codes:");
    for e in Exit::ALL {
        let _ = write!(s, "\n  {:<2} ", e.code());
        let mut width = 5;
        for (i, word) in e.meaning().split(' ').enumerate() {
            if i > 0 && width + 1 + word.len() > 96 {
                s.push_str("\n     ");
                width = 5;
            } else if i > 0 {
                s.push(' ');
                width += 1;
            }
            s.push_str(word);
            width += word.len();
        }
    }
    s
}

/// docs/cli.md's table of the exit codes (Markdown), which a test holds it to.
#[cfg(test)]
fn markdown_table() -> String {
    let mut s = String::from("| code | meaning |\n|---|---|\n");
    for e in Exit::ALL {
        let _ = writeln!(s, "| {} | {} |", e.code(), e.meaning());
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_distinct_and_in_order() {
        let codes: Vec<u8> = Exit::ALL.iter().map(|e| e.code()).collect();
        assert_eq!(codes, (0..=9).collect::<Vec<u8>>());
    }

    #[test]
    fn package_runs_exit_by_their_reason() {
        let all = [
            Reason::Succeeded,
            Reason::RolledBack,
            Reason::UpgradeFailed,
            Reason::InstallFailed,
            Reason::RequirementsNotMet,
            Reason::UpgradeRefused,
        ];
        let codes: Vec<u8> = all.iter().map(|r| Exit::of_reason(*r).code()).collect();
        assert_eq!(codes, [0, 3, 4, 5, 6, 8]);
        // A waiting state, told apart from every failure by its exit code.
        assert_eq!(Exit::of_reason(Reason::RequirementsNotMet).code(), 6);
    }

    /// docs/cli.md's `## Exit codes` table is this enum's: change both together.
    #[test]
    fn docs_cli_md_lists_these_codes() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/cli.md");
        let doc = std::fs::read_to_string(&path).unwrap();
        let section = doc
            .split_once("## Exit codes\n")
            .map(|(_, rest)| rest)
            .expect("docs/cli.md has a `## Exit codes` section");
        let table: String = section
            .lines()
            .skip_while(|l| !l.starts_with('|'))
            .take_while(|l| l.starts_with('|'))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(
            table,
            markdown_table(),
            "docs/cli.md's exit codes differ from crates/kubepkg/src/exit.rs"
        );
    }

    #[test]
    fn the_help_section_wraps_each_meaning() {
        let help = help_section();
        assert!(help.lines().all(|l| l.len() <= 96), "{help}");
        assert!(
            help.contains("\n  9  a package verb could not get a chart"),
            "{help}"
        );
    }
}
