//! The walk of a chart directory (`kubepkg_chart::chart::dir_files`), as Helm's directory loader
//! walks it: symbolic links to files and to directories are followed (Helm's `sympath.Walk`),
//! `.helmignore` rules leave files and whole directories out, a file that is not a regular file
//! (here a named pipe) fails the load with Helm's message unless it is ignored, and the load
//! never blocks on it. Each file's bytes are its own (read in full, a byte order mark stripped
//! where the loader strips it). An umbrella's subcharts are read spread over the cores, and
//! still come in the walk's order; of two broken subcharts the first in name order is named.

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

/// An umbrella of `n` subchart directories `svc00`.., each with a few files.
fn umbrella(root: &Path, n: usize) {
    write(
        root,
        "Chart.yaml",
        b"apiVersion: v2\nname: top\nversion: 1.0.0\n",
    );
    write(root, "values.yaml", b"a: 1\n");
    for i in 0..n {
        let s = format!("charts/svc{i:02}");
        write(
            root,
            &format!("{s}/Chart.yaml"),
            format!("apiVersion: v2\nname: svc{i:02}\nversion: 0.1.0\n").as_bytes(),
        );
        write(
            root,
            &format!("{s}/values.yaml"),
            format!("port: {i}\n").as_bytes(),
        );
        write(root, &format!("{s}/templates/a.yaml"), b"kind: A\n");
        write(
            root,
            &format!("{s}/templates/z/b.yaml"),
            format!("kind: B{i}\n").as_bytes(),
        );
    }
}

/// The walk Helm's loader makes, written plainly: each directory's entries in name order.
fn walk_in_order(dir: &Path, rel: &str, out: &mut Vec<String>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let n = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        if e.file_type().unwrap().is_dir() {
            walk_in_order(&e.path(), &n, out);
        } else {
            out.push(n);
        }
    }
}

#[test]
fn an_umbrellas_files_come_in_the_walks_order_however_they_are_read() {
    // Enough subcharts that `charts/` is read spread over the cores.
    let tmp = tempfile::tempdir().unwrap();
    umbrella(tmp.path(), 24);
    let mut want = Vec::new();
    walk_in_order(tmp.path(), "", &mut want);
    for _ in 0..10 {
        let files = dir_files(tmp.path()).unwrap_or_else(|e| panic!("{e}"));
        let got: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(got, want);
        let b7 = files
            .iter()
            .find(|f| f.name == "charts/svc07/templates/z/b.yaml")
            .unwrap();
        assert_eq!(b7.data.bytes().as_ref(), b"kind: B7\n");
    }
}

#[test]
fn of_two_broken_subcharts_the_first_in_name_order_is_named() {
    // Helm ranges over a Go map here and names either at random; kubepkg always the first.
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    umbrella(root, 16);
    write(root, "charts/svc04/values.yaml", b"port: [80\n");
    write(root, "charts/svc11/values.yaml", b"port: 80\n  bad: x\n");
    for _ in 0..10 {
        let err = kubepkg_chart::chart::load(root).expect_err("two subcharts are broken");
        assert!(
            err.to_string()
                .contains("error unpacking subchart svc04 in top: cannot load values.yaml"),
            "{err}"
        );
    }
    // Files that cannot be read, the walk's own errors: the first in the walk's order.
    let first = root.join("charts/svc05/templates/pipe");
    mkfifo(&first);
    mkfifo(&root.join("charts/svc13/templates/pipe"));
    for _ in 0..10 {
        let err = dir_files(root).expect_err("two named pipes");
        assert_eq!(
            err.to_string(),
            format!(
                "cannot load irregular file {} as it has file mode type bits set",
                std::path::absolute(&first).unwrap().display()
            )
        );
    }
}
