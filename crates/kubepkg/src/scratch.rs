//! Scratch directories: where a command extracts a package archive, vendors charts or keeps a
//! plan's chart cache while it runs.
//!
//! Each is `kubepkg-<pid>-<nanoseconds>` under the system's temporary directory, holds an
//! exclusive lock on a file inside it for as long as its process has it open, and is removed
//! when dropped. A process that is killed (SIGKILL, the OOM killer, a CI job's timeout) runs no
//! destructor and leaves its directory behind; the next kubepkg that makes one removes every
//! directory of that name whose lock nobody holds any more (the kernel releases a lock when its
//! holder dies, in whatever PID namespace it ran). Directories of other users, and those too
//! young to have taken their lock yet, are left alone.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The file whose lock says that a directory's process is alive.
const LOCK_FILE: &str = ".kubepkg-scratch.lock";

/// How old an unlocked directory must be to be removed: a new one is unlocked only between
/// its creation and its lock, microseconds apart.
const UNLOCKED_GRACE: Duration = Duration::from_secs(60);

/// How old a directory without a lock file must be to be removed (made by a kubepkg that
/// locked none, or killed between creating it and its lock file).
const NO_LOCK_FILE_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// A scratch directory of this process, removed on drop.
#[derive(Debug)]
pub struct Scratch {
    path: PathBuf,
    /// Held open (and locked) until the directory is removed.
    _lock: File,
}

impl Scratch {
    /// A new scratch directory under the system's temporary directory, after removing the ones
    /// that killed processes left there.
    pub fn new() -> std::io::Result<Scratch> {
        Scratch::new_in(&std::env::temp_dir())
    }

    fn new_in(parent: &Path) -> std::io::Result<Scratch> {
        sweep(parent, SystemTime::now());
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let path = parent.join(format!("kubepkg-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&path)?;
        let lock = File::create(path.join(LOCK_FILE))?;
        lock.lock()?;
        Ok(Scratch { path, _lock: lock })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Whether `name` is a scratch directory's: `kubepkg-<pid>-<nanoseconds>`, or the
/// `kubepkg-push-<pid>-<nanoseconds>` and `kubepkg-pack-<pid>` of earlier versions.
fn is_scratch_name(name: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let Some(rest) = name.strip_prefix("kubepkg-") else {
        return false;
    };
    if let Some(pid) = rest.strip_prefix("pack-") {
        return digits(pid);
    }
    let rest = rest.strip_prefix("push-").unwrap_or(rest);
    rest.split_once('-')
        .is_some_and(|(pid, nanos)| digits(pid) && digits(nanos))
}

/// Removes the scratch directories under `parent` that no live process holds (see the
/// module's documentation). Whatever cannot be read or removed is left as it is.
fn sweep(parent: &Path, now: SystemTime) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        if !entry.file_name().to_str().is_some_and(is_scratch_name) {
            continue;
        }
        let path = entry.path();
        // Never through a symbolic link.
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if !meta.is_dir() {
            continue;
        }
        let age = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .unwrap_or_default();
        let abandoned = match File::open(path.join(LOCK_FILE)) {
            Ok(lock) => age >= UNLOCKED_GRACE && lock.try_lock().is_ok(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => age >= NO_LOCK_FILE_AGE,
            Err(_) => false,
        };
        if abandoned {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sets a directory's modification time `ago` before now.
    fn age(dir: &Path, ago: Duration) {
        File::open(dir)
            .and_then(|d| d.set_modified(SystemTime::now() - ago))
            .expect("the directory's time is set");
    }

    #[test]
    fn scratch_names_are_recognised() {
        for name in [
            "kubepkg-12-1796600763269086799",
            "kubepkg-push-12-34",
            "kubepkg-pack-12",
        ] {
            assert!(is_scratch_name(name), "{name}");
        }
        for name in [
            "kubepkg-controller",
            "kubepkg-helm-cache",
            "kubepkg-12",
            "kubepkg-12-",
            "kubepkg-a-1",
            "kubepkg-push-12",
            "other-12-34",
        ] {
            assert!(!is_scratch_name(name), "{name}");
        }
    }

    #[test]
    fn a_killed_process_directory_is_removed_and_a_live_ones_kept() {
        let tmp = tempfile::tempdir().expect("a temporary directory");
        // A live process's directory: another open file description holds its lock.
        let live = Scratch::new_in(tmp.path()).expect("a scratch directory");
        age(live.path(), Duration::from_secs(3600));
        // A killed process's: its lock file is there, unlocked (the kernel released it).
        let killed = tmp.path().join("kubepkg-4000000-1");
        std::fs::create_dir(&killed).unwrap();
        std::fs::write(killed.join(LOCK_FILE), b"").unwrap();
        std::fs::write(killed.join("chart.tgz"), b"bytes").unwrap();
        age(&killed, Duration::from_secs(3600));
        // One that has just been made and not locked yet.
        let young = tmp.path().join("kubepkg-4000001-2");
        std::fs::create_dir(&young).unwrap();
        std::fs::write(young.join(LOCK_FILE), b"").unwrap();
        // An earlier version's, without a lock file: removed only when a day old.
        let old_push = tmp.path().join("kubepkg-push-4000002-3");
        std::fs::create_dir(&old_push).unwrap();
        age(&old_push, Duration::from_secs(2 * 24 * 3600));
        let recent_push = tmp.path().join("kubepkg-push-4000003-4");
        std::fs::create_dir(&recent_push).unwrap();
        age(&recent_push, Duration::from_secs(3600));
        // Not a scratch directory at all.
        let other = tmp.path().join("kubepkg-helm-cache");
        std::fs::create_dir(&other).unwrap();
        age(&other, Duration::from_secs(2 * 24 * 3600));

        let next = Scratch::new_in(tmp.path()).expect("a second scratch directory");
        assert!(
            !killed.exists(),
            "the killed process's directory is removed"
        );
        assert!(
            !old_push.exists(),
            "a day-old directory without a lock is removed"
        );
        for kept in [live.path(), next.path(), &young, &recent_push, &other] {
            assert!(kept.exists(), "{} is kept", kept.display());
        }
        let (a, b) = (live.path().to_path_buf(), next.path().to_path_buf());
        drop(live);
        drop(next);
        assert!(
            !a.exists() && !b.exists(),
            "dropped directories are removed"
        );
    }
}
