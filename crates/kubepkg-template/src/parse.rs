//! The parser of Go's `text/template`: builds the syntax tree of a template file and of every
//! `define`/`block` inside it, with Go's checks (undefined variables and functions,
//! `break` outside `range`, multiple definitions, …) and Go's error texts
//! `template: NAME:LINE: MESSAGE`. Nodes keep their byte position so execution errors can name
//! `NAME:LINE:COL` and print the node as Go does.

use std::sync::Arc;

use crate::ParseError;
use crate::lex::{Item, ItemKind, Tokens, lex};

/// A parsed template: its name, the file it came from (`parse_name`) and that file's text
/// (the bytes of its [`Source`], shared, not copied).
#[derive(Debug)]
pub struct Tree {
    pub name: Arc<str>,
    pub parse_name: Arc<str>,
    pub text: Arc<[u8]>,
    pub root: List,
}

impl Tree {
    /// Go's `parse.IsEmptyTree`: only whitespace text and comments.
    pub fn is_empty(&self) -> bool {
        self.root.nodes.iter().all(|n| match n {
            Node::Text(t) => t.as_str().trim_matches(char::is_whitespace).is_empty(),
            Node::Comment => true,
            _ => false,
        })
    }

    /// Go's `ErrorContext`: `NAME:LINE:COL` of a byte position.
    pub fn location(&self, pos: usize) -> String {
        let pos = pos.min(self.text.len());
        let before = &self.text[..pos];
        let col = match before.iter().rposition(|&b| b == b'\n') {
            None => pos,
            Some(i) => pos - (i + 1),
        };
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        format!("{}:{}:{}", self.parse_name, line, col)
    }
}

impl Tree {
    /// Whether `pred` holds for any operand of the tree, nested ones (in parentheses, in
    /// chains, in the pipelines of `if`, `range`, `with` and `template`) included: which
    /// functions a template can call and which fields it names, without executing it.
    pub fn any_arg(&self, pred: &mut dyn FnMut(&Arg) -> bool) -> bool {
        self.root.any_arg(pred)
    }
}

impl List {
    fn any_arg(&self, pred: &mut dyn FnMut(&Arg) -> bool) -> bool {
        self.nodes.iter().any(|n| match n {
            Node::Action(a) => a.pipe.any_arg(pred),
            Node::If(b) | Node::Range(b) | Node::With(b) => {
                b.pipe.any_arg(pred)
                    || b.list.any_arg(pred)
                    || b.else_list.as_ref().is_some_and(|l| l.any_arg(pred))
            }
            Node::Template(t) => t.pipe.as_ref().is_some_and(|p| p.any_arg(pred)),
            Node::Text(_) | Node::Comment | Node::Break(_) | Node::Continue(_) => false,
        })
    }
}

impl Pipe {
    fn any_arg(&self, pred: &mut dyn FnMut(&Arg) -> bool) -> bool {
        self.cmds
            .iter()
            .any(|c| c.args.iter().any(|a| a.any_arg(pred)))
    }
}

impl Arg {
    fn any_arg(&self, pred: &mut dyn FnMut(&Arg) -> bool) -> bool {
        pred(self)
            || match self {
                Arg::Chain { node, .. } => node.any_arg(pred),
                Arg::Pipe(p) => p.any_arg(pred),
                _ => false,
            }
    }
}

/// A sequence of nodes.
#[derive(Debug, Default)]
pub struct List {
    pub nodes: Vec<Node>,
}

/// A node of the template body.
#[derive(Debug)]
pub enum Node {
    Text(Text),
    Comment,
    Action(Action),
    If(Box<Branch>),
    Range(Box<Branch>),
    With(Box<Branch>),
    Template(Box<TemplateCall>),
    Break(usize),
    Continue(usize),
}

/// The text between actions: a span of its file's shared bytes (a template of megabytes of
/// CRD text is not copied into its tree).
#[derive(Clone)]
pub struct Text {
    source: Arc<[u8]>,
    span: std::ops::Range<usize>,
}

impl Text {
    /// The text as the output gets it.
    pub fn as_bytes(&self) -> &[u8] {
        self.source.get(self.span.clone()).unwrap_or_default()
    }

    /// The text (a span of a UTF-8 file cut between characters, so nothing is replaced).
    pub fn as_str(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(self.as_bytes())
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Text({:?})", self.as_str())
    }
}

/// A template file's text to parse and the shared bytes it is read from: the trees and text
/// nodes parsed from it keep those bytes instead of a copy.
#[derive(Debug, Clone, Copy)]
pub struct Source<'t> {
    text: &'t str,
    bytes: Option<&'t Arc<[u8]>>,
}

impl<'t> Source<'t> {
    /// `text`, which the trees will keep a copy of.
    pub fn copied(text: &'t str) -> Source<'t> {
        Source { text, bytes: None }
    }

    /// `text`, read from `bytes` (`std::str::from_utf8(bytes)`), which the trees will share;
    /// text that is not all of `bytes` is copied as [`Source::copied`] is.
    pub fn shared(text: &'t str, bytes: &'t Arc<[u8]>) -> Source<'t> {
        let whole = std::ptr::eq(text.as_bytes(), &**bytes);
        Source {
            text,
            bytes: whole.then_some(bytes),
        }
    }

    /// The bytes the trees keep.
    fn bytes(&self) -> Arc<[u8]> {
        match self.bytes {
            Some(b) => b.clone(),
            None => Arc::from(self.text.as_bytes()),
        }
    }
}

/// `{{pipeline}}`
#[derive(Debug)]
pub struct Action {
    pub pos: usize,
    pub pipe: Pipe,
}

/// `if`, `range` and `with`.
#[derive(Debug)]
pub struct Branch {
    pub pos: usize,
    pub pipe: Pipe,
    pub list: List,
    pub else_list: Option<List>,
}

/// `{{template "name" pipeline}}`
#[derive(Debug)]
pub struct TemplateCall {
    pub pos: usize,
    pub name: Arc<str>,
    pub pipe: Option<Pipe>,
}

/// A pipeline with optional variable declarations.
#[derive(Debug)]
pub struct Pipe {
    pub pos: usize,
    pub is_assign: bool,
    pub decl: Box<[(usize, Arc<str>)]>,
    pub cmds: Box<[Command]>,
}

/// One command of a pipeline: an operand followed by arguments.
#[derive(Debug)]
pub struct Command {
    pub pos: usize,
    pub args: Box<[Arg]>,
}

/// A numeric constant with all the interpretations Go allows.
#[derive(Debug, Clone)]
pub struct Number {
    pub text: Box<str>,
    pub is_int: bool,
    pub is_uint: bool,
    pub is_float: bool,
    pub is_complex: bool,
    pub int: i64,
    pub uint: u64,
    pub float: f64,
    pub complex: (f64, f64),
}

/// Operands.
#[derive(Debug)]
pub enum Arg {
    /// `.A.B`
    Field {
        pos: usize,
        idents: Vec<Arc<str>>,
    },
    /// `$x.A.B` (idents[0] is the variable name)
    Variable {
        pos: usize,
        idents: Vec<Arc<str>>,
    },
    /// `(pipe).A.B` or `fn.A`
    Chain {
        pos: usize,
        node: Box<Arg>,
        fields: Vec<Arc<str>>,
    },
    Identifier {
        pos: usize,
        name: Arc<str>,
    },
    Dot(usize),
    Nil(usize),
    Bool(usize, bool),
    Number(usize, Box<Number>),
    /// A string constant; `value` is the Go string it denotes (escapes such as `\xff` can
    /// make bytes that are not UTF-8).
    String {
        pos: usize,
        quoted: Box<str>,
        value: kubepkg_value::Value,
    },
    Pipe(Box<Pipe>),
}

/// A parse-tree node's text as Go's `String()` methods write it (how errors quote the
/// template).
pub trait GoText {
    /// Appends the text to `s`.
    fn write_to(&self, s: &mut String);

    /// The text.
    fn to_go_string(&self) -> String {
        let mut s = String::new();
        self.write_to(&mut s);
        s
    }
}

impl Arg {
    pub fn pos(&self) -> usize {
        match self {
            Arg::Field { pos, .. }
            | Arg::Variable { pos, .. }
            | Arg::Chain { pos, .. }
            | Arg::Identifier { pos, .. }
            | Arg::Dot(pos)
            | Arg::Nil(pos)
            | Arg::Bool(pos, _)
            | Arg::Number(pos, _)
            | Arg::String { pos, .. } => *pos,
            Arg::Pipe(p) => p.pos,
        }
    }

    /// As an operand of a command or a chain: a pipeline in parentheses.
    fn write_operand(&self, s: &mut String) {
        if let Arg::Pipe(_) = self {
            s.push('(');
            self.write_to(s);
            s.push(')');
        } else {
            self.write_to(s);
        }
    }
}

impl GoText for Arg {
    fn write_to(&self, s: &mut String) {
        match self {
            Arg::Field { idents, .. } => {
                for i in idents {
                    s.push('.');
                    s.push_str(i);
                }
            }
            Arg::Variable { idents, .. } => {
                for (k, i) in idents.iter().enumerate() {
                    if k > 0 {
                        s.push('.');
                    }
                    s.push_str(i);
                }
            }
            Arg::Chain { node, fields, .. } => {
                node.write_operand(s);
                for f in fields {
                    s.push('.');
                    s.push_str(f);
                }
            }
            Arg::Identifier { name, .. } => s.push_str(name),
            Arg::Dot(_) => s.push('.'),
            Arg::Nil(_) => s.push_str("nil"),
            Arg::Bool(_, b) => s.push_str(if *b { "true" } else { "false" }),
            Arg::Number(_, n) => s.push_str(&n.text),
            Arg::String { quoted, .. } => s.push_str(quoted),
            Arg::Pipe(p) => p.write_to(s),
        }
    }
}

impl GoText for Pipe {
    fn write_to(&self, s: &mut String) {
        if !self.decl.is_empty() {
            write_joined(s, &self.decl, ", ", |s, (_, v)| s.push_str(v));
            s.push_str(if self.is_assign { " = " } else { " := " });
        }
        write_joined(s, &self.cmds, " | ", |s, c| c.write_to(s));
    }
}

/// Writes each of `items` with `write`, `sep` between them.
fn write_joined<T>(s: &mut String, items: &[T], sep: &str, mut write: impl FnMut(&mut String, &T)) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            s.push_str(sep);
        }
        write(s, item);
    }
}

impl GoText for Command {
    fn write_to(&self, s: &mut String) {
        write_joined(s, &self.args, " ", |s, a| a.write_operand(s));
    }
}

impl GoText for List {
    fn write_to(&self, s: &mut String) {
        for n in &self.nodes {
            n.write_to(s);
        }
    }
}

impl GoText for Node {
    fn write_to(&self, s: &mut String) {
        match self {
            Node::Text(t) => s.push_str(&t.as_str()),
            Node::Comment => {}
            Node::Action(a) => {
                s.push_str("{{");
                a.pipe.write_to(s);
                s.push_str("}}");
            }
            Node::If(b) => b.write_to("if", s),
            Node::Range(b) => b.write_to("range", s),
            Node::With(b) => b.write_to("with", s),
            Node::Template(t) => {
                s.push_str("{{template ");
                s.push_str(&kubepkg_gostd::strconv::quote(&t.name));
                if let Some(p) = &t.pipe {
                    s.push(' ');
                    p.write_to(s);
                }
                s.push_str("}}");
            }
            Node::Break(_) => s.push_str("{{break}}"),
            Node::Continue(_) => s.push_str("{{continue}}"),
        }
    }
}

impl Branch {
    fn write_to(&self, name: &str, s: &mut String) {
        s.push_str("{{");
        s.push_str(name);
        s.push(' ');
        self.pipe.write_to(s);
        s.push_str("}}");
        self.list.write_to(s);
        if let Some(e) = &self.else_list {
            s.push_str("{{else}}");
            e.write_to(s);
        }
        s.push_str("{{end}}");
    }
}

// Deeply nested templates (thousands of `if`s or parentheses) would overflow the stack when
// their tree is dropped recursively; these drops flatten the nesting onto the heap.
impl Drop for List {
    fn drop(&mut self) {
        let mut stack: Vec<Node> = std::mem::take(&mut self.nodes);
        while let Some(node) = stack.pop() {
            match node {
                Node::If(mut b) | Node::Range(mut b) | Node::With(mut b) => {
                    stack.append(&mut b.list.nodes);
                    if let Some(e) = b.else_list.as_mut() {
                        stack.append(&mut e.nodes);
                    }
                }
                _ => {}
            }
        }
    }
}

impl Drop for Command {
    fn drop(&mut self) {
        let mut stack: Vec<Arg> = std::mem::take(&mut self.args).into_vec();
        while let Some(a) = stack.pop() {
            match a {
                Arg::Pipe(mut p) => {
                    for mut c in std::mem::take(&mut p.cmds) {
                        stack.extend(std::mem::take(&mut c.args));
                    }
                }
                Arg::Chain { node, .. } => stack.push(*node),
                _ => {}
            }
        }
    }
}

/// What `itemList` stopped at.
enum End {
    End,
    Else(usize),
}

struct Ctx {
    vars: Vec<Arc<str>>,
    range_depth: usize,
    action_line: usize,
    last_line: usize,
    stack_depth: usize,
}

/// The nodes, commands and operands of the lists, pipelines and commands being parsed, nested
/// ones above the ones they are inside of: each is moved into a vector of its exact length when
/// its list, pipeline or command ends ([`Parser::take`]), one allocation where growing a vector
/// by doubling and fitting it took two to four (a chart's trees live as long as the chart).
#[derive(Default)]
struct Stacks {
    nodes: Vec<Node>,
    cmds: Vec<Command>,
    args: Vec<Arg>,
}

struct Parser<'f, 't> {
    items: Tokens<'t>,
    stacks: Stacks,
    idx: usize,
    fetched: usize,
    parse_name: Arc<str>,
    text: Arc<[u8]>,
    ctx: Ctx,
    has_func: &'f dyn Fn(&str) -> bool,
    trees: Vec<(Arc<str>, Tree)>,
}

type PResult<T> = Result<T, ParseError>;

/// A name in a tree (a field, function, variable or template name) as a shared string: a
/// chart's templates name the same few hundred fields and functions thousands of times, so each
/// distinct name is allocated once per thread and shared by every tree that uses it. Bounded:
/// at most [`NAMES_MAX`] names of at most [`NAME_MAX_LEN`] bytes are kept, longer or later ones
/// are allocated as before.
fn name(s: &str) -> Arc<str> {
    type NameSet =
        std::collections::HashSet<Arc<str>, std::hash::BuildHasherDefault<crate::NameHasher>>;
    thread_local! {
        static NAMES: std::cell::RefCell<NameSet> = std::cell::RefCell::default();
    }
    if s.len() > NAME_MAX_LEN {
        return Arc::from(s);
    }
    NAMES.with(|names| {
        let mut names = names.borrow_mut();
        if let Some(kept) = names.get(s) {
            return kept.clone();
        }
        let new: Arc<str> = Arc::from(s);
        if names.len() < NAMES_MAX {
            names.insert(new.clone());
        }
        new
    })
}

/// How many names [`name`] keeps per thread.
const NAMES_MAX: usize = 16 * 1024;
/// The longest name [`name`] keeps.
const NAME_MAX_LEN: usize = 64;

const MAX_STACK_DEPTH: usize = 10_000;

/// Parse a file: returns the file's own tree and every tree it `define`s (Go's `parse.Parse`).
pub fn parse(
    name: &str,
    source: Source<'_>,
    has_func: &dyn Fn(&str) -> bool,
) -> Result<Vec<(Arc<str>, Tree)>, ParseError> {
    if source.text.len() > crate::lex::MAX_INPUT {
        return Err(ParseError {
            message: format!(
                "template: {name}: is {} bytes long, more than the 4 GiB a template may have",
                source.text.len()
            ),
        });
    }
    let name: Arc<str> = Arc::from(name);
    let mut p = Parser {
        items: lex(source.text),
        stacks: Stacks::default(),
        idx: 0,
        fetched: 0,
        parse_name: name.clone(),
        text: source.bytes(),
        ctx: new_ctx(),
        has_func,
        trees: Vec::new(),
    };
    let root = p.parse_top()?;
    p.add(name, root)?;
    Ok(p.trees)
}

fn new_ctx() -> Ctx {
    Ctx {
        vars: vec![Arc::from("$")],
        range_depth: 0,
        action_line: 0,
        last_line: 0,
        stack_depth: 0,
    }
}

fn unexpected_is_definitive(_: &Item) -> bool {
    true
}

impl<'f, 't> Parser<'f, 't> {
    /// What `part` parses (pushing onto one of the [`Stacks`] that `stack` picks) from the stack's
    /// length before it, as a vector of its exact length; on an error, what it pushed is dropped.
    fn take<T>(
        &mut self,
        stack: fn(&mut Stacks) -> &mut Vec<T>,
        part: impl FnOnce(&mut Self) -> PResult<()>,
    ) -> PResult<Vec<T>> {
        let start = stack(&mut self.stacks).len();
        let r = part(self);
        let s = stack(&mut self.stacks);
        match r {
            Ok(()) => Ok(s.drain(start..).collect()),
            Err(e) => {
                s.truncate(start);
                Err(e)
            }
        }
    }

    fn errorf(&self, msg: impl std::fmt::Display) -> ParseError {
        ParseError {
            message: format!(
                "template: {}:{}: {}",
                self.parse_name, self.ctx.last_line, msg
            ),
        }
    }

    fn next(&mut self) -> Item<'t> {
        let i = self.next_idx();
        self.items.item(i)
    }

    /// Advance like `next` and return the index of the item consumed.
    fn next_idx(&mut self) -> usize {
        let i = self.idx.min(self.items.len() - 1);
        if self.idx >= self.fetched {
            self.fetched = self.idx + 1;
            self.ctx.last_line = self.items.line(i);
        }
        if self.idx < self.items.len() - 1 {
            self.idx += 1;
        } else {
            self.idx = self.items.len();
        }
        i
    }

    /// The kind of the next item, without consuming it.
    fn peek_kind(&mut self) -> ItemKind {
        let i = self.next_idx();
        self.backup();
        self.items.kind(i)
    }

    /// The kind of the next non-space item, without consuming it.
    fn peek_non_space_kind(&mut self) -> ItemKind {
        loop {
            let i = self.next_idx();
            if self.items.kind(i) != ItemKind::Space {
                // As Go's peekNonSpace: spaces before it stay consumed, the token is backed up.
                self.idx = i;
                return self.items.kind(i);
            }
        }
    }

    fn backup(&mut self) {
        self.idx -= 1;
    }

    fn peek(&mut self) -> Item<'t> {
        let it = self.next();
        self.backup();
        it
    }

    fn next_non_space(&mut self) -> Item<'t> {
        loop {
            let t = self.next();
            if t.kind != ItemKind::Space {
                return t;
            }
        }
    }

    fn peek_non_space(&mut self) -> Item<'t> {
        let t = self.next_non_space();
        self.backup();
        t
    }

    fn unexpected(&self, token: &Item, context: &str) -> ParseError {
        if token.kind == ItemKind::Error && unexpected_is_definitive(token) {
            let mut extra = String::new();
            if self.ctx.action_line != 0 && self.ctx.action_line != token.line {
                extra = format!(
                    " in action started at {}:{}",
                    self.parse_name, self.ctx.action_line
                );
                if token.val.ends_with(" action") {
                    extra = extra[" in action".len()..].to_string();
                }
            }
            return self.errorf(format!("{token}{extra}"));
        }
        self.errorf(format!("unexpected {token} in {context}"))
    }

    fn expect(&mut self, kind: ItemKind, context: &str) -> PResult<Item<'t>> {
        let t = self.next_non_space();
        if t.kind != kind {
            return Err(self.unexpected(&t, context));
        }
        Ok(t)
    }

    /// Go's `Tree.add` within one parse.
    fn add(&mut self, name: Arc<str>, root: List) -> PResult<()> {
        let tree = Tree {
            name: name.clone(),
            parse_name: self.parse_name.clone(),
            text: self.text.clone(),
            root,
        };
        if let Some(i) = self.trees.iter().position(|(n, _)| *n == name) {
            if self.trees[i].1.is_empty() {
                self.trees[i].1 = tree;
                return Ok(());
            }
            if !tree.is_empty() {
                return Err(self.errorf(format!(
                    "template: multiple definition of template {}",
                    kubepkg_gostd::strconv::quote(&name)
                )));
            }
            return Ok(());
        }
        self.trees.push((name, tree));
        Ok(())
    }

    fn parse_top(&mut self) -> PResult<List> {
        let nodes = self.take(|s| &mut s.nodes, Self::parse_top_nodes)?;
        Ok(List { nodes })
    }

    fn parse_top_nodes(&mut self) -> PResult<()> {
        while self.peek_kind() != ItemKind::Eof {
            if self.peek_kind() == ItemKind::LeftDelim {
                let save = self.idx;
                self.next();
                if self.next_non_space().kind == ItemKind::Define {
                    let saved = std::mem::replace(&mut self.ctx, new_ctx());
                    let r = self.parse_definition();
                    self.ctx = saved;
                    r?;
                    continue;
                }
                self.idx = save;
            }
            match self.text_or_action()? {
                Parsed::Node(n) => self.stacks.nodes.push(n),
                Parsed::End => return Err(self.errorf("unexpected {{end}}")),
                Parsed::Else(_) => return Err(self.errorf("unexpected {{else}}")),
            }
        }
        Ok(())
    }

    fn parse_definition(&mut self) -> PResult<()> {
        const CONTEXT: &str = "define clause";
        let name = self.next_non_space();
        if name.kind != ItemKind::String && name.kind != ItemKind::RawString {
            return Err(self.unexpected(&name, CONTEXT));
        }
        let n = unquote(&name.val).map_err(|e| self.errorf(e))?;
        self.expect(ItemKind::RightDelim, CONTEXT)?;
        let (list, end) = self.item_list()?;
        if let End::Else(_) = end {
            return Err(self.errorf(format!("unexpected {{{{else}}}} in {CONTEXT}")));
        }
        self.add(Arc::from(n.as_str()), list)
    }

    fn item_list(&mut self) -> PResult<(List, End)> {
        stacker::maybe_grow(256 * 1024, 4 * 1024 * 1024, || self.item_list_inner())
    }

    fn item_list_inner(&mut self) -> PResult<(List, End)> {
        let mut end = End::End;
        let nodes = self.take(
            |s| &mut s.nodes,
            |p| {
                while p.peek_non_space_kind() != ItemKind::Eof {
                    match p.text_or_action()? {
                        Parsed::Node(n) => p.stacks.nodes.push(n),
                        Parsed::End => return Ok(()),
                        Parsed::Else(pos) => {
                            end = End::Else(pos);
                            return Ok(());
                        }
                    }
                }
                Err(p.errorf("unexpected EOF"))
            },
        )?;
        Ok((List { nodes }, end))
    }

    fn text_or_action(&mut self) -> PResult<Parsed> {
        let token = self.next_non_space();
        match token.kind {
            ItemKind::Text => Ok(Parsed::Node(Node::Text(Text {
                source: self.text.clone(),
                span: token.pos..token.pos + token.val.len(),
            }))),
            ItemKind::LeftDelim => {
                self.ctx.action_line = token.line;
                let r = self.action();
                self.ctx.action_line = 0;
                r
            }
            _ => Err(self.unexpected(&token, "input")),
        }
    }

    /// The rest of `{{break}}` or `{{continue}}` (`action`): the closing delimiter, and an
    /// enclosing `{{range}}`.
    fn loop_control(&mut self, action: &str) -> PResult<()> {
        let t = self.next_non_space();
        if t.kind != ItemKind::RightDelim {
            return Err(self.unexpected(&t, action));
        }
        if self.ctx.range_depth == 0 {
            return Err(self.errorf(format_args!("{action} outside {{{{range}}}}")));
        }
        Ok(())
    }

    fn action(&mut self) -> PResult<Parsed> {
        let token = self.next_non_space();
        match token.kind {
            ItemKind::Block => return self.block_control().map(Parsed::Node),
            ItemKind::Break => {
                self.loop_control("{{break}}")?;
                return Ok(Parsed::Node(Node::Break(token.pos)));
            }
            ItemKind::Continue => {
                self.loop_control("{{continue}}")?;
                return Ok(Parsed::Node(Node::Continue(token.pos)));
            }
            ItemKind::Else => {
                let peek = self.peek_non_space();
                if peek.kind == ItemKind::If || peek.kind == ItemKind::With {
                    return Ok(Parsed::Else(peek.pos));
                }
                let t = self.expect(ItemKind::RightDelim, "else")?;
                return Ok(Parsed::Else(t.pos));
            }
            ItemKind::End => {
                self.expect(ItemKind::RightDelim, "end")?;
                return Ok(Parsed::End);
            }
            ItemKind::If => return self.if_control().map(Parsed::Node),
            ItemKind::Range => {
                let b = self.parse_control("range")?;
                return Ok(Parsed::Node(Node::Range(Box::new(b))));
            }
            ItemKind::Template => return self.template_control().map(Parsed::Node),
            ItemKind::With => return self.with_control().map(Parsed::Node),
            _ => {}
        }
        self.backup();
        let token = self.peek();
        let pipe = self.pipeline("command", ItemKind::RightDelim)?;
        Ok(Parsed::Node(Node::Action(Action {
            pos: token.pos,
            pipe,
        })))
    }

    fn if_control(&mut self) -> PResult<Node> {
        Ok(Node::If(Box::new(self.parse_control("if")?)))
    }

    fn with_control(&mut self) -> PResult<Node> {
        Ok(Node::With(Box::new(self.parse_control("with")?)))
    }

    fn parse_control(&mut self, context: &str) -> PResult<Branch> {
        let nvars = self.ctx.vars.len();
        let r = self.parse_control_inner(context);
        self.ctx.vars.truncate(nvars);
        r
    }

    fn parse_control_inner(&mut self, context: &str) -> PResult<Branch> {
        let pipe = self.pipeline(context, ItemKind::RightDelim)?;
        if context == "range" {
            self.ctx.range_depth += 1;
        }
        let r = self.item_list();
        if context == "range" {
            self.ctx.range_depth -= 1;
        }
        let (list, next) = r?;
        let mut else_list = None;
        if let End::Else(epos) = next {
            if context == "if" && self.peek_kind() == ItemKind::If {
                self.next();
                else_list = Some(List {
                    nodes: vec![self.if_control()?],
                });
            } else if context == "with" && self.peek_kind() == ItemKind::With {
                self.next();
                else_list = Some(List {
                    nodes: vec![self.with_control()?],
                });
            } else {
                let (l, next) = self.item_list()?;
                if let End::Else(_) = next {
                    return Err(self.errorf("expected end; found {{else}}"));
                }
                else_list = Some(l);
            }
            let _ = epos;
        }
        Ok(Branch {
            pos: pipe.pos,
            pipe,
            list,
            else_list,
        })
    }

    fn block_control(&mut self) -> PResult<Node> {
        const CONTEXT: &str = "block clause";
        let token = self.next_non_space();
        let name = self.template_name(&token, CONTEXT)?;
        let pipe = self.pipeline(CONTEXT, ItemKind::RightDelim)?;
        let saved = std::mem::replace(&mut self.ctx, new_ctx());
        let r = self.item_list();
        let block_ctx = std::mem::replace(&mut self.ctx, saved);
        let (list, end) = match r {
            Ok(v) => v,
            Err(e) => {
                let _ = block_ctx;
                return Err(e);
            }
        };
        if let End::Else(_) = end {
            return Err(self.errorf(format!("unexpected {{{{else}}}} in {CONTEXT}")));
        }
        let name: Arc<str> = Arc::from(name.as_str());
        self.add(name.clone(), list)?;
        Ok(Node::Template(Box::new(TemplateCall {
            pos: token.pos,
            name,
            pipe: Some(pipe),
        })))
    }

    fn template_control(&mut self) -> PResult<Node> {
        const CONTEXT: &str = "template clause";
        let token = self.next_non_space();
        let name = self.template_name(&token, CONTEXT)?;
        let mut pipe = None;
        if self.next_non_space().kind != ItemKind::RightDelim {
            self.backup();
            pipe = Some(self.pipeline(CONTEXT, ItemKind::RightDelim)?);
        }
        Ok(Node::Template(Box::new(TemplateCall {
            pos: token.pos,
            name: self::name(&name),
            pipe,
        })))
    }

    fn template_name(&self, token: &Item, context: &str) -> PResult<String> {
        match token.kind {
            ItemKind::String | ItemKind::RawString => {
                unquote(&token.val).map_err(|e| self.errorf(e))
            }
            _ => Err(self.unexpected(token, context)),
        }
    }

    fn pipeline(&mut self, context: &str, end: ItemKind) -> PResult<Pipe> {
        let token = self.peek_non_space();
        let (mut is_assign, mut decl) = (false, Vec::new());
        'decls: loop {
            let v = self.peek_non_space();
            if v.kind == ItemKind::Variable {
                let vstart = self.idx;
                // consume up to and including the variable
                self.next_non_space();
                let token_after = self.peek();
                let next = self.peek_non_space();
                if next.kind == ItemKind::Assign || next.kind == ItemKind::Declare {
                    is_assign = next.kind == ItemKind::Assign;
                    self.next_non_space();
                    decl.reserve_exact(1);
                    decl.push((v.pos, name(&v.val)));
                    self.ctx.vars.push(name(&v.val));
                } else if next.kind == ItemKind::Char && next.val == "," {
                    self.next_non_space();
                    decl.reserve_exact(1);
                    decl.push((v.pos, name(&v.val)));
                    self.ctx.vars.push(name(&v.val));
                    if context == "range" && decl.len() < 2 {
                        match self.peek_non_space().kind {
                            ItemKind::Variable | ItemKind::RightDelim | ItemKind::RightParen => {
                                continue 'decls;
                            }
                            _ => return Err(self.errorf("range can only initialize variables")),
                        }
                    }
                    return Err(self.errorf(format!("too many declarations in {context}")));
                } else {
                    let _ = token_after;
                    self.idx = vstart;
                }
            }
            break;
        }
        let pipe = Pipe {
            pos: token.pos,
            is_assign,
            decl: decl.into_boxed_slice(),
            cmds: self
                .take(|s| &mut s.cmds, |p| p.commands(end, context))?
                .into_boxed_slice(),
        };
        self.check_pipeline(&pipe, context)?;
        Ok(pipe)
    }

    /// The commands of a pipeline up to its `end`, onto the command stack.
    fn commands(&mut self, end: ItemKind, context: &str) -> PResult<()> {
        loop {
            let token = self.next_non_space();
            if token.kind == end {
                return Ok(());
            }
            match token.kind {
                ItemKind::Bool
                | ItemKind::CharConstant
                | ItemKind::Complex
                | ItemKind::Dot
                | ItemKind::Field
                | ItemKind::Identifier
                | ItemKind::Number
                | ItemKind::Nil
                | ItemKind::RawString
                | ItemKind::String
                | ItemKind::Variable
                | ItemKind::LeftParen => {
                    self.backup();
                    let c = self.command()?;
                    self.stacks.cmds.push(c);
                }
                _ => return Err(self.unexpected(&token, context)),
            }
        }
    }

    fn check_pipeline(&self, pipe: &Pipe, context: &str) -> PResult<()> {
        if pipe.cmds.is_empty() {
            return Err(self.errorf(format!("missing value for {context}")));
        }
        for (i, c) in pipe.cmds.iter().enumerate().skip(1) {
            if matches!(
                c.args[0],
                Arg::Bool(..) | Arg::Dot(_) | Arg::Nil(_) | Arg::Number(..) | Arg::String { .. }
            ) {
                return Err(self.errorf(format!(
                    "non executable command in pipeline stage {}",
                    i + 1
                )));
            }
        }
        Ok(())
    }

    fn command(&mut self) -> PResult<Command> {
        let pos = self.peek_non_space().pos;
        let args = self.take(|s| &mut s.args, Self::operands)?;
        if args.is_empty() {
            return Err(self.errorf("empty command"));
        }
        Ok(Command {
            pos,
            args: args.into_boxed_slice(),
        })
    }

    /// The operands of a command, onto the operand stack.
    fn operands(&mut self) -> PResult<()> {
        loop {
            self.peek_non_space_kind();
            if let Some(op) = self.operand()? {
                self.stacks.args.push(op);
            }
            let token = self.next();
            match token.kind {
                ItemKind::Space => continue,
                ItemKind::RightDelim | ItemKind::RightParen => self.backup(),
                ItemKind::Pipe => {}
                _ => return Err(self.unexpected(&token, "operand")),
            }
            return Ok(());
        }
    }

    fn operand(&mut self) -> PResult<Option<Arg>> {
        let Some(node) = self.term()? else {
            return Ok(None);
        };
        if self.peek_kind() == ItemKind::Field {
            let cpos = self.peek().pos;
            return Ok(Some(match node {
                // Made with room for these fields (`term`).
                Arg::Field { mut idents, .. } => {
                    self.chain_fields(&mut idents);
                    Arg::Field { pos: cpos, idents }
                }
                Arg::Variable { mut idents, .. } => {
                    self.chain_fields(&mut idents);
                    Arg::Variable { pos: cpos, idents }
                }
                Arg::Bool(..)
                | Arg::String { .. }
                | Arg::Number(..)
                | Arg::Nil(_)
                | Arg::Dot(_) => {
                    // Read past them first, as Go does (the error names the line it reached).
                    self.chain_fields(&mut Vec::new());
                    return Err(self.errorf(format!(
                        "unexpected . after term {}",
                        kubepkg_gostd::strconv::quote(&node.to_go_string())
                    )));
                }
                other => {
                    let mut fields = Vec::with_capacity(self.fields_ahead());
                    self.chain_fields(&mut fields);
                    Arg::Chain {
                        pos: cpos,
                        node: Box::new(other),
                        fields,
                    }
                }
            }));
        }
        Ok(Some(node))
    }

    /// The fields that follow a term (`.a.b`), read onto `into`.
    fn chain_fields(&mut self, into: &mut Vec<Arc<str>>) {
        while self.peek_kind() == ItemKind::Field {
            let t = self.next();
            into.push(name(&t.val[1..]));
        }
    }

    /// How many fields follow (`.a.b` after a term): what [`Parser::operand`] adds to it.
    fn fields_ahead(&self) -> usize {
        (self.idx..self.items.len())
            .take_while(|&i| self.items.kind(i) == ItemKind::Field)
            .count()
    }

    /// A field's or variable's first name, with room for the fields that follow it.
    fn idents(&self, first: &str) -> Vec<Arc<str>> {
        let mut idents = Vec::with_capacity(1 + self.fields_ahead());
        idents.push(name(first));
        idents
    }

    fn term(&mut self) -> PResult<Option<Arg>> {
        let token = self.next_non_space();
        Ok(Some(match token.kind {
            ItemKind::Identifier => {
                if !(self.has_func)(&token.val) {
                    return Err(self.errorf(format!(
                        "function {} not defined",
                        kubepkg_gostd::strconv::quote(&token.val)
                    )));
                }
                Arg::Identifier {
                    pos: token.pos,
                    name: name(&token.val),
                }
            }
            ItemKind::Dot => Arg::Dot(token.pos),
            ItemKind::Nil => Arg::Nil(token.pos),
            ItemKind::Variable => {
                if !self.ctx.vars.iter().any(|v| **v == *token.val) {
                    return Err(self.errorf(format!(
                        "undefined variable {}",
                        kubepkg_gostd::strconv::quote(&token.val)
                    )));
                }
                Arg::Variable {
                    pos: token.pos,
                    idents: self.idents(&token.val),
                }
            }
            ItemKind::Field => Arg::Field {
                pos: token.pos,
                idents: self.idents(&token.val[1..]),
            },
            ItemKind::Bool => Arg::Bool(token.pos, token.val == "true"),
            ItemKind::CharConstant | ItemKind::Complex | ItemKind::Number => {
                let n = parse_number(&token.val, token.kind).map_err(|e| self.errorf(e))?;
                Arg::Number(token.pos, Box::new(n))
            }
            ItemKind::LeftParen => {
                if self.ctx.stack_depth >= MAX_STACK_DEPTH {
                    return Err(self.errorf("max expression depth exceeded"));
                }
                self.ctx.stack_depth += 1;
                let r = stacker::maybe_grow(256 * 1024, 4 * 1024 * 1024, || {
                    self.pipeline("parenthesized pipeline", ItemKind::RightParen)
                });
                self.ctx.stack_depth -= 1;
                Arg::Pipe(Box::new(r?))
            }
            ItemKind::String | ItemKind::RawString => {
                let value = match plain_literal(&token.val) {
                    Some(inner) => kubepkg_value::Value::from(inner),
                    None => kubepkg_value::Value::from_go_bytes(
                        unquote_bytes(&token.val).map_err(|e| self.errorf(e))?,
                    ),
                };
                Arg::String {
                    pos: token.pos,
                    quoted: token.val.as_ref().into(),
                    value,
                }
            }
            _ => {
                self.backup();
                return Ok(None);
            }
        }))
    }
}

enum Parsed {
    Node(Node),
    End,
    Else(usize),
}

/// The text a string literal the lexer gave denotes when it is that text as written — no
/// escape in "…", no carriage return in `…` (nearly every literal in a chart): what
/// [`unquote_bytes`] gives for it, without building it byte by byte.
fn plain_literal(token: &str) -> Option<&str> {
    let quoted = |q: char, special: [char; 2]| {
        token
            .strip_prefix(q)
            .and_then(|t| t.strip_suffix(q))
            .filter(|t| !t.contains(special))
    };
    quoted('"', ['\\', '"']).or_else(|| quoted('`', ['\r', '`']))
}

/// Go's `strconv.Unquote` for "…", `…` and '…' literals. Errors are `invalid syntax`.
pub fn unquote(s: &str) -> Result<String, &'static str> {
    unquote_bytes(s)
        .map(|b| String::from_utf8(b).unwrap_or_else(|e| kubepkg_value::go_lossy(e.as_bytes())))
}

/// Go's `strconv.Unquote` for a Go string literal, to the exact bytes it denotes.
pub fn unquote_bytes(s: &str) -> Result<Vec<u8>, &'static str> {
    const SYNTAX: &str = "invalid syntax";
    let b = s.as_bytes();
    if b.len() < 2 {
        return Err(SYNTAX);
    }
    let q = b[0];
    if q != b[b.len() - 1] {
        return Err(SYNTAX);
    }
    let inner = &s[1..s.len() - 1];
    match q {
        b'`' => {
            if inner.contains('`') {
                return Err(SYNTAX);
            }
            Ok(inner.replace('\r', "").into_bytes())
        }
        b'"' | b'\'' => {
            let mut out: Vec<u8> = Vec::with_capacity(inner.len());
            let mut rest = inner;
            while !rest.is_empty() {
                let (c, tail) = unquote_char(rest, q as char)?;
                match c {
                    Unq::Char(c) => {
                        let mut buf = [0u8; 4];
                        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                    }
                    Unq::Byte(x) => out.push(x),
                }
                rest = tail;
                if q == b'\'' && !rest.is_empty() {
                    return Err(SYNTAX);
                }
            }
            if q == b'\'' && out.is_empty() {
                return Err(SYNTAX);
            }
            Ok(out)
        }
        _ => Err(SYNTAX),
    }
}

/// One decoded unit of a quoted literal.
pub enum Unq {
    Char(char),
    Byte(u8),
}

/// Go's `strconv.UnquoteChar`.
pub fn unquote_char(s: &str, quote: char) -> Result<(Unq, &str), &'static str> {
    const SYNTAX: &str = "invalid syntax";
    let mut it = s.chars();
    let c = it.next().ok_or(SYNTAX)?;
    if c == quote && (quote == '\'' || quote == '"') {
        return Err(SYNTAX);
    }
    if c != '\\' {
        if c == '\n' {
            return Err(SYNTAX);
        }
        return Ok((Unq::Char(c), it.as_str()));
    }
    let c = it.next().ok_or(SYNTAX)?;
    let rest = it.as_str();
    let simple = match c {
        'a' => Some('\x07'),
        'b' => Some('\x08'),
        'f' => Some('\x0c'),
        'n' => Some('\n'),
        'r' => Some('\r'),
        't' => Some('\t'),
        'v' => Some('\x0b'),
        '\\' => Some('\\'),
        '\'' | '"' => {
            if c != quote {
                return Err(SYNTAX);
            }
            Some(c)
        }
        _ => None,
    };
    if let Some(x) = simple {
        return Ok((Unq::Char(x), rest));
    }
    match c {
        'x' | 'u' | 'U' => {
            let n = match c {
                'x' => 2,
                'u' => 4,
                _ => 8,
            };
            if rest.len() < n || !rest.is_char_boundary(n) {
                return Err(SYNTAX);
            }
            let v = u32::from_str_radix(&rest[..n], 16).map_err(|_| SYNTAX)?;
            if rest[..n].starts_with(['+', '-']) {
                return Err(SYNTAX);
            }
            if c == 'x' {
                return Ok((Unq::Byte(v as u8), &rest[n..]));
            }
            let ch = char::from_u32(v).ok_or(SYNTAX)?;
            Ok((Unq::Char(ch), &rest[n..]))
        }
        '0'..='7' => {
            if rest.len() < 2 || !rest.is_char_boundary(2) {
                return Err(SYNTAX);
            }
            let digits = format!("{c}{}", &rest[..2]);
            let v = u32::from_str_radix(&digits, 8).map_err(|_| SYNTAX)?;
            if v > 255 {
                return Err(SYNTAX);
            }
            Ok((Unq::Byte(v as u8), &rest[2..]))
        }
        _ => Err(SYNTAX),
    }
}

fn underscore_ok(s: &str) -> bool {
    kubepkg_gostd::strconv::underscore_ok(s.as_bytes())
}

/// Go's `strconv.ParseUint(s, 0, 64)`.
pub fn parse_uint0(s: &str) -> Option<u64> {
    if s.is_empty() || s.starts_with(['+', '-']) {
        return None;
    }
    let (base, digits) = if let Some(r) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (16, r)
    } else if let Some(r) = s.strip_prefix("0b").or_else(|| s.strip_prefix("0B")) {
        (2, r)
    } else if let Some(r) = s.strip_prefix("0o").or_else(|| s.strip_prefix("0O")) {
        (8, r)
    } else if s.len() > 1 && s.starts_with('0') {
        (8, &s[1..])
    } else {
        (10, s)
    };
    if s.contains('_') && !underscore_ok(s) {
        return None;
    }
    let mut v: u64 = 0;
    let mut any = false;
    for c in digits.chars() {
        if c == '_' {
            continue;
        }
        let d = c.to_digit(base)? as u64;
        v = v.checked_mul(base as u64)?.checked_add(d)?;
        any = true;
    }
    if !any && base != 8 {
        return None;
    }
    if !any && digits.is_empty() && s.len() > 1 && base == 8 && !s[1..].is_empty() {
        return None;
    }
    Some(v)
}

/// Go's `strconv.ParseInt(s, 0, 64)`.
pub fn parse_int0(s: &str) -> Option<i64> {
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if body.starts_with(['+', '-']) {
        return None;
    }
    let u = parse_uint0(body)?;
    if s.contains('_') && !underscore_ok(s) {
        return None;
    }
    if neg {
        if u > 1u64 << 63 {
            return None;
        }
        Some((u as i64).wrapping_neg())
    } else {
        if u >= 1u64 << 63 {
            return None;
        }
        Some(u as i64)
    }
}

/// Go's `strconv.ParseFloat(s, 64)` for the syntax the lexer admits (decimal and hex floats,
/// underscores). Overflow is an error, as in Go.
pub fn parse_float(s: &str) -> Option<f64> {
    if s.contains('_') && !underscore_ok(s) {
        return None;
    }
    let clean: String = s.chars().filter(|&c| c != '_').collect();
    let (neg, body) = match clean.as_bytes().first() {
        Some(b'-') => (true, &clean[1..]),
        Some(b'+') => (false, &clean[1..]),
        _ => (false, clean.as_str()),
    };
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        parse_hex_float(h)?
    } else {
        if body.is_empty()
            || !body
                .bytes()
                .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
        {
            return None;
        }
        body.parse::<f64>().ok()?
    };
    if v.is_infinite() {
        return None;
    }
    Some(if neg { -v } else { v })
}

fn parse_hex_float(h: &str) -> Option<f64> {
    let (mant, exp) = match h.find(['p', 'P']) {
        Some(i) => (&h[..i], &h[i + 1..]),
        None => return None,
    };
    let exp: i32 = exp.parse().ok()?;
    let mut m: f64 = 0.0;
    let mut frac_digits = 0i32;
    let mut seen_dot = false;
    let mut any = false;
    for c in mant.chars() {
        if c == '.' {
            if seen_dot {
                return None;
            }
            seen_dot = true;
            continue;
        }
        let d = c.to_digit(16)? as f64;
        m = m * 16.0 + d;
        any = true;
        if seen_dot {
            frac_digits += 1;
        }
    }
    if !any {
        return None;
    }
    Some(m * 2f64.powi(exp - 4 * frac_digits))
}

/// Go's `parse.newNumber`.
pub fn parse_number(text: &str, kind: ItemKind) -> Result<Number, String> {
    let mut n = Number {
        text: text.into(),
        is_int: false,
        is_uint: false,
        is_float: false,
        is_complex: false,
        int: 0,
        uint: 0,
        float: 0.0,
        complex: (0.0, 0.0),
    };
    match kind {
        ItemKind::CharConstant => {
            let inner = &text[1..];
            let (c, tail) = unquote_char(inner, '\'').map_err(|e| e.to_string())?;
            if tail != "'" {
                return Err(format!("malformed character constant: {text}"));
            }
            let r = match c {
                Unq::Char(c) => c as u32,
                Unq::Byte(b) => b as u32,
            };
            n.int = r as i64;
            n.uint = r as u64;
            n.float = r as f64;
            n.is_int = true;
            n.is_uint = true;
            n.is_float = true;
            return Ok(n);
        }
        ItemKind::Complex => {
            // "re+imi" or "re-imi"
            let body = &text[..text.len() - 1];
            let split = body
                .char_indices()
                .skip(1)
                .filter(|&(i, c)| {
                    (c == '+' || c == '-')
                        && !matches!(body.as_bytes()[i - 1], b'e' | b'E' | b'p' | b'P')
                })
                .map(|(i, _)| i)
                .last()
                .ok_or_else(|| "expected integer".to_string())?;
            let re = parse_float(&body[..split]).ok_or_else(|| "expected integer".to_string())?;
            let im = parse_float(&body[split..]).ok_or_else(|| "expected integer".to_string())?;
            n.is_complex = true;
            n.complex = (re, im);
            simplify_complex(&mut n);
            return Ok(n);
        }
        _ => {}
    }
    if let Some(body) = text.strip_suffix('i')
        && let Some(f) = parse_float(body)
    {
        n.is_complex = true;
        n.complex = (0.0, f);
        simplify_complex(&mut n);
        return Ok(n);
    }
    let u = parse_uint0(text);
    if let Some(u) = u {
        n.is_uint = true;
        n.uint = u;
    }
    if let Some(i) = parse_int0(text) {
        n.is_int = true;
        n.int = i;
        if i == 0 {
            n.is_uint = true;
            n.uint = u.unwrap_or(0);
        }
    }
    if n.is_int {
        n.is_float = true;
        n.float = n.int as f64;
    } else if n.is_uint {
        n.is_float = true;
        n.float = n.uint as f64;
    } else if let Some(f) = parse_float(text) {
        if !text.contains(['.', 'e', 'E', 'p', 'P']) {
            return Err(format!(
                "integer overflow: {}",
                kubepkg_gostd::strconv::quote(text)
            ));
        }
        n.is_float = true;
        n.float = f;
        if !n.is_int && (f as i64) as f64 == f && f.fract() == 0.0 && f.abs() < 9.3e18 {
            n.is_int = true;
            n.int = f as i64;
        }
        if !n.is_uint && f >= 0.0 && (f as u64) as f64 == f && f.fract() == 0.0 && f < 1.85e19 {
            n.is_uint = true;
            n.uint = f as u64;
        }
    }
    if !n.is_int && !n.is_uint && !n.is_float {
        return Err(format!(
            "illegal number syntax: {}",
            kubepkg_gostd::strconv::quote(text)
        ));
    }
    Ok(n)
}

fn simplify_complex(n: &mut Number) {
    n.is_float = n.complex.1 == 0.0;
    if n.is_float {
        let f = n.complex.0;
        n.float = f;
        n.is_int = f.fract() == 0.0 && f.abs() < 9.2e18;
        if n.is_int {
            n.int = f as i64;
        }
        n.is_uint = f.fract() == 0.0 && (0.0..1.8e19).contains(&f);
        if n.is_uint {
            n.uint = f as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        match parse("t", Source::copied(text), &|f| f == "printf") {
            Ok(_) => "ok".into(),
            Err(e) => e.message,
        }
    }

    #[test]
    fn a_plain_literal_is_what_unquoting_gives() {
        let literals = [
            r#""""#,
            r#""a b""#,
            r#""ünï""#,
            r#""a\nb""#,
            r#""\x41""#,
            r#""\"""#,
            "``",
            "`a\\nb`",
            "`a\rb`",
            "`\\x`",
            "'a'",
            r#""`""#,
            "`\"`",
        ];
        let mut plain = 0;
        for lit in literals {
            let want = unquote_bytes(lit).unwrap();
            if let Some(got) = plain_literal(lit) {
                assert_eq!(got.as_bytes(), want, "{lit}");
                plain += 1;
            }
        }
        assert_eq!(
            plain, 8,
            "the literals without escapes, carriage returns or quotes"
        );
        for escaped in [r#""a\tb""#, r#""\u00e9""#, "`a\rb`", "'a'"] {
            assert_eq!(plain_literal(escaped), None, "{escaped}");
        }
    }

    #[test]
    fn trees_and_text_share_the_files_bytes() {
        let file: Arc<[u8]> = Arc::from(&b"a\n{{- define \"d\" }} x {{ end }}\n  {{- . -}}  b"[..]);
        let text = std::str::from_utf8(&file).unwrap();
        let trees = parse("f", Source::shared(text, &file), &|_| false).unwrap();
        let inside = |b: &[u8]| file.as_ptr_range().contains(&b.as_ptr());
        let mut texts = Vec::new();
        for (_, tree) in &trees {
            assert!(Arc::ptr_eq(&tree.text, &file));
            for n in &tree.root.nodes {
                if let Node::Text(t) = n {
                    assert!(inside(t.as_bytes()), "{t:?}");
                    texts.push(t.as_str().into_owned());
                }
            }
        }
        // Go's trim markers cut the spans: ` x ` (`d`), then `a`, `b` (the file's tree).
        assert_eq!(texts, [" x ", "a", "b"]);
        assert_eq!(trees[0].1.location(text.find('.').unwrap()), "f:3:6");

        // Text that is not all of the bytes given is copied.
        let part = &text[..1];
        let trees = parse("f", Source::shared(part, &file), &|_| false).unwrap();
        assert!(!Arc::ptr_eq(&trees[0].1.text, &file));
        assert_eq!(&*trees[0].1.text, b"a");
    }

    #[test]
    fn parse_errors_match_go() {
        for (text, error) in [
            ("{{ .a ", "template: t:1: unclosed action"),
            ("{{ end }}", "template: t:1: unexpected {{end}}"),
            ("{{ if .a }}", "template: t:1: unexpected EOF"),
            ("{{ foo }}", "template: t:1: function \"foo\" not defined"),
            ("{{ $x }}", "template: t:1: undefined variable \"$x\""),
            ("{{ break }}", "template: t:1: {{break}} outside {{range}}"),
            ("{{ }}", "template: t:1: missing value for command"),
            (
                "{{ . | 3 }}",
                "template: t:1: non executable command in pipeline stage 2",
            ),
            ("\n{{ 1 2 ) }}", "template: t:2: unexpected right paren"),
            (
                "{{ define \"a\" }}x{{ end }}{{ define \"a\" }}y{{ end }}",
                "template: t:1: template: multiple definition of template \"a\"",
            ),
            (
                "{{ \"x\".a }}",
                "template: t:1: unexpected . after term \"\\\"x\\\"\"",
            ),
            ("{{ 1_ }}", "template: t:1: illegal number syntax: \"1_\""),
            (
                "{{ 99999999999999999999 }}",
                "template: t:1: integer overflow: \"99999999999999999999\"",
            ),
            (
                "{{ range $a, $b, $c := . }}{{ end }}",
                "template: t:1: too many declarations in range",
            ),
            ("{{ if\n.a }}{{ end }}", "ok"),
            ("{{ .a\n", "template: t:2: unclosed action started at t:1"),
            ("{{ (1 }}", "template: t:1: unclosed left paren"),
        ] {
            assert_eq!(err(text), error, "{text:?}");
        }
    }

    #[test]
    fn numbers_follow_go() {
        let n = parse_number("0x1F", ItemKind::Number).ok().map(|n| n.int);
        assert_eq!(n, Some(31));
        let n = parse_number("1_000", ItemKind::Number).ok().map(|n| n.int);
        assert_eq!(n, Some(1000));
        let n = parse_number("0o17", ItemKind::Number).ok().map(|n| n.int);
        assert_eq!(n, Some(15));
        let n = parse_number("017", ItemKind::Number).ok().map(|n| n.int);
        assert_eq!(n, Some(15));
        let n = parse_number("1e3", ItemKind::Number)
            .ok()
            .map(|n| (n.is_int, n.int));
        assert_eq!(n, Some((true, 1000)));
        let n = parse_number("'a'", ItemKind::CharConstant)
            .ok()
            .map(|n| n.int);
        assert_eq!(n, Some(97));
    }
}
