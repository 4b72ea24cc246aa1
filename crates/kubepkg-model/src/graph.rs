//! The component graph: apply order, hooks, uninstall order and cycle detection
//! (docs/rules.md#order, docs/rules.md#preupgrade-hooks).
//!
//! Components are applied one at a time. A component named in another's `dependsOn` comes
//! first; among components whose dependencies are all placed, the one earliest in the manifest
//! goes next (a stable Kahn's algorithm keyed by manifest index), so independent components keep
//! manifest order. `PreUpgrade` hooks are split out: they run before everything, in manifest
//! order, and are never part of the install order. Uninstall is the exact reverse.

use std::collections::{BTreeSet, HashMap};

use crate::manifest::Component;

/// The order a package is applied in.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Order {
    /// `PreUpgrade` hook components, in manifest order.
    pub hooks: Vec<String>,
    /// `PreRollback` hook components, in manifest order.
    pub rollback_hooks: Vec<String>,
    /// Every other component, dependencies first.
    pub components: Vec<String>,
}

impl Order {
    /// The order in which components are uninstalled (reverse of install; hooks are not kept).
    pub fn uninstall(&self) -> Vec<String> {
        self.components.iter().rev().cloned().collect()
    }
}

/// Computes the apply order of validated components.
///
/// Unknown dependencies and dependencies on hooks are ignored here (validation rejects them);
/// components caught in a cycle, which validation also rejects, are appended in manifest order
/// so that this function never fails or loops.
pub fn order(components: &[Component]) -> Order {
    let hooks = components
        .iter()
        .filter(|c| c.is_hook() && !c.is_pre_rollback())
        .map(|c| c.name.clone())
        .collect();
    let rollback_hooks = components
        .iter()
        .filter(|c| c.is_pre_rollback())
        .map(|c| c.name.clone())
        .collect();
    let main: Vec<&Component> = components.iter().filter(|c| !c.is_hook()).collect();
    let index: HashMap<&str, usize> = main
        .iter()
        .enumerate()
        .map(|(i, c)| (c.name.as_str(), i))
        .collect();
    // Edges dependency -> dependent, and the number of unplaced dependencies per component.
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); main.len()];
    let mut pending: Vec<usize> = vec![0; main.len()];
    for (i, c) in main.iter().enumerate() {
        let mut seen = BTreeSet::new();
        for d in &c.depends_on {
            if let Some(&di) = index.get(d.as_str())
                && di != i
                && seen.insert(di)
            {
                dependents[di].push(i);
                pending[i] += 1;
            }
        }
    }
    let mut ready: BTreeSet<usize> = (0..main.len()).filter(|&i| pending[i] == 0).collect();
    let mut placed = vec![false; main.len()];
    let mut out = Vec::with_capacity(main.len());
    while let Some(i) = ready.pop_first() {
        placed[i] = true;
        out.push(main[i].name.clone());
        for &d in &dependents[i] {
            pending[d] -= 1;
            if pending[d] == 0 {
                ready.insert(d);
            }
        }
    }
    for (i, c) in main.iter().enumerate() {
        if !placed[i] {
            out.push(c.name.clone());
        }
    }
    Order {
        hooks,
        rollback_hooks,
        components: out,
    }
}

/// Finds a `dependsOn` cycle, returned as the path that closes it (`[a, b, c, a]`). The search
/// starts from components in manifest order and follows dependencies in the order listed, so the
/// reported cycle is deterministic. Unknown names are skipped.
pub fn find_cycle(components: &[Component]) -> Option<Vec<String>> {
    let index: HashMap<&str, usize> = components
        .iter()
        .enumerate()
        .map(|(i, c)| (c.name.as_str(), i))
        .collect();
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        OnPath,
        Done,
    }
    let mut mark = vec![Mark::New; components.len()];
    for start in 0..components.len() {
        if mark[start] != Mark::New {
            continue;
        }
        // Iterative DFS: (node, next dependency position).
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        mark[start] = Mark::OnPath;
        while let Some(&mut (node, ref mut pos)) = stack.last_mut() {
            let deps = &components[node].depends_on;
            if *pos < deps.len() {
                let dep = &deps[*pos];
                *pos += 1;
                let Some(&di) = index.get(dep.as_str()) else {
                    continue;
                };
                match mark[di] {
                    Mark::New => {
                        mark[di] = Mark::OnPath;
                        stack.push((di, 0));
                    }
                    Mark::OnPath => {
                        let from = stack.iter().position(|&(n, _)| n == di).unwrap_or(0);
                        let mut cycle: Vec<String> = stack[from..]
                            .iter()
                            .map(|&(n, _)| components[n].name.clone())
                            .collect();
                        cycle.push(components[di].name.clone());
                        return Some(cycle);
                    }
                    Mark::Done => {}
                }
            } else {
                mark[node] = Mark::Done;
                stack.pop();
            }
        }
    }
    None
}

/// The direct dependencies of each component, for drawing the order as a DAG.
pub fn dependencies<'a>(components: &'a [Component], name: &str) -> &'a [String] {
    components
        .iter()
        .find(|c| c.name == name)
        .map(|c| c.depends_on.as_slice())
        .unwrap_or(&[])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::{ChartSource, Phase};

    fn comp(name: &str, deps: &[&str]) -> Component {
        Component {
            name: name.into(),
            path: name.into(),
            chart: ChartSource::Directory(name.into()),
            values: Default::default(),
            namespace: None,
            depends_on: deps.iter().map(|d| d.to_string()).collect(),
            ready_when: vec![],
            phase: Phase::Install,
            upgrade_context: false,
            line: 0,
            post_renderers: Default::default(),
        }
    }

    fn hook(name: &str) -> Component {
        Component {
            phase: Phase::PreUpgrade,
            ..comp(name, &[])
        }
    }

    #[test]
    fn independent_components_keep_manifest_order() {
        let o = order(&[comp("c", &[]), comp("a", &[]), comp("b", &[])]);
        assert_eq!(o.components, ["c", "a", "b"]);
    }

    #[test]
    fn dependencies_come_first_and_others_keep_their_place() {
        // worker depends on kubevirt which depends on operator (declared last).
        let o = order(&[
            comp("worker", &["kubevirt"]),
            comp("ui", &[]),
            comp("kubevirt", &["operator"]),
            comp("operator", &[]),
        ]);
        assert_eq!(o.components, ["ui", "operator", "kubevirt", "worker"]);
    }

    #[test]
    fn stable_kahn_picks_the_earliest_ready_component() {
        // d is ready only after a; b and c are independent and earlier than d.
        let o = order(&[
            comp("a", &[]),
            comp("d", &["a"]),
            comp("b", &[]),
            comp("c", &[]),
        ]);
        assert_eq!(o.components, ["a", "d", "b", "c"]);
        let o = order(&[
            comp("d", &["c"]),
            comp("a", &[]),
            comp("b", &[]),
            comp("c", &[]),
        ]);
        assert_eq!(o.components, ["a", "b", "c", "d"]);
    }

    #[test]
    fn diamond() {
        let o = order(&[
            comp("top", &["left", "right"]),
            comp("right", &["base"]),
            comp("left", &["base"]),
            comp("base", &[]),
        ]);
        assert_eq!(o.components, ["base", "right", "left", "top"]);
        assert_eq!(o.uninstall(), ["top", "left", "right", "base"]);
    }

    #[test]
    fn hooks_are_split_out_in_manifest_order() {
        let o = order(&[
            comp("app", &[]),
            hook("backup"),
            comp("db", &[]),
            hook("migrate"),
        ]);
        assert_eq!(o.hooks, ["backup", "migrate"]);
        assert_eq!(o.components, ["app", "db"]);
        assert_eq!(o.uninstall(), ["db", "app"]);
    }

    #[test]
    fn cycle_is_reported_as_a_closed_path() {
        let comps = [
            comp("a", &["b"]),
            comp("b", &["c"]),
            comp("c", &["a"]),
            comp("d", &[]),
        ];
        assert_eq!(find_cycle(&comps).unwrap(), ["a", "b", "c", "a"]);
        // order() still terminates and lists everything.
        assert_eq!(order(&comps).components.len(), 4);
    }

    #[test]
    fn self_dependency_is_a_cycle() {
        assert_eq!(find_cycle(&[comp("a", &["a"])]).unwrap(), ["a", "a"]);
    }

    #[test]
    fn cycle_found_behind_an_acyclic_prefix() {
        let comps = [comp("x", &["y"]), comp("y", &["z"]), comp("z", &["y"])];
        assert_eq!(find_cycle(&comps).unwrap(), ["y", "z", "y"]);
        assert_eq!(find_cycle(&[comp("a", &[]), comp("b", &["a"])]), None);
    }
}
