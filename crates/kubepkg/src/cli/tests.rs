//! The command line's parsing: Helm's forms, durations, the flags of every verb, and the
//! settings they resolve to.

use super::*;
use crate::settings::Settings;
use crate::terminal::{ColorChoice, ProgressMode};
use kubepkg_release::DriverKind;

#[test]
fn helms_package_dir_is_package_pack() {
    let args = |line: &str| -> Vec<String> {
        from_helms_forms(line.split(' ').map(Into::into).collect())
            .into_iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    };
    assert_eq!(
        args("kubepkg package ./chart"),
        ["kubepkg", "package", "pack", "./chart"]
    );
    assert_eq!(
        args("kubepkg pkg ./chart -d out"),
        ["kubepkg", "pkg", "pack", "./chart", "-d", "out"]
    );
    // A misspelt verb stays, for clap's suggestion.
    assert_eq!(
        args("kubepkg package hisory x"),
        ["kubepkg", "package", "hisory", "x"]
    );
    assert_eq!(
        args("kubepkg package status x"),
        ["kubepkg", "package", "status", "x"]
    );
    assert_eq!(
        args("kubepkg package pack c"),
        ["kubepkg", "package", "pack", "c"]
    );
    assert_eq!(
        args("kubepkg package --help"),
        ["kubepkg", "package", "--help"]
    );
    assert_eq!(
        args("kubepkg -n x package ./c"),
        ["kubepkg", "package", "pack", "-n", "x", "./c"]
    );
    assert_eq!(
        args("kubepkg template package"),
        ["kubepkg", "template", "package"]
    );
}

#[test]
fn global_flags_before_the_verb_move_after_it() {
    let moved = |args: &[&str]| -> Vec<String> {
        with_global_flags_after_the_verb(args.iter().map(Into::into).collect())
            .into_iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    };
    assert_eq!(
        moved(&["kubepkg", "--kubeconfig", "k", "-n", "shop", "list", "-A"]),
        ["kubepkg", "list", "--kubeconfig", "k", "-n", "shop", "-A"]
    );
    assert_eq!(
        moved(&["kubepkg", "--namespace=shop", "package", "status", "web"]),
        ["kubepkg", "package", "status", "--namespace=shop", "web"]
    );
    assert_eq!(
        moved(&["kubepkg", "list", "-n", "x"]),
        ["kubepkg", "list", "-n", "x"],
        "after the verb: unchanged"
    );
    // Parsed as the verb's own flags.
    let cli = Cli::try_parse_from(with_global_flags_after_the_verb(
        ["kubepkg", "--kube-context", "c", "status", "web"]
            .iter()
            .map(Into::into)
            .collect(),
    ))
    .unwrap();
    let Command::Status(q) = cli.command else {
        unreachable!()
    };
    assert_eq!(q.query.cluster.kube_context.as_deref(), Some("c"));
}

#[test]
fn durations_are_gos() {
    assert_eq!(go_duration("5m0s"), Ok(Duration::from_secs(300)));
    assert_eq!(go_duration("1.5h"), Ok(Duration::from_secs(5400)));
    assert_eq!(go_duration("300ms"), Ok(Duration::from_millis(300)));
    assert_eq!(go_duration("0"), Ok(Duration::ZERO));
    assert_eq!(go_duration("-1s"), Ok(Duration::ZERO));
    assert_eq!(
        go_duration("5x").unwrap_err(),
        r#"time: unknown unit "x" in duration "5x""#
    );
    assert_eq!(
        go_duration("10").unwrap_err(),
        r#"time: missing unit in duration "10""#
    );
    assert_eq!(go_duration("").unwrap_err(), r#"time: invalid duration """#);
}

#[test]
fn every_timeout_flag_reads_go_durations() {
    let parse =
        |args: &[&str]| Cli::try_parse_from(std::iter::once("kubepkg").chain(args.iter().copied()));
    let Command::Install(i) = parse(&["install", "a", "c", "--timeout", "90s"])
        .unwrap()
        .command
    else {
        unreachable!()
    };
    assert_eq!(i.op.timeout, Duration::from_secs(90));
    let Command::Apply(a) = parse(&["apply", "p", "dir"]).unwrap().command else {
        unreachable!()
    };
    assert_eq!(
        (a.timeout, a.requirements_timeout),
        (Duration::from_secs(600), None)
    );
    let err = parse(&["rollback", "a", "--timeout", "soon"])
        .unwrap_err()
        .to_string();
    assert!(err.contains(r#"time: invalid duration "soon""#), "{err}");
}

/// `--no-color` on every verb, before or after it; `--progress` on the verbs that print
/// progress, `auto` by default.
#[test]
fn flags_parse_where_they_belong() {
    let parse = |args: &[&str]| {
        let argv = std::iter::once("kubepkg").chain(args.iter().copied());
        Cli::try_parse_from(with_global_flags_after_the_verb(
            argv.map(Into::into).collect(),
        ))
        .unwrap()
    };
    assert!(parse(&["--no-color", "plan", "p", "d"]).terminal.no_color);
    assert!(parse(&["plan", "p", "d", "--no-color"]).terminal.no_color);
    assert!(parse(&["-n", "x", "--no-color", "list"]).terminal.no_color);
    assert!(!parse(&["list"]).terminal.no_color);
    assert_eq!(
        parse(&["list", "--color", "always"]).terminal.choice(),
        ColorChoice::Always
    );
    assert_eq!(
        parse(&["--colour=never", "list"]).terminal.choice(),
        ColorChoice::Never
    );
    assert_eq!(
        parse(&["list", "--no-color", "--color", "always"])
            .terminal
            .choice(),
        ColorChoice::Never
    );
    let Command::Apply(a) = parse(&["apply", "p", "d"]).command else {
        unreachable!()
    };
    assert_eq!(a.progress.progress, ProgressMode::Auto);
    let Command::Apply(a) = parse(&["apply", "p", "d", "--progress", "plain"]).command else {
        unreachable!()
    };
    assert_eq!(a.progress.progress, ProgressMode::Plain);
    let Command::Upgrade(u) = parse(&["upgrade", "a", "c", "--progress=live"]).command else {
        unreachable!()
    };
    assert_eq!(u.common.op.progress.progress, ProgressMode::Live);
    let Command::Uninstall(u) = parse(&["uninstall", "a", "--progress", "plain"]).command else {
        unreachable!()
    };
    assert_eq!(u.change.op.progress.progress, ProgressMode::Plain);
    let Command::Package(PackageCommand::Rollback(r)) =
        parse(&["package", "rollback", "a", "--progress", "live"]).command
    else {
        unreachable!()
    };
    assert_eq!(r.progress.progress, ProgressMode::Live);
    let bad = Cli::try_parse_from(["kubepkg", "apply", "p", "d", "--progress", "fancy"]);
    assert!(
        bad.unwrap_err()
            .to_string()
            .contains("possible values: auto, live, plain")
    );
}

fn settings(args: &[&str], env: &[(&str, &str)]) -> Settings {
    let cli = Cli::parse_from(std::iter::once("kubepkg").chain(args.iter().copied()));
    cli.resolve(|name| {
        env.iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.to_string())
    })
}

#[test]
fn flags_win_over_helms_environment() {
    let env = [
        ("HELM_NAMESPACE", "from-env"),
        ("HELM_KUBECONTEXT", "ctx-env"),
        ("HELM_DRIVER", "configmap"),
    ];
    let s = settings(&["list", "-n", "flag", "--kube-context", "ctx"], &env);
    assert_eq!(s.namespace.as_deref(), Some("flag"));
    assert_eq!(s.kube_context.as_deref(), Some("ctx"));
    assert_eq!(s.driver().unwrap(), DriverKind::ConfigMap);
    let s = settings(&["status", "web", "--no-wait-lock"], &env);
    assert_eq!(s.namespace.as_deref(), Some("from-env"));
    assert_eq!(s.kube_context.as_deref(), Some("ctx-env"));
    assert!(!s.wait_lock);
}

#[test]
fn offline_verbs_default_to_the_default_namespace() {
    let s = settings(&["template", "chart"], &[("HELM_NAMESPACE", "")]);
    assert_eq!(s.offline_namespace(), "default");
    let s = settings(&["template", "chart"], &[("HELM_NAMESPACE", "ns")]);
    assert_eq!(s.offline_namespace(), "ns");
    let s = settings(&["plan", "p", "dir", "-n", "x"], &[]);
    assert_eq!(s.offline_namespace(), "x");
    assert!(s.wait_lock);
}

#[test]
fn helm_debug_is_read_as_go_reads_a_bool() {
    assert!(!settings(&["version"], &[]).debug);
    assert!(settings(&["version", "--debug"], &[]).debug);
    assert!(settings(&["--debug", "list"], &[]).debug);
    for (value, on) in [
        ("true", true),
        ("1", true),
        ("T", true),
        ("false", false),
        ("yes", false),
        ("", false),
    ] {
        assert_eq!(
            settings(&["list"], &[("HELM_DEBUG", value)]).debug,
            on,
            "{value}"
        );
    }
}

#[test]
fn an_unknown_driver_fails_only_where_storage_is_used() {
    let s = settings(&["version"], &[("HELM_DRIVER", "sql")]);
    assert_eq!(
        s.driver().unwrap_err().to_string(),
        r#"HELM_DRIVER="sql" is not supported by kubepkg (use secret, configmap or memory)"#
    );
}

#[test]
fn the_verbs_on_one_thread_are_known_before_the_parse() {
    let words =
        |line: &str| -> Vec<std::ffi::OsString> { line.split(' ').map(Into::into).collect() };
    // Every verb that parses with one of these argument lists: the words before the parse say
    // what the parsed command says (a verb missing from either list fails here).
    let tails: [&[&str]; 6] = [
        &[],
        &["x"],
        &["./c"],
        &["x", "./c"],
        &["bash"],
        &["chart", "./c"],
    ];
    let mut checked = Vec::new();
    for verb in <Cli as clap::CommandFactory>::command().get_subcommands() {
        let name = verb.get_name().to_string();
        for tail in tails {
            let line = std::iter::once("kubepkg")
                .chain(std::iter::once(name.as_str()))
                .chain(tail.iter().copied())
                .collect::<Vec<_>>()
                .join(" ");
            let Ok(cli) = Cli::try_parse_from(from_helms_forms(words(&line))) else {
                continue;
            };
            assert_eq!(
                verb_runs_on_one_thread(&words(&line)),
                cli.command.runs_on_one_thread(),
                "`{line}`: the verb's words and the parsed command disagree"
            );
            checked.push(name.clone());
            break;
        }
    }
    for verb in ONE_THREAD_VERBS {
        assert!(
            checked.iter().any(|c| c == verb),
            "{verb} was checked: {checked:?}"
        );
    }
    assert!(
        checked.len() > ONE_THREAD_VERBS.len(),
        "other verbs checked too: {checked:?}"
    );
    // Helm's global flags before the verb are skipped, with their values.
    assert!(verb_runs_on_one_thread(&words(
        "kubepkg -n team-a template x ./c"
    )));
    assert!(verb_runs_on_one_thread(&words(
        "kubepkg --kube-context=k lint ./c"
    )));
    assert!(!verb_runs_on_one_thread(&words(
        "kubepkg -n template apply ./c"
    )));
    assert!(!verb_runs_on_one_thread(&words("kubepkg apply template")));
    assert!(!verb_runs_on_one_thread(&words("kubepkg")));
}
