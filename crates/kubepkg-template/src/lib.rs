//! Go `text/template` for kubepkg: the lexer, parser and executor with Go's exact semantics and
//! error texts, and Go's `fmt` printing of [`Value`]s. Functions are supplied by callers as
//! [`Function`]s (Sprig and Helm's functions live in `kubepkg-funcs`).
//!
//! # Using it
//! ```
//! use kubepkg_template::{Templates, Value, helm};
//! let mut set = Templates::new(vec![]);      // or Templates::with_funcs(shared FuncTable)
//! set.enable_helm(None, false);              // include, tpl, required, fail, lookup
//! set.parse("c/templates/a.yaml", "{{ define \"x\" }}hi{{ end }}{{ include \"x\" . }}")
//!     .map_err(|e| helm::parse_error_text("c/templates/a.yaml", &e))
//!     .unwrap();
//! let out = set.execute("c/templates/a.yaml", &Value::Nil).unwrap();
//! assert_eq!(helm::scrub_no_value(&out), "hi");
//! ```
//! Errors carry Go's text (`template: NAME:LINE:COL: executing "NAME" at <NODE>: …`);
//! [`helm::parse_error_text`] and [`helm::exec_error_text`] turn them into Helm's final text.
//!
//! Modules: [`lex`], [`parse`], [`exec`]; [`fmt`], Go's `fmt` printing of values (number and
//! string forms from `kubepkg-gostd`); [`func`], the contract of a function ([`Function`],
//! [`ArgType`]); [`helm`], Helm's engine layer (`include`, `tpl`, `required`, `fail`,
//! `lookup`, Helm's error rewording); [`budget`], the execution limits ([`Limits`],
//! `KUBEPKG_TEMPLATE_MAX_*`, what functions check before they allocate; docs/limits.md).
//!
//! A [`Templates`] set holds every parsed file and every `define`d template, like a Go
//! `*template.Template` and its associated templates. [`Templates::parse`] adds a file; later
//! definitions of a name replace earlier ones (Go's `AddParseTree`), except that an empty
//! definition never replaces a non-empty one. Helm parses the deepest chart files first and the
//! parent chart's files last, so a parent's `define` wins over a subchart's; callers reproduce
//! that by parsing in Helm's order (see [`helm::sort_templates`]).
//!
//! # Why our own engine
//! The `gotmpl` crate (0.6) was measured on this crate's Go corpus (`tests/go-cases.jsonl`,
//! outputs recorded from Go's text/template): it reproduced 207 of 397 cases it could run,
//! 0 of 140 error texts, and has no way to express what Helm depends on (a nil `interface{}`
//! distinct from a missing value, so `missingkey=zero` raises `nil pointer evaluating
//! interface {}.x`; typed parameters with Go's conversion errors; float64 printing as `1e+06`;
//! Go's error chains that Helm reformats). This engine matches all 462 corpus cases, Helm's
//! engine on the Helm cases, and random templates from the differential fuzzer.
//!
//! # Limits
//! Go has none besides its 100 000 nested `template` calls; [`Limits`] (see [`budget`]) keep
//! bad charts from exhausting memory or time: the text one execution may produce, the strings
//! and lists one function may make, nested `template`/`include`/`tpl` calls and `tpl` calls
//! alone (the stack grows on the heap, so deep nesting never overflows it), and the number of
//! operations (`range` iterations, function and template calls). Exceeding one is an
//! [`ExecError`] naming the template, line and limit and how to raise it, never a panic.
//! Helm's own rule that one name may be `include`d at most 1 000 times in a nest is reproduced
//! with Helm's error text. A value that contains itself (`set $d "self" $d`) is printed,
//! encoded and copied through [`kubepkg_value::walk`]: Go's result where Go has one (`toJson`
//! fails, so Helm's `toJson` prints ""), an error where Go would crash.
//!
//! # Strings are bytes
//! Go strings are bytes: a template that cuts a multi-byte character (`substr`, `slice`), decodes
//! binary data (`b64dec`) or writes `"\xff"` makes a string that is not UTF-8. Such strings are
//! [`Value::NonUtf8String`]s; `len`, `index`, `slice`, comparisons, `print`/`printf` and the
//! functions declared with [`ArgType::StringBytes`] see their exact bytes, and
//! [`Templates::execute_bytes`] returns the exact output ([`Templates::execute`] decodes it as
//! text). Functions declared with [`ArgType::String`] receive such a string decoded the way Go's
//! rune-wise functions decode it.
//!
//! # Known differences from Go
//! Methods of Go types other than `time.Time`'s niladic ones and Helm's `common.Values`
//! (`AsMap`, `YAML`, `Table`, `PathValue`) are reached only through
//! [`kubepkg_value::GoObject`]. Map keys are UTF-8 text.

#![forbid(unsafe_code)]

pub mod budget;
pub mod exec;
pub mod fmt;
pub mod func;
pub mod helm;
pub mod lex;
pub mod parse;

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

pub use budget::{Limits, LimitsError};
pub use fmt::{
    format_value, sprint, sprint_value, sprintf, sprintf_value, sprintln, sprintln_value,
};
pub use func::{ArgType, FuncResult, Function};
pub use helm::Lookup;
pub use kubepkg_value::Value;

/// What a field access on a map does when the key is missing (Go's `missingkey=` option).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MissingKey {
    /// `missingkey=default`/`invalid`: the result is "no value" and further field access on it
    /// silently yields no value again.
    Default,
    /// `missingkey=zero`: the map's zero element (a nil `interface{}`), printed `<no value>`;
    /// a further field access is `nil pointer evaluating interface {}.x`. Helm's choice.
    #[default]
    Zero,
    /// `missingkey=error`: `map has no entry for key "x"` (Helm's `--strict`).
    Error,
}

/// A template that failed to parse. `message` is Go's text, e.g.
/// `template: a.yaml:3: unexpected "}" in operand`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ParseError {
    /// Go's `err.Error()`.
    pub message: String,
}

/// A failed execution. `chain` is Go's error chain: `chain[0]` is `err.Error()` and each next
/// entry is what `errors.Unwrap` yields (Helm's error reformatting walks it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", chain.first().map(String::as_str).unwrap_or(""))]
pub struct ExecError {
    /// Whether Go would return a `template.ExecError` (as opposed to a plain error such as
    /// `template: no template "x" associated with template "y"`).
    pub is_exec_error: bool,
    /// The messages of the error chain, outermost first.
    pub chain: Vec<String>,
}

impl ExecError {
    /// The full message (Go's `err.Error()`).
    pub fn message(&self) -> &str {
        self.chain.first().map(String::as_str).unwrap_or("")
    }
}

/// A fast non-cryptographic hasher (FxHash) for maps keyed by function and template names.
#[derive(Default, Clone, Copy)]
pub struct NameHasher(u64);

impl Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut h = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            h = (h.rotate_left(5) ^ w).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            h = (h.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
        self.0 = h;
    }

    fn write_u8(&mut self, i: u8) {
        self.0 = (self.0.rotate_left(5) ^ u64::from(i)).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A `HashMap` keyed by names, with [`NameHasher`].
pub type NameMap<K, V> = HashMap<K, V, BuildHasherDefault<NameHasher>>;

/// The functions a template set can call, by name. Build it once (Sprig and Helm's functions
/// are ~200 entries) and share it between template sets with [`Templates::with_funcs`].
#[derive(Debug, Clone, Default)]
pub struct FuncTable {
    funcs: NameMap<&'static str, Function>,
}

impl FuncTable {
    /// A table of the given functions; a later function of the same name replaces an earlier one.
    pub fn new(funcs: impl IntoIterator<Item = Function>) -> Self {
        let mut t = FuncTable::default();
        t.extend(funcs);
        t
    }

    /// Add or replace functions.
    pub fn extend(&mut self, funcs: impl IntoIterator<Item = Function>) {
        for f in funcs {
            self.funcs.insert(f.name, f);
        }
    }

    /// The function of this name.
    pub fn get(&self, name: &str) -> Option<&Function> {
        self.funcs.get(name)
    }

    /// The names in the table, sorted.
    pub fn names(&self) -> Vec<&'static str> {
        let mut v: Vec<&'static str> = self.funcs.keys().copied().collect();
        v.sort_unstable();
        v
    }
}

/// One parsed file: its own tree and each template it `define`s, by name, in definition order.
pub type ParsedFile = Vec<(Arc<str>, Arc<parse::Tree>)>;

/// Helm-only engine settings (see [`helm`]).
#[derive(Clone)]
pub(crate) struct HelmMode {
    pub(crate) lookup: Option<Arc<dyn Lookup>>,
    pub(crate) lint: bool,
}

/// A set of parsed templates sharing one function table, like Go's `*template.Template`.
pub struct Templates {
    pub(crate) funcs: Arc<FuncTable>,
    pub(crate) trees: NameMap<Arc<str>, Arc<parse::Tree>>,
    pub(crate) missing_key: MissingKey,
    pub(crate) limits: Limits,
    pub(crate) helm: Option<HelmMode>,
    /// Name of the set itself (Go's `template.New(name)`); Helm uses `gotpl`, which is the name
    /// `tpl` gives its templates.
    pub(crate) set_name: Arc<str>,
    /// `tpl` texts parsed by executions of this set, by text: charts pass the same values
    /// through `tpl` in every template (bounded, see [`TplCache`]).
    pub(crate) tpl_cache: TplCache,
}

/// The parses of `tpl` texts of one template set (Go's result, or its parse error). Bounded:
/// at most [`TplCache::MAX_ENTRIES`] texts of at most [`TplCache::MAX_TEXT`] bytes each are kept;
/// others are parsed at every call.
#[derive(Default)]
pub(crate) struct TplCache(std::sync::Mutex<NameMap<Arc<str>, TplParse>>);

/// One cached `tpl` parse: the parsed text, or Go's parse error.
type TplParse = Result<Arc<ParsedFile>, ParseError>;

impl TplCache {
    const MAX_ENTRIES: usize = 4096;
    const MAX_TEXT: usize = 16 * 1024;

    /// The parse of `text`, cached, or made by `parse`.
    pub(crate) fn get_or_parse(
        &self,
        text: &str,
        parse: impl FnOnce() -> Result<ParsedFile, ParseError>,
    ) -> Result<Arc<ParsedFile>, ParseError> {
        if text.len() > Self::MAX_TEXT {
            return parse().map(Arc::new);
        }
        if let Some(r) = self.0.lock().unwrap_or_else(|e| e.into_inner()).get(text) {
            return r.clone();
        }
        let r = parse().map(Arc::new);
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() < Self::MAX_ENTRIES {
            map.insert(Arc::from(text), r.clone());
        }
        r
    }
}

impl Templates {
    /// A template set with the given functions (in addition to Go's built-ins, which a function
    /// of the same name overrides as Go's `Funcs` does).
    pub fn new(funcs: impl IntoIterator<Item = Function>) -> Self {
        Templates::with_funcs(Arc::new(FuncTable::new(funcs)))
    }

    /// A template set calling the functions of a shared table (cheap: no copy of the table).
    pub fn with_funcs(funcs: Arc<FuncTable>) -> Self {
        Templates {
            funcs,
            trees: NameMap::default(),
            missing_key: MissingKey::Zero,
            limits: Limits::default(),
            helm: None,
            set_name: Arc::from("gotpl"),
            tpl_cache: TplCache::default(),
        }
    }

    /// Add or replace functions.
    pub fn add_funcs(&mut self, funcs: impl IntoIterator<Item = Function>) {
        Arc::make_mut(&mut self.funcs).extend(funcs);
        self.tpl_cache = TplCache::default();
    }

    /// Set the `missingkey` option.
    pub fn set_missing_key(&mut self, mk: MissingKey) {
        self.missing_key = mk;
    }

    /// Set resource limits.
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }

    /// Name of the set (default `gotpl`, Helm's).
    pub fn set_name(&mut self, name: &str) {
        self.set_name = Arc::from(name);
        self.tpl_cache = TplCache::default();
    }

    /// Enable Helm's engine functions `include`, `tpl`, `required`, `fail` and `lookup`
    /// (`lookup` asks `lookup`, or returns an empty map when `None`, as `helm template` does).
    /// In lint mode `required` and `fail` do not fail, as in `helm lint`.
    pub fn enable_helm(&mut self, lookup: Option<Arc<dyn Lookup>>, lint: bool) {
        self.helm = Some(HelmMode { lookup, lint });
        self.tpl_cache = TplCache::default();
    }

    /// Parse `text` as the template `name` and add it and its `define`d templates to the set.
    pub fn parse(&mut self, name: &str, text: &str) -> Result<(), ParseError> {
        let trees = self.parse_trees(name, parse::Source::copied(text))?;
        self.add_parsed(&trees);
        Ok(())
    }

    /// Parse `source` as the template `name` without adding it: the file's tree and its
    /// `define`d templates, for [`Templates::add_parsed`]. A caller that renders the same file
    /// many times (a chart loaded once) parses it once and adds the trees to each new set; the
    /// result depends only on `name`, the text and which functions exist.
    pub fn parse_trees(
        &self,
        name: &str,
        source: parse::Source<'_>,
    ) -> Result<ParsedFile, ParseError> {
        Ok(parse::parse(name, source, &|f| self.has_func(f))?
            .into_iter()
            .map(|(n, t)| (n, Arc::new(t)))
            .collect())
    }

    /// Add trees of [`Templates::parse_trees`] (shared, not copied), as [`Templates::parse`]
    /// adds them.
    pub fn add_parsed(&mut self, trees: &ParsedFile) {
        for (n, tree) in trees.iter() {
            self.add_tree(n.clone(), tree.clone());
        }
    }

    /// Go's `associate`: an empty definition does not replace an existing one.
    fn add_tree(&mut self, name: Arc<str>, tree: Arc<parse::Tree>) {
        if let Some(old) = self.trees.get(&name)
            && tree.is_empty()
            && !old.is_empty()
        {
            return;
        }
        self.trees.insert(name, tree);
    }

    /// Whether `pred` holds for any operand of any template in the set ([`parse::Tree::any_arg`]).
    pub fn any_arg(&self, pred: &mut dyn FnMut(&parse::Arg) -> bool) -> bool {
        self.trees.values().any(|t| t.any_arg(pred))
    }

    /// Whether a template of this name is defined.
    pub fn has_template(&self, name: &str) -> bool {
        self.trees.contains_key(name)
    }

    /// The names of all templates in the set, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.trees.keys().map(|k| k.to_string()).collect();
        v.sort();
        v
    }

    pub(crate) fn has_func(&self, name: &str) -> bool {
        self.funcs.get(name).is_some()
            || exec::is_builtin(name)
            || (self.helm.is_some() && helm::is_engine_func(name))
    }

    /// Execute template `name` with `data` as dot (Go's `ExecuteTemplate`), as text: the
    /// rare bytes that are not UTF-8 (see [`Templates::execute_bytes`]) are decoded as U+FFFD.
    pub fn execute(&self, name: &str, data: &Value) -> Result<String, ExecError> {
        let bytes = exec::execute(self, name, data)?;
        Ok(String::from_utf8(bytes).unwrap_or_else(|e| kubepkg_value::go_lossy(e.as_bytes())))
    }

    /// Execute template `name` with `data` as dot, to the exact bytes Go would write: Go
    /// strings are bytes, so `b64dec` of binary data or `substr` cutting a character writes
    /// bytes that are not UTF-8.
    pub fn execute_bytes(&self, name: &str, data: &Value) -> Result<Vec<u8>, ExecError> {
        exec::execute(self, name, data)
    }
}
