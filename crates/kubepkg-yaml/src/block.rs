//! A fast reader for plain block YAML — the shape of nearly every rendered manifest and values
//! file — straight into the node arena [`crate::decode`] decodes.
//!
//! saphyr-parser reads any YAML as a stream of events, one character at a time through a
//! look-ahead buffer, and [`crate::decode`] builds its node arena from them. Most documents
//! kubepkg reads — a chart's rendered manifests, whose heads the manifest sort reads, and its
//! values files — are block mappings and sequences of plain and quoted scalars, literal and
//! folded block scalars and one-line flow collections; this reader builds the same arena from
//! such a document line by line, several times faster. It takes only what it is sure of: a
//! document holding anything else (anchors, aliases, tags, `|+`, escapes other than the common
//! ones, tabs where they would count, explicit keys, document markers but a leading `---`,
//! directives, carriage returns, characters libyaml treats specially, nesting deeper than
//! [`MAX_NESTING`]) and every document with an error is left to the full reader ([`read`]
//! returns `None`), which then reads it from the start. For every document it takes, its nodes
//! are the full reader's (the tests below compare the two on every YAML file and rendered
//! document of the repository's corpora, and on mutations of them).

use crate::decode::{Node, ScalarText};

/// Nesting this reader takes; deeper documents go to the full reader.
const MAX_NESTING: usize = 64;
/// Longest key this reader takes, in bytes (libyaml: a simple key within 1024 characters).
const MAX_KEY: usize = 1000;

/// Something this reader leaves to the full reader.
struct Bail;

type Read<T> = Result<T, Bail>;

/// The node arena and root of `src`'s only document, or `None` when the full reader must read
/// it (see the module's documentation).
pub(crate) fn read(src: &str) -> Option<(Vec<Node>, Option<usize>)> {
    if !plain_text(src) {
        return None;
    }
    let mut r = Reader {
        src,
        b: src.as_bytes(),
        pos: 0,
        line: 0,
        nodes: Vec::new(),
        depth: 0,
    };
    let root = r.document().ok()?;
    Some((r.nodes, root))
}

/// Whether every character of `src` is one libyaml and saphyr-parser read alike as content: no
/// carriage return or other control character but tab and line feed, none of the line breaks
/// YAML 1.1 adds (NEL, LS, PS), no byte-order mark, nothing non-printable.
fn plain_text(src: &str) -> bool {
    let ascii_ok = |b: u8| (0x20..0x7f).contains(&b) || b == b'\n' || b == b'\t';
    if src.bytes().all(ascii_ok) {
        return true;
    }
    src.chars().all(|c| match c {
        '\u{0}'..='\u{7f}' => ascii_ok(c as u8),
        '\u{2028}' | '\u{2029}' | '\u{feff}' => false,
        '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'.. => true,
        _ => false,
    })
}

/// A line with content: where it starts and how many spaces indent it.
#[derive(Clone, Copy)]
struct Line {
    start: usize,
    indent: usize,
}

/// Where a value stands: after a mapping key's `:` or a sequence entry's `-`.
#[derive(Clone, Copy, PartialEq)]
enum Owner {
    Key,
    Entry,
}

/// Where a node starts: on a key's line after its `:`, on an entry's line after its `-`, or on
/// a line of its own below either. A mapping may start on an entry's line or its own; a
/// sequence only on its own.
#[derive(Clone, Copy)]
enum Here {
    AfterKey,
    AfterEntry,
    OwnLine,
}

struct Reader<'s> {
    src: &'s str,
    b: &'s [u8],
    /// The start of the next line not read yet.
    pos: usize,
    /// The start of the line being read.
    line: usize,
    nodes: Vec<Node>,
    depth: usize,
}

/// Characters that may not start a plain scalar here (or that this reader leaves alone).
fn is_indicator(c: u8) -> bool {
    matches!(
        c,
        b'-' | b'?'
            | b':'
            | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'\''
            | b'"'
            | b'%'
            | b'@'
            | b'`'
            | b'\t'
    )
}

impl Reader<'_> {
    fn document(&mut self) -> Read<Option<usize>> {
        let opened = self.skip_document_start()?;
        let Some(first) = self.peek()? else {
            // A document with nothing in it has no root; one opened by `---` has an empty one.
            return if opened { Err(Bail) } else { Ok(None) };
        };
        self.goto(first);
        let at = first.start + first.indent;
        let root = if matches!(self.b[at], b'[' | b'{') {
            let end = self.line_end(at);
            let (n, after) = self.flow(at, end)?;
            self.end_of_value(after, end, first.indent)?;
            n
        } else {
            self.collection(first)?
        };
        match self.peek()? {
            None => Ok(Some(root)),
            Some(_) => Err(Bail),
        }
    }

    /// Moves past a `---` line (nothing else on it) opening the document, if there is one.
    fn skip_document_start(&mut self) -> Read<bool> {
        if let Some((p, i, end)) = self.content_line(0)?
            && i == p
            && self.src[p..end].trim_end_matches(' ') == "---"
        {
            self.pos = (end + 1).min(self.b.len());
            return Ok(true);
        }
        Ok(false)
    }

    /// The block sequence or mapping whose first line is `l`.
    fn collection(&mut self, l: Line) -> Read<usize> {
        if self.is_entry(l.start + l.indent)? {
            self.sequence(l.indent)
        } else {
            self.mapping(l.indent, l.start + l.indent)
        }
    }

    /// The end of the line holding byte `i` (its line feed, or the text's end).
    fn line_end(&self, i: usize) -> usize {
        self.b[i..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(self.b.len(), |n| i + n)
    }

    /// The first byte from `i` that is not a space; a tab is left to the full reader.
    fn skip_spaces(&self, i: usize) -> Read<usize> {
        let i = self.spaces_end(i);
        if self.b.get(i) == Some(&b'\t') {
            return Err(Bail);
        }
        Ok(i)
    }

    /// The first line from byte `p` (a line's start) with anything but spaces and a comment
    /// on it: its start, its first other byte and its end.
    fn content_line(&self, mut p: usize) -> Read<Option<(usize, usize, usize)>> {
        while p < self.b.len() {
            let i = self.skip_spaces(p)?;
            let end = self.line_end(i);
            if i == end || self.b[i] == b'#' {
                p = end + 1;
                continue;
            }
            return Ok(Some((p, i, end)));
        }
        Ok(None)
    }

    /// The next line from `pos` with anything but spaces and a comment on it.
    fn peek(&self) -> Read<Option<Line>> {
        let Some((p, i, _)) = self.content_line(self.pos)? else {
            return Ok(None);
        };
        if i == p
            && (self.b[p..].starts_with(b"---") || self.b[p..].starts_with(b"..."))
            && matches!(self.b.get(p + 3), None | Some(b' ' | b'\n' | b'\t'))
        {
            return Err(Bail);
        }
        Ok(Some(Line {
            start: p,
            indent: i - p,
        }))
    }

    fn goto(&mut self, l: Line) {
        self.pos = l.start;
        self.line = l.start;
    }

    /// Whether a block sequence entry (`-` and a space or the line's end) starts at `at`.
    fn is_entry(&self, at: usize) -> Read<bool> {
        if self.b[at] != b'-' {
            return Ok(false);
        }
        self.blank_after(at)
    }

    /// Whether a space or the line's end follows byte `i` (an indicator there is one); a tab
    /// is left to the full reader.
    fn blank_after(&self, i: usize) -> Read<bool> {
        match self.b.get(i + 1) {
            None | Some(b' ' | b'\n') => Ok(true),
            Some(b'\t') => Err(Bail),
            Some(_) => Ok(false),
        }
    }

    fn push(&mut self, n: Node) -> usize {
        self.nodes.push(n);
        self.nodes.len() - 1
    }

    fn scalar(&mut self, value: ScalarText, plain: bool) -> usize {
        self.push(Node::Scalar {
            value,
            tag: None,
            plain,
        })
    }

    fn enter(&mut self) -> Read<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(Bail);
        }
        Ok(())
    }

    /// A block mapping whose keys stand at column `indent`, the first at byte `at` of the
    /// current line.
    fn mapping(&mut self, indent: usize, mut at: usize) -> Read<usize> {
        self.enter()?;
        let node = self.push(Node::Map(Vec::new()));
        let mut pairs = Vec::new();
        loop {
            let (key, after) = self.key(at)?;
            let k = self.scalar(key, !matches!(self.b[at], b'"' | b'\''));
            let v = self.value(after, indent, Owner::Key)?;
            pairs.push((k, v));
            match self.peek()? {
                Some(l) if l.indent == indent => {
                    if self.is_entry(l.start + indent)? {
                        return Err(Bail);
                    }
                    self.goto(l);
                    at = l.start + indent;
                }
                Some(l) if l.indent > indent => return Err(Bail),
                _ => break,
            }
        }
        self.depth -= 1;
        self.nodes[node] = Node::Map(pairs);
        Ok(node)
    }

    /// A block sequence whose entries stand at column `indent`, the first on the current line.
    fn sequence(&mut self, indent: usize) -> Read<usize> {
        self.enter()?;
        let node = self.push(Node::Seq(Vec::new()));
        let mut items = Vec::new();
        loop {
            let v = self.value(self.line + indent + 1, indent, Owner::Entry)?;
            items.push(v);
            match self.peek()? {
                Some(l) if l.indent == indent && self.is_entry(l.start + indent)? => self.goto(l),
                Some(l) if l.indent > indent => return Err(Bail),
                _ => break,
            }
        }
        self.depth -= 1;
        self.nodes[node] = Node::Seq(items);
        Ok(node)
    }

    /// The key starting at byte `at` and where its `:` ends.
    fn key(&self, at: usize) -> Read<(ScalarText, usize)> {
        let end = self.line_end(at);
        let (key, colon) = match self.b[at] {
            b'"' | b'\'' => {
                let (key, closed, _) = self.quoted(at, end, None)?;
                let c = self.skip_spaces(closed)?;
                (key, c)
            }
            c if is_indicator(c) => return Err(Bail),
            _ => match self.plain(at, end)? {
                (text_end, Some(colon), _) => (ScalarText::Span(at, text_end), colon),
                (_, None, _) => return Err(Bail),
            },
        };
        if colon - at > MAX_KEY || !self.is_value_indicator(colon, end)? {
            return Err(Bail);
        }
        Ok((key, colon + 1))
    }

    /// Whether a `:` followed by a space or the line's end stands at `i`.
    fn is_value_indicator(&self, i: usize, end: usize) -> Read<bool> {
        if i >= end || self.b[i] != b':' {
            return Ok(false);
        }
        self.blank_after(i)
    }

    /// A plain scalar from `at` to the line's end `end`: where its text ends (trailing spaces
    /// and a comment left out), where a `:` making it a key stands, and whether a comment
    /// follows it.
    fn plain(&self, at: usize, end: usize) -> Read<(usize, Option<usize>, bool)> {
        let trim = |mut e: usize| {
            while e > at && self.b[e - 1] == b' ' {
                e -= 1;
            }
            e
        };
        for i in at..end {
            match self.b[i] {
                b':' if self.is_value_indicator(i, end)? => return Ok((trim(i), Some(i), false)),
                b'#' if i > at && self.b[i - 1] == b' ' => return Ok((trim(i), None, true)),
                b'\t' => return Err(Bail),
                _ => {}
            }
        }
        Ok((trim(end), None, false))
    }

    /// The lines below a plain scalar's first (read into `text`) that continue it: each
    /// indented past `owner`, folded into one line (a space between two lines, a line break
    /// for each empty line between them).
    fn continue_plain(&mut self, text: &mut ScalarText, owner: usize) -> Read<()> {
        let mut p = self.pos;
        let mut blank = 0;
        while p < self.b.len() {
            let i = self.skip_spaces(p)?;
            let le = self.line_end(i);
            if i == le {
                blank += 1;
                p = le + 1;
                continue;
            }
            if i - p <= owner || self.b[i] == b'#' {
                break;
            }
            // Any character continues the scalar (an indicator starts no token inside it); a
            // line that would read as an entry or an explicit key is left to the full reader.
            if matches!(self.b[i], b'-' | b'?' | b':')
                && matches!(self.b.get(i + 1), None | Some(b' ' | b'\n'))
            {
                return Err(Bail);
            }
            let (e, colon, commented) = self.plain(i, le)?;
            if colon.is_some() || commented {
                return Err(Bail);
            }
            if let ScalarText::Span(start, end) = *text {
                *text = ScalarText::Own(self.src[start..end].to_string());
            }
            let ScalarText::Own(own) = text else {
                return Err(Bail);
            };
            if blank == 0 {
                own.push(' ');
            }
            for _ in 0..blank {
                own.push('\n');
            }
            blank = 0;
            own.push_str(&self.src[i..e]);
            p = le + 1;
            self.pos = p.min(self.b.len());
        }
        Ok(())
    }

    /// The quoted scalar opening at `at` (`"` or `'`) on a line ending at `end`: its text,
    /// the byte after its closing quote and the end of that quote's line. `owner`: the column
    /// its further lines must be indented past when it may span lines (a value), `None` when it
    /// may not (a key, a flow collection's entry). Across lines, as libyaml folds them: blanks
    /// around a line break go, the break becomes a space — or, followed by empty lines, one line
    /// break for each — and an escaped break (`\` ending the line) joins the lines.
    fn quoted(
        &self,
        at: usize,
        mut end: usize,
        owner: Option<usize>,
    ) -> Read<(ScalarText, usize, usize)> {
        let quote = self.b[at];
        // The text is the document's own until an escape or a line break changes it.
        let mut out = String::new();
        let mut owned = false;
        let mut run = at + 1;
        let mut i = at + 1;
        loop {
            let mut escaped_break = false;
            while i < end {
                match self.b[i] {
                    b'\t' => return Err(Bail),
                    c if c == quote => {
                        if quote == b'\'' && self.b.get(i + 1) == Some(&b'\'') {
                            out.push_str(&self.src[run..=i]);
                            owned = true;
                            i += 2;
                            run = i;
                            continue;
                        }
                        if !owned {
                            return Ok((ScalarText::Span(run, i), i + 1, end));
                        }
                        out.push_str(&self.src[run..i]);
                        return Ok((ScalarText::Own(out), i + 1, end));
                    }
                    b'\\' if quote == b'"' => {
                        owned = true;
                        out.push_str(&self.src[run..i]);
                        if i + 1 == end {
                            escaped_break = true;
                            run = end;
                            break;
                        }
                        let (c, len) = self.escape(i + 1, end)?;
                        out.push(c);
                        i += 1 + len;
                        run = i;
                    }
                    _ => i += 1,
                }
            }
            // The line ends inside the scalar.
            let Some(owner) = owner else {
                return Err(Bail);
            };
            owned = true;
            if !escaped_break {
                out.push_str(self.src[run..end].trim_end_matches(' '));
            }
            let mut empty = 0;
            let mut p = end + 1;
            let next = loop {
                if p >= self.b.len() {
                    return Err(Bail);
                }
                let q = self.skip_spaces(p)?;
                if self.b.get(q) == Some(&b'\n') {
                    empty += 1;
                    p = q + 1;
                    continue;
                }
                let marker = self.b[p..].starts_with(b"---") || self.b[p..].starts_with(b"...");
                if q - p <= owner || marker {
                    return Err(Bail);
                }
                break q;
            };
            if empty == 0 && !escaped_break {
                out.push(' ');
            }
            for _ in 0..empty {
                out.push('\n');
            }
            i = next;
            run = next;
            end = self.line_end(next);
        }
    }

    /// The character of the escape after a `\` at `at`, and the escape's length.
    fn escape(&self, at: usize, end: usize) -> Read<(char, usize)> {
        let c = match self.b.get(at) {
            Some(b'\\') => '\\',
            Some(b'"') => '"',
            Some(b'n') => '\n',
            Some(b't') => '\t',
            Some(b'r') => '\r',
            Some(b'0') => '\0',
            Some(b' ') => ' ',
            Some(b'u') if at + 5 <= end => {
                let hex = &self.src[at + 1..at + 5];
                if !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
                    return Err(Bail);
                }
                let code = u32::from_str_radix(hex, 16).map_err(|_| Bail)?;
                return char::from_u32(code).map(|c| (c, 5)).ok_or(Bail);
            }
            _ => return Err(Bail),
        };
        Ok((c, 1))
    }

    /// After a scalar or an empty collection on one line: the rest of the line must be a
    /// comment or nothing, and no line below may be indented past `owner` (it would continue
    /// the scalar, or be an error).
    fn end_of_value(&mut self, after: usize, end: usize, owner: usize) -> Read<()> {
        let i = self.skip_spaces(after)?;
        if i < end && !(self.b[i] == b'#' && i > after) {
            return Err(Bail);
        }
        self.pos = (end + 1).min(self.b.len());
        self.after_scalar(owner)
    }

    fn after_scalar(&self, owner: usize) -> Read<()> {
        match self.peek()? {
            Some(l) if l.indent > owner => Err(Bail),
            _ => Ok(()),
        }
    }

    /// The value from byte `at` of the current line, after the key or entry at column `owner`.
    fn value(&mut self, at: usize, owner: usize, of: Owner) -> Read<usize> {
        let at = self.skip_spaces(at)?;
        let end = self.line_end(at);
        if at == end || self.b[at] == b'#' {
            self.pos = (end + 1).min(self.b.len());
            return self.below(owner, of);
        }
        let here = match of {
            Owner::Key => Here::AfterKey,
            Owner::Entry => Here::AfterEntry,
        };
        self.node_at(at, end, owner, here)
    }

    /// The node starting at byte `at` of the current line (ending at `end`), the value of a key
    /// or entry at column `owner`; `here` says what else than a scalar or flow collection may
    /// start there.
    fn node_at(&mut self, at: usize, end: usize, owner: usize, here: Here) -> Read<usize> {
        match self.b[at] {
            b'|' | b'>' => self.block_scalar(at, end, owner),
            b'"' | b'\'' => {
                let (text, closed, closed_end) = self.quoted(at, end, Some(owner))?;
                let c = self.skip_spaces(closed)?;
                if self.is_value_indicator(c, closed_end)? {
                    // A key spanning lines is an error.
                    if closed_end != end {
                        return Err(Bail);
                    }
                    return self.mapping_here(at, here);
                }
                let n = self.scalar(text, false);
                self.end_of_value(closed, closed_end, owner)?;
                Ok(n)
            }
            b'[' | b'{' => {
                let (n, after) = self.flow(at, end)?;
                self.end_of_value(after, end, owner)?;
                Ok(n)
            }
            b'-' if self.is_entry(at)? => match here {
                Here::OwnLine => self.sequence(at - self.line),
                Here::AfterKey | Here::AfterEntry => Err(Bail),
            },
            c if c != b'-' && is_indicator(c) => Err(Bail),
            _ => match self.plain(at, end)? {
                (_, Some(_), _) => self.mapping_here(at, here),
                (text_end, None, commented) => {
                    self.pos = (end + 1).min(self.b.len());
                    let mut text = ScalarText::Span(at, text_end);
                    if !commented {
                        self.continue_plain(&mut text, owner)?;
                    }
                    let n = self.scalar(text, true);
                    self.after_scalar(owner)?;
                    Ok(n)
                }
            },
        }
    }

    /// A block mapping whose first key starts at `at`: on its own line, or on a sequence
    /// entry's (`- key: value`); after a key it is an error left to the full reader.
    fn mapping_here(&mut self, at: usize, here: Here) -> Read<usize> {
        match here {
            Here::AfterKey => Err(Bail),
            Here::AfterEntry | Here::OwnLine => self.mapping(at - self.line, at),
        }
    }

    /// A flow sequence or mapping on one line, opening at `at` (`[` or `{`) before the line's
    /// end `end`, of scalars and flow collections (a mapping's keys scalars, each followed by `: `),
    /// and the byte after its closing bracket.
    fn flow(&mut self, at: usize, end: usize) -> Read<(usize, usize)> {
        // libyaml's keys end within 1024 characters of their start.
        if end - at > MAX_KEY {
            return Err(Bail);
        }
        self.enter()?;
        let seq = self.b[at] == b'[';
        let close = if seq { b']' } else { b'}' };
        let node = self.push(Node::Seq(Vec::new()));
        let (mut items, mut pairs) = (Vec::new(), Vec::new());
        let mut i = self.skip_spaces(at + 1)?;
        if i < end && self.b[i] == close {
            i += 1;
        } else {
            loop {
                if seq {
                    let (n, after) = self.flow_item(i, end, false)?;
                    items.push(n);
                    i = after;
                } else {
                    let (k, after) = self.flow_item(i, end, true)?;
                    if !matches!(self.nodes[k], Node::Scalar { .. })
                        || !self.is_value_indicator(after, end)?
                    {
                        return Err(Bail);
                    }
                    let v_at = self.skip_spaces(after + 1)?;
                    let (v, after) = self.flow_item(v_at, end, false)?;
                    pairs.push((k, v));
                    i = after;
                }
                i = self.skip_spaces(i)?;
                match self.b.get(i) {
                    Some(b',') if i < end => {
                        i = self.skip_spaces(i + 1)?;
                        if i >= end || matches!(self.b[i], b',' | b']' | b'}') {
                            return Err(Bail);
                        }
                    }
                    Some(&c) if c == close && i < end => {
                        i += 1;
                        break;
                    }
                    _ => return Err(Bail),
                }
            }
        }
        self.depth -= 1;
        self.nodes[node] = if seq {
            Node::Seq(items)
        } else {
            Node::Map(pairs)
        };
        Ok((node, i))
    }

    /// A flow collection's entry from `at`: a quoted or plain scalar or a flow collection, and
    /// the byte after it (spaces after it skipped). A flow mapping's `key` ends at its `: `.
    fn flow_item(&mut self, at: usize, end: usize, key: bool) -> Read<(usize, usize)> {
        if at >= end {
            return Err(Bail);
        }
        let (n, after) = match self.b[at] {
            b'[' | b'{' => self.flow(at, end)?,
            b'"' | b'\'' => {
                let (text, closed, _) = self.quoted(at, end, None)?;
                (self.scalar(text, false), closed)
            }
            b'-' if self.is_entry(at)? => return Err(Bail),
            c if c != b'-' && is_indicator(c) => return Err(Bail),
            _ => {
                let mut j = at;
                while j < end && !matches!(self.b[j], b',' | b'[' | b']' | b'{' | b'}') {
                    if key && self.is_value_indicator(j, end)? {
                        break;
                    }
                    if matches!(self.b[j], b':' | b'#' | b'\t') {
                        return Err(Bail);
                    }
                    j += 1;
                }
                let mut e = j;
                while self.b[e - 1] == b' ' {
                    e -= 1;
                }
                (self.scalar(ScalarText::Span(at, e), true), j)
            }
        };
        Ok((n, self.skip_spaces(after)?))
    }

    /// A value on the lines below a key or entry at column `owner` whose own line ends after
    /// it: a node indented past it (a sequence may stand at a key's column), else an empty
    /// scalar.
    fn below(&mut self, owner: usize, of: Owner) -> Read<usize> {
        match self.peek()? {
            Some(l) if l.indent > owner => {
                self.goto(l);
                let at = l.start + l.indent;
                self.node_at(at, self.line_end(at), owner, Here::OwnLine)
            }
            Some(l)
                if l.indent == owner && of == Owner::Key && self.is_entry(l.start + owner)? =>
            {
                self.goto(l);
                self.sequence(owner)
            }
            _ => Ok(self.scalar(ScalarText::Span(0, 0), true)),
        }
    }

    /// A block scalar whose `|` (literal) or `>` (folded) stands at `at` (its line ending at
    /// `end`), after a key or entry at column `owner`: clipped to one final line break (`|`,
    /// `>`) or stripped of it (`|-`, `>-`), indented as its first content line or by its
    /// indicator (`|2`). Folded, a line break between two lines that do not
    /// start with a blank becomes a space, or goes when empty lines follow it; as libyaml's
    /// `yaml_parser_scan_block_scalar` does.
    fn block_scalar(&mut self, at: usize, end: usize, owner: usize) -> Read<usize> {
        let folded = self.b[at] == b'>';
        // The header: chomping (`-`; `+` is left to the full reader) and an indentation
        // indicator, in either order.
        let (mut strip, mut explicit) = (false, None);
        let mut i = at + 1;
        for _ in 0..2 {
            match self.b.get(i) {
                Some(b'-') if !strip => strip = true,
                Some(&d @ b'1'..=b'9') if explicit.is_none() => {
                    explicit = Some(usize::from(d - b'0'))
                }
                _ => break,
            }
            i += 1;
        }
        let h = self.skip_spaces(i)?;
        if h < end && !(self.b[h] == b'#' && h > i) {
            return Err(Bail);
        }
        let len = self.b.len();
        let mut line = end + 1;
        // The indentation: the indicator's past the owner's column, or the first content line's
        // (libyaml's rule: no less than a leading blank line's spaces, past the owner's column;
        // otherwise the scalar is empty, which is left to the full reader).
        let indent = match explicit {
            Some(d) => owner + d,
            None => {
                let mut p = line;
                let mut blank_spaces = 0;
                loop {
                    let text = self.spaces_end(p);
                    match self.b.get(text) {
                        None => return Err(Bail),
                        Some(b'\t') => return Err(Bail),
                        Some(b'\n') => {
                            blank_spaces = blank_spaces.max(text - p);
                            p = text + 1;
                        }
                        Some(_) if text - p <= owner || text - p < blank_spaces => {
                            return Err(Bail);
                        }
                        Some(_) => break text - p,
                    }
                }
            }
        };
        let mut value = String::new();
        // Whether a line break ends the last content line, whether that line starts with a
        // blank, and how many empty lines follow it.
        let (mut leading_break, mut leading_blank, mut empty) = (false, false, 0);
        let mut any_content = false;
        while line < len {
            let text = self.spaces_end(line);
            let spaces = text - line;
            let le = self.line_end(text);
            if text == le {
                if spaces > indent {
                    return Err(Bail);
                }
                empty += 1;
                line = le + 1;
                continue;
            }
            if spaces < indent {
                if self.b[text] == b'\t' {
                    return Err(Bail);
                }
                break;
            }
            let content = &self.src[line + indent..le];
            any_content = true;
            let trailing_blank = content.starts_with([' ', '\t']);
            if folded && leading_break && !leading_blank && !trailing_blank {
                if empty == 0 {
                    value.push(' ');
                }
            } else if leading_break {
                value.push('\n');
            }
            for _ in 0..empty {
                value.push('\n');
            }
            empty = 0;
            leading_blank = trailing_blank;
            value.push_str(content);
            leading_break = le < len;
            line = le + 1;
        }
        // Empty lines at the text's end without a line break after them, and a scalar with no
        // content, are left to the full reader.
        if !any_content || (line >= len && !self.src.ends_with('\n') && empty > 0) {
            return Err(Bail);
        }
        if leading_break && !strip {
            value.push('\n');
        }
        let n = self.scalar(ScalarText::Own(value), false);
        self.pos = line.min(len);
        self.after_scalar(owner)?;
        Ok(n)
    }

    /// The first byte from `i` that is not a space (a tab is this byte).
    fn spaces_end(&self, mut i: usize) -> usize {
        while i < self.b.len() && self.b[i] == b' ' {
            i += 1;
        }
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The full reader's arena for `src`, or `None` when it refuses it.
    fn full(src: &str) -> Option<(Vec<Node>, Option<usize>)> {
        crate::decode::parse_with_saphyr(src).ok()
    }

    /// The arena as text, each scalar's text read from `src`.
    fn shown((nodes, root): &(Vec<Node>, Option<usize>), src: &str) -> String {
        let nodes: Vec<String> = nodes
            .iter()
            .map(|n| match n {
                Node::Scalar { value, tag, plain } => {
                    format!("Scalar({:?}, {tag:?}, {plain})", value.get(src))
                }
                other => format!("{other:?}"),
            })
            .collect();
        format!("{nodes:?} root {root:?}")
    }

    fn same(src: &str) -> Result<bool, String> {
        let Some(fast) = read(src) else {
            return Ok(false);
        };
        let fast = shown(&fast, src);
        match full(src) {
            Some(slow) if shown(&slow, src) == fast => Ok(true),
            Some(slow) => Err(format!(
                "{src:?}\nfull reader: {}\nthis reader: {fast}",
                shown(&slow, src)
            )),
            None => Err(format!(
                "{src:?}: the full reader refuses it, this one took it"
            )),
        }
    }

    #[test]
    fn takes_block_documents_as_the_full_reader_reads_them() {
        for src in [
            "a: 1\nb: two\n",
            "a:\n  b: c\n  d:\n  - e\n  - f: g\n    h: i\n",
            "# Source: x/templates/y.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"x\"\n  annotations:\n    'helm.sh/hook': pre-install\ndata:\n  k: |\n    line 1\n\n      line 2\n  j: |-\n    z\n",
            "- a\n- b: c\n  d: []\n- {}\n-\n  e: f\n- \"q\\\"\\u00e9\" # c\n- 'it''s'\n",
            "a:\nb: ~\nc: # c\n  d: 1\n",
            "k: v # comment\n# other\n  # indented comment\nl: w\n",
            "x: é ünïcode\n",
            "s: |\n  a\n  \n  b\n\n\nt: 1\n",
            "a: [1, \"two\", [], {b: c, 'd': [e]}]\n",
            "{}\n",
            "[a, b]\n",
            "",
            "# only a comment\n",
            "---\na: 1\n",
            "description: one\n  two\n\n  three\n\n# c\nb: 1\n",
            "- plain\n  continued\n- x\n",
            "resources:\n  null\nb:\n  'q'\nc:\n  - d\ne:\n  f: g\n  h: |\n    i\n  # j\nk:\n  plain\n   more\n",
            "a: |\n  x\n  y",
            "a: |-\n  x",
            "- |\n  x\n\n- y",
            "a: |\n\n  leading blank\nb: |2-\n\n\n    more\n   x\nc: >-1\n   y\n",
            "a: b\n  `c` \'d\' *e &f !g %h @i [j] {k} |l >m -n\n",
            "a: >\n  folded\n  lines\n\n  para\n    more indented\n  back\nb: >-\n  x\n",
            "a: \"two\n  lines \\\n  joined\\\n\n  \\ and\n\n\n  more\"\nb: 'single\n\n  quoted ''x'''\n",
            "a: b\n  continued\n",
            "a:\n  {}\nb:\n    [c]\n",
        ] {
            assert_eq!(same(src), Ok(true), "{src}");
        }
    }

    #[test]
    fn leaves_other_documents_to_the_full_reader() {
        for src in [
            "a: [1, ]\n",
            "a: [b: c]\n",
            "a: {b}\n",
            "a: &x 1\nb: *x\n",
            "a: !!str 1\n",
            "a: b\n  c: d\n",
            "a:\n  {}\n  b: c\n",
            "a: \"two\nlines\"\n",
            "a: 'x\n  b': c\n",
            "a: 1\n---\nb: 2\n",
            "a:\tb\n",
            "a: 1\r\n",
            "? a\n: b\n",
            "a: b: c\n",
            "a: 1\n- b\n",
            "- - a\n",
            "a: |\n\n     \n  leading blank too indented\n",
            "a: |+\n  keep\n",
            "a: |0\n  zero\n",
            "a: |\n  \n\t\n",
            "a: |\n  x\n  ",
            "a:\n  b\n  c: d\n",
            "plain\n",
            "---\n",
            "a: \"\\/\"\n",
            "a:\n  b: 1\n c: 2\n",
        ] {
            assert_eq!(same(src), Ok(false), "{src}");
        }
    }

    /// Every YAML file under `testdata/`, every document of the Helm reference corpus' rendered
    /// output and every case of the go-yaml corpus.
    fn corpus() -> Vec<String> {
        fn walk(dir: &std::path::Path, out: &mut Vec<String>) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
            entries.sort();
            for path in entries {
                let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
                if path.is_dir() {
                    // Templates are not YAML until rendered.
                    if name != "templates" {
                        walk(&path, out);
                    }
                } else if name.ends_with(".yaml") || name.ends_with(".yml") {
                    if let Ok(text) = std::fs::read_to_string(&path) {
                        out.push(text);
                    }
                } else if name == "stdout" {
                    let text = std::fs::read_to_string(&path).unwrap_or_default();
                    let mut doc = String::new();
                    for line in text.split_inclusive('\n') {
                        if line.trim_end() == "---" {
                            out.push(std::mem::take(&mut doc));
                        } else {
                            doc.push_str(line);
                        }
                    }
                    out.push(doc);
                    out.retain(|d| !d.trim().is_empty());
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata");
        let mut out = Vec::new();
        walk(&root, &mut out);
        let cases = std::fs::read_to_string(root.join("yaml-corpus/read-cases.jsonl")).unwrap();
        for line in cases.lines() {
            let case: serde_json::Value = serde_json::from_str(line).unwrap();
            if let Some(yaml) = case["yaml"].as_str() {
                out.push(yaml.to_string());
            }
        }
        out
    }

    #[test]
    fn gives_the_full_readers_nodes_for_every_document_of_the_corpora_it_takes() {
        let docs = corpus();
        assert!(docs.len() > 3000, "{} documents", docs.len());
        let mut taken = 0;
        let mut failures = Vec::new();
        for doc in &docs {
            match same(doc) {
                Ok(t) => taken += usize::from(t),
                Err(e) => failures.push(e),
            }
        }
        assert!(
            failures.is_empty(),
            "{}",
            failures[..failures.len().min(5)].join("\n\n")
        );
        // Most documents are plain block YAML: the fast path must not leave them all behind.
        assert!(taken * 2 > docs.len(), "took {taken} of {}", docs.len());
    }

    /// Mutations of the corpus' documents this reader takes — an indicator, a tab, a quote, a
    /// line break or an indentation change put in, a few characters taken out — read by both:
    /// any mutant this reader takes, the full reader must read to the same nodes.
    #[test]
    fn gives_the_full_readers_nodes_for_every_mutant_it_takes() {
        const PIECES: &[&str] = &[
            " ", ":", ": ", "-", "- ", "#", " #", "\"", "'", "|", "|-", ">", "\t", "\n", "\n ",
            "[", "{", "]", "}", "[]", "{}", "&a ", "*a", "!", "\\", "\\u00", "\r", "---\n", "...",
            "é", "\u{85}", "%", "@", "?", ",", "  ",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n.max(1) as u64) as usize
        };
        let docs: Vec<String> = corpus().into_iter().filter(|d| read(d).is_some()).collect();
        let (mut tried, mut taken) = (0, 0);
        let mut failures = Vec::new();
        for doc in docs.iter().filter(|d| d.len() < 20_000) {
            for _ in 0..4 {
                let mut at = next(doc.len() + 1);
                while !doc.is_char_boundary(at) {
                    at -= 1;
                }
                let mut mutant = doc.clone();
                match next(3) {
                    0 => mutant.insert_str(at, PIECES[next(PIECES.len())]),
                    1 => {
                        let mut end = (at + 1 + next(3)).min(doc.len());
                        while !doc.is_char_boundary(end) {
                            end += 1;
                        }
                        mutant.replace_range(at..end, "");
                    }
                    _ => {
                        let line = doc[..at].rfind('\n').map_or(0, |i| i + 1);
                        if doc[line..].starts_with(' ') && next(2) == 0 {
                            mutant.remove(line);
                        } else {
                            mutant.insert(line, ' ');
                        }
                    }
                }
                tried += 1;
                match same(&mutant) {
                    Ok(t) => taken += usize::from(t),
                    Err(e) => failures.push(e),
                }
            }
        }
        assert!(
            failures.is_empty(),
            "{} of {tried}:\n{}",
            failures.len(),
            failures[..failures.len().min(5)].join("\n\n")
        );
        assert!(taken * 4 > tried, "took {taken} of {tried} mutants");
    }
}
