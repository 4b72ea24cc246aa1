//! The executor of Go's `text/template` over [`Value`]s: walks the syntax tree, evaluates
//! pipelines, fields, variables and function calls with Go's reflection rules (argument type
//! checks, untyped constants, `missingkey`, nil-pointer errors), the built-in functions, and
//! Go's error texts `template: NAME:LINE:COL: executing "NAME" at <NODE>: MESSAGE`. Helm's engine
//! functions (`include`, `tpl`, `required`, `fail`, `lookup`) are executed here too because they
//! need the template set; their texts are Helm's.

use std::sync::Arc;

use kubepkg_value::{ElemType, GoObject, MapType, Value, map_read};

use crate::fmt::{
    format_value, sprint, sprint_value, sprintf, sprintf_value, sprintln_value, write_value,
};
use crate::parse::{Arg, Branch, Command, GoText, List, Node, Number, Pipe, TemplateCall, Tree};
use crate::{ArgType, ExecError, Function, MissingKey, NameMap, Templates};
use kubepkg_gostd::strconv::quote;

/// Go's limit on nested `template` calls (`maxExecDepth`).
pub const MAX_EXEC_DEPTH: usize = 100_000;
/// Helm's limit on nested `include`s of one name (`recursionMaxNums`).
pub const HELM_MAX_INCLUDE: usize = 1000;

const RED_ZONE: usize = 256 * 1024;
const STACK_CHUNK: usize = 4 * 1024 * 1024;

/// A value as the executor holds it: Go's `reflect.Value` distinctions that templates can
/// observe. `Iface` is a value read out of an `interface{}` slot (a map entry or a
/// `[]interface{}` element), which Go reports as type `interface {}`; `Iface(Nil)` is a nil
/// interface. `Invalid` is Go's invalid (zero) `reflect.Value`, printed `<no value>`.
#[derive(Clone, Debug)]
pub(crate) enum Rv {
    Invalid,
    Iface(Value),
    Val(Value),
}

impl Rv {
    fn from_value(v: Value) -> Rv {
        if v.is_nil() { Rv::Invalid } else { Rv::Val(v) }
    }

    /// What `evalPipeline` does after each command: unwrap an empty interface.
    fn normalize(self) -> Rv {
        match self {
            Rv::Iface(Value::Nil) | Rv::Invalid => Rv::Invalid,
            Rv::Iface(v) | Rv::Val(v) => Rv::Val(v),
        }
    }

    /// Go's `indirectInterface`: the concrete value, or None for invalid/nil.
    fn concrete(&self) -> Option<&Value> {
        match self {
            Rv::Invalid | Rv::Iface(Value::Nil) | Rv::Val(Value::Nil) => None,
            Rv::Iface(v) | Rv::Val(v) => Some(v),
        }
    }

    /// The value passed to an `interface{}` parameter.
    fn to_value(&self) -> Value {
        self.concrete().cloned().unwrap_or(Value::Nil)
    }

    fn type_name(&self) -> String {
        match self {
            Rv::Invalid => "<invalid reflect.Value>".into(),
            Rv::Iface(_) => "interface {}".into(),
            Rv::Val(v) => v.type_name(),
        }
    }
}

/// Control flow out of a walk: `{{break}}`, `{{continue}}` or an error.
pub(crate) enum Flow {
    Break,
    Continue,
    Err(Box<ExecError>),
}

type R<T> = Result<T, Flow>;

/// The evaluated arguments of one function call: on the stack up to four (nearly every call in
/// a chart), so a call allocates nothing for them.
type CallArgs<T> = smallvec::SmallVec<[T; 4]>;

/// The node an error is reported at (Go's `state.node`).
#[derive(Clone, Copy)]
enum At<'a> {
    None,
    Node(&'a Node),
    Arg(&'a Arg),
    Cmd(&'a Command),
    Pipe(&'a Pipe),
    Tmpl(&'a TemplateCall),
}

/// The template set an execution sees: the set plus templates defined by `tpl` texts.
#[derive(Clone, Copy)]
struct Env<'a> {
    tmpls: &'a Templates,
    overlay: Option<&'a NameMap<Arc<str>, Arc<Tree>>>,
}

impl<'a> Env<'a> {
    fn lookup(&self, name: &str) -> Option<&'a Tree> {
        if let Some(o) = self.overlay
            && let Some(t) = o.get(name)
        {
            return Some(t);
        }
        self.tmpls.trees.get(name).map(|t| &**t)
    }
}

/// State shared by an execution and its nested `include`/`tpl` executions.
#[derive(Default)]
struct Shared {
    include_counts: NameMap<String, usize>,
    output_bytes: usize,
    depth: usize,
    tpl_depth: usize,
    /// Output buffers of finished includes, emptied, for the next template run to write into
    /// ([`Shared::recycle`]): an include's output is copied into its value, and its buffer,
    /// grown to its size, serves the next include instead of a new one growing again.
    spare_outputs: Vec<Vec<u8>>,
}

impl Shared {
    /// The most buffers kept, and the largest kept: enough for includes nested a few deep,
    /// never a large rendered file's memory held for nothing.
    const SPARE_OUTPUTS: usize = 8;
    const SPARE_OUTPUT_BYTES: usize = 64 * 1024;

    /// A buffer for a template run's output: a spare one, or a new one with room for a short
    /// include's output (a vector growing from nothing takes four allocations to reach it).
    fn output_buffer(&mut self) -> Vec<u8> {
        self.spare_outputs
            .pop()
            .unwrap_or_else(|| Vec::with_capacity(128))
    }

    /// Keep `out`, whose contents have been taken, for [`Shared::output_buffer`].
    fn recycle(&mut self, mut out: Vec<u8>) {
        if self.spare_outputs.len() < Self::SPARE_OUTPUTS
            && out.capacity() <= Self::SPARE_OUTPUT_BYTES
        {
            out.clear();
            self.spare_outputs.push(out);
        }
    }
}

struct State<'a, 's> {
    env: Env<'a>,
    shared: &'s mut Shared,
    tree: &'a Tree,
    at: At<'a>,
    vars: Vec<(&'a str, Rv)>,
    depth: usize,
    out: Vec<u8>,
}

/// Built-in functions of text/template.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Builtin {
    And,
    Or,
    Not,
    Len,
    Index,
    Slice,
    Print,
    Printf,
    Println,
    Html,
    Js,
    Urlquery,
    Call,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

fn builtin(name: &str) -> Option<Builtin> {
    Some(match name {
        "and" => Builtin::And,
        "or" => Builtin::Or,
        "not" => Builtin::Not,
        "len" => Builtin::Len,
        "index" => Builtin::Index,
        "slice" => Builtin::Slice,
        "print" => Builtin::Print,
        "printf" => Builtin::Printf,
        "println" => Builtin::Println,
        "html" => Builtin::Html,
        "js" => Builtin::Js,
        "urlquery" => Builtin::Urlquery,
        "call" => Builtin::Call,
        "eq" => Builtin::Eq,
        "ne" => Builtin::Ne,
        "lt" => Builtin::Lt,
        "le" => Builtin::Le,
        "gt" => Builtin::Gt,
        "ge" => Builtin::Ge,
        _ => return None,
    })
}

/// Whether `name` is one of Go's built-in template functions.
pub fn is_builtin(name: &str) -> bool {
    builtin(name).is_some()
}

/// Helm's engine functions.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum HelmFn {
    Include,
    Tpl,
    Required,
    Fail,
    Lookup,
}

fn helm_fn(name: &str) -> Option<HelmFn> {
    Some(match name {
        "include" => HelmFn::Include,
        "tpl" => HelmFn::Tpl,
        "required" => HelmFn::Required,
        "fail" => HelmFn::Fail,
        "lookup" => HelmFn::Lookup,
        _ => return None,
    })
}

/// A parameter type: a Go type from the function contract, or `reflect.Value` (built-ins that
/// see the raw value, including nil and interface-ness).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Pt {
    T(ArgType),
    Reflect,
}

enum Callee<'a> {
    Builtin(Builtin),
    User(&'a Function),
    Helm(HelmFn),
    Method(Arc<dyn GoObject>),
    Values(kubepkg_value::MapRef, ValuesMethod),
}

/// The methods of Helm's `common.Values` (the type of `.Values` and `.Template`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ValuesMethod {
    AsMap,
    Yaml,
    Table,
    PathValue,
    Encode,
}

impl ValuesMethod {
    fn by_name(name: &str) -> Option<ValuesMethod> {
        Some(match name {
            "AsMap" => ValuesMethod::AsMap,
            "YAML" => ValuesMethod::Yaml,
            "Table" => ValuesMethod::Table,
            "PathValue" => ValuesMethod::PathValue,
            "Encode" => ValuesMethod::Encode,
            _ => return None,
        })
    }

    fn sig(self) -> Sig {
        const WRITER: &[Pt] = &[Pt::T(ArgType::Object("io.Writer"))];
        Sig {
            params: match self {
                ValuesMethod::AsMap | ValuesMethod::Yaml => NONE,
                ValuesMethod::Table | ValuesMethod::PathValue => S1,
                ValuesMethod::Encode => WRITER,
            },
            variadic: None,
        }
    }
}

/// Helm's `tableLookup`: the table `key` of `m` (a `map[string]interface {}` or `Values`).
fn values_table_lookup(m: &kubepkg_value::MapRef, key: &str) -> Option<kubepkg_value::MapRef> {
    match map_read(m).get(key) {
        Some(Value::Map(t)) if t.map_type().is_interface_map() => Some(t.clone()),
        _ => None,
    }
}

/// `Values.Table(name)`: the table at a dotted path, as `Values`.
fn values_table(m: &kubepkg_value::MapRef, name: &str) -> Result<kubepkg_value::MapRef, String> {
    let mut table = m.clone();
    for part in name.split('.') {
        table = values_table_lookup(&table, part)
            .ok_or_else(|| format!("{} is not a table", quote(part)))?;
    }
    Ok(table)
}

/// The same map as another map type (a Go conversion: the entries are shared).
fn retyped(m: &kubepkg_value::MapRef, ty: MapType) -> Value {
    Value::Map(m.with_type(ty))
}

fn call_values_method(
    m: &kubepkg_value::MapRef,
    method: ValuesMethod,
    argv: &[Rv],
) -> Result<Rv, Vec<String>> {
    let arg = |i: usize| argv.get(i).map(Rv::to_value).unwrap_or_default();
    match method {
        ValuesMethod::AsMap => Ok(Rv::Val(retyped(m, MapType::Interface))),
        ValuesMethod::Yaml => kubepkg_yaml::to_yaml(&Value::Map(m.clone()))
            .map(|s| Rv::Val(Value::from(s)))
            .map_err(|e| vec![e.to_string()]),
        ValuesMethod::Table => {
            let name = arg(0);
            values_table(m, name.as_str().unwrap_or(""))
                .map(|t| Rv::Val(retyped(&t, MapType::HelmValues)))
                .map_err(|e| vec![e])
        }
        ValuesMethod::PathValue => {
            let path = arg(0);
            let path = path.as_str().unwrap_or("");
            if path.is_empty() {
                return Err(vec!["YAML path cannot be empty".into()]);
            }
            let (key, tables) = match path.rsplit_once('.') {
                Some((t, k)) => (k, Some(t)),
                None => (path, None),
            };
            let no_value = || vec![format!("{} is not a value", quote(key))];
            let table = match tables {
                None => m.clone(),
                Some(t) => values_table(m, t).map_err(|_| no_value())?,
            };
            match map_read(&table).get(key) {
                Some(Value::Map(x)) if x.map_type().is_interface_map() => Err(no_value()),
                Some(v) => Ok(Rv::from_value(v.clone())),
                None => Err(no_value()),
            }
        }
        // No value a template can make is an io.Writer; the argument check fails first.
        ValuesMethod::Encode => Ok(Rv::Invalid),
    }
}

struct Sig {
    params: &'static [Pt],
    variadic: Option<Pt>,
}

const R1: &[Pt] = &[Pt::Reflect];
const R2: &[Pt] = &[Pt::Reflect, Pt::Reflect];
const S1: &[Pt] = &[Pt::T(ArgType::String)];
const S4: &[Pt] = &[
    Pt::T(ArgType::String),
    Pt::T(ArgType::String),
    Pt::T(ArgType::String),
    Pt::T(ArgType::String),
];
const SA: &[Pt] = &[Pt::T(ArgType::String), Pt::T(ArgType::Any)];
const NONE: &[Pt] = &[];

fn builtin_sig(b: Builtin) -> Sig {
    use Builtin::*;
    match b {
        And | Or | Index | Slice | Eq | Call => Sig {
            params: R1,
            variadic: Some(Pt::Reflect),
        },
        Not | Len => Sig {
            params: R1,
            variadic: None,
        },
        Ne | Lt | Le | Gt | Ge => Sig {
            params: R2,
            variadic: None,
        },
        Print | Println | Html | Js | Urlquery => Sig {
            params: NONE,
            variadic: Some(Pt::T(ArgType::Any)),
        },
        Printf => Sig {
            params: S1,
            variadic: Some(Pt::T(ArgType::Any)),
        },
    }
}

fn helm_sig(h: HelmFn) -> Sig {
    match h {
        HelmFn::Include | HelmFn::Tpl | HelmFn::Required => Sig {
            params: SA,
            variadic: None,
        },
        HelmFn::Fail => Sig {
            params: S1,
            variadic: None,
        },
        HelmFn::Lookup => Sig {
            params: S4,
            variadic: None,
        },
    }
}

/// Go's name of a parameter type.
pub fn arg_type_name(t: ArgType) -> &'static str {
    match t {
        ArgType::Any => "interface {}",
        ArgType::String | ArgType::StringBytes => "string",
        ArgType::Int => "int",
        ArgType::Int64 => "int64",
        ArgType::Float64 => "float64",
        ArgType::Bool => "bool",
        ArgType::List => "[]interface {}",
        ArgType::StringList => "[]string",
        ArgType::Map => "map[string]interface {}",
        ArgType::Bytes => "[]uint8",
        ArgType::Time => "time.Time",
        ArgType::Object(name) => name,
    }
}

fn can_be_nil(t: ArgType) -> bool {
    match t {
        ArgType::Any | ArgType::List | ArgType::StringList | ArgType::Map | ArgType::Bytes => true,
        ArgType::Object(name) => name.starts_with('*'),
        _ => false,
    }
}

fn assignable(v: &Value, t: ArgType) -> bool {
    match t {
        ArgType::Any => true,
        ArgType::String | ArgType::StringBytes => v.is_go_string(),
        ArgType::Int => matches!(v, Value::Int(_)),
        ArgType::Int64 => matches!(v, Value::Int64(_)),
        ArgType::Float64 => matches!(v, Value::Float(_)),
        ArgType::Bool => matches!(v, Value::Bool(_)),
        ArgType::List => matches!(v, Value::List(_, ElemType::Interface)),
        ArgType::StringList => matches!(v, Value::List(_, ElemType::String)),
        ArgType::Map => matches!(v, Value::Map(m) if m.map_type().is_interface_map()),
        ArgType::Bytes => matches!(v, Value::Bytes(_)),
        ArgType::Time => matches!(v, Value::Time(_)),
        ArgType::Object(name) => matches!(v, Value::Object(o) if o.type_name() == name),
    }
}

/// An argument as a parameter of type `t` receives it: a string that is not UTF-8 decoded for
/// [`ArgType::String`]; a `common.Values` converted to `map[string]interface {}` (the same map).
fn string_param(v: Value, t: ArgType) -> Value {
    match v {
        Value::NonUtf8String(b) if t == ArgType::String => Value::from(kubepkg_value::go_lossy(&b)),
        Value::Map(m) if t == ArgType::Map && m.map_type() != MapType::Interface => {
            Value::Map(m.with_type(MapType::Interface))
        }
        other => other,
    }
}

/// A complex constant (`1i`), which Value has no variant for; printed as Go prints complex128.
#[derive(Debug)]
struct Complex(f64, f64);

impl GoObject for Complex {
    fn type_name(&self) -> &str {
        "complex128"
    }
    fn kind(&self) -> &str {
        "complex128"
    }
    fn format_v(&self) -> String {
        let re = kubepkg_gostd::strconv::format_float(self.0, 'g', -1, 64);
        let mut im = kubepkg_gostd::strconv::format_float(self.1, 'g', -1, 64);
        if !im.starts_with('-') && !im.starts_with('+') {
            im.insert(0, '+');
        }
        format!("({re}{im}i)")
    }
    fn truthy(&self) -> bool {
        self.0 != 0.0 || self.1 != 0.0
    }
}

fn byte_value(b: u8) -> Value {
    Value::Uint8(b)
}

/// Execute template `name` of `t` with `data` as dot.
pub fn execute(t: &Templates, name: &str, data: &Value) -> Result<Vec<u8>, ExecError> {
    let _scope = crate::budget::Scope::enter(t.limits);
    let _ = kubepkg_value::walk::take_fault();
    let mut shared = Shared::default();
    let env = Env {
        tmpls: t,
        overlay: None,
    };
    execute_named(env, &mut shared, name, Rv::from_value(data.clone()))
}

fn no_template(env: Env<'_>, name: &str) -> ExecError {
    ExecError {
        is_exec_error: false,
        chain: vec![format!(
            "template: no template {} associated with template {}",
            quote(name),
            quote(&env.tmpls.set_name)
        )],
    }
}

fn execute_named(
    env: Env<'_>,
    shared: &mut Shared,
    name: &str,
    dot: Rv,
) -> Result<Vec<u8>, ExecError> {
    let Some(tree) = env.lookup(name) else {
        return Err(no_template(env, name));
    };
    execute_tree(env, shared, tree, dot)
}

fn execute_tree<'a>(
    env: Env<'a>,
    shared: &mut Shared,
    tree: &'a Tree,
    dot: Rv,
) -> Result<Vec<u8>, ExecError> {
    let out = shared.output_buffer();
    let mut st = State {
        env,
        shared,
        tree,
        at: At::None,
        vars: Vec::with_capacity(4),
        depth: 0,
        out,
    };
    st.vars.push(("$", dot.clone()));
    match st.walk_list(&dot, &tree.root) {
        Ok(()) | Err(Flow::Break) | Err(Flow::Continue) => Ok(std::mem::take(&mut st.out)),
        Err(Flow::Err(e)) => Err(*e),
    }
}

/// Free a variable's value without recursion (a template can build a list nested a million
/// levels deep; see [`kubepkg_value::drop_deep`]).
fn release_rv(v: Rv) {
    match v {
        Rv::Iface(x) | Rv::Val(x) => kubepkg_value::drop_deep(x),
        Rv::Invalid => {}
    }
}

/// Free variables' values ([`release_rv`]): a scope's, drained from the variable list, or a
/// whole list set aside.
fn drop_vars<'v>(vars: impl IntoIterator<Item = (&'v str, Rv)>) {
    for (_, v) in vars {
        release_rv(v);
    }
}

impl Drop for State<'_, '_> {
    fn drop(&mut self) {
        self.truncate_vars(0);
    }
}

impl<'a, 's> State<'a, 's> {
    /// Forget the variables declared after `mark`.
    fn truncate_vars(&mut self, mark: usize) {
        if self.vars.len() > mark {
            drop_vars(self.vars.drain(mark..));
        }
    }

    // ----- errors -----

    fn context(&self) -> Option<(usize, String)> {
        Some(match self.at {
            At::None => return None,
            At::Node(n) => (node_pos(n), n.to_go_string()),
            At::Arg(a) => (a.pos(), a.to_go_string()),
            At::Cmd(c) => (c.pos, c.to_go_string()),
            At::Pipe(p) => (p.pos, p.to_go_string()),
            At::Tmpl(t) => {
                let mut s = String::from("{{template ");
                s.push_str(&quote(&t.name));
                if let Some(p) = &t.pipe {
                    s.push(' ');
                    p.write_to(&mut s);
                }
                s.push_str("}}");
                (t.pos, s)
            }
        })
    }

    fn prefix(&self) -> String {
        match self.context() {
            None => format!("template: {}: ", self.tree.name),
            Some((pos, ctx)) => format!(
                "template: {}: executing {} at <{}>: ",
                self.tree.location(pos),
                quote(&self.tree.name),
                ctx
            ),
        }
    }

    /// Go's `state.errorf` (no wrapped error).
    fn err<T>(&self, msg: impl std::fmt::Display) -> R<T> {
        let full = format!("{}{}", self.prefix(), msg);
        Err(Flow::Err(Box::new(ExecError {
            is_exec_error: true,
            chain: vec![full.clone(), full],
        })))
    }

    /// Go's `state.errorf("error calling %s: %w", name, err)`.
    fn err_calling<T>(&self, name: &str, inner: Vec<String>) -> R<T> {
        let full = format!(
            "{}error calling {}: {}",
            self.prefix(),
            name,
            inner.first().map(String::as_str).unwrap_or("")
        );
        let mut chain = vec![full.clone(), full];
        chain.extend(inner);
        Err(Flow::Err(Box::new(ExecError {
            is_exec_error: true,
            chain,
        })))
    }

    // ----- output -----

    fn write(&mut self, s: &[u8]) -> R<()> {
        self.shared.output_bytes += s.len();
        if self.shared.output_bytes > self.env.tmpls.limits.max_output_bytes {
            return self.err(crate::budget::output_exceeded(
                self.env.tmpls.limits.max_output_bytes,
            ));
        }
        self.out.extend_from_slice(s);
        Ok(())
    }

    /// Count one operation ([`crate::Limits::max_operations`]).
    fn charge(&self) -> R<()> {
        match crate::budget::charge(1) {
            Ok(()) => Ok(()),
            Err(e) => self.err(e),
        }
    }

    /// Count one call, reported at `node` when it exceeds the limit.
    fn charge_at(&mut self, node: At<'a>) -> R<()> {
        match crate::budget::charge(1) {
            Ok(()) => Ok(()),
            Err(e) => {
                self.at = node;
                self.err(e)
            }
        }
    }

    /// A value that contains itself stopped a printing or copying walk (Go's stack would
    /// overflow): an error at the current node.
    fn fault(&self) -> Option<String> {
        kubepkg_value::walk::take_fault().map(|r| format!("{r}; Go would never finish"))
    }

    fn print_value(&mut self, v: &Rv) -> R<()> {
        match v.concrete() {
            None => self.write(b"<no value>"),
            Some(Value::String(s)) => {
                let s = s.clone();
                self.write(s.as_bytes())
            }
            Some(Value::NonUtf8String(b)) => {
                let b = b.clone();
                self.write(&b)
            }
            Some(v) => {
                let before = self.out.len();
                write_value(&mut self.out, v);
                if let Some(f) = self.fault() {
                    return self.err(format_args!("cannot print it: {f}"));
                }
                let n = self.out.len() - before;
                self.shared.output_bytes += n;
                if self.shared.output_bytes > self.env.tmpls.limits.max_output_bytes {
                    return self.err(crate::budget::output_exceeded(
                        self.env.tmpls.limits.max_output_bytes,
                    ));
                }
                Ok(())
            }
        }
    }

    // ----- walking -----

    fn walk_list(&mut self, dot: &Rv, list: &'a List) -> R<()> {
        for n in &list.nodes {
            self.walk(dot, n)?;
        }
        Ok(())
    }

    fn walk(&mut self, dot: &Rv, node: &'a Node) -> R<()> {
        self.at = At::Node(node);
        match node {
            Node::Text(t) => self.write(t.as_bytes()),
            Node::Comment => Ok(()),
            Node::Action(a) => {
                let v = self.eval_pipeline(dot, &a.pipe)?;
                if a.pipe.decl.is_empty() {
                    self.at = At::Node(node);
                    self.print_value(&v)?;
                }
                Ok(())
            }
            Node::If(b) => self.walk_if_with(false, dot, b),
            Node::With(b) => self.walk_if_with(true, dot, b),
            Node::Range(b) => self.walk_range(dot, node, b),
            Node::Template(t) => self.walk_template(dot, t),
            Node::Break(_) => Err(Flow::Break),
            Node::Continue(_) => Err(Flow::Continue),
        }
    }

    fn walk_if_with(&mut self, with: bool, dot: &Rv, b: &'a Branch) -> R<()> {
        let mark = self.vars.len();
        let r = self.walk_if_with_inner(with, dot, b);
        self.truncate_vars(mark);
        r
    }

    fn walk_if_with_inner(&mut self, with: bool, dot: &Rv, b: &'a Branch) -> R<()> {
        let val = self.eval_pipeline(dot, &b.pipe)?;
        if is_true(&val) {
            if with {
                stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || self.walk_list(&val, &b.list))
            } else {
                stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || self.walk_list(dot, &b.list))
            }
        } else if let Some(e) = &b.else_list {
            stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || self.walk_list(dot, e))
        } else {
            Ok(())
        }
    }

    fn walk_range(&mut self, dot: &Rv, node: &'a Node, b: &'a Branch) -> R<()> {
        self.at = At::Node(node);
        let mark = self.vars.len();
        let r = match self.walk_range_inner(dot, b) {
            Err(Flow::Break) => Ok(()),
            other => other,
        };
        self.truncate_vars(mark);
        r
    }

    fn one_iteration(&mut self, b: &'a Branch, mark: usize, index: Rv, elem: Rv) -> R<()> {
        self.charge()?;
        let decl = &b.pipe.decl;
        if !decl.is_empty() {
            if b.pipe.is_assign {
                if decl.len() > 1 {
                    self.set_var(&decl[0].1, index.clone())?;
                } else {
                    self.set_var(&decl[0].1, elem.clone())?;
                }
            } else {
                let n = self.vars.len();
                self.vars[n - 1].1 = elem.clone();
            }
        }
        if decl.len() > 1 {
            if b.pipe.is_assign {
                self.set_var(&decl[1].1, elem.clone())?;
            } else {
                let n = self.vars.len();
                self.vars[n - 2].1 = index;
            }
        }
        let r = stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || self.walk_list(&elem, &b.list));
        self.truncate_vars(mark);
        match r {
            Err(Flow::Continue) => Ok(()),
            other => other,
        }
    }

    /// `range` over an integer `n` (Go 1.22): `0..count` as values of `n`'s type (`make`),
    /// one variable at most; whether it ran.
    fn range_int<T>(
        &mut self,
        b: &'a Branch,
        mark: usize,
        n: T,
        count: T,
        make: fn(T) -> Value,
    ) -> R<bool>
    where
        T: Copy + Default + PartialOrd + std::fmt::Display,
        std::ops::Range<T>: Iterator<Item = T>,
    {
        if b.pipe.decl.len() > 1 {
            return self.err(format_args!(
                "can't use {n} to iterate over more than one variable"
            ));
        }
        for i in T::default()..count {
            self.one_iteration(b, mark, Rv::Invalid, Rv::Val(make(i)))?;
        }
        Ok(n > T::default())
    }

    fn walk_range_inner(&mut self, dot: &Rv, b: &'a Branch) -> R<()> {
        let val = self.eval_pipeline(dot, &b.pipe)?;
        let mark = self.vars.len();
        let v = val.concrete().cloned();
        let ran = match v {
            None => false,
            Some(Value::Int(n)) => self.range_int(b, mark, n, n.max(0), Value::Int)?,
            Some(Value::Int64(n)) => self.range_int(b, mark, n, n.max(0), Value::Int64)?,
            Some(Value::Uint(n)) => self.range_int(b, mark, n, n, Value::Uint)?,
            Some(Value::Uint8(n)) => self.range_int(b, mark, n, n, Value::Uint8)?,
            Some(Value::List(items, et)) => {
                for (i, x) in items.iter().enumerate() {
                    let e = if et == ElemType::Interface {
                        Rv::Iface(x.clone())
                    } else {
                        Rv::Val(x.clone())
                    };
                    self.one_iteration(b, mark, Rv::Val(Value::Int(i as i64)), e)?;
                }
                !items.is_empty()
            }
            Some(Value::Bytes(bytes)) => {
                for (i, x) in bytes.iter().enumerate() {
                    self.one_iteration(
                        b,
                        mark,
                        Rv::Val(Value::Int(i as i64)),
                        Rv::Val(byte_value(*x)),
                    )?;
                }
                !bytes.is_empty()
            }
            Some(Value::Map(m)) => {
                let entries: Vec<(String, Value)> = map_read(&m)
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                let elem_is_string = m.map_type() == MapType::String;
                for (k, x) in &entries {
                    let elem = if elem_is_string {
                        Rv::Val(x.clone())
                    } else {
                        Rv::Iface(x.clone())
                    };
                    self.one_iteration(b, mark, Rv::Val(Value::str(k)), elem)?;
                }
                !entries.is_empty()
            }
            Some(Value::Object(o)) if matches!(o.kind(), "map" | "slice") => {
                let plain = o.to_plain();
                match plain {
                    Value::Map(m) => {
                        let entries: Vec<(String, Value)> = map_read(&m)
                            .iter()
                            .map(|(k, v)| (k.clone(), v.clone()))
                            .collect();
                        for (k, x) in &entries {
                            self.one_iteration(
                                b,
                                mark,
                                Rv::Val(Value::str(k)),
                                Rv::Val(x.clone()),
                            )?;
                        }
                        !entries.is_empty()
                    }
                    Value::List(items, _) => {
                        for (i, x) in items.iter().enumerate() {
                            self.one_iteration(
                                b,
                                mark,
                                Rv::Val(Value::Int(i as i64)),
                                Rv::Val(x.clone()),
                            )?;
                        }
                        !items.is_empty()
                    }
                    _ => false,
                }
            }
            Some(other) => {
                return self.err(format_args!(
                    "range can't iterate over {}",
                    format_value(&other)
                ));
            }
        };
        if !ran && let Some(e) = &b.else_list {
            return self.walk_list(dot, e);
        }
        Ok(())
    }

    fn walk_template(&mut self, dot: &Rv, t: &'a TemplateCall) -> R<()> {
        self.at = At::Tmpl(t);
        let Some(tree) = self.env.lookup(&t.name) else {
            return self.err(format_args!("template {} not defined", quote(&t.name)));
        };
        if self.depth == MAX_EXEC_DEPTH {
            return self.err(format_args!(
                "exceeded maximum template depth ({MAX_EXEC_DEPTH})"
            ));
        }
        if self.shared.depth >= self.env.tmpls.limits.max_depth {
            return self.err(crate::budget::depth_exceeded(
                self.env.tmpls.limits.max_depth,
            ));
        }
        self.charge()?;
        let new_dot = match &t.pipe {
            Some(p) => self.eval_pipeline(dot, p)?,
            None => Rv::Invalid,
        };
        let saved_vars = std::mem::replace(&mut self.vars, vec![("$", new_dot.clone())]);
        let saved_tree = std::mem::replace(&mut self.tree, tree);
        self.depth += 1;
        self.shared.depth += 1;
        let r = stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || {
            self.walk_list(&new_dot, &tree.root)
        });
        self.depth -= 1;
        self.shared.depth -= 1;
        self.tree = saved_tree;
        let inner = std::mem::replace(&mut self.vars, saved_vars);
        drop_vars(inner);
        r
    }

    // ----- variables -----

    fn set_var(&mut self, name: &str, v: Rv) -> R<()> {
        for (n, val) in self.vars.iter_mut().rev() {
            if *n == name {
                release_rv(std::mem::replace(val, v));
                return Ok(());
            }
        }
        self.err(format_args!("undefined variable: {name}"))
    }

    fn var_value(&self, name: &str) -> R<Rv> {
        for (n, val) in self.vars.iter().rev() {
            if *n == name {
                return Ok(val.clone());
            }
        }
        self.err(format_args!("undefined variable: {name}"))
    }

    // ----- evaluation -----

    fn eval_pipeline(&mut self, dot: &Rv, pipe: &'a Pipe) -> R<Rv> {
        self.at = At::Pipe(pipe);
        let mut value: Option<Rv> = None;
        for cmd in &pipe.cmds {
            let v = self.eval_command(dot, cmd, value.take())?;
            value = Some(v.normalize());
        }
        let value = value.unwrap_or(Rv::Invalid);
        for (_, name) in &pipe.decl {
            if pipe.is_assign {
                self.set_var(name, value.clone())?;
            } else {
                self.vars.push((name, value.clone()));
            }
        }
        Ok(value)
    }

    fn not_a_function(&self, args: &'a [Arg], fin: &Option<Rv>) -> R<()> {
        if args.len() > 1 || fin.is_some() {
            return self.err(format_args!(
                "can't give argument to non-function {}",
                args[0].to_go_string()
            ));
        }
        Ok(())
    }

    fn eval_command(&mut self, dot: &Rv, cmd: &'a Command, fin: Option<Rv>) -> R<Rv> {
        let first = &cmd.args[0];
        match first {
            Arg::Field { idents, .. } => {
                self.at = At::Arg(first);
                return self.eval_field_chain(dot, dot.clone(), first, idents, &cmd.args, fin);
            }
            Arg::Chain { .. } => return self.eval_chain_node(dot, first, &cmd.args, fin),
            Arg::Identifier { name, .. } => {
                return self.eval_function(dot, first, name, At::Cmd(cmd), &cmd.args, fin);
            }
            Arg::Pipe(p) => {
                self.not_a_function(&cmd.args, &fin)?;
                return stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || self.eval_pipeline(dot, p));
            }
            Arg::Variable { .. } => return self.eval_variable_node(dot, first, &cmd.args, fin),
            _ => {}
        }
        self.at = At::Arg(first);
        self.not_a_function(&cmd.args, &fin)?;
        match first {
            Arg::Bool(_, b) => Ok(Rv::Val(Value::Bool(*b))),
            Arg::Dot(_) => Ok(dot.clone()),
            Arg::Nil(_) => self.err("nil is not a command"),
            Arg::Number(_, n) => self.ideal_constant(first, n),
            Arg::String { value, .. } => Ok(Rv::Val(value.clone())),
            _ => self.err(format_args!(
                "can't evaluate command {}",
                quote(&first.to_go_string())
            )),
        }
    }

    fn ideal_constant(&mut self, node: &'a Arg, n: &Number) -> R<Rv> {
        self.at = At::Arg(node);
        let t = &*n.text;
        if n.is_complex {
            return Ok(Rv::Val(Value::Object(Arc::new(Complex(
                n.complex.0,
                n.complex.1,
            )))));
        }
        let is_hex_int = t.len() > 2
            && t.as_bytes()[0] == b'0'
            && (t.as_bytes()[1] == b'x' || t.as_bytes()[1] == b'X')
            && !t.contains(['p', 'P']);
        let is_rune = t.starts_with('\'');
        if n.is_float && !is_hex_int && !is_rune && t.contains(['.', 'e', 'E', 'p', 'P']) {
            return Ok(Rv::Val(Value::Float(n.float)));
        }
        if n.is_int {
            return Ok(Rv::Val(Value::Int(n.int)));
        }
        if n.is_uint {
            return self.err(format_args!("{t} overflows int"));
        }
        Ok(Rv::Invalid)
    }

    fn eval_chain_node(
        &mut self,
        dot: &Rv,
        chain: &'a Arg,
        args: &'a [Arg],
        fin: Option<Rv>,
    ) -> R<Rv> {
        self.at = At::Arg(chain);
        let Arg::Chain { node, fields, .. } = chain else {
            return self.err("internal error: no fields in evalChainNode");
        };
        if let Arg::Nil(_) = **node {
            return self.err(format_args!(
                "indirection through explicit nil in {}",
                chain.to_go_string()
            ));
        }
        let pipe = self.eval_arg_rv(dot, node)?;
        self.eval_field_chain(dot, pipe, chain, fields, args, fin)
    }

    fn eval_variable_node(
        &mut self,
        dot: &Rv,
        var: &'a Arg,
        args: &'a [Arg],
        fin: Option<Rv>,
    ) -> R<Rv> {
        self.at = At::Arg(var);
        let Arg::Variable { idents, .. } = var else {
            return Ok(Rv::Invalid);
        };
        let value = self.var_value(&idents[0])?;
        if idents.len() == 1 {
            self.not_a_function(args, &fin)?;
            return Ok(value);
        }
        self.eval_field_chain(dot, value, var, &idents[1..], args, fin)
    }

    fn eval_field_chain(
        &mut self,
        dot: &Rv,
        mut receiver: Rv,
        node: &'a Arg,
        idents: &'a [Arc<str>],
        args: &'a [Arg],
        fin: Option<Rv>,
    ) -> R<Rv> {
        let n = idents.len();
        for id in &idents[..n - 1] {
            receiver = self.eval_field(dot, id, node, &[], None, receiver)?;
        }
        self.eval_field(dot, &idents[n - 1], node, args, fin, receiver)
    }

    fn eval_field(
        &mut self,
        dot: &Rv,
        name: &str,
        node: &'a Arg,
        args: &'a [Arg],
        fin: Option<Rv>,
        receiver: Rv,
    ) -> R<Rv> {
        let v = match &receiver {
            Rv::Invalid => {
                if self.env.tmpls.missing_key == MissingKey::Error {
                    return self.err(format_args!("nil data; no entry for key {}", quote(name)));
                }
                return Ok(Rv::Invalid);
            }
            Rv::Iface(Value::Nil) => {
                return self.err(format_args!("nil pointer evaluating interface {{}}.{name}"));
            }
            Rv::Val(Value::Nil) => return Ok(Rv::Invalid),
            Rv::Iface(v) | Rv::Val(v) => v,
        };
        let has_args = args.len() > 1 || fin.is_some();
        match v {
            Value::Map(m) => {
                let ty = m.map_type();
                // Go looks for a method before a key.
                if ty == MapType::HelmValues
                    && let Some(method) = ValuesMethod::by_name(name)
                {
                    let callee = Callee::Values(m.clone(), method);
                    return self.eval_call(dot, callee, At::Arg(node), name, args, fin);
                }
                if has_args {
                    return self.err(format_args!("{name} is not a method but has arguments"));
                }
                let elem_is_string = ty == MapType::String;
                if let Some(x) = map_read(m).get(name) {
                    return Ok(if elem_is_string {
                        Rv::Val(x.clone())
                    } else {
                        Rv::Iface(x.clone())
                    });
                }
                return match self.env.tmpls.missing_key {
                    MissingKey::Default => Ok(Rv::Invalid),
                    // The zero value of the element type.
                    MissingKey::Zero if elem_is_string => Ok(Rv::Val(Value::str(""))),
                    MissingKey::Zero => Ok(Rv::Iface(Value::Nil)),
                    MissingKey::Error => {
                        self.err(format_args!("map has no entry for key {}", quote(name)))
                    }
                };
            }
            Value::Time(t) => {
                if let Some(v) = time_method(t, name) {
                    if has_args {
                        return self.err(format_args!(
                            "wrong number of args for {name}: want 0 got {}",
                            args.len().saturating_sub(1) + usize::from(fin.is_some())
                        ));
                    }
                    return Ok(Rv::Val(v));
                }
            }
            Value::Object(o) => {
                if o.has_method(name) {
                    let o = o.clone();
                    return self.eval_call(dot, Callee::Method(o), At::Arg(node), name, args, fin);
                }
                if let Some(f) = o.field(name) {
                    if has_args {
                        return self.err(format_args!(
                            "{name} has arguments but cannot be invoked as function"
                        ));
                    }
                    return Ok(Rv::from_value(f));
                }
            }
            _ => {}
        }
        self.err(format_args!(
            "can't evaluate field {name} in type {}",
            receiver.type_name()
        ))
    }

    fn eval_function(
        &mut self,
        dot: &Rv,
        ident: &'a Arg,
        name: &str,
        cmd_at: At<'a>,
        args: &'a [Arg],
        fin: Option<Rv>,
    ) -> R<Rv> {
        self.at = At::Arg(ident);
        let tmpls = self.env.tmpls;
        let callee = if tmpls.helm.is_some()
            && let Some(h) = helm_fn(name)
        {
            Callee::Helm(h)
        } else if let Some(f) = tmpls.funcs.get(name) {
            Callee::User(f)
        } else if let Some(b) = builtin(name) {
            Callee::Builtin(b)
        } else {
            return self.err(format_args!("{} is not a defined function", quote(name)));
        };
        self.eval_call(dot, callee, cmd_at, name, args, fin)
    }

    /// Evaluate an argument for a `reflect.Value` parameter (or an untyped context).
    fn eval_arg_rv(&mut self, dot: &Rv, n: &'a Arg) -> R<Rv> {
        self.at = At::Arg(n);
        match n {
            Arg::Dot(_) => Ok(dot.clone()),
            Arg::Nil(_) => Ok(Rv::Invalid),
            Arg::Field { idents, .. } => {
                self.eval_field_chain(dot, dot.clone(), n, idents, std::slice::from_ref(n), None)
            }
            Arg::Variable { .. } => self.eval_variable_node(dot, n, &[], None),
            Arg::Pipe(p) => {
                stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || self.eval_pipeline(dot, p))
            }
            Arg::Identifier { name, .. } => self.eval_function(dot, n, name, At::Arg(n), &[], None),
            Arg::Chain { .. } => self.eval_chain_node(dot, n, &[], None),
            Arg::Bool(_, b) => Ok(Rv::Val(Value::Bool(*b))),
            Arg::Number(_, num) => self.ideal_constant(n, num),
            Arg::String { value, .. } => Ok(Rv::Val(value.clone())),
        }
    }

    /// Go's `validateType`.
    fn validate_type(&self, v: Rv, t: ArgType) -> R<Value> {
        match v {
            Rv::Invalid | Rv::Val(Value::Nil) => {
                if can_be_nil(t) {
                    Ok(Value::Nil)
                } else {
                    self.err(format_args!("invalid value; expected {}", arg_type_name(t)))
                }
            }
            Rv::Iface(Value::Nil) => {
                if t == ArgType::Any {
                    Ok(Value::Nil)
                } else {
                    self.err(format_args!(
                        "wrong type for value; expected {}; got interface {{}}",
                        arg_type_name(t)
                    ))
                }
            }
            Rv::Iface(x) | Rv::Val(x) => {
                if assignable(&x, t) {
                    Ok(string_param(x, t))
                } else {
                    self.err(format_args!(
                        "wrong type for value; expected {}; got {}",
                        arg_type_name(t),
                        x.type_name()
                    ))
                }
            }
        }
    }

    /// Go's `evalArg` for a typed parameter.
    fn eval_arg_typed(&mut self, dot: &Rv, t: ArgType, n: &'a Arg) -> R<Value> {
        self.at = At::Arg(n);
        match n {
            Arg::Dot(_)
            | Arg::Field { .. }
            | Arg::Variable { .. }
            | Arg::Pipe(_)
            | Arg::Identifier { .. }
            | Arg::Chain { .. } => {
                let v = self.eval_arg_rv(dot, n)?;
                return self.validate_type(v, t);
            }
            Arg::Nil(_) => {
                if can_be_nil(t) {
                    return Ok(Value::Nil);
                }
                return self.err(format_args!("cannot assign nil to {}", arg_type_name(t)));
            }
            _ => {}
        }
        match t {
            ArgType::Bool => match n {
                Arg::Bool(_, b) => Ok(Value::Bool(*b)),
                _ => self.err(format_args!("expected bool; found {}", n.to_go_string())),
            },
            ArgType::Float64 => match n {
                Arg::Number(_, num) if num.is_float => Ok(Value::Float(num.float)),
                _ => self.err(format_args!("expected float; found {}", n.to_go_string())),
            },
            ArgType::Int | ArgType::Int64 => match n {
                Arg::Number(_, num) if num.is_int => Ok(if t == ArgType::Int {
                    Value::Int(num.int)
                } else {
                    Value::Int64(num.int)
                }),
                _ => self.err(format_args!("expected integer; found {}", n.to_go_string())),
            },
            ArgType::String | ArgType::StringBytes => match n {
                Arg::String { value, .. } => Ok(string_param(value.clone(), t)),
                _ => self.err(format_args!("expected string; found {}", n.to_go_string())),
            },
            ArgType::Any => match n {
                Arg::Bool(_, b) => Ok(Value::Bool(*b)),
                Arg::Number(_, num) => Ok(self.ideal_constant(n, num)?.to_value()),
                Arg::String { value, .. } => Ok(value.clone()),
                _ => self.err(format_args!(
                    "can't handle assignment of {} to empty interface argument",
                    n.to_go_string()
                )),
            },
            _ => self.err(format_args!(
                "can't handle {} for arg of type {}",
                n.to_go_string(),
                arg_type_name(t)
            )),
        }
    }

    fn eval_call(
        &mut self,
        dot: &Rv,
        callee: Callee<'a>,
        node: At<'a>,
        name: &str,
        args: &'a [Arg],
        fin: Option<Rv>,
    ) -> R<Rv> {
        let args: &'a [Arg] = if args.is_empty() { args } else { &args[1..] };
        // Methods of Go objects: arguments are taken as interface{} values.
        if let Callee::Method(o) = &callee {
            let mut argv = CallArgs::<Value>::with_capacity(args.len() + 1);
            for a in args {
                argv.push(self.eval_arg_typed(dot, ArgType::Any, a)?);
            }
            if let Some(f) = fin {
                argv.push(self.validate_type(f, ArgType::Any)?);
            }
            return match o.call_method(name, &argv) {
                Ok(v) => Ok(Rv::from_value(v)),
                Err(e) => {
                    self.at = node;
                    self.err_calling(name, vec![e])
                }
            };
        }
        let owned_sig;
        let sig: &Sig = match &callee {
            Callee::Builtin(b) => {
                owned_sig = builtin_sig(*b);
                &owned_sig
            }
            Callee::Helm(h) => {
                owned_sig = helm_sig(*h);
                &owned_sig
            }
            Callee::User(f) => {
                owned_sig = Sig {
                    params: &[],
                    variadic: None,
                };
                let _ = &owned_sig;
                return self.call_user(dot, f, node, name, args, fin);
            }
            Callee::Values(_, m) => {
                owned_sig = m.sig();
                &owned_sig
            }
            Callee::Method(_) => return Ok(Rv::Invalid),
        };
        let num_fixed = sig.params.len();
        let num_in = self.check_arg_count(name, args, &fin, num_fixed, sig.variadic.is_some())?;
        // and/or short-circuit
        if let Callee::Builtin(b @ (Builtin::And | Builtin::Or)) = callee {
            let mut v = Rv::Invalid;
            for a in args {
                v = self.eval_arg_rv(dot, a)?;
                if truth(&v) == (b == Builtin::Or) {
                    return Ok(v);
                }
            }
            if let Some(f) = fin {
                v = f;
            }
            return Ok(v);
        }
        let mut argv = CallArgs::<Rv>::with_capacity(num_in);
        let mut i = 0;
        while i < num_fixed && i < args.len() {
            let v = self.eval_param(dot, sig.params[i], &args[i])?;
            argv.push(v);
            i += 1;
        }
        if let Some(vt) = sig.variadic {
            while i < args.len() {
                let v = self.eval_param(dot, vt, &args[i])?;
                argv.push(v);
                i += 1;
            }
        }
        if let Some(f) = fin {
            let t = if sig.variadic.is_some() && num_in > num_fixed {
                sig.variadic.unwrap_or(Pt::Reflect)
            } else {
                sig.params[num_in - 1]
            };
            let v = match t {
                Pt::Reflect => f,
                Pt::T(t) => Rv::from_value(self.validate_type(f, t)?),
            };
            argv.push(v);
        }
        self.charge_at(node)?;
        let result = match callee {
            Callee::Builtin(b) => self.call_builtin(b, args, &argv),
            Callee::Helm(h) => self.call_helm(h, &argv),
            Callee::Values(m, method) => call_values_method(&m, method, &argv),
            _ => Ok(Rv::Invalid),
        };
        let result = match (result, self.fault()) {
            (Ok(_), Some(f)) => Err(vec![f]),
            (r, _) => r,
        };
        match result {
            Ok(v) => Ok(v),
            Err(chain) => {
                self.at = node;
                self.err_calling(name, chain)
            }
        }
    }

    /// Go's `evalCall` count check: `args` written arguments (and the piped `fin` one) against
    /// `num_fixed` parameters, exactly or at least (`variadic`); the count given to the call.
    fn check_arg_count(
        &self,
        name: &str,
        args: &[Arg],
        fin: &Option<Rv>,
        num_fixed: usize,
        variadic: bool,
    ) -> R<usize> {
        let (args, num_in) = (args.len(), args.len() + usize::from(fin.is_some()));
        if variadic {
            if num_in < num_fixed {
                return self.err(format_args!(
                    "wrong number of args for {name}: want at least {num_fixed} got {args}"
                ));
            }
        } else if num_in != num_fixed {
            return self.err(format_args!(
                "wrong number of args for {name}: want {num_fixed} got {num_in}"
            ));
        }
        Ok(num_in)
    }

    fn eval_param(&mut self, dot: &Rv, pt: Pt, a: &'a Arg) -> R<Rv> {
        match pt {
            Pt::Reflect => self.eval_arg_rv(dot, a),
            Pt::T(t) => Ok(Rv::from_value(self.eval_arg_typed(dot, t, a)?)),
        }
    }

    fn call_user(
        &mut self,
        dot: &Rv,
        f: &'a Function,
        node: At<'a>,
        name: &str,
        args: &'a [Arg],
        fin: Option<Rv>,
    ) -> R<Rv> {
        let num_fixed = f.params.len();
        let num_in = self.check_arg_count(name, args, &fin, num_fixed, f.variadic.is_some())?;
        let mut argv = CallArgs::<Value>::with_capacity(num_in);
        let mut i = 0;
        while i < num_fixed && i < args.len() {
            argv.push(self.eval_arg_typed(dot, f.params[i], &args[i])?);
            i += 1;
        }
        if let Some(vt) = f.variadic {
            while i < args.len() {
                argv.push(self.eval_arg_typed(dot, vt, &args[i])?);
                i += 1;
            }
        }
        if let Some(fv) = fin {
            let t = if let Some(vt) = f.variadic
                && num_in > num_fixed
            {
                vt
            } else {
                f.params[num_in - 1]
            };
            argv.push(self.validate_type(fv, t)?);
        }
        let call = f.call;
        self.charge_at(node)?;
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| call(&argv)));
        let r = match (r, self.fault()) {
            (Ok(Ok(_)), Some(f)) => Ok(Err(f)),
            (r, _) => r,
        };
        match r {
            Ok(Ok(v)) => Ok(Rv::from_value(v)),
            Ok(Err(e)) => {
                self.at = node;
                self.err_calling(name, vec![e])
            }
            Err(panic) => {
                let msg = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "function panicked".to_string());
                self.at = node;
                self.err_calling(name, vec![msg])
            }
        }
    }

    // ----- built-ins -----

    fn call_builtin(
        &mut self,
        b: Builtin,
        args: &'a [Arg],
        argv: &[Rv],
    ) -> Result<Rv, Vec<String>> {
        let one = |s: String| vec![s];
        match b {
            Builtin::Not => Ok(Rv::Val(Value::Bool(!truth(&argv[0])))),
            Builtin::Len => length(&argv[0])
                .map(|n| Rv::Val(Value::Int(n as i64)))
                .map_err(one),
            Builtin::Index => index(&argv[0], &argv[1..]).map_err(one),
            Builtin::Slice => slice(&argv[0], &argv[1..]).map_err(one),
            Builtin::Eq => eq(&argv[0], &argv[1..])
                .map(|b| Rv::Val(Value::Bool(b)))
                .map_err(one),
            Builtin::Ne => eq(&argv[0], &argv[1..2])
                .map(|b| Rv::Val(Value::Bool(!b)))
                .map_err(one),
            Builtin::Lt => lt(&argv[0], &argv[1])
                .map(|b| Rv::Val(Value::Bool(b)))
                .map_err(one),
            Builtin::Le => le(&argv[0], &argv[1])
                .map(|b| Rv::Val(Value::Bool(b)))
                .map_err(one),
            Builtin::Gt => le(&argv[0], &argv[1])
                .map(|b| Rv::Val(Value::Bool(!b)))
                .map_err(one),
            Builtin::Ge => lt(&argv[0], &argv[1])
                .map(|b| Rv::Val(Value::Bool(!b)))
                .map_err(one),
            Builtin::Print => Ok(Rv::Val(sprint_value(&values(argv)))),
            Builtin::Println => Ok(Rv::Val(sprintln_value(&values(argv)))),
            Builtin::Printf => {
                let vals = values(argv);
                let fmt = vals[0].as_str().unwrap_or("").to_string();
                Ok(Rv::Val(sprintf_value(&fmt, &vals[1..])))
            }
            Builtin::Html => Ok(Rv::Val(Value::from(html_escape(&eval_args(argv))))),
            Builtin::Js => Ok(Rv::Val(Value::from(js_escape(&eval_args(argv))))),
            Builtin::Urlquery => Ok(Rv::Val(Value::from(query_escape(&eval_args(argv))))),
            Builtin::Call => {
                let callee = if let Some(a) = args.first() {
                    a.to_go_string()
                } else {
                    argv[0].concrete().map(format_value).unwrap_or_default()
                };
                match argv[0].concrete() {
                    None => Err(one("call of nil".into())),
                    Some(v) => Err(one(format!(
                        "non-function {} of type {}",
                        callee,
                        v.type_name()
                    ))),
                }
            }
            Builtin::And | Builtin::Or => Ok(argv.last().cloned().unwrap_or(Rv::Invalid)),
        }
    }

    // ----- Helm's engine functions -----

    fn call_helm(&mut self, h: HelmFn, argv: &[Rv]) -> Result<Rv, Vec<String>> {
        let lint = self
            .env
            .tmpls
            .helm
            .as_ref()
            .map(|m| m.lint)
            .unwrap_or(false);
        match h {
            HelmFn::Include => {
                let name = argv[0].to_value();
                let out = self.include(name.as_str().unwrap_or(""), argv[1].to_value())?;
                let value = Value::from_go_slice(&out);
                self.shared.recycle(out);
                Ok(Rv::Val(value))
            }
            HelmFn::Tpl => {
                let text = argv[0].to_value();
                self.tpl(text.as_str().unwrap_or(""), argv[1].to_value())
                    .map(|s| Rv::Val(Value::from_go_bytes(s)))
            }
            HelmFn::Required => {
                let warn = argv[0].to_value();
                let warn = warn.as_str().unwrap_or("");
                let val = argv[1].to_value();
                let missing = match &val {
                    Value::Nil => true,
                    Value::String(s) => s.is_empty(),
                    _ => false,
                };
                if missing {
                    if lint {
                        // Helm's engine logs it and goes on (`slog.Warn`; "values" for an empty
                        // string, "value" for nil).
                        let msg = if matches!(val, Value::Nil) {
                            "missing required value"
                        } else {
                            "missing required values"
                        };
                        kubepkg_gostd::slog::log(
                            kubepkg_gostd::slog::Record::warn(msg).attr("message", warn),
                        );
                        return Ok(Rv::Val(Value::str("")));
                    }
                    return Err(vec![crate::helm::warn_wrap(warn)]);
                }
                Ok(Rv::from_value(val))
            }
            HelmFn::Fail => {
                let msg = argv[0].to_value();
                if lint {
                    kubepkg_gostd::slog::log(
                        kubepkg_gostd::slog::Record::info("funcMap fail")
                            .attr("message", msg.as_str().unwrap_or("")),
                    );
                    return Ok(Rv::Val(Value::str("")));
                }
                Err(vec![crate::helm::warn_wrap(msg.as_str().unwrap_or(""))])
            }
            HelmFn::Lookup => {
                let s: Vec<String> = argv
                    .iter()
                    .map(|v| v.to_value().as_str().unwrap_or("").to_string())
                    .collect();
                let lookup = self.env.tmpls.helm.as_ref().and_then(|m| m.lookup.clone());
                match lookup {
                    None => Ok(Rv::Val(Value::empty_map())),
                    Some(l) => l
                        .lookup(&s[0], &s[1], &s[2], &s[3])
                        .map(Rv::Val)
                        .map_err(|e| vec![e]),
                }
            }
        }
    }

    fn include(&mut self, name: &str, data: Value) -> Result<Vec<u8>, Vec<String>> {
        let counts = &mut self.shared.include_counts;
        match counts.get_mut(name) {
            Some(v) => {
                if *v > HELM_MAX_INCLUDE {
                    return Err(vec![
                        format!(
                            "rendering template has a nested reference name: {name}: unable to execute template"
                        ),
                        "unable to execute template".into(),
                    ]);
                }
                *v += 1;
            }
            None => {
                counts.insert(name.to_string(), 1);
            }
        }
        let r = self.nested(|env, shared| execute_named(env, shared, name, Rv::from_value(data)));
        if let Some(v) = self.shared.include_counts.get_mut(name) {
            *v = v.saturating_sub(1);
        }
        r.map_err(|e| e.chain)
    }

    /// Run a nested execution (include/tpl) with the depth guard and stack growth.
    fn nested(
        &mut self,
        f: impl FnOnce(Env<'a>, &mut Shared) -> Result<Vec<u8>, ExecError>,
    ) -> Result<Vec<u8>, ExecError> {
        let max = self.env.tmpls.limits.max_depth;
        if self.shared.depth >= max {
            return Err(ExecError {
                is_exec_error: false,
                chain: vec![crate::budget::depth_exceeded(max)],
            });
        }
        self.shared.depth += 1;
        let env = self.env;
        let shared = &mut *self.shared;
        let r = stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || f(env, shared));
        self.shared.depth -= 1;
        r
    }

    fn tpl(&mut self, text: &str, vals: Value) -> Result<Vec<u8>, Vec<String>> {
        let tmpls = self.env.tmpls;
        let max = tmpls.limits.max_tpl_depth;
        if self.shared.tpl_depth >= max {
            return Err(vec![crate::budget::tpl_depth_exceeded(max)]);
        }
        let set_name = tmpls.set_name.clone();
        let parsed = tmpls.tpl_cache.get_or_parse(text, || {
            tmpls.parse_trees(&set_name, crate::parse::Source::copied(text))
        });
        let trees = match parsed {
            Ok(t) => t,
            Err(e) => {
                return Err(vec![
                    format!("cannot parse template {}: {}", quote(text), e.message),
                    e.message,
                ]);
            }
        };
        let mut overlay: NameMap<Arc<str>, Arc<Tree>> =
            self.env.overlay.cloned().unwrap_or_default();
        let mut own: Option<Arc<Tree>> = None;
        for (n, t) in trees.iter() {
            let (n, t) = (n.clone(), t.clone());
            if *n == *set_name {
                own = Some(t.clone());
            }
            let keep_old = t.is_empty()
                && self
                    .env
                    .lookup(&n)
                    .map(|old| !old.is_empty())
                    .unwrap_or(false);
            if !keep_old {
                overlay.insert(n, t);
            }
        }
        let Some(own) = own else {
            return Ok(Vec::new());
        };
        self.shared.tpl_depth += 1;
        let r = self.nested(|env, shared| {
            let env2 = Env {
                tmpls: env.tmpls,
                overlay: Some(&overlay),
            };
            execute_tree(env2, shared, &own, Rv::from_value(vals))
        });
        self.shared.tpl_depth -= 1;
        match r {
            Ok(s) => Ok(crate::helm::scrub_no_value_bytes(s)),
            Err(e) => {
                let mut chain = vec![format!(
                    "error during tpl function execution for {}: {}",
                    quote(text),
                    e.message()
                )];
                chain.extend(e.chain);
                Err(chain)
            }
        }
    }
}

/// A Go stringer-backed integer type such as `time.Month` or `time.Weekday`.
#[derive(Debug)]
struct NamedInt {
    type_name: &'static str,
    value: i64,
    name: &'static str,
}

impl GoObject for NamedInt {
    fn type_name(&self) -> &str {
        self.type_name
    }
    fn kind(&self) -> &str {
        "int"
    }
    fn format_v(&self) -> String {
        self.name.to_string()
    }
    fn to_plain(&self) -> Value {
        Value::Int(self.value)
    }
    fn truthy(&self) -> bool {
        self.value != 0
    }
}

use kubepkg_gostd::time::format::{DAYS as WEEKDAYS, MONTHS};

/// The niladic methods of Go's `time.Time` that templates call (`now.Unix`, `now.Year`, …).
fn time_method(t: &kubepkg_value::GoTime, name: &str) -> Option<Value> {
    let (y, m, d) = t.date();
    let (hour, minute, second) = t.clock();
    Some(match name {
        "Unix" => Value::Int64(t.unix_secs),
        "UnixMilli" => Value::Int64(t.unix_secs * 1000 + i64::from(t.nanos / 1_000_000)),
        "UnixMicro" => Value::Int64(t.unix_secs * 1_000_000 + i64::from(t.nanos / 1000)),
        "UnixNano" => Value::Int64(t.unix_secs * 1_000_000_000 + i64::from(t.nanos)),
        "Year" => Value::Int(y),
        "Month" => Value::Object(Arc::new(NamedInt {
            type_name: "time.Month",
            value: i64::from(m),
            name: MONTHS[(m as usize).clamp(1, 12) - 1],
        })),
        "Day" => Value::Int(i64::from(d)),
        "Hour" => Value::Int(i64::from(hour)),
        "Minute" => Value::Int(i64::from(minute)),
        "Second" => Value::Int(i64::from(second)),
        "Nanosecond" => Value::Int(i64::from(t.nanos)),
        "YearDay" => Value::Int(i64::from(t.year_day())),
        "Weekday" => {
            let wd = t.weekday();
            Value::Object(Arc::new(NamedInt {
                type_name: "time.Weekday",
                value: i64::from(wd),
                name: WEEKDAYS[wd as usize],
            }))
        }
        "String" => Value::from(t.string()),
        "IsZero" => Value::Bool(t.is_zero()),
        "UTC" => Value::Time(Arc::new(t.utc())),
        _ => return None,
    })
}

fn node_pos(n: &Node) -> usize {
    match n {
        Node::Text(_) | Node::Comment => 0,
        Node::Action(a) => a.pos,
        Node::If(b) | Node::Range(b) | Node::With(b) => b.pos,
        Node::Template(t) => t.pos,
        Node::Break(p) | Node::Continue(p) => *p,
    }
}

fn values(argv: &[Rv]) -> Vec<Value> {
    argv.iter().map(Rv::to_value).collect()
}

/// Go's `isTrue` on a pipeline result.
fn is_true(v: &Rv) -> bool {
    match v.concrete() {
        None => false,
        Some(v) => v.truthy(),
    }
}

fn truth(v: &Rv) -> bool {
    is_true(v)
}

fn length(v: &Rv) -> Result<usize, String> {
    if let Rv::Iface(Value::Nil) = v {
        return Err("len of nil pointer".into());
    }
    match v.concrete() {
        None => Err("reflect: call of reflect.Value.Type on zero Value".into()),
        Some(Value::String(s)) => Ok(s.len()),
        Some(Value::NonUtf8String(s)) => Ok(s.len()),
        Some(Value::Bytes(b)) => Ok(b.len()),
        Some(Value::List(l, _)) => Ok(l.len()),
        Some(Value::Map(m)) => Ok(map_read(m).len()),
        Some(Value::Object(o)) if o.go_len().is_some() => Ok(o.go_len().unwrap_or(0)),
        Some(other) => Err(format!("len of type {}", other.type_name())),
    }
}

fn index_arg(i: &Rv, cap: usize) -> Result<usize, String> {
    let x: i64 = match i.concrete() {
        Some(Value::Int(x)) | Some(Value::Int64(x)) => *x,
        Some(Value::Uint(u)) => *u as i64,
        Some(Value::Uint8(u)) => i64::from(*u),
        None => return Err("cannot index slice/array with nil".into()),
        Some(other) => {
            return Err(format!(
                "cannot index slice/array with type {}",
                other.type_name()
            ));
        }
    };
    if x < 0 || x as u64 > cap as u64 {
        return Err(format!("index out of range: {x}"));
    }
    Ok(x as usize)
}

fn index(item: &Rv, indexes: &[Rv]) -> Result<Rv, String> {
    let Some(first) = item.concrete() else {
        return Err("index of untyped nil".into());
    };
    let mut cur = Rv::Val(first.clone());
    for ix in indexes {
        let v = match cur.concrete() {
            Some(v) => v.clone(),
            None => return Err("index of nil pointer".into()),
        };
        cur = match &v {
            Value::List(l, et) => {
                let x = index_arg(ix, l.len())?;
                if x >= l.len() {
                    return Err("reflect: slice index out of range".into());
                }
                if *et == ElemType::Interface {
                    Rv::Iface(l[x].clone())
                } else {
                    Rv::Val(l[x].clone())
                }
            }
            Value::String(_) | Value::NonUtf8String(_) => {
                let s = v.go_bytes().unwrap_or_default();
                let x = index_arg(ix, s.len())?;
                if x >= s.len() {
                    return Err("reflect: string index out of range".into());
                }
                Rv::Val(byte_value(s[x]))
            }
            Value::Bytes(b) => {
                let x = index_arg(ix, b.len())?;
                if x >= b.len() {
                    return Err("reflect: slice index out of range".into());
                }
                Rv::Val(byte_value(b[x]))
            }
            Value::Map(m) => {
                let key = match ix.concrete() {
                    Some(Value::String(k)) => k.clone(),
                    Some(k @ Value::NonUtf8String(_)) => {
                        Arc::from(k.go_str_lossy().unwrap_or_default().as_ref())
                    }
                    None => {
                        return Err("value is nil; should be of type string".into());
                    }
                    Some(other) => {
                        return Err(format!(
                            "value has type {}; should be string",
                            other.type_name()
                        ));
                    }
                };
                let elem_is_string = m.map_type() == MapType::String;
                match (map_read(m).get(&*key), elem_is_string) {
                    (Some(x), false) => Rv::Iface(x.clone()),
                    (None, false) => Rv::Iface(Value::Nil),
                    (Some(x), true) => Rv::Val(x.clone()),
                    (None, true) => Rv::Val(Value::str("")),
                }
            }
            Value::Nil => return Err("index of nil pointer".into()),
            other => return Err(format!("can't index item of type {}", other.type_name())),
        };
    }
    Ok(cur)
}

fn slice(item: &Rv, indexes: &[Rv]) -> Result<Rv, String> {
    let Some(v) = item.concrete() else {
        return Err("slice of untyped nil".into());
    };
    if indexes.len() > 3 {
        return Err(format!("too many slice indexes: {}", indexes.len()));
    }
    let (len, cap) = match v {
        Value::String(_) | Value::NonUtf8String(_) => {
            if indexes.len() == 3 {
                return Err("cannot 3-index slice a string".into());
            }
            let n = v.go_bytes().map_or(0, <[u8]>::len);
            (n, n)
        }
        Value::List(l, _) => (l.len(), l.len()),
        Value::Bytes(b) => (b.len(), b.len()),
        other => return Err(format!("can't slice item of type {}", other.type_name())),
    };
    let mut idx = [0usize, len, 0];
    for (i, ix) in indexes.iter().enumerate() {
        // Unlike index, slice does not unwrap interface values (Go's indexArg sees the
        // interface kind).
        if let Rv::Iface(_) = ix {
            return Err("cannot index slice/array with type interface {}".into());
        }
        idx[i] = index_arg(ix, cap)?;
    }
    if idx[0] > idx[1] {
        return Err(format!("invalid slice index: {} > {}", idx[0], idx[1]));
    }
    if indexes.len() == 3 && idx[1] > idx[2] {
        return Err(format!("invalid slice index: {} > {}", idx[1], idx[2]));
    }
    Ok(Rv::Val(match v {
        Value::String(_) | Value::NonUtf8String(_) => {
            let bytes = &v.go_bytes().unwrap_or_default()[idx[0]..idx[1]];
            Value::from_go_bytes(bytes.to_vec())
        }
        Value::List(l, et) => Value::List(Arc::new(l[idx[0]..idx[1]].to_vec()), *et),
        Value::Bytes(b) => Value::Bytes(Arc::from(&b[idx[0]..idx[1]])),
        _ => Value::Nil,
    }))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Invalid,
    Bool,
    Complex,
    Int,
    Float,
    String,
    Uint,
}

fn basic_kind(v: Option<&Value>) -> Kind {
    match v {
        Some(Value::Bool(_)) => Kind::Bool,
        Some(Value::Int(_)) | Some(Value::Int64(_)) => Kind::Int,
        Some(Value::Uint(_)) | Some(Value::Uint8(_)) => Kind::Uint,
        Some(Value::Float(_)) => Kind::Float,
        Some(Value::String(_)) | Some(Value::NonUtf8String(_)) => Kind::String,
        Some(Value::Object(o)) if o.kind() == "complex128" => Kind::Complex,
        _ => Kind::Invalid,
    }
}

fn as_i64(v: Option<&Value>) -> i64 {
    match v {
        Some(Value::Int(i)) | Some(Value::Int64(i)) => *i,
        _ => 0,
    }
}

fn as_u64(v: Option<&Value>) -> u64 {
    match v {
        Some(Value::Uint(u)) => *u,
        Some(Value::Uint8(u)) => u64::from(*u),
        _ => 0,
    }
}

fn as_f64(v: Option<&Value>) -> f64 {
    match v {
        Some(Value::Float(f)) => *f,
        _ => 0.0,
    }
}

fn as_s(v: Option<&Value>) -> &[u8] {
    v.and_then(Value::go_bytes).unwrap_or_default()
}

fn type_of(v: Option<&Value>) -> String {
    v.map(Value::type_name).unwrap_or_else(|| "<nil>".into())
}

fn eq(arg1: &Rv, arg2: &[Rv]) -> Result<bool, String> {
    let a1 = arg1.concrete();
    if arg2.is_empty() {
        return Err("missing argument for comparison".into());
    }
    let k1 = basic_kind(a1);
    for arg in arg2 {
        let a = arg.concrete();
        let k2 = basic_kind(a);
        let truth = if k1 != k2 {
            match (k1, k2) {
                (Kind::Int, Kind::Uint) => as_i64(a1) >= 0 && as_i64(a1) as u64 == as_u64(a),
                (Kind::Uint, Kind::Int) => as_i64(a) >= 0 && as_u64(a1) == as_i64(a) as u64,
                _ => {
                    if a1.is_some() && a.is_some() {
                        return Err(format!(
                            "incompatible types for comparison: {} and {}",
                            type_of(a1),
                            type_of(a)
                        ));
                    }
                    false
                }
            }
        } else {
            match k1 {
                Kind::Bool => a1 == a,
                Kind::Complex => a1.map(format_value) == a.map(format_value),
                Kind::Float => as_f64(a1) == as_f64(a),
                Kind::Int => as_i64(a1) == as_i64(a),
                Kind::String => as_s(a1) == as_s(a),
                Kind::Uint => as_u64(a1) == as_u64(a),
                Kind::Invalid => match (a1, a) {
                    (None, None) => true,
                    (None, Some(_)) | (Some(_), None) => false,
                    (Some(x), Some(y)) => {
                        let comparable = |v: &Value| {
                            !matches!(v, Value::Map(_) | Value::List(..) | Value::Bytes(_))
                        };
                        if std::mem::discriminant(x) != std::mem::discriminant(y)
                            && !(matches!(x, Value::Object(_)) && matches!(y, Value::Object(_)))
                        {
                            return Err(format!(
                                "non-comparable types {}: {}, {}: {}",
                                sprintf("%s", std::slice::from_ref(x)),
                                x.type_name(),
                                y.type_name(),
                                format_value(y)
                            ));
                        }
                        if !comparable(y) {
                            return Err(format!(
                                "non-comparable type {}: {}",
                                sprintf("%s", std::slice::from_ref(y)),
                                y.type_name()
                            ));
                        }
                        x == y
                    }
                },
            }
        };
        if truth {
            return Ok(true);
        }
    }
    Ok(false)
}

fn lt(arg1: &Rv, arg2: &Rv) -> Result<bool, String> {
    let a1 = arg1.concrete();
    let k1 = basic_kind(a1);
    if k1 == Kind::Invalid {
        return Err("invalid type for comparison".into());
    }
    let a2 = arg2.concrete();
    let k2 = basic_kind(a2);
    if k2 == Kind::Invalid {
        return Err("invalid type for comparison".into());
    }
    if k1 != k2 {
        return match (k1, k2) {
            (Kind::Int, Kind::Uint) => Ok(as_i64(a1) < 0 || (as_i64(a1) as u64) < as_u64(a2)),
            (Kind::Uint, Kind::Int) => Ok(as_i64(a2) >= 0 && as_u64(a1) < as_i64(a2) as u64),
            _ => Err(format!(
                "incompatible types for comparison: {} and {}",
                type_of(a1),
                type_of(a2)
            )),
        };
    }
    match k1 {
        Kind::Bool | Kind::Complex | Kind::Invalid => Err("invalid type for comparison".into()),
        Kind::Float => Ok(as_f64(a1) < as_f64(a2)),
        Kind::Int => Ok(as_i64(a1) < as_i64(a2)),
        Kind::String => Ok(as_s(a1) < as_s(a2)),
        Kind::Uint => Ok(as_u64(a1) < as_u64(a2)),
    }
}

fn le(a: &Rv, b: &Rv) -> Result<bool, String> {
    if lt(a, b)? {
        return Ok(true);
    }
    eq(a, std::slice::from_ref(b))
}

/// Go's `evalArgs` for html/js/urlquery: a lone string as is, else `fmt.Sprint` of the
/// printable values (invalid ones print `<no value>`).
fn eval_args(argv: &[Rv]) -> String {
    if argv.len() == 1
        && let Some(Value::String(s)) = argv[0].concrete()
    {
        return s.to_string();
    }
    let vals: Vec<Value> = argv
        .iter()
        .map(|v| match v.concrete() {
            None => Value::str("<no value>"),
            Some(x) => x.clone(),
        })
        .collect();
    sprint(&vals)
}

/// Go's `template.HTMLEscapeString`.
pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\0' => out.push('\u{FFFD}'),
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// Go's `template.JSEscapeString`.
pub fn js_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '<' => out.push_str("\\u003C"),
            '>' => out.push_str("\\u003E"),
            '&' => out.push_str("\\u0026"),
            '=' => out.push_str("\\u003D"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u00{:02X}", c as u32)),
            c if c.is_ascii() => out.push(c),
            c => {
                if kubepkg_gostd::strconv::is_print(c) {
                    out.push(c)
                } else {
                    out.push_str(&format!("\\u{:04X}", c as u32))
                }
            }
        }
    }
    out
}

/// Go's `url.QueryEscape`.
pub fn query_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}
