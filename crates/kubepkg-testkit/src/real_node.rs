//! The local plane's real node (`testenv/up.sh --real-node`, `testenv/kpk-cluster/realnode.go`):
//! a real kubelet, containerd and runc, whose pods really run, beside the simulated nodes.
//!
//! It is tainted, so only pods that ask for it run there: put [`PLACEMENT`] in a pod spec (or
//! [`placement_yaml`] at another indentation) and use [`BUSYBOX`] as the image — a static busybox
//! (`sh`, `httpd` with CGI, the usual applets) from the node's own registry on loopback; nothing
//! is pulled from outside. [`crate::real_node_plane`] starts the plane with its node, or gives a
//! running plane the node it lacks.
//!
//! [`leftovers`] lists what a stopped real node left on the machine (mounts, cgroups, its
//! bridge, processes): `testenv/down.sh` must leave nothing, and a test checks it.

use std::path::Path;

/// The real node's name.
pub const NODE: &str = "kpk-real-node";
/// Its label (`"true"`) and the key of its `NoSchedule` taint.
pub const LABEL: &str = "kubepkg.dev/real-node";
/// A static busybox (`/bin/sh`, `httpd`, …), pulled by the real node's containerd from the
/// node's registry (the name is mapped to it; it resolves nowhere else).
pub const BUSYBOX: &str = "registry.kpk.test/kpk/busybox:1";
/// The pod-spec fields that put a pod on the real node (YAML at the pod spec's indentation 0).
pub const PLACEMENT: &str = "nodeSelector: {kubepkg.dev/real-node: \"true\"}\ntolerations: [{key: kubepkg.dev/real-node, operator: Exists, effect: NoSchedule}]\n";

/// [`PLACEMENT`] with every line indented by `indent` spaces (a chart template's pod spec).
pub fn placement_yaml(indent: usize) -> String {
    PLACEMENT
        .lines()
        .map(|l| format!("{}{l}\n", " ".repeat(indent)))
        .collect()
}

/// What the real node recorded in the plane's `state.json` (`realNode`): the names `down` must
/// leave nothing of. `None` when the plane in `state_dir` runs no real node.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeState {
    /// The bridge whose gateway is the node's address.
    pub bridge: String,
    /// The cgroup root (under every cgroup hierarchy) its pods' cgroups live in.
    pub cgroup_root: String,
    /// The node's address (the bridge's gateway).
    pub ip: String,
}

/// The real node recorded in `<state_dir>/state.json`, if any.
pub fn node_state(state_dir: &Path) -> Option<NodeState> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Plane {
        real_node: Option<NodeState>,
    }
    let text = std::fs::read_to_string(state_dir.join("state.json")).ok()?;
    serde_json::from_str::<Plane>(&text).ok()?.real_node
}

/// What of the real node `node` of the plane in `state_dir` is still on this machine, read
/// from the kernel's own tables: mounts at or under `<state_dir>/node` (overlay roots, shm,
/// secret volumes, network namespaces), cgroups named by its cgroup root in any hierarchy,
/// processes in them or running from its directory (containerd's shims), its bridge, iptables
/// rules naming it and, when it was the machine's last real node, any `KUBE-` chain (when
/// `iptables-save` is at hand). Empty after a clean stop.
pub fn leftovers(state_dir: &Path, node: &NodeState) -> Vec<String> {
    let mut found = Vec::new();
    let node_dir = state_dir.join("node");
    let node_dir = node_dir.to_string_lossy();
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let mut hierarchies = Vec::new();
    for line in mountinfo.lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        let Some(point) = fields.get(4) else { continue };
        if *point == node_dir || point.starts_with(&format!("{node_dir}/")) {
            found.push(format!("mount {point}"));
        }
        if let Some(dash) = fields.iter().position(|f| *f == "-")
            && matches!(fields.get(dash + 1), Some(&"cgroup") | Some(&"cgroup2"))
        {
            hierarchies.push(point.to_string());
        }
    }
    for h in hierarchies {
        let root = Path::new(&h).join(node.cgroup_root.trim_start_matches('/'));
        if root.exists() {
            found.push(format!("cgroup {}", root.display()));
            if let Ok(procs) = std::fs::read_to_string(root.join("cgroup.procs"))
                && !procs.trim().is_empty()
            {
                found.push(format!("processes in {}: {}", root.display(), procs.trim()));
            }
        }
    }
    if let Ok(procs) = std::fs::read_dir("/proc") {
        for entry in procs.flatten() {
            let name = entry.file_name();
            let Some(pid) = name
                .to_str()
                .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
            else {
                continue;
            };
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if cmdline.contains(&*node_dir) {
                found.push(format!("process {pid}: {}", cmdline.trim()));
            }
        }
    }
    if Path::new("/sys/class/net").join(&node.bridge).exists() {
        found.push(format!("network link {}", node.bridge));
    }
    // iptables: a CNI chain, or a rule naming its bridge or subnet (kube-proxy's rules for its
    // pods and cluster CIDR); and once no real node's kubelet runs on the machine any more, any
    // KUBE- chain (the kubelet's KUBE-FIREWALL and canaries, kube-proxy's), which every node's
    // kubelet and kube-proxy share by name.
    let last_node = !kubelet_running();
    if let Ok(out) = std::process::Command::new("iptables-save").output() {
        let subnet = node
            .ip
            .rsplit_once('.')
            .map(|(net, _)| format!("{net}."))
            .unwrap_or_default();
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            if line.contains("CNI-")
                || line.contains(&node.bridge)
                || (!subnet.is_empty() && line.contains(&subnet))
                || (last_node && line.contains("KUBE-"))
            {
                found.push(format!("iptables {line}"));
            }
        }
    }
    found
}

/// Whether a real node's kubelet (`kpk-cluster kubelet`) runs on this machine.
pub fn kubelet_running() -> bool {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return false;
    };
    procs.flatten().any(|entry| {
        std::fs::read(entry.path().join("cmdline"))
            .map(|c| c.windows(20).any(|w| w == b"kpk-cluster\0kubelet\0"))
            .unwrap_or(false)
    })
}
