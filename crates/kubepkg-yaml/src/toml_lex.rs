//! The TOML lexer of Helm's `fromToml`, behaving as BurntSushi/toml v1.6.0's: a state machine
//! that runs lazily, one state at a time, only when the parser asks for the next item. That
//! laziness decides which of a lexical error and a later semantic error is reported first, and
//! the lexer's line bookkeeping (its `next`/`backup` over a four-rune history) decides the line
//! number every error names, so both are kept as BurntSushi has them.

use std::collections::VecDeque;

use kubepkg_gostd::strconv::{quote, quote_rune};

/// The end of input, as the lexer reports it (a NUL rune, which is never valid input).
pub(crate) const EOF: char = '\0';

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ItemType {
    Error,
    Eof,
    Text,
    Str,
    StrEsc,
    RawStr,
    MlStr,
    RawMlStr,
    Bool,
    Integer,
    Float,
    Datetime,
    Array,
    ArrayEnd,
    TableStart,
    TableEnd,
    ArrayTableStart,
    ArrayTableEnd,
    KeyStart,
    KeyEnd,
    CommentStart,
    InlineTableStart,
    InlineTableEnd,
}

/// One lexeme: its kind, text (or error message) and the line the lexer was on when it ended.
#[derive(Debug, Clone)]
pub(crate) struct Item {
    pub typ: ItemType,
    pub val: String,
    pub line: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Top,
    TopEnd,
    TableStart,
    TableEnd,
    ArrayTableEnd,
    TableNameStart,
    TableNameEnd,
    BareName,
    QuotedName,
    KeyStart,
    KeyNameStart,
    KeyEnd,
    Value,
    ArrayValue,
    ArrayValueEnd,
    ArrayEnd,
    InlineTableValue,
    InlineTableValueEnd,
    InlineTableEnd,
    Str,
    MlStr,
    RawStr,
    RawMlStr,
    MlStrEscape,
    StrEscape,
    HexEscape,
    ShortUnicodeEscape,
    LongUnicodeEscape,
    NumberOrDateStart,
    NumberOrDate,
    Datetime,
    HexInteger,
    OctalInteger,
    BinaryInteger,
    DecimalNumber,
    DecimalNumberStart,
    BaseNumberOrDate,
    Float,
    Bool,
    CommentStart,
    Comment,
}

pub(crate) struct Lexer<'a> {
    input: &'a str,
    start: usize,
    pos: usize,
    line: i64,
    state: Option<State>,
    items: VecDeque<Item>,
    esc: bool,
    prev_widths: [usize; 4],
    nprev: usize,
    at_eof: bool,
    stack: Vec<State>,
}

pub(crate) fn is_whitespace(r: char) -> bool {
    r == '\t' || r == ' '
}
fn is_nl(r: char) -> bool {
    r == '\n' || r == '\r'
}
fn is_control(r: char) -> bool {
    match r {
        '\t' | '\r' | '\n' => false,
        _ => (r as u32) <= 0x1f || r as u32 == 0x7f,
    }
}
pub(crate) fn is_digit(r: char) -> bool {
    r.is_ascii_digit()
}
fn is_binary(r: char) -> bool {
    r == '0' || r == '1'
}
fn is_octal(r: char) -> bool {
    ('0'..='7').contains(&r)
}
pub(crate) fn is_hex(r: char) -> bool {
    r.is_ascii_hexdigit()
}
pub(crate) fn is_bare_key_char(r: char) -> bool {
    r.is_ascii_alphanumeric() || r == '_' || r == '-'
}

fn rune_or_eof(r: char) -> String {
    if r == EOF {
        "end of file".into()
    } else {
        format!("'{r}'")
    }
}

/// What differs between lexing an array and an inline table (`lexArrayValue`,
/// `lexInlineTableValue` and their `…End` states in BurntSushi/toml): the states, the
/// terminator, what an element starts as, whether a comma may come right before the terminator,
/// and the wording of the error after an element.
struct Container {
    value: State,
    value_end: State,
    end: State,
    close: char,
    element: State,
    end_item: ItemType,
    close_after_comma: bool,
    expected: &'static str,
    got_suffix: &'static str,
}

/// A multi-line string kind (`"""` basic, `'''` literal): its quote, state and item, and
/// when the text read so far ends in a sixth quote (an escaped quote does not count).
struct MultiLine {
    quote: char,
    state: State,
    item: ItemType,
    six_quotes: fn(&str) -> bool,
    six_quotes_error: &'static str,
}

const ML_STR: MultiLine = MultiLine {
    quote: '"',
    state: State::MlStr,
    item: ItemType::MlStr,
    six_quotes: |cur| cur.ends_with("\"\"\"\"\"") && !cur.ends_with("\\\"\"\"\"\""),
    six_quotes_error: "unexpected '\"\"\"\"\"\"'",
};

const RAW_ML_STR: MultiLine = MultiLine {
    quote: '\'',
    state: State::RawMlStr,
    item: ItemType::RawMlStr,
    six_quotes: |cur| cur.ends_with("'''''"),
    six_quotes_error: "unexpected \"''''''\"",
};

const ARRAY: Container = Container {
    value: State::ArrayValue,
    value_end: State::ArrayValueEnd,
    end: State::ArrayEnd,
    close: ']',
    element: State::Value,
    end_item: ItemType::ArrayEnd,
    close_after_comma: false,
    expected: "a comma (',') or array terminator (']')",
    got_suffix: "",
};

const INLINE_TABLE: Container = Container {
    value: State::InlineTableValue,
    value_end: State::InlineTableValueEnd,
    end: State::InlineTableEnd,
    close: '}',
    element: State::KeyStart,
    end_item: ItemType::InlineTableEnd,
    close_after_comma: true,
    expected: "a comma or an inline table terminator '}'",
    got_suffix: " instead",
};

impl<'a> Lexer<'a> {
    pub(crate) fn new(input: &'a str) -> Self {
        Lexer {
            input,
            start: 0,
            pos: 0,
            line: 1,
            state: Some(State::Top),
            items: VecDeque::new(),
            esc: false,
            prev_widths: [0; 4],
            nprev: 0,
            at_eof: false,
            stack: Vec::new(),
        }
    }

    /// The next item, running lexer states until one is available.
    pub(crate) fn next_item(&mut self) -> Item {
        loop {
            if let Some(it) = self.items.pop_front() {
                return it;
            }
            match self.state {
                Some(s) => self.state = self.step(s),
                None => {
                    return Item {
                        typ: ItemType::Eof,
                        val: String::new(),
                        line: self.line,
                    };
                }
            }
        }
    }

    fn push(&mut self, s: State) {
        self.stack.push(s);
    }

    fn pop(&mut self) -> Option<State> {
        // An empty stack is a lexer bug in BurntSushi; here it ends the input.
        self.stack.pop()
    }

    fn current(&self) -> &'a str {
        self.input.get(self.start..self.pos).unwrap_or("")
    }

    fn emit(&mut self, typ: ItemType) {
        if self.start > self.pos {
            let b = self.input.as_bytes().get(self.pos).copied().unwrap_or(0);
            self.error(format!("invalid UTF-8 byte: 0x{b:02x}"));
            return;
        }
        let val = self.current().to_string();
        self.items.push_back(Item {
            typ,
            val,
            line: self.line,
        });
        self.start = self.pos;
    }

    fn emit_trim(&mut self, typ: ItemType) {
        let val = self.current().trim().to_string();
        self.items.push_back(Item {
            typ,
            val,
            line: self.line,
        });
        self.start = self.pos;
    }

    fn next(&mut self) -> char {
        if self.at_eof || self.pos >= self.input.len() {
            self.at_eof = true;
            return EOF;
        }
        let bytes = self.input.as_bytes();
        if bytes[self.pos] == b'\n' {
            self.line += 1;
        }
        self.prev_widths[3] = self.prev_widths[2];
        self.prev_widths[2] = self.prev_widths[1];
        self.prev_widths[1] = self.prev_widths[0];
        if self.nprev < 4 {
            self.nprev += 1;
        }
        let Some(r) = self.input.get(self.pos..).and_then(|s| s.chars().next()) else {
            self.at_eof = true;
            return EOF;
        };
        let lone_cr =
            r == '\r' && (self.input.len() - 1 == self.pos || bytes[self.pos + 1] != b'\n');
        if is_control(r) || lone_cr {
            self.error_line(
                self.line,
                format!(
                    "TOML files cannot contain control characters: '0x{:02x}'",
                    r as u32
                ),
            );
            return '\u{FFFD}';
        }
        let w = r.len_utf8();
        self.prev_widths[0] = w;
        self.pos += w;
        r
    }

    fn ignore(&mut self) {
        self.start = self.pos;
    }

    fn backup(&mut self) {
        if self.at_eof {
            self.at_eof = false;
            return;
        }
        if self.nprev < 1 {
            return;
        }
        let w = self.prev_widths[0];
        self.prev_widths[0] = self.prev_widths[1];
        self.prev_widths[1] = self.prev_widths[2];
        self.prev_widths[2] = self.prev_widths[3];
        self.nprev -= 1;
        self.pos = self.pos.saturating_sub(w);
        if self.input.as_bytes().get(self.pos) == Some(&b'\n') {
            self.line -= 1;
        }
    }

    fn accept(&mut self, valid: char) -> bool {
        if self.next() == valid {
            return true;
        }
        self.backup();
        false
    }

    fn peek(&mut self) -> char {
        let r = self.next();
        self.backup();
        r
    }

    fn skip(&mut self, pred: fn(char) -> bool) {
        loop {
            let r = self.next();
            if pred(r) {
                continue;
            }
            self.backup();
            self.ignore();
            return;
        }
    }

    fn error_line(&mut self, line: i64, msg: String) {
        self.items.push_back(Item {
            typ: ItemType::Error,
            val: msg,
            line,
        });
    }

    /// BurntSushi's `lx.error`: at the end of input the error is placed on the line before.
    fn error(&mut self, msg: String) -> Option<State> {
        if self.at_eof {
            return self.error_prev_line(msg);
        }
        self.error_line(self.line, msg);
        None
    }

    fn error_prev_line(&mut self, msg: String) -> Option<State> {
        self.error_line(self.line - 1, msg);
        None
    }

    fn errorf(&mut self, msg: String) -> Option<State> {
        let mut line = self.line;
        if self.at_eof && self.pos >= 1 && self.input.as_bytes()[self.pos - 1] == b'\n' {
            line -= 1;
        }
        self.error_line(line, msg);
        None
    }

    fn step(&mut self, s: State) -> Option<State> {
        use State as S;
        match s {
            S::Top => {
                let r = self.next();
                if is_whitespace(r) || is_nl(r) {
                    self.ignore();
                    return Some(S::Top);
                }
                match r {
                    '#' => {
                        self.push(S::Top);
                        return Some(S::CommentStart);
                    }
                    '[' => return Some(S::TableStart),
                    EOF => {
                        if self.pos > self.start {
                            return self.errorf("unexpected EOF".into());
                        }
                        self.emit(ItemType::Eof);
                        return None;
                    }
                    _ => {}
                }
                self.backup();
                self.push(S::TopEnd);
                Some(S::KeyStart)
            }
            S::TopEnd => {
                let r = self.next();
                match r {
                    '#' => {
                        self.push(S::Top);
                        Some(S::CommentStart)
                    }
                    r if is_whitespace(r) => Some(S::TopEnd),
                    r if is_nl(r) => {
                        self.ignore();
                        Some(S::Top)
                    }
                    EOF => {
                        self.emit(ItemType::Eof);
                        None
                    }
                    r => self.errorf(format!(
                        "expected a top-level item to end with a newline, comment, or EOF, but got {} instead",
                        quote_rune(r, false)
                    )),
                }
            }
            S::TableStart => {
                if self.peek() == '[' {
                    self.next();
                    self.emit(ItemType::ArrayTableStart);
                    self.push(S::ArrayTableEnd);
                } else {
                    self.emit(ItemType::TableStart);
                    self.push(S::TableEnd);
                }
                Some(S::TableNameStart)
            }
            S::TableEnd => {
                self.emit(ItemType::TableEnd);
                Some(S::TopEnd)
            }
            S::ArrayTableEnd => {
                let r = self.next();
                if r != ']' {
                    return self.errorf(format!(
                        "expected end of table array name delimiter ']', but got {} instead",
                        quote_rune(r, false)
                    ));
                }
                self.emit(ItemType::ArrayTableEnd);
                Some(S::TopEnd)
            }
            S::TableNameStart => {
                self.skip(is_whitespace);
                match self.peek() {
                    ']' | EOF => self.errorf(
                        "unexpected end of table name (table names cannot be empty)".into(),
                    ),
                    '.' => self
                        .errorf("unexpected table separator (table names cannot be empty)".into()),
                    '"' | '\'' => {
                        self.ignore();
                        self.push(S::TableNameEnd);
                        Some(S::QuotedName)
                    }
                    _ => {
                        self.push(S::TableNameEnd);
                        Some(S::BareName)
                    }
                }
            }
            S::TableNameEnd => {
                self.skip(is_whitespace);
                match self.next() {
                    '.' => {
                        self.ignore();
                        Some(S::TableNameStart)
                    }
                    ']' => self.pop(),
                    r => self.errorf(format!(
                        "expected '.' or ']' to end table name, but got {} instead",
                        quote_rune(r, false)
                    )),
                }
            }
            S::BareName => {
                let r = self.next();
                if is_bare_key_char(r) {
                    return Some(S::BareName);
                }
                self.end_value(ItemType::Text)
            }
            S::QuotedName => {
                let r = self.next();
                match r {
                    '"' => {
                        self.ignore();
                        Some(S::Str)
                    }
                    '\'' => {
                        self.ignore();
                        Some(S::RawStr)
                    }
                    r if is_whitespace(r) => {
                        self.ignore();
                        Some(S::Value)
                    }
                    EOF => self.errorf("unexpected EOF; expected value".into()),
                    r => self.errorf(format!(
                        "expected value but found {} instead",
                        quote_rune(r, false)
                    )),
                }
            }
            S::KeyStart => {
                self.skip(is_whitespace);
                match self.peek() {
                    '=' | EOF => self.errorf("unexpected '=': key name appears blank".into()),
                    '.' => self.errorf("unexpected '.': keys cannot start with a '.'".into()),
                    r => {
                        if r == '"' || r == '\'' {
                            self.ignore();
                        }
                        self.emit(ItemType::KeyStart);
                        Some(S::KeyNameStart)
                    }
                }
            }
            S::KeyNameStart => {
                self.skip(is_whitespace);
                match self.peek() {
                    '"' | '\'' => {
                        self.ignore();
                        self.push(S::KeyEnd);
                        Some(S::QuotedName)
                    }
                    '=' | EOF => self.errorf("unexpected '='".into()),
                    '.' => self.errorf("unexpected '.'".into()),
                    _ => {
                        self.push(S::KeyEnd);
                        Some(S::BareName)
                    }
                }
            }
            S::KeyEnd => {
                self.skip(is_whitespace);
                match self.next() {
                    r if is_whitespace(r) => {
                        self.ignore();
                        Some(S::KeyEnd)
                    }
                    EOF => self.errorf("unexpected EOF; expected key separator '='".into()),
                    '.' => {
                        self.ignore();
                        Some(S::KeyNameStart)
                    }
                    '=' => {
                        self.emit(ItemType::KeyEnd);
                        self.ignore();
                        Some(S::Value)
                    }
                    '\n' => self.error_prev_line(format!(
                        "expected '.' or '=', but got {} instead",
                        quote_rune('\n', false)
                    )),
                    r => self.errorf(format!(
                        "expected '.' or '=', but got {} instead",
                        quote_rune(r, false)
                    )),
                }
            }
            S::Value => self.lex_value(),
            S::ArrayValue => self.container_step(&ARRAY, false),
            S::ArrayValueEnd => self.container_step(&ARRAY, true),
            S::ArrayEnd => self.container_end(&ARRAY),
            S::InlineTableValue => self.container_step(&INLINE_TABLE, false),
            S::InlineTableValueEnd => self.container_step(&INLINE_TABLE, true),
            S::InlineTableEnd => self.container_end(&INLINE_TABLE),
            S::Str => {
                let r = self.next();
                match r {
                    EOF => self.errorf("unexpected EOF; expected '\"'".into()),
                    r if is_nl(r) => self.error_prev_line("strings cannot contain newlines".into()),
                    '\\' => {
                        self.push(S::Str);
                        Some(S::StrEscape)
                    }
                    '"' => {
                        let t = if self.esc {
                            self.esc = false;
                            ItemType::StrEsc
                        } else {
                            ItemType::Str
                        };
                        self.end_string(t)
                    }
                    _ => Some(S::Str),
                }
            }
            S::MlStr => {
                let r = self.next();
                match r {
                    EOF => self.errorf("unexpected EOF; expected '\"\"\"'".into()),
                    '\\' => Some(S::MlStrEscape),
                    '"' => self.ml_string_quote(&ML_STR),
                    _ => Some(S::MlStr),
                }
            }
            S::RawStr => {
                let r = self.next();
                match r {
                    EOF => self.errorf("unexpected EOF; expected \"'\"".into()),
                    r if is_nl(r) => self.error_prev_line("strings cannot contain newlines".into()),
                    '\'' => self.end_string(ItemType::RawStr),
                    _ => Some(S::RawStr),
                }
            }
            S::RawMlStr => {
                let r = self.next();
                match r {
                    EOF => self.errorf("unexpected EOF; expected \"'''\"".into()),
                    '\'' => self.ml_string_quote(&RAW_ML_STR),
                    _ => Some(S::RawMlStr),
                }
            }
            S::MlStrEscape => {
                if is_nl(self.next()) {
                    return Some(S::MlStr);
                }
                self.backup();
                self.push(S::MlStr);
                self.step(S::StrEscape)
            }
            S::StrEscape => {
                self.esc = true;
                let r = self.next();
                match r {
                    'e' | 'b' | 't' | 'n' | 'f' | 'r' | '"' | ' ' | '\t' | '\\' => self.pop(),
                    'x' => Some(S::HexEscape),
                    'u' => Some(S::ShortUnicodeEscape),
                    'U' => Some(S::LongUnicodeEscape),
                    r => self.error(format!("invalid escape in string '\\{r}'")),
                }
            }
            S::HexEscape => self.hex_digits(2, "two", 'x'),
            S::ShortUnicodeEscape => self.hex_digits(4, "four", 'u'),
            S::LongUnicodeEscape => self.hex_digits(8, "eight", 'U'),
            S::NumberOrDateStart => {
                if self.next() == '0' {
                    return Some(S::BaseNumberOrDate);
                }
                Some(S::NumberOrDate)
            }
            S::NumberOrDate => {
                let r = self.next();
                if is_digit(r) {
                    return Some(S::NumberOrDate);
                }
                match r {
                    '-' | ':' => Some(S::Datetime),
                    '_' => Some(S::DecimalNumber),
                    '.' | 'e' | 'E' => Some(S::Float),
                    _ => self.end_value(ItemType::Integer),
                }
            }
            S::Datetime => {
                let r = self.next();
                if is_digit(r) || matches!(r, '-' | ':' | 'T' | 't' | ' ' | '.' | 'Z' | 'z' | '+') {
                    return Some(S::Datetime);
                }
                self.backup();
                self.emit_trim(ItemType::Datetime);
                self.pop()
            }
            S::HexInteger => self.based_integer(is_hex, S::HexInteger),
            S::OctalInteger => self.based_integer(is_octal, S::OctalInteger),
            S::BinaryInteger => self.based_integer(is_binary, S::BinaryInteger),
            S::DecimalNumber => {
                let r = self.next();
                if is_digit(r) {
                    return Some(S::DecimalNumber);
                }
                match r {
                    '.' | 'e' | 'E' => Some(S::Float),
                    '_' => Some(S::DecimalNumber),
                    _ => self.end_value(ItemType::Integer),
                }
            }
            S::DecimalNumberStart => {
                let r = self.next();
                match r {
                    'i' | 'n' => {
                        let rest = if r == 'i' { "nf" } else { "an" };
                        if !rest.chars().all(|c| self.accept(c)) {
                            return self.errorf(format!("invalid float: '{}'", self.current()));
                        }
                        self.emit(ItemType::Float);
                        return self.pop();
                    }
                    '0' => {
                        let p = self.peek();
                        if matches!(p, 'b' | 'o' | 'x') {
                            return self.errorf(format!(
                                "cannot use sign with non-decimal numbers: '{}{p}'",
                                self.current()
                            ));
                        }
                    }
                    '.' => return self.errorf("floats must start with a digit, not '.'".into()),
                    _ => {}
                }
                if is_digit(r) {
                    return Some(S::DecimalNumber);
                }
                self.errorf(format!("expected a digit but got {}", quote_rune(r, false)))
            }
            S::BaseNumberOrDate => {
                let r = self.next();
                if is_digit(r) {
                    return Some(S::NumberOrDate);
                }
                match r {
                    '_' => Some(S::DecimalNumber),
                    '.' | 'e' | 'E' => Some(S::Float),
                    'b' | 'o' | 'x' => {
                        let (ok, what, next): (fn(char) -> bool, _, _) = match r {
                            'b' => (is_binary, "a binary", S::BinaryInteger),
                            'o' => (is_octal, "an octal", S::OctalInteger),
                            _ => (is_hex, "a hexadecimal", S::HexInteger),
                        };
                        let p = self.peek();
                        if !ok(p) {
                            // BurntSushi queues this error and lexes on.
                            self.errorf(format!("not {what} number: '{}{p}'", self.current()));
                        }
                        Some(next)
                    }
                    _ => self.end_value(ItemType::Integer),
                }
            }
            S::Float => {
                let r = self.next();
                if is_digit(r) || matches!(r, '_' | '.' | '-' | '+' | 'e' | 'E') {
                    return Some(S::Float);
                }
                self.end_value(ItemType::Float)
            }
            S::Bool => {
                let mut rs = String::new();
                loop {
                    let r = self.next();
                    if r == EOF || !r.is_alphabetic() {
                        self.backup();
                        break;
                    }
                    rs.push(r);
                }
                if rs == "true" || rs == "false" {
                    self.emit(ItemType::Bool);
                    return self.pop();
                }
                self.errorf(format!("expected value but found {} instead", quote(&rs)))
            }
            S::CommentStart => {
                self.ignore();
                self.emit(ItemType::CommentStart);
                Some(S::Comment)
            }
            S::Comment => {
                let r = self.next();
                if is_nl(r) || r == EOF {
                    return self.end_value(ItemType::Text);
                }
                Some(S::Comment)
            }
        }
    }

    fn hex_digits(&mut self, n: usize, word: &str, esc: char) -> Option<State> {
        for _ in 0..n {
            let r = self.next();
            if !is_hex(r) {
                return self.errorf(format!(
                    "expected {word} hexadecimal digits after '\\{esc}', but got {} instead",
                    quote(self.current())
                ));
            }
        }
        self.pop()
    }

    fn based_integer(&mut self, digit: fn(char) -> bool, same: State) -> Option<State> {
        let r = self.next();
        if digit(r) || r == '_' {
            return Some(same);
        }
        self.end_value(ItemType::Integer)
    }

    /// Inside a container, before an element (`after` false) or after one (`after` true):
    /// blanks and comments stay; the terminator ends it; before an element a comma is an
    /// error and anything else starts the element; after one a comma leads to the next
    /// element and anything else is an error.
    fn container_step(&mut self, c: &Container, after: bool) -> Option<State> {
        let here = if after { c.value_end } else { c.value };
        match self.next() {
            r if is_whitespace(r) || is_nl(r) => {
                self.ignore();
                Some(here)
            }
            '#' => {
                self.push(here);
                Some(State::CommentStart)
            }
            r if r == c.close => Some(c.end),
            ',' if !after => self.errorf("unexpected comma".into()),
            ',' => {
                self.ignore();
                if c.close_after_comma {
                    self.skip(is_whitespace);
                    if self.peek() == c.close {
                        return Some(c.value_end);
                    }
                }
                Some(c.value)
            }
            _ if !after => {
                self.backup();
                self.push(c.value_end);
                Some(c.element)
            }
            r => self.errorf(format!(
                "expected {}, but got {}{}",
                c.expected,
                rune_or_eof(r),
                c.got_suffix
            )),
        }
    }

    /// The end of a bare name, number or comment (the character just read is not part of it):
    /// emitted as `t`, and back to the state that started it.
    fn end_value(&mut self, t: ItemType) -> Option<State> {
        self.backup();
        self.emit(t);
        self.pop()
    }

    /// The closing quote of a one-line string (just read): the text before it emitted as `t`,
    /// the quote skipped, and back to the state that opened the string.
    fn end_string(&mut self, t: ItemType) -> Option<State> {
        self.backup();
        self.emit(t);
        self.next();
        self.ignore();
        self.pop()
    }

    /// A quote inside a multi-line string: three end it (unless more follow: up to two more
    /// belong to the text, and six in a row are an error), fewer are text.
    fn ml_string_quote(&mut self, m: &MultiLine) -> Option<State> {
        let q = m.quote;
        if self.accept(q) {
            if self.accept(q) {
                if self.peek() == q {
                    if (m.six_quotes)(self.current()) {
                        return self.errorf(m.six_quotes_error.into());
                    }
                    self.backup();
                    self.backup();
                    return Some(m.state);
                }
                self.backup();
                self.backup();
                self.backup();
                self.esc = false;
                self.emit(m.item);
                self.next();
                self.next();
                self.next();
                self.ignore();
                return self.pop();
            }
            self.backup();
        }
        Some(m.state)
    }

    /// The container's terminator: emitted, and back to the state that opened it.
    fn container_end(&mut self, c: &Container) -> Option<State> {
        self.ignore();
        self.emit(c.end_item);
        self.pop()
    }

    /// After an opening quote `q`: a multi-line string when two more follow (`"""`, `'''`),
    /// else a one-line string (a second quote alone is backed up: `""` is the empty string).
    fn string_start(&mut self, q: char, line: State, multi_line: State) -> State {
        if self.accept(q) {
            if self.accept(q) {
                self.ignore();
                return multi_line;
            }
            self.backup();
        }
        self.ignore();
        line
    }

    fn lex_value(&mut self) -> Option<State> {
        use State as S;
        let r = self.next();
        if is_whitespace(r) {
            self.ignore();
            return Some(S::Value);
        }
        if is_digit(r) {
            self.backup();
            return Some(S::NumberOrDateStart);
        }
        match r {
            '[' => {
                self.ignore();
                self.emit(ItemType::Array);
                return Some(S::ArrayValue);
            }
            '{' => {
                self.ignore();
                self.emit(ItemType::InlineTableStart);
                return Some(S::InlineTableValue);
            }
            '"' => return Some(self.string_start('"', S::Str, S::MlStr)),
            '\'' => return Some(self.string_start('\'', S::RawStr, S::RawMlStr)),
            '.' => return self.errorf("floats must start with a digit, not '.'".into()),
            // `accept` consumes as it goes: "ina" leaves the lexer after "in", as BurntSushi's does.
            'i' | 'n'
                if (self.accept('n') && self.accept('f'))
                    || (self.accept('a') && self.accept('n')) =>
            {
                self.emit(ItemType::Float);
                return self.pop();
            }
            '-' | '+' => return Some(S::DecimalNumberStart),
            _ => {}
        }
        if r != EOF && r.is_alphabetic() {
            self.backup();
            return Some(S::Bool);
        }
        if r == EOF {
            return self.errorf("unexpected EOF; expected value".into());
        }
        if r == '\n' {
            return self.error_prev_line(format!(
                "expected value but found {} instead",
                quote_rune(r, false)
            ));
        }
        self.errorf(format!(
            "expected value but found {} instead",
            quote_rune(r, false)
        ))
    }
}
