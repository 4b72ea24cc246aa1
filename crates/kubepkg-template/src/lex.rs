//! The lexer of Go's `text/template`: splits template text into text runs and action tokens,
//! applying trim markers (`{{- ` and ` -}}`) and dropping comments exactly as Go's
//! `text/template/parse` lexer does, with the same error texts and line accounting.

/// Kind of a lexical item (Go's `itemType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemKind {
    Error,
    Bool,
    Char,
    CharConstant,
    Complex,
    Assign,
    Declare,
    Eof,
    Field,
    Identifier,
    LeftDelim,
    LeftParen,
    Number,
    Pipe,
    RawString,
    RightDelim,
    RightParen,
    Space,
    String,
    Text,
    Variable,
    // keywords
    Block,
    Break,
    Continue,
    Dot,
    Define,
    Else,
    End,
    If,
    Nil,
    Range,
    Template,
    With,
}

impl ItemKind {
    fn is_keyword(self) -> bool {
        matches!(
            self,
            ItemKind::Block
                | ItemKind::Break
                | ItemKind::Continue
                | ItemKind::Dot
                | ItemKind::Define
                | ItemKind::Else
                | ItemKind::End
                | ItemKind::If
                | ItemKind::Nil
                | ItemKind::Range
                | ItemKind::Template
                | ItemKind::With
        )
    }
}

/// A token as the parser reads it: kind, byte position, text (borrowed from the input; owned
/// for error messages) and starting line. Made on demand from a [`Token`] by [`Tokens::item`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item<'a> {
    pub kind: ItemKind,
    pub pos: usize,
    pub val: Cow<'a, str>,
    pub line: usize,
}

impl std::fmt::Display for Item<'_> {
    /// Go's `item.String()`, used in parse error messages.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            ItemKind::Eof => f.write_str("EOF"),
            ItemKind::Error => f.write_str(&self.val),
            k if k.is_keyword() => write!(f, "<{}>", self.val),
            _ => {
                if self.val.chars().count() > 10 {
                    let head: String = self.val.chars().take(10).collect();
                    write!(f, "{}...", kubepkg_gostd::strconv::quote(&head))
                } else {
                    f.write_str(&kubepkg_gostd::strconv::quote(&self.val))
                }
            }
        }
    }
}

/// A token as the lexer keeps it: its kind, and its text as a span of the input with the line
/// it starts on — 16 bytes where an [`Item`] takes 48 (a template's token list was the largest
/// fresh memory of a small chart's render).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub kind: ItemKind,
    pub pos: u32,
    pub len: u32,
    pub line: u32,
}

/// The tokens of one input, the last `Eof` or `Error` ([`lex`]).
#[derive(Debug)]
pub struct Tokens<'a> {
    input: &'a str,
    tokens: Vec<Token>,
    /// The message of the last token when it is an `Error`.
    error: Option<String>,
}

impl<'a> Tokens<'a> {
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    pub fn kind(&self, i: usize) -> ItemKind {
        self.tokens[i].kind
    }

    pub fn line(&self, i: usize) -> usize {
        self.tokens[i].line as usize
    }

    /// The `i`th token with its text.
    pub fn item(&self, i: usize) -> Item<'a> {
        let t = self.tokens[i];
        let val = match (t.kind, &self.error) {
            (ItemKind::Error, Some(msg)) => Cow::Owned(msg.clone()),
            _ => Cow::Borrowed(&self.input[t.pos as usize..(t.pos + t.len) as usize]),
        };
        Item {
            kind: t.kind,
            pos: t.pos as usize,
            val,
            line: t.line as usize,
        }
    }

    /// Every token with its text.
    pub fn items(&self) -> impl Iterator<Item = Item<'a>> + '_ {
        (0..self.len()).map(|i| self.item(i))
    }
}

/// The largest input [`lex`] takes: a token's position and line are 32-bit (a line number can
/// be one more than the input's length).
pub const MAX_INPUT: usize = u32::MAX as usize - 1;

use std::borrow::Cow;

const LEFT: &str = "{{";
const RIGHT: &str = "}}";
const LEFT_COMMENT: &str = "/*";
const RIGHT_COMMENT: &str = "*/";

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

fn is_alnum(c: char) -> bool {
    if c.is_ascii() {
        return c == '_' || c.is_ascii_alphanumeric();
    }
    c.is_alphabetic() || is_unicode_digit(c)
}

/// Go's `unicode.IsDigit` (category Nd).
fn is_unicode_digit(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    c.is_numeric() && !c.is_alphabetic() && is_nd(c)
}

/// Rough Nd test for non-ASCII: decimal digits are the numeric chars whose digit value parses.
fn is_nd(c: char) -> bool {
    // Rust has no category query; `to_digit` only covers ASCII. Decimal digit blocks are
    // runs of ten starting at code points ending in 0 (…0 to …9) in Unicode's Nd ranges.
    const ND_STARTS: &[u32] = &[
        0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66, 0x0CE6,
        0x0D66, 0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0,
        0x1A80, 0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0,
        0xAA50, 0xABF0, 0xFF10,
    ];
    let u = c as u32;
    ND_STARTS.iter().any(|&s| u >= s && u < s + 10)
}

fn count_newlines(s: &str) -> usize {
    memchr::memchr_iter(b'\n', s.as_bytes()).count()
}

/// Byte offset of the next `{{`: a `{` followed by another (a two-byte needle needs no
/// substring searcher, which costs more to build than this search does for most text runs).
fn find_left_delim(b: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = memchr::memchr(b'{', &b[from..]) {
        let at = from + i;
        if b.get(at + 1) == Some(&b'{') {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// An identifier's ASCII character (the rest of [`is_alnum`] goes through [`Lexer::next`]).
fn is_ascii_word(b: u8) -> bool {
    b == b'_' || b.is_ascii_alphanumeric()
}

fn trim_right_len(s: &str) -> usize {
    s.len() - s.trim_end_matches(is_space).len()
}

fn trim_left_len(s: &str) -> usize {
    s.len() - s.trim_start_matches(is_space).len()
}

fn has_left_trim(s: &[u8]) -> bool {
    s.len() >= 2 && s[0] == b'-' && is_space(s[1] as char)
}

fn has_right_trim(s: &[u8]) -> bool {
    s.len() >= 2 && is_space(s[0] as char) && s[1] == b'-'
}

struct Lexer<'a> {
    input: &'a str,
    pos: usize,
    start: usize,
    at_eof: bool,
    paren_depth: usize,
    line: usize,
    start_line: usize,
    inside_action: bool,
    items: Vec<Token>,
    error: Option<String>,
    done: bool,
}

/// Tokenize `input` completely. The last token is `Eof` or `Error`.
///
/// # Panics
/// When `input` is longer than [`MAX_INPUT`] (the parser refuses such a template first).
pub fn lex(input: &str) -> Tokens<'_> {
    assert!(input.len() <= MAX_INPUT, "a template of more than 4 GiB");
    let mut l = Lexer {
        input,
        pos: 0,
        start: 0,
        at_eof: false,
        paren_depth: 0,
        line: 1,
        start_line: 1,
        inside_action: false,
        // Up to about sixteen items an action (delimiters, words, spaces, a pipe) and the text
        // between two; an action opens with two of the text's `{`.
        items: Vec::with_capacity(
            16 * (memchr::memchr_iter(b'{', input.as_bytes()).count() / 2) + 2,
        ),
        error: None,
        done: false,
    };
    while !l.done {
        if l.inside_action {
            l.lex_inside_action();
        } else {
            l.lex_text();
        }
    }
    Tokens {
        input,
        tokens: l.items,
        error: l.error,
    }
}

const EOF: char = char::REPLACEMENT_CHARACTER;

impl<'a> Lexer<'a> {
    fn next(&mut self) -> Option<char> {
        if self.pos >= self.input.len() {
            self.at_eof = true;
            return None;
        }
        let b = self.input.as_bytes()[self.pos];
        if b < 0x80 {
            self.pos += 1;
            if b == b'\n' {
                self.line += 1;
            }
            return Some(b as char);
        }
        let c = self.input[self.pos..].chars().next()?;
        self.pos += c.len_utf8();
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn peek(&mut self) -> Option<char> {
        let c = self.next();
        self.backup();
        c
    }

    fn backup(&mut self) {
        if !self.at_eof && self.pos > 0 {
            let b = self.input.as_bytes()[self.pos - 1];
            if b < 0x80 {
                self.pos -= 1;
                if b == b'\n' {
                    self.line -= 1;
                }
                return;
            }
            let c = self.input[..self.pos].chars().next_back().unwrap_or('\0');
            self.pos -= c.len_utf8();
            if c == '\n' {
                self.line -= 1;
            }
        }
    }

    fn this_item(&mut self, kind: ItemKind) -> Token {
        // In range: the input is at most MAX_INPUT bytes, so are its positions and lines.
        let it = Token {
            kind,
            pos: self.start as u32,
            len: (self.pos - self.start) as u32,
            line: self.start_line as u32,
        };
        self.start = self.pos;
        self.start_line = self.line;
        it
    }

    fn emit(&mut self, kind: ItemKind) {
        let it = self.this_item(kind);
        self.items.push(it);
    }

    fn ignore(&mut self) {
        self.line += count_newlines(&self.input[self.start..self.pos]);
        self.start = self.pos;
        self.start_line = self.line;
    }

    fn accept(&mut self, valid: &str) -> bool {
        match self.next() {
            Some(c) if c.is_ascii() && valid.as_bytes().contains(&(c as u8)) => true,
            _ => {
                self.backup();
                false
            }
        }
    }

    fn accept_run(&mut self, valid: &str) {
        while let Some(c) = self.next() {
            if !(c.is_ascii() && valid.as_bytes().contains(&(c as u8))) {
                break;
            }
        }
        self.backup();
    }

    fn errorf(&mut self, msg: String) {
        self.items.push(Token {
            kind: ItemKind::Error,
            pos: self.start as u32,
            len: 0,
            line: self.start_line as u32,
        });
        self.error = Some(msg);
        self.done = true;
    }

    fn rest(&self) -> &'a str {
        &self.input[self.pos..]
    }

    fn lex_text(&mut self) {
        if let Some(x) = find_left_delim(self.rest().as_bytes()) {
            if x > 0 {
                self.pos += x;
                let delim_end = self.pos + LEFT.len();
                let mut trim = 0;
                if has_left_trim(&self.input.as_bytes()[delim_end..]) {
                    trim = trim_right_len(&self.input[self.start..self.pos]);
                }
                self.pos -= trim;
                self.line += count_newlines(&self.input[self.start..self.pos]);
                let it = self.this_item(ItemKind::Text);
                self.pos += trim;
                self.ignore();
                if it.len > 0 {
                    self.items.push(it);
                }
            }
            self.lex_left_delim();
            return;
        }
        self.pos = self.input.len();
        if self.pos > self.start {
            self.line += count_newlines(&self.input[self.start..self.pos]);
            self.emit(ItemKind::Text);
        }
        self.emit(ItemKind::Eof);
        self.done = true;
    }

    fn at_right_delim(&self) -> (bool, bool) {
        let r = self.rest().as_bytes();
        if has_right_trim(r) && self.input[self.pos + 2..].starts_with(RIGHT) {
            return (true, true);
        }
        if self.rest().starts_with(RIGHT) {
            return (true, false);
        }
        (false, false)
    }

    fn lex_left_delim(&mut self) {
        self.pos += LEFT.len();
        let trim = has_left_trim(self.rest().as_bytes());
        let after = if trim { 2 } else { 0 };
        if self.input[self.pos + after..].starts_with(LEFT_COMMENT) {
            self.pos += after;
            self.ignore();
            self.lex_comment();
            return;
        }
        let it = self.this_item(ItemKind::LeftDelim);
        self.items.push(it);
        self.inside_action = true;
        self.pos += after;
        self.ignore();
        self.paren_depth = 0;
    }

    fn lex_comment(&mut self) {
        self.pos += LEFT_COMMENT.len();
        let Some(x) = self.rest().find(RIGHT_COMMENT) else {
            self.errorf("unclosed comment".into());
            return;
        };
        self.pos += x + RIGHT_COMMENT.len();
        let (delim, trim) = self.at_right_delim();
        if !delim {
            self.errorf("comment ends before closing delimiter".into());
            return;
        }
        self.line += count_newlines(&self.input[self.start..self.pos]);
        let _comment = self.this_item(ItemKind::Text);
        if trim {
            self.pos += 2;
        }
        self.pos += RIGHT.len();
        if trim {
            self.pos += trim_left_len(self.rest());
        }
        self.ignore();
    }

    fn lex_right_delim(&mut self) {
        let (_, trim) = self.at_right_delim();
        if trim {
            self.pos += 2;
            self.ignore();
        }
        self.pos += RIGHT.len();
        self.emit(ItemKind::RightDelim);
        if trim {
            self.pos += trim_left_len(self.rest());
            self.ignore();
        }
        self.inside_action = false;
    }

    fn lex_inside_action(&mut self) {
        let (delim, _) = self.at_right_delim();
        if delim {
            if self.paren_depth == 0 {
                self.lex_right_delim();
            } else {
                self.errorf("unclosed left paren".into());
            }
            return;
        }
        let Some(r) = self.next() else {
            self.errorf("unclosed action".into());
            return;
        };
        match r {
            c if is_space(c) => {
                self.backup();
                self.lex_space();
            }
            '=' => self.emit(ItemKind::Assign),
            ':' => {
                if self.next() != Some('=') {
                    self.errorf("expected :=".into());
                    return;
                }
                self.emit(ItemKind::Declare);
            }
            '|' => self.emit(ItemKind::Pipe),
            '"' => self.lex_quote(),
            '`' => self.lex_raw_quote(),
            '$' => self.lex_variable(),
            '\'' => self.lex_char(),
            '.' if self.pos < self.input.len()
                && !self.input.as_bytes()[self.pos].is_ascii_digit() =>
            {
                self.lex_field_or_variable(ItemKind::Field)
            }
            '.' | '+' | '-' | '0'..='9' => {
                self.backup();
                self.lex_number();
            }
            c if is_alnum(c) => {
                self.backup();
                self.lex_identifier();
            }
            '(' => {
                self.paren_depth += 1;
                self.emit(ItemKind::LeftParen);
            }
            ')' => {
                if self.paren_depth == 0 {
                    self.errorf("unexpected right paren".into());
                    return;
                }
                self.paren_depth -= 1;
                self.emit(ItemKind::RightParen);
            }
            c if c.is_ascii() && !c.is_ascii_control() => self.emit(ItemKind::Char),
            c => self.errorf(format!(
                "unrecognized character in action: {}",
                crate::fmt::format_unicode_hash(c)
            )),
        }
    }

    fn lex_space(&mut self) {
        // The spaces in one pass (all ASCII), as `peek` and `next` would take them: the line
        // counted at each newline, the end of input noted when they run up to it.
        let bytes = self.input.as_bytes();
        let mut n = 0;
        while let Some(&b) = bytes.get(self.pos)
            && is_space(b as char)
        {
            if b == b'\n' {
                self.line += 1;
            }
            self.pos += 1;
            n += 1;
        }
        if self.pos >= bytes.len() {
            self.at_eof = true;
        }
        if has_right_trim(&self.input.as_bytes()[self.pos - 1..])
            && self.input[self.pos - 1 + 2..].starts_with(RIGHT)
        {
            self.backup();
            if n == 1 {
                self.lex_right_delim();
                return;
            }
        }
        self.emit(ItemKind::Space);
    }

    fn lex_identifier(&mut self) {
        loop {
            self.skip_ascii_word();
            let r = self.next();
            match r {
                Some(c) if is_alnum(c) => {}
                _ => {
                    self.backup();
                    let word = &self.input[self.start..self.pos];
                    if !self.at_terminator() {
                        self.errorf(format!(
                            "bad character {}",
                            crate::fmt::format_unicode_hash(r.unwrap_or(EOF))
                        ));
                        return;
                    }
                    let kind = match word {
                        "block" => ItemKind::Block,
                        "break" => ItemKind::Break,
                        "continue" => ItemKind::Continue,
                        "define" => ItemKind::Define,
                        "else" => ItemKind::Else,
                        "end" => ItemKind::End,
                        "if" => ItemKind::If,
                        "range" => ItemKind::Range,
                        "nil" => ItemKind::Nil,
                        "template" => ItemKind::Template,
                        "with" => ItemKind::With,
                        "true" | "false" => ItemKind::Bool,
                        _ => ItemKind::Identifier,
                    };
                    self.emit(kind);
                    return;
                }
            }
        }
    }

    fn lex_variable(&mut self) {
        if self.at_terminator() {
            self.emit(ItemKind::Variable);
            return;
        }
        self.lex_field_or_variable(ItemKind::Variable);
    }

    fn lex_field_or_variable(&mut self, kind: ItemKind) {
        if self.at_terminator() {
            self.emit(if kind == ItemKind::Variable {
                ItemKind::Variable
            } else {
                ItemKind::Dot
            });
            return;
        }
        let mut r;
        loop {
            self.skip_ascii_word();
            r = self.next();
            match r {
                Some(c) if is_alnum(c) => {}
                _ => {
                    self.backup();
                    break;
                }
            }
        }
        if !self.at_terminator() {
            self.errorf(format!(
                "bad character {}",
                crate::fmt::format_unicode_hash(r.unwrap_or(EOF))
            ));
            return;
        }
        self.emit(kind);
    }

    /// Past the ASCII letters, digits and `_` at the position (no newline among them).
    fn skip_ascii_word(&mut self) {
        let bytes = self.input.as_bytes();
        while bytes.get(self.pos).is_some_and(|&b| is_ascii_word(b)) {
            self.pos += 1;
        }
    }

    fn at_terminator(&mut self) -> bool {
        match self.peek() {
            None => true,
            Some(c) if is_space(c) => true,
            Some('.' | ',' | '|' | ':' | ')' | '(') => true,
            _ => self.rest().starts_with(RIGHT),
        }
    }

    fn lex_char(&mut self) {
        self.lex_escaped(
            '\'',
            "unterminated character constant",
            ItemKind::CharConstant,
        );
    }

    /// Go's `lexChar` and `lexQuote`: up to the closing `close`, a backslash escaping the
    /// next character; a newline or the end of input first is `unterminated`.
    fn lex_escaped(&mut self, close: char, unterminated: &str, kind: ItemKind) {
        let bytes = self.input.as_bytes();
        loop {
            // Past the plain ASCII characters (no newline, backslash or `close` among them).
            while bytes.get(self.pos).is_some_and(|&b| {
                b.is_ascii() && b != b'\\' && b != b'\n' && char::from(b) != close
            }) {
                self.pos += 1;
            }
            let mut c = self.next();
            if c == Some('\\') {
                c = self.next();
                if !matches!(c, None | Some('\n')) {
                    continue;
                }
            }
            match c {
                None | Some('\n') => {
                    self.errorf(unterminated.into());
                    return;
                }
                Some(c) if c == close => break,
                _ => {}
            }
        }
        self.emit(kind);
    }

    fn lex_number(&mut self) {
        let kind = if !self.scan_number() {
            None
        } else if let Some('+' | '-') = self.peek() {
            let imaginary = self.scan_number() && self.input.as_bytes()[self.pos - 1] == b'i';
            imaginary.then_some(ItemKind::Complex)
        } else {
            Some(ItemKind::Number)
        };
        match kind {
            Some(kind) => self.emit(kind),
            None => {
                let s = self.input[self.start..self.pos].to_string();
                self.errorf(format!(
                    "bad number syntax: {}",
                    kubepkg_gostd::strconv::quote(&s)
                ));
            }
        }
    }

    fn scan_number(&mut self) -> bool {
        self.accept("+-");
        let mut digits = "0123456789_";
        if self.accept("0") {
            if self.accept("xX") {
                digits = "0123456789abcdefABCDEF_";
            } else if self.accept("oO") {
                digits = "01234567_";
            } else if self.accept("bB") {
                digits = "01_";
            }
        }
        self.accept_run(digits);
        if self.accept(".") {
            self.accept_run(digits);
        }
        if digits.len() == 11 && self.accept("eE") {
            self.accept("+-");
            self.accept_run("0123456789_");
        }
        if digits.len() == 23 && self.accept("pP") {
            self.accept("+-");
            self.accept_run("0123456789_");
        }
        self.accept("i");
        if let Some(c) = self.peek()
            && is_alnum(c)
        {
            self.next();
            return false;
        }
        true
    }

    fn lex_quote(&mut self) {
        self.lex_escaped('"', "unterminated quoted string", ItemKind::String);
    }

    fn lex_raw_quote(&mut self) {
        loop {
            match self.next() {
                None => {
                    self.errorf("unterminated raw quoted string".into());
                    return;
                }
                Some('`') => break,
                _ => {}
            }
        }
        self.emit(ItemKind::RawString);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<(ItemKind, String)> {
        lex(s)
            .items()
            .map(|i| (i.kind, i.val.into_owned()))
            .collect()
    }

    #[test]
    fn trim_markers_remove_surrounding_space_and_fields_split_at_dots() {
        for (text, expected) in [
            (
                "a  {{- 3 -}}  b",
                [
                    (0, ItemKind::Text, "a"),
                    (2, ItemKind::Number, "3"),
                    (4, ItemKind::Text, "b"),
                ],
            ),
            (
                "{{.a.b $x.c}}",
                [
                    (1, ItemKind::Field, ".a"),
                    (2, ItemKind::Field, ".b"),
                    (4, ItemKind::Variable, "$x"),
                ],
            ),
        ] {
            let k = kinds(text);
            for (i, kind, val) in expected {
                assert_eq!(k[i], (kind, val.to_string()), "{text:?} item {i}");
            }
        }
    }

    #[test]
    fn tokens_give_back_each_items_text_position_and_line() {
        let text = "a\n{{- /* c */ -}}\n{{ .x | printf \"%d\" 3 }}\nü{{ $v := 2 }}{{ \"abc }}";
        let tokens = lex(text);
        let items: Vec<_> = tokens.items().collect();
        assert_eq!(items.len(), tokens.len());
        for (i, item) in items.iter().enumerate() {
            assert_eq!((item.kind, item.line), (tokens.kind(i), tokens.line(i)));
            if item.kind != ItemKind::Error {
                assert_eq!(
                    &text[item.pos..item.pos + item.val.len()],
                    item.val,
                    "item {i}"
                );
            }
        }
        let last = items.last().unwrap();
        assert_eq!(
            (last.kind, last.line, &*last.val),
            (ItemKind::Error, 4, "unterminated quoted string")
        );
        let printf = items.iter().find(|i| i.val == "printf").unwrap();
        assert_eq!((printf.kind, printf.line), (ItemKind::Identifier, 3));
    }

    #[test]
    fn errors_match_go() {
        for (text, error) in [
            ("{{ \"abc }}", "unterminated quoted string"),
            ("{{ 3k }}", "bad number syntax: \"3k\""),
            ("{{/* x */ }}", "comment ends before closing delimiter"),
        ] {
            let k = kinds(text);
            assert_eq!(k.last().map(|x| x.1.as_str()), Some(error), "{text:?}");
        }
    }
}
