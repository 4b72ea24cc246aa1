//! The walk of a chart directory (`kubepkg_chart::chart::dir_files`), as Helm's directory loader
//! walks it: symbolic links to files and to directories are followed (Helm's `sympath.Walk`),
//! `.helmignore` rules leave files and whole directories out, a file that is not a regular file
//! (here a named pipe) fails the load with Helm's message unless it is ignored, and the load
//! never blocks on it. Each file's bytes are its own (read in full, a byte order mark stripped
//! where the loader strips it).

use kubepkg_chart::chart::dir_files;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Command;

fn write(root: &Path, name: &str, text: &[u8]) {
    let path = root.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn names(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = dir_files(dir)
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .map(|f| {
            let bytes = f.data.bytes().to_vec();
            (f.name, bytes)
        })
        .collect();
    files.sort();
    files
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}

#[test]
fn links_are_followed_and_ignored_paths_left_out() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("app");
    write(
        &root,
        "Chart.yaml",
        b"apiVersion: v2\nname: app\nversion: 1.0.0\n",
    );
    write(&root, ".helmignore", b"# comment\n*.txt\ndocs/\n/top.md\n");
    write(&root, "templates/cm.yaml", b"\xEF\xBB\xBFkind: ConfigMap\n");
    write(&root, "notes.txt", b"left out by *.txt\n");
    write(
        &root,
        "sub/notes.txt",
        b"left out by *.txt in any directory\n",
    );
    write(&root, "docs/guide.md", b"left out with its directory\n");
    write(&root, "top.md", b"left out: anchored\n");
    write(
        &root,
        "sub/top.md",
        b"kept: the anchored rule is for the root only\n",
    );
    // Outside the chart, reached through links.
    write(tmp.path(), "shared/svc.yaml", b"kind: Service\n");
    write(tmp.path(), "shared-dir/a.yaml", b"kind: Secret\n");
    symlink(
        tmp.path().join("shared/svc.yaml"),
        root.join("templates/svc.yaml"),
    )
    .unwrap();
    symlink(tmp.path().join("shared-dir"), root.join("templates/linked")).unwrap();

    let files = names(&root);
    let got: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    assert_eq!(
        got,
        [
            (
                ".helmignore",
                b"# comment\n*.txt\ndocs/\n/top.md\n".as_slice()
            ),
            ("Chart.yaml", b"apiVersion: v2\nname: app\nversion: 1.0.0\n"),
            (
                "sub/top.md",
                b"kept: the anchored rule is for the root only\n"
            ),
            ("templates/cm.yaml", b"kind: ConfigMap\n"),
            ("templates/linked/a.yaml", b"kind: Secret\n"),
            ("templates/svc.yaml", b"kind: Service\n"),
        ]
    );
}

#[test]
fn a_named_pipe_fails_the_load_with_helms_message_unless_ignored() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(
        root,
        "Chart.yaml",
        b"apiVersion: v2\nname: app\nversion: 1.0.0\n",
    );
    write(root, "templates/cm.yaml", b"kind: ConfigMap\n");
    let pipe = root.join("templates/pipe");
    mkfifo(&pipe);
    // Nothing writes to the pipe: opening it would block, so a load that returns did not.
    let err = dir_files(root).expect_err("a named pipe is not a chart file");
    assert_eq!(
        err.to_string(),
        format!(
            "cannot load irregular file {} as it has file mode type bits set",
            std::path::absolute(&pipe).unwrap().display()
        )
    );

    write(root, ".helmignore", b"pipe\n");
    let files = names(root);
    assert!(
        files.iter().all(|(n, _)| n != "templates/pipe"),
        "{files:?}"
    );
    assert!(files.iter().any(|(n, _)| n == "templates/cm.yaml"));
}
