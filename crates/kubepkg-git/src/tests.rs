//! `kubepkg_git::fetch` against the real `git http-backend` on loopback
//! (`kubepkg_testkit::git_server`): refs of each kind, the cache keyed by commit, the tree id
//! that ignores commits outside the path, and each bad input's message.

use crate::{Auth, Checkout, GitError, GitRef, GitSource, Limits, Options, fetch};
use kubepkg_testkit::charts::web_package;
use kubepkg_testkit::git_server::{GitAuth, GitRepo, GitServer};

fn options(cache: &std::path::Path, auth: Auth) -> Options {
    Options {
        auth,
        tls: Default::default(),
        cache: cache.to_path_buf(),
        limits: Limits::default(),
    }
}

fn source(url: &str, reference: GitRef, path: &str) -> GitSource {
    GitSource::new(url, reference, path).unwrap()
}

/// What `fetch` refuses the package under `path` of `url` at `reference` with.
async fn refused(url: &str, reference: GitRef, path: &str, o: &Options) -> GitError {
    fetch(&source(url, reference, path), o).await.unwrap_err()
}

/// The commit and the reference name a checkout was resolved to.
fn resolved(checkout: &Checkout) -> (&str, &str) {
    (checkout.commit.as_str(), checkout.reference.as_str())
}

/// A git server and one of its repositories, with a first commit, and an empty cache.
struct Served {
    server: GitServer,
    repo: GitRepo,
    /// The first commit on `main`.
    commit: String,
    cache: tempfile::TempDir,
}

/// A git server (asking for `auth`) with the repository `name`, whose first commit on `main`
/// (`message`) puts the web package `name` 1.0.0 under `path` and writes the `extra` files.
fn served(auth: GitAuth, name: &str, path: &str, extra: &[(&str, &str)], message: &str) -> Served {
    served_version(auth, name, "1.0.0", path, extra, message)
}

/// [`served`] with the package at `version`.
fn served_version(
    auth: GitAuth,
    name: &str,
    version: &str,
    path: &str,
    extra: &[(&str, &str)],
    message: &str,
) -> Served {
    let server = GitServer::start(auth).unwrap();
    let repo = server.repo(name).unwrap();
    let pkg = tempfile::tempdir().unwrap();
    web_package(pkg.path(), name, version);
    let commit = repo
        .commit("main", path, Some(pkg.path()), extra, message)
        .unwrap();
    Served {
        server,
        repo,
        commit,
        cache: tempfile::tempdir().unwrap(),
    }
}

#[tokio::test]
async fn refs_resolve_to_commits_and_the_tree_id_follows_the_path_only() {
    let Served {
        server,
        repo,
        commit: c1,
        cache,
    } = served(GitAuth::None, "shop", "deploy/shop", &[], "1.0.0");
    repo.tag("main", "v1.0.0", true).unwrap();
    let pkg = tempfile::tempdir().unwrap();
    web_package(pkg.path(), "shop", "1.1.0");
    let c2 = repo
        .commit("main", "deploy/shop", Some(pkg.path()), &[], "1.1.0")
        .unwrap();
    repo.tag("main", "v1.1.0", false).unwrap();
    let c3 = repo
        .commit("main", "", None, &[("README.md", "unrelated\n")], "docs")
        .unwrap();
    repo.tag("main", "v2.0.0-rc.1", false).unwrap();
    let o = options(cache.path(), Auth::None);
    let url = server.url("shop");
    let shop = |reference: GitRef| source(&url, reference, "deploy/shop");

    let main = fetch(&shop(GitRef::Branch("main".into())), &o)
        .await
        .unwrap();
    assert_eq!(main.commit, c3);
    assert_eq!(main.reference, "main");
    let manifest = std::fs::read_to_string(main.dir.join("kubepkg.yaml")).unwrap();
    assert!(manifest.contains("version: 1.1.0"), "{manifest}");
    assert!(main.dir.join("web/templates/deployment.yaml").is_file());

    // The unrelated commit c3 leaves the tree under the path as c2 had it.
    let at_c2 = fetch(&shop(GitRef::Commit(c2.clone())), &o).await.unwrap();
    assert_eq!(at_c2.tree, main.tree);
    let v1 = fetch(&shop(GitRef::Tag("v1.0.0".into())), &o)
        .await
        .unwrap();
    assert_eq!(resolved(&v1), (c1.as_str(), "v1.0.0"));
    assert_ne!(v1.tree, main.tree);

    // The newest tag matching; a prerelease only when the constraint names one.
    let newest = fetch(&shop(GitRef::Semver(">=1.0.0 <2".into())), &o)
        .await
        .unwrap();
    assert_eq!(resolved(&newest), (c2.as_str(), "v1.1.0"));
    let by_name = fetch(&shop(GitRef::Name("v1.0.0".into())), &o)
        .await
        .unwrap();
    assert_eq!(by_name.commit, c1);
    let default = fetch(&shop(GitRef::Default), &o).await.unwrap();
    assert_eq!(default.commit, c3);

    // A commit fetched before comes from the cache: no request at all.
    let before = server.requests();
    let again = fetch(&shop(GitRef::Commit(c1.clone())), &o).await.unwrap();
    assert_eq!(again.dir, v1.dir);
    assert_eq!(server.requests(), before);
}

#[tokio::test]
async fn git_file_urls_read_a_local_repository() {
    let Served {
        repo,
        commit: c,
        cache,
        server: _server,
    } = served_version(GitAuth::None, "local", "3.0.0", "", &[], "3.0.0");
    let text = format!("git+file://{}?ref=main", repo.bare().display());
    let got = fetch(
        &GitSource::parse(&text).unwrap(),
        &options(cache.path(), Auth::None),
    )
    .await
    .unwrap();
    assert_eq!(got.commit, c);
    assert!(got.dir.join("kubepkg.yaml").is_file());
}

#[tokio::test]
async fn credentials_are_sent_and_missing_or_wrong_ones_are_named() {
    let auth = GitAuth::Basic("alice".into(), "s3cret".into());
    let Served {
        server,
        commit: c,
        cache,
        repo: _repo,
    } = served(auth, "private", "pkg", &[], "1");
    let s = source(&server.url("private"), GitRef::Branch("main".into()), "pkg");
    let good = Auth::Basic {
        username: "alice".into(),
        password: "s3cret".into(),
    };
    assert_eq!(
        fetch(&s, &options(cache.path(), good))
            .await
            .unwrap()
            .commit,
        c
    );

    let none = fetch(&s, &options(cache.path(), Auth::None))
        .await
        .unwrap_err();
    assert!(
        matches!(none, GitError::CredentialsNeeded { .. }),
        "{none:?}"
    );
    assert!(none.to_string().contains("needs credentials"), "{none}");
    let wrong = Auth::Basic {
        username: "alice".into(),
        password: "nope".into(),
    };
    let e = fetch(&s, &options(cache.path(), wrong)).await.unwrap_err();
    assert!(matches!(e, GitError::CredentialsRejected { .. }), "{e:?}");
    let text = e.to_string();
    assert!(
        text.contains(&server.url("private")) && text.contains("refused the credentials"),
        "{text}"
    );
    assert!(!text.contains("nope"), "{text}");
}

#[tokio::test]
async fn bearer_tokens_are_sent_as_authorization() {
    let Served {
        server,
        commit: c,
        cache,
        repo: _repo,
    } = served(GitAuth::Bearer("tok-123".into()), "token", "", &[], "1");
    let s = source(&server.url("token"), GitRef::Default, "");
    let got = fetch(&s, &options(cache.path(), Auth::Bearer("tok-123".into())))
        .await
        .unwrap();
    assert_eq!(got.commit, c);
    let e = fetch(&s, &options(cache.path(), Auth::Bearer("wrong".into())))
        .await
        .unwrap_err();
    assert!(matches!(e, GitError::CredentialsRejected { .. }), "{e:?}");
}

#[tokio::test]
async fn bad_refs_paths_and_hosts_are_named_with_what_to_do() {
    let Served {
        server,
        repo,
        cache,
        commit: _commit,
    } = served(GitAuth::None, "bad", "pkg", &[("docs/x.md", "x")], "1");
    repo.tag("main", "v1.0.0", false).unwrap();
    let o = options(cache.path(), Auth::None);
    let url = server.url("bad");

    let e = refused(&url, GitRef::Branch("mian".into()), "pkg", &o).await;
    let text = e.to_string();
    assert!(matches!(e, GitError::RefNotFound { .. }), "{e:?}");
    assert!(
        text.contains("no branch mian") && text.contains("its branches: main"),
        "{text}"
    );
    let e = refused(&url, GitRef::Semver(">=2".into()), "pkg", &o).await;
    assert!(e.to_string().contains("its tags: v1.0.0"), "{e}");

    let e = refused(&url, GitRef::Default, "nowhere", &o).await;
    assert!(matches!(e, GitError::PathNotFound { .. }), "{e:?}");
    let e = refused(&url, GitRef::Default, "docs", &o).await;
    assert!(matches!(e, GitError::NotAPackage { .. }), "{e:?}");
    assert!(
        e.to_string().contains("directory \"docs\"") && e.to_string().contains("no kubepkg.yaml"),
        "{e}"
    );

    let e = refused(&server.url("missing"), GitRef::Default, "", &o).await;
    assert!(matches!(e, GitError::RepositoryNotFound { .. }), "{e:?}");
    assert!(
        e.to_string().contains("missing.git") && e.to_string().contains("check the URL"),
        "{e}"
    );

    // A port nothing listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let s = source(
        &format!("http://127.0.0.1:{closed}/r.git"),
        GitRef::Default,
        "",
    );
    let e = fetch(&s, &o).await.unwrap_err();
    assert!(matches!(e, GitError::Unreachable { .. }), "{e:?}");
    assert!(e.to_string().contains("cannot reach the repository"), "{e}");
}

#[tokio::test]
async fn a_package_larger_than_the_limit_is_refused_and_nothing_is_cached() {
    let blob: String = (0..20_000u32)
        .map(|i| format!("{:x}", i.wrapping_mul(2_654_435_761)))
        .collect();
    let Served {
        server,
        cache,
        repo: _repo,
        commit: _commit,
    } = served(GitAuth::None, "big", "", &[("web/files.txt", &blob)], "big");
    let mut o = options(cache.path(), Auth::None);
    o.limits.max_bytes = 10_000;
    let e = fetch(&source(&server.url("big"), GitRef::Default, ""), &o)
        .await
        .unwrap_err();
    assert!(matches!(e, GitError::TooLarge { .. }), "{e:?}");
    assert!(e.to_string().contains("KUBEPKG_GIT_MAX_BYTES"), "{e}");
    let checkouts = cache.path().join("git/checkouts");
    assert!(std::fs::read_dir(&checkouts).map_or(true, |mut d| d.next().is_none()));
}

#[tokio::test]
async fn ssh_urls_use_the_identity_and_known_hosts_and_a_wrong_key_or_host_is_named() {
    use kubepkg_testkit::git_server::SshServer;
    let Served {
        repo,
        commit: c,
        cache,
        server: _server,
    } = served(GitAuth::None, "viassh", "pkg", &[], "1");
    let sshd = SshServer::start().unwrap();
    let s = source(&sshd.url(repo.bare()), GitRef::Branch("main".into()), "pkg");
    let ssh = |identity: String, known_hosts: String| {
        options(
            cache.path(),
            Auth::Ssh {
                identity,
                known_hosts,
            },
        )
    };
    let got = fetch(&s, &ssh(sshd.client_key(), sshd.known_hosts()))
        .await
        .unwrap();
    assert_eq!(got.commit, c);
    assert!(got.dir.join("kubepkg.yaml").is_file());

    let e = fetch(&s, &ssh(sshd.stranger_key().unwrap(), sshd.known_hosts()))
        .await
        .unwrap_err();
    assert!(matches!(e, GitError::CredentialsRejected { .. }), "{e:?}");
    let e = fetch(&s, &ssh(sshd.client_key(), String::new()))
        .await
        .unwrap_err();
    assert!(matches!(e, GitError::HostKeyRejected { .. }), "{e:?}");
    assert!(e.to_string().contains("known_hosts"), "{e}");
    let basic = Auth::Basic {
        username: "u".into(),
        password: "p".into(),
    };
    let e = fetch(&s, &options(cache.path(), basic)).await.unwrap_err();
    assert!(
        e.to_string().contains("an ssh:// URL takes an SSH key"),
        "{e}"
    );
}
