//! Which process holds a Lease, and whether it still runs.
//!
//! A holder writes, next to its `holderIdentity`, where its process lives: the kernel's boot id,
//! its PID namespace, its process id and the process start time (clock ticks after boot, from
//! `/proc/<pid>/stat`). A later contender in the *same* boot and PID namespace can then tell
//! for certain that the holder is gone (no such process, a zombie, or the pid reused by a
//! process that started at another time) and take the Lease over at once instead of waiting
//! for it to expire. Anywhere else (another host, container or boot, no `/proc`, a process it
//! may not inspect) the answer is [`Liveness::Unknown`] and only expiry frees the Lease.

/// Lease annotation: `<holderIdentity> boot=<id> pidns=<inode> pid=<pid> start=<ticks>`. The
/// holder identity is repeated so a record left by an earlier holder never vouches for a newer one.
pub const ANNOTATION: &str = "kubepkg.dev/holder-process";

/// Where a holder process runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HolderProcess {
    /// `/proc/sys/kernel/random/boot_id`: differs on every host and every boot.
    pub boot_id: String,
    /// The target of `/proc/self/ns/pid` (`pid:[4026531836]`): process ids are only
    /// comparable inside one PID namespace.
    pub pid_namespace: String,
    pub pid: u32,
    /// Start time of the process in clock ticks after boot (field 22 of `/proc/<pid>/stat`).
    pub start_ticks: u64,
}

/// What a contender can tell about a holder process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Liveness {
    /// The process runs.
    Alive,
    /// The process is certainly gone: the Lease may be taken over at once.
    Gone,
    /// Cannot tell from here: wait for the Lease to expire.
    Unknown,
}

/// State and start time of `pid` from `/proc/<pid>/stat`.
fn stat(pid: u32) -> std::io::Result<(char, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // `pid (comm) state ...`: comm may hold spaces and parentheses, so split after the last ')'.
    let bad = || std::io::Error::new(std::io::ErrorKind::InvalidData, "unexpected /proc stat");
    let rest = &text[text.rfind(')').ok_or_else(bad)? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let state = fields
        .first()
        .and_then(|s| s.chars().next())
        .ok_or_else(bad)?;
    // Fields after comm start at field 3 (state); starttime is field 22.
    let start = fields
        .get(22 - 3)
        .and_then(|s| s.parse().ok())
        .ok_or_else(bad)?;
    Ok((state, start))
}

impl HolderProcess {
    /// This process, or `None` where `/proc` does not tell.
    pub fn current() -> Option<HolderProcess> {
        let boot_id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
        let pid_namespace = std::fs::read_link("/proc/self/ns/pid").ok()?;
        let pid = std::process::id();
        let (_, start_ticks) = stat(pid).ok()?;
        Some(HolderProcess {
            boot_id: boot_id.trim().to_string(),
            pid_namespace: pid_namespace.to_string_lossy().into_owned(),
            pid,
            start_ticks,
        })
    }

    /// The annotation value for `holder`.
    pub fn encode(&self, holder: &str) -> String {
        format!(
            "{holder} boot={} pidns={} pid={} start={}",
            self.boot_id, self.pid_namespace, self.pid, self.start_ticks
        )
    }

    /// Reads an annotation value, only if it was written by `holder`.
    pub fn decode(value: &str, holder: &str) -> Option<HolderProcess> {
        let rest = value.strip_prefix(holder)?.strip_prefix(' ')?;
        let mut fields = std::collections::BTreeMap::new();
        for f in rest.split(' ') {
            let (k, v) = f.split_once('=')?;
            fields.insert(k, v);
        }
        if fields.len() != 4 {
            return None;
        }
        Some(HolderProcess {
            boot_id: fields.get("boot")?.to_string(),
            pid_namespace: fields.get("pidns")?.to_string(),
            pid: fields.get("pid")?.parse().ok()?,
            start_ticks: fields.get("start")?.parse().ok()?,
        })
    }

    /// Whether this holder process is the calling process itself.
    pub fn is_current(&self) -> bool {
        HolderProcess::current().is_some_and(|me| me == *self)
    }

    /// Whether this holder process still runs, as far as this process can tell.
    pub fn liveness(&self) -> Liveness {
        let Some(me) = HolderProcess::current() else {
            return Liveness::Unknown;
        };
        self.liveness_from(&me)
    }

    fn liveness_from(&self, me: &HolderProcess) -> Liveness {
        if me.boot_id != self.boot_id || me.pid_namespace != self.pid_namespace {
            return Liveness::Unknown;
        }
        match process_exists(self.pid) {
            Some(false) => return Liveness::Gone,
            Some(true) => {}
            None => return Liveness::Unknown,
        }
        match stat(self.pid) {
            // Zombie or dead: it will never renew.
            Ok(('Z' | 'X', _)) => Liveness::Gone,
            // The pid now belongs to a process that started at another time.
            Ok((_, start)) if start != self.start_ticks => Liveness::Gone,
            Ok(_) => Liveness::Alive,
            // It exists but may not be inspected here (e.g. /proc mounted with hidepid).
            Err(_) => Liveness::Alive,
        }
    }
}

/// `kill(pid, 0)`: `Some(false)` only when no such process exists in this PID namespace.
#[cfg(target_os = "linux")]
fn process_exists(pid: u32) -> Option<bool> {
    let pid = rustix::process::Pid::from_raw(i32::try_from(pid).ok()?)?;
    match rustix::process::test_kill_process(pid) {
        Ok(()) => Some(true),
        Err(rustix::io::Errno::PERM) => Some(true),
        Err(rustix::io::Errno::SRCH) => Some(false),
        Err(_) => None,
    }
}

#[cfg(not(target_os = "linux"))]
fn process_exists(_pid: u32) -> Option<bool> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotation_round_trip_only_for_its_holder() {
        let p = HolderProcess {
            boot_id: "b1".into(),
            pid_namespace: "pid:[4026531836]".into(),
            pid: 42,
            start_ticks: 777,
        };
        let v = p.encode("host-42-abc");
        assert_eq!(
            v,
            "host-42-abc boot=b1 pidns=pid:[4026531836] pid=42 start=777"
        );
        assert_eq!(HolderProcess::decode(&v, "host-42-abc"), Some(p));
        assert_eq!(HolderProcess::decode(&v, "host-42"), None);
        assert_eq!(HolderProcess::decode(&v, "other"), None);
        assert_eq!(HolderProcess::decode("host boot=1 pid=x", "host"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_running_process_is_alive_and_an_exited_one_is_gone() {
        let me = HolderProcess::current().expect("/proc is readable on Linux");
        assert_eq!(me.liveness(), Liveness::Alive);

        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let (_, start) = stat(child.id()).unwrap();
        let holder = HolderProcess {
            pid: child.id(),
            start_ticks: start,
            ..me.clone()
        };
        assert_eq!(holder.liveness(), Liveness::Alive);
        // Same pid, another start time: the pid was reused by another process.
        let reused = HolderProcess {
            start_ticks: start + 1,
            ..holder.clone()
        };
        assert_eq!(reused.liveness(), Liveness::Gone);
        child.kill().unwrap();
        // Killed but not reaped yet: a zombie never renews.
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert_eq!(holder.liveness(), Liveness::Gone);
        child.wait().unwrap();
        assert_eq!(holder.liveness(), Liveness::Gone);
    }

    #[test]
    fn another_boot_or_pid_namespace_cannot_tell() {
        let me = HolderProcess {
            boot_id: "b1".into(),
            pid_namespace: "pid:[1]".into(),
            pid: 1,
            start_ticks: 1,
        };
        let elsewhere = HolderProcess {
            boot_id: "b2".into(),
            pid: u32::MAX,
            ..me.clone()
        };
        assert_eq!(elsewhere.liveness_from(&me), Liveness::Unknown);
        let other_container = HolderProcess {
            pid_namespace: "pid:[2]".into(),
            pid: u32::MAX,
            ..me.clone()
        };
        assert_eq!(other_container.liveness_from(&me), Liveness::Unknown);
    }
}
