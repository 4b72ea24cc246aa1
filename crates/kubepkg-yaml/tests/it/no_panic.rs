//! Arbitrary text never panics the readers: tens of thousands of pseudo-random documents built
//! from YAML/JSON/TOML fragments (fixed seed, so a failure reproduces) go through every entry
//! point, and each either parses or returns an error (the located reading the same as Helm's).

use kubepkg_yaml::{
    from_yaml_array, from_yaml_map, from_yaml_str, json, load_values, toml, yaml_to_json,
};

const FRAGMENTS: &[&str] = &[
    "a",
    ":",
    ": ",
    "-",
    "- ",
    " ",
    "  ",
    "\n",
    "\n  ",
    "\t",
    "[",
    "]",
    "{",
    "}",
    ",",
    "'",
    "\"",
    "#",
    "&x ",
    "*x",
    "!!str ",
    "!!binary ",
    "!!int ",
    "!foo ",
    "|",
    "|-",
    ">+",
    "<<: ",
    "? ",
    "~",
    "yes",
    "0x1F",
    "1e3",
    ".inf",
    "---\n",
    "...\n",
    "%YAML 1.1\n",
    "%TAG ! tag:x,2000:\n",
    "\\",
    "\\u00",
    "\\U0001F6",
    "\u{2028}",
    "\u{85}",
    "\u{feff}",
    "é",
    "😀",
    "\r\n",
    "=",
    "[[t]]\n",
    "[t]\n",
    "k = ",
    "\"\"\"",
    "'''",
    "0o17",
    "1979-05-27T07:32:00Z",
    "null",
    "true",
    "1",
    "-0",
    "{\"a\":",
    "[1,",
    "\\x41",
];

struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as usize
    }
}

#[test]
fn random_documents_never_panic() {
    let mut r = Lcg(0x006b_7562_6570_6b67);
    for _ in 0..20_000 {
        let n = r.next() % 24;
        let doc: String = (0..n)
            .map(|_| FRAGMENTS[r.next() % FRAGMENTS.len()])
            .collect();
        let d = doc.clone();
        let ok = std::panic::catch_unwind(move || {
            let _ = from_yaml_str(&d);
            let _ = from_yaml_map(&d);
            let _ = from_yaml_array(&d);
            let _ = load_values(&d);
            let _ = yaml_to_json(&d);
            let _ = json::from_json(&d);
            let _ = toml::from_toml(&d);
            let _ = kubepkg_yaml::de::from_str::<serde_json::Value>(&d);
            // The located reading is Helm's reading with places: the same value or error.
            let located = kubepkg_yaml::located::read(&d)
                .map(|doc| doc.root.map(|r| r.to_value()).unwrap_or_default())
                .map_err(|e| e.error);
            assert_eq!(located, from_yaml_str(&d), "located reading of {d:?}");
            if let Ok(v) = from_yaml_str(&d) {
                let _ = kubepkg_yaml::to_yaml(&v);
                let _ = kubepkg_yaml::to_yaml_pretty(&v);
                let _ = toml::to_toml(&v);
            }
        });
        assert!(ok.is_ok(), "panicked on {doc:?}");
    }
}
