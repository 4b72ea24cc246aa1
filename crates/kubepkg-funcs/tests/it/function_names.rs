//! The functions kubepkg offers templates are exactly Helm's: the list in
//! `testdata/template-corpus/helm-functions.txt` is read from Helm's own function map at run time
//! by the oracle (`oracle funcs`), not written by hand.

use crate::support;
use std::collections::BTreeSet;

#[test]
fn function_names_equal_helms() {
    let path = support::corpus_dir().join("helm-functions.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let helm: BTreeSet<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    assert!(
        helm.len() > 200,
        "helm-functions.txt looks truncated ({} names)",
        helm.len()
    );

    let ours: BTreeSet<&str> = kubepkg_funcs::helm_functions()
        .iter()
        .map(|f| f.name)
        .chain(kubepkg_funcs::ENGINE_BOUND)
        .collect();
    let missing: Vec<_> = helm.difference(&ours).collect();
    let extra: Vec<_> = ours.difference(&helm).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "function names differ from Helm's ({} vs {}).\nmissing (Helm has, we lack): {missing:?}\nextra (we have, Helm lacks): {extra:?}",
        ours.len(),
        helm.len()
    );
}
