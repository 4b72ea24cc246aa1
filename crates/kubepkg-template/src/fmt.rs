//! Go's `fmt` printing of [`Value`]s: `Sprint`, `Sprintln`, `Sprintf` with Go's verbs, flags,
//! width and precision, Go's float formatting (`strconv` shortest `'g'`: `1e+06`, `3.5`,
//! `1e-05`), maps as `map[a:1 b:2]`, slices as `[a b]`, nil as `<nil>`, and Go's error
//! annotations (`%!d(string=x)`, `%!v(MISSING)`, `%!(EXTRA int=1)`, `%!(NOVERB)`). Also Go's
//! `strconv.Quote` and `time.Time.String`.
//!
//! Go strings are bytes, and so is what `fmt` produces: a string holding bytes that are not
//! UTF-8 ([`Value::NonUtf8String`]) prints its exact bytes (`%s`, `%v`), its bytes in hex (`%x`)
//! or escaped (`%q` → `"\xff"`). The `*_value` functions return the Go string exactly (a
//! [`Value`] string of either variant); the `String`-returning ones decode invalid bytes as
//! U+FFFD, which only differs for such strings.

use kubepkg_value::{ElemType, GoTime, Value, go_lossy, go_rune_count, map_read};

/// The printer's output: Go's `[]byte` buffer, written mostly with text.
#[derive(Default)]
pub(crate) struct Buf(pub(crate) Vec<u8>);

impl Buf {
    fn push_str(&mut self, s: &str) {
        self.0.extend_from_slice(s.as_bytes());
    }

    fn push(&mut self, c: char) {
        let mut b = [0u8; 4];
        self.0.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
    }

    fn push_bytes(&mut self, b: &[u8]) {
        self.0.extend_from_slice(b);
    }
}

/// Bytes made by `fmt` as text (invalid UTF-8 decoded as U+FFFD, per byte like Go's `range`).
fn into_text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| go_lossy(e.as_bytes()))
}

fn sprint_into(p: &mut Printer, args: &[Value]) {
    let mut prev_string = false;
    for (i, a) in args.iter().enumerate() {
        let is_string = a.is_go_string();
        if i > 0 && !is_string && !prev_string {
            p.buf.push(' ');
        }
        p.print_arg(a, 'v');
        prev_string = is_string;
    }
}

/// `fmt.Sprint(args...)`: operands separated by a space when neither side is a string.
pub fn sprint(args: &[Value]) -> String {
    let mut p = Printer::default();
    sprint_into(&mut p, args);
    into_text(p.buf.0)
}

/// `fmt.Sprint(args...)` as the exact Go string it makes.
pub fn sprint_value(args: &[Value]) -> Value {
    let mut p = Printer::default();
    sprint_into(&mut p, args);
    Value::from_go_bytes(p.buf.0)
}

fn sprintln_into(p: &mut Printer, args: &[Value]) {
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            p.buf.push(' ');
        }
        p.print_arg(a, 'v');
    }
    p.buf.push('\n');
}

/// `fmt.Sprintln(args...)`: operands always separated by spaces, newline appended.
pub fn sprintln(args: &[Value]) -> String {
    let mut p = Printer::default();
    sprintln_into(&mut p, args);
    into_text(p.buf.0)
}

/// `fmt.Sprintln(args...)` as the exact Go string it makes.
pub fn sprintln_value(args: &[Value]) -> Value {
    let mut p = Printer::default();
    sprintln_into(&mut p, args);
    Value::from_go_bytes(p.buf.0)
}

/// `fmt.Sprint(v)` of one value.
pub fn format_value(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        _ => {
            let mut p = Printer::default();
            p.print_arg(v, 'v');
            into_text(p.buf.0)
        }
    }
}

/// Append `fmt.Sprint(v)` to `out`, exactly (a non-UTF-8 string appends its bytes).
pub fn write_value(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::String(s) => out.extend_from_slice(s.as_bytes()),
        Value::NonUtf8String(b) => out.extend_from_slice(b),
        Value::Int(i) | Value::Int64(i) => {
            use std::io::Write;
            let _ = write!(out, "{i}");
        }
        // text/template prints through `String()` when the value or its address has one (a
        // struct field reached through a pointer is addressable): `{{ .Capabilities.KubeVersion }}`
        // is `v1.29`; `quote` and `printf` get a copy and print the struct.
        Value::Object(o) if o.kind() == "struct" && o.field("String").is_some() => {
            if let Some(Value::String(s)) = o.field("String") {
                out.extend_from_slice(s.as_bytes());
            }
        }
        _ => {
            let mut p = Printer {
                buf: Buf(std::mem::take(out)),
                ..Printer::default()
            };
            p.print_arg(v, 'v');
            *out = p.buf.0;
        }
    }
}

/// `fmt.Sprintf(format, args...)`.
pub fn sprintf(format: &str, args: &[Value]) -> String {
    let mut p = Printer::default();
    p.do_printf(format, args);
    into_text(p.buf.0)
}

/// `fmt.Sprintf(format, args...)` as the exact Go string it makes.
pub fn sprintf_value(format: &str, args: &[Value]) -> Value {
    let mut p = Printer::default();
    p.do_printf(format, args);
    Value::from_go_bytes(p.buf.0)
}

#[derive(Default, Clone, Copy)]
struct Flags {
    plus: bool,
    minus: bool,
    sharp: bool,
    space: bool,
    zero: bool,
    plus_v: bool,
    sharp_v: bool,
    wid: usize,
    wid_present: bool,
    prec: usize,
    prec_present: bool,
}

#[derive(Default)]
struct Printer {
    buf: Buf,
    f: Flags,
    reordered: bool,
    good_arg_num: bool,
}

fn parsenum(s: &[u8], mut i: usize) -> (usize, bool, usize) {
    let start = i;
    let mut num: usize = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        if num > 1_000_000 {
            return (0, false, s.len());
        }
        num = num * 10 + (s[i] - b'0') as usize;
        i += 1;
    }
    (num, i > start, i)
}

impl Printer {
    fn do_printf(&mut self, format: &str, a: &[Value]) {
        let fb = format.as_bytes();
        let end = fb.len();
        let mut arg_num = 0usize;
        let mut after_index;
        self.reordered = false;
        let mut i = 0;
        'format_loop: while i < end {
            self.good_arg_num = true;
            let lasti = i;
            while i < end && fb[i] != b'%' {
                i += 1;
            }
            if i > lasti {
                self.buf.push_str(&format[lasti..i]);
            }
            if i >= end {
                break;
            }
            i += 1;
            self.f = Flags::default();
            'simple: while i < end {
                let c = fb[i];
                match c {
                    b'#' => self.f.sharp = true,
                    b'0' => self.f.zero = !self.f.minus,
                    b'+' => self.f.plus = true,
                    b'-' => {
                        self.f.minus = true;
                        self.f.zero = false;
                    }
                    b' ' => self.f.space = true,
                    _ => {
                        if c.is_ascii_lowercase() && arg_num < a.len() {
                            if c == b'v' {
                                self.f.sharp_v = self.f.sharp;
                                self.f.sharp = false;
                                self.f.plus_v = self.f.plus;
                                self.f.plus = false;
                            }
                            self.print_arg(&a[arg_num], c as char);
                            arg_num += 1;
                            i += 1;
                            continue 'format_loop;
                        }
                        break 'simple;
                    }
                }
                i += 1;
            }
            (arg_num, i, after_index) = self.arg_number(arg_num, fb, i, a.len());
            if i < end && fb[i] == b'*' {
                i += 1;
                let (w, ok, n) = int_from_arg(a, arg_num);
                arg_num = n;
                self.f.wid_present = ok;
                if !ok {
                    self.buf.push_str("%!(BADWIDTH)");
                }
                if w < 0 {
                    self.f.wid = w.unsigned_abs() as usize;
                    self.f.minus = true;
                    self.f.zero = false;
                } else {
                    self.f.wid = w as usize;
                }
                after_index = false;
            } else {
                let (w, ok, ni) = parsenum(fb, i);
                self.f.wid = w;
                self.f.wid_present = ok;
                i = ni;
                if after_index && ok {
                    self.good_arg_num = false;
                }
            }
            if i + 1 < end && fb[i] == b'.' {
                i += 1;
                if after_index {
                    self.good_arg_num = false;
                }
                (arg_num, i, after_index) = self.arg_number(arg_num, fb, i, a.len());
                if i < end && fb[i] == b'*' {
                    i += 1;
                    let (p, ok, n) = int_from_arg(a, arg_num);
                    arg_num = n;
                    self.f.prec_present = ok;
                    if p < 0 {
                        self.f.prec = 0;
                        self.f.prec_present = false;
                    } else {
                        self.f.prec = p as usize;
                    }
                    if !ok {
                        self.buf.push_str("%!(BADPREC)");
                    }
                    after_index = false;
                } else {
                    let (p, ok, ni) = parsenum(fb, i);
                    i = ni;
                    self.f.prec = if ok { p } else { 0 };
                    self.f.prec_present = true;
                }
            }
            if !after_index {
                (arg_num, i, after_index) = self.arg_number(arg_num, fb, i, a.len());
            }
            let _ = after_index;
            if i >= end {
                self.buf.push_str("%!(NOVERB)");
                break;
            }
            let verb = format[i..].chars().next().unwrap_or('?');
            i += verb.len_utf8();
            if verb == '%' {
                self.buf.push('%');
            } else if !self.good_arg_num {
                self.bad_arg_num(verb);
            } else if arg_num >= a.len() {
                self.buf.push_str("%!");
                self.buf.push(verb);
                self.buf.push_str("(MISSING)");
            } else {
                if verb == 'v' {
                    self.f.sharp_v = self.f.sharp;
                    self.f.sharp = false;
                    self.f.plus_v = self.f.plus;
                    self.f.plus = false;
                }
                self.print_arg(&a[arg_num], verb);
                arg_num += 1;
            }
        }
        if !self.reordered && arg_num < a.len() {
            self.f = Flags::default();
            self.buf.push_str("%!(EXTRA ");
            for (k, arg) in a[arg_num..].iter().enumerate() {
                if k > 0 {
                    self.buf.push_str(", ");
                }
                if arg.is_nil() {
                    self.buf.push_str("<nil>");
                } else {
                    self.buf.push_str(&arg.type_name());
                    self.buf.push('=');
                    self.print_arg(arg, 'v');
                }
            }
            self.buf.push(')');
        }
    }

    fn bad_arg_num(&mut self, verb: char) {
        self.buf.push_str("%!");
        self.buf.push(verb);
        self.buf.push_str("(BADINDEX)");
    }

    fn arg_number(
        &mut self,
        arg_num: usize,
        f: &[u8],
        i: usize,
        num_args: usize,
    ) -> (usize, usize, bool) {
        if f.len() <= i || f[i] != b'[' {
            return (arg_num, i, false);
        }
        self.reordered = true;
        let (index, wid, ok) = parse_arg_number(&f[i..]);
        if ok && index >= 0 && (index as usize) < num_args {
            return (index as usize, i + wid, true);
        }
        self.good_arg_num = false;
        (arg_num, i + wid, ok)
    }

    fn pad(&mut self, s: &str) {
        if !self.f.wid_present || self.f.wid == 0 {
            self.buf.push_str(s);
            return;
        }
        let n = s.chars().count();
        let width = self.f.wid.saturating_sub(n);
        if !self.f.minus {
            self.write_padding(width);
            self.buf.push_str(s);
        } else {
            self.buf.push_str(s);
            self.write_padding(width);
        }
    }

    fn write_padding(&mut self, n: usize) {
        let c = if self.f.zero && !self.f.minus {
            '0'
        } else {
            ' '
        };
        for _ in 0..n {
            self.buf.push(c);
        }
    }

    fn bad_verb(&mut self, verb: char, arg: &Value) {
        self.buf.push_str("%!");
        self.buf.push(verb);
        self.buf.push('(');
        if arg.is_nil() {
            self.buf.push_str("<nil>");
        } else {
            self.buf.push_str(&arg.type_name());
            self.buf.push('=');
            self.print_arg(arg, 'v');
        }
        self.buf.push(')');
    }

    fn print_arg(&mut self, arg: &Value, verb: char) {
        if arg.is_nil() {
            match verb {
                'T' | 'v' => self.pad("<nil>"),
                _ => self.bad_verb(verb, arg),
            }
            return;
        }
        if verb == 'T' {
            let t = arg.type_name();
            self.fmt_s(&t);
            return;
        }
        if verb == 'p' {
            match arg {
                Value::Map(_) | Value::List(..) | Value::Bytes(_) | Value::Object(_) => {
                    self.pad("0xc000010000")
                }
                _ => self.bad_verb('p', arg),
            }
            return;
        }
        self.print_value(arg, verb, 0);
    }

    fn print_value(&mut self, v: &Value, verb: char, depth: usize) {
        match v {
            Value::Nil => {
                if depth == 0 {
                    self.print_arg(v, verb)
                } else if self.f.sharp_v {
                    self.buf.push_str("interface {}(nil)")
                } else {
                    self.buf.push_str("<nil>")
                }
            }
            Value::Bool(b) => match verb {
                't' | 'v' => self.pad(if *b { "true" } else { "false" }),
                _ => self.bad_verb(verb, v),
            },
            Value::Int(i) | Value::Int64(i) => self.fmt_integer(*i as u64, true, verb, v),
            Value::Uint(u) => self.fmt_integer(*u, false, verb, v),
            Value::Uint8(u) => self.fmt_integer(u64::from(*u), false, verb, v),
            Value::Float(x) => self.fmt_float(*x, verb, v),
            Value::String(s) => self.fmt_string(s, verb, v),
            Value::NonUtf8String(b) => self.fmt_non_utf8(b, verb, v),
            Value::Bytes(b) => self.fmt_bytes(b, verb, v),
            Value::List(items, et) => {
                if matches!(verb, 's' | 'q' | 'x' | 'X') && *et == ElemType::Byte {
                    let bytes: Vec<u8> = items
                        .iter()
                        .map(|x| match x {
                            Value::Int(i) => *i as u8,
                            Value::Uint(u) => *u as u8,
                            _ => 0,
                        })
                        .collect();
                    self.fmt_bytes(&bytes, verb, v);
                    return;
                }
                if self.f.sharp_v {
                    self.buf.push_str(&v.type_name());
                    self.buf.push('{');
                    for (i, x) in items.iter().enumerate() {
                        if i > 0 {
                            self.buf.push_str(", ");
                        }
                        self.print_value(x, verb, depth + 1);
                    }
                    self.buf.push('}');
                    return;
                }
                self.buf.push('[');
                for (i, x) in items.iter().enumerate() {
                    if i > 0 {
                        self.buf.push(' ');
                    }
                    self.print_value(x, verb, depth + 1);
                }
                self.buf.push(']');
            }
            Value::Map(m) => {
                let ty = m.map_type().type_name();
                let m = map_read(m);
                if self.f.sharp_v {
                    self.buf.push_str(ty);
                    self.buf.push('{');
                } else {
                    self.buf.push_str("map[");
                }
                for (i, (k, x)) in m.iter().enumerate() {
                    if i > 0 {
                        if self.f.sharp_v {
                            self.buf.push_str(", ");
                        } else {
                            self.buf.push(' ');
                        }
                    }
                    self.fmt_string(k, verb, &Value::str(k));
                    self.buf.push(':');
                    self.print_value(x, verb, depth + 1);
                }
                self.buf.push(if self.f.sharp_v { '}' } else { ']' });
            }
            Value::Time(t) => {
                let s = format_time(t);
                self.fmt_stringer(&s, verb, v);
            }
            Value::Object(o) => {
                // A Stringer is used for v s x X q only; other verbs see the value itself.
                if !matches!(verb, 'v' | 's' | 'x' | 'X' | 'q')
                    && o.kind() == "int"
                    && let Value::Int(i) = o.to_plain()
                {
                    self.fmt_integer(i as u64, true, verb, v);
                    return;
                }
                let s = o.format_v();
                self.fmt_stringer(&s, verb, v);
            }
        }
    }

    fn fmt_stringer(&mut self, s: &str, verb: char, v: &Value) {
        match verb {
            'v' | 's' | 'x' | 'X' | 'q' => self.fmt_string(s, verb, v),
            _ => self.pad(s),
        }
    }

    fn fmt_s(&mut self, s: &str) {
        let s = self.truncate(s);
        self.pad(&s);
    }

    fn truncate(&self, s: &str) -> String {
        if self.f.prec_present {
            s.chars().take(self.f.prec).collect()
        } else {
            s.to_string()
        }
    }

    fn fmt_string(&mut self, s: &str, verb: char, v: &Value) {
        match verb {
            'v' => {
                if self.f.sharp_v {
                    self.fmt_q(s)
                } else {
                    self.fmt_s(s)
                }
            }
            's' => self.fmt_s(s),
            'x' => self.fmt_sx(s.as_bytes(), "0123456789abcdef"),
            'X' => self.fmt_sx(s.as_bytes(), "0123456789ABCDEF"),
            'q' => self.fmt_q(s),
            _ => self.bad_verb(verb, v),
        }
    }

    /// A Go string whose bytes are not UTF-8: precision and width count Go's runes (each
    /// invalid byte is one), `%s`/`%v` write the bytes, `%q` escapes them as `\xff`.
    fn fmt_non_utf8(&mut self, b: &[u8], verb: char, v: &Value) {
        match verb {
            'v' if self.f.sharp_v => self.fmt_q_bytes(b),
            'v' | 's' => {
                let b = if self.f.prec_present {
                    &b[..go_prefix_len(b, self.f.prec)]
                } else {
                    b
                };
                self.pad_bytes(b);
            }
            'x' => self.fmt_sx(b, "0123456789abcdef"),
            'X' => self.fmt_sx(b, "0123456789ABCDEF"),
            'q' => self.fmt_q_bytes(b),
            _ => self.bad_verb(verb, v),
        }
    }

    fn fmt_q_bytes(&mut self, b: &[u8]) {
        let b = if self.f.prec_present {
            &b[..go_prefix_len(b, self.f.prec)]
        } else {
            b
        };
        // Invalid UTF-8 can never be back-quoted.
        let q = quote_bytes(b, self.f.plus);
        self.pad(&q);
    }

    fn pad_bytes(&mut self, b: &[u8]) {
        if !self.f.wid_present || self.f.wid == 0 {
            self.buf.push_bytes(b);
            return;
        }
        let width = self.f.wid.saturating_sub(go_rune_count(b));
        if !self.f.minus {
            self.write_padding(width);
            self.buf.push_bytes(b);
        } else {
            self.buf.push_bytes(b);
            self.write_padding(width);
        }
    }

    fn fmt_bytes(&mut self, b: &[u8], verb: char, v: &Value) {
        match verb {
            'v' | 'd' => {
                if self.f.sharp_v {
                    self.buf.push_str("[]byte{");
                    for (i, c) in b.iter().enumerate() {
                        if i > 0 {
                            self.buf.push_str(", ");
                        }
                        self.buf.push_str(&format!("0x{c:x}"));
                    }
                    self.buf.push('}');
                    return;
                }
                self.buf.push('[');
                for (i, c) in b.iter().enumerate() {
                    if i > 0 {
                        self.buf.push(' ');
                    }
                    self.fmt_int_base(*c as u64, 10, false, verb, "0123456789abcdef");
                }
                self.buf.push(']');
            }
            's' | 'q' => match std::str::from_utf8(b) {
                Ok(s) if verb == 's' => self.fmt_s(s),
                Ok(s) => self.fmt_q(s),
                Err(_) => self.fmt_non_utf8(b, verb, v),
            },
            'x' => self.fmt_sx(b, "0123456789abcdef"),
            'X' => self.fmt_sx(b, "0123456789ABCDEF"),
            _ => {
                let _ = v;
                self.buf.push('[');
                for (i, c) in b.iter().enumerate() {
                    if i > 0 {
                        self.buf.push(' ');
                    }
                    self.fmt_integer(*c as u64, false, verb, &Value::Uint(*c as u64));
                }
                self.buf.push(']');
            }
        }
    }

    fn fmt_sx(&mut self, b: &[u8], digits: &str) {
        let d = digits.as_bytes();
        let mut length = b.len();
        if self.f.prec_present && self.f.prec < length {
            length = self.f.prec;
        }
        let mut out = String::new();
        for (i, c) in b[..length].iter().enumerate() {
            if self.f.space && i > 0 {
                out.push(' ');
            }
            if self.f.sharp && (self.f.space || i == 0) {
                out.push('0');
                out.push(if d[10] == b'a' { 'x' } else { 'X' });
            }
            out.push(d[(c >> 4) as usize] as char);
            out.push(d[(c & 0xF) as usize] as char);
        }
        // width counts bytes here, like Go's fmtSbx
        if !self.f.wid_present || self.f.wid <= out.len() {
            self.buf.push_str(&out);
            return;
        }
        let n = self.f.wid - out.len();
        if self.f.minus {
            self.buf.push_str(&out);
            self.write_padding(n);
        } else {
            self.write_padding(n);
            self.buf.push_str(&out);
        }
    }

    fn fmt_q(&mut self, s: &str) {
        let s = self.truncate(s);
        if self.f.sharp && can_backquote(&s) {
            let q = format!("`{s}`");
            self.pad(&q);
            return;
        }
        let q = if self.f.plus {
            quote_ascii(&s)
        } else {
            quote(&s)
        };
        self.pad(&q);
    }

    fn fmt_integer(&mut self, u: u64, signed: bool, verb: char, v: &Value) {
        match verb {
            'v' => {
                if self.f.sharp_v && !signed {
                    let s = format!("0x{u:x}");
                    self.pad(&s);
                } else {
                    self.fmt_int_base(u, 10, signed, verb, "0123456789abcdef")
                }
            }
            'd' => self.fmt_int_base(u, 10, signed, verb, "0123456789abcdef"),
            'b' => self.fmt_int_base(u, 2, signed, verb, "0123456789abcdef"),
            'o' | 'O' => self.fmt_int_base(u, 8, signed, verb, "0123456789abcdef"),
            'x' => self.fmt_int_base(u, 16, signed, verb, "0123456789abcdef"),
            'X' => self.fmt_int_base(u, 16, signed, verb, "0123456789ABCDEF"),
            'c' => {
                let c = if u > 0x10FFFF {
                    '\u{FFFD}'
                } else {
                    char::from_u32(u as u32).unwrap_or('\u{FFFD}')
                };
                let s = c.to_string();
                self.pad(&s);
            }
            'q' => {
                let c = if u > 0x10FFFF {
                    '\u{FFFD}'
                } else {
                    char::from_u32(u as u32).unwrap_or('\u{FFFD}')
                };
                let s = quote_rune(c, self.f.plus);
                self.pad(&s);
            }
            'U' => {
                let mut s = format!("U+{:04X}", u);
                if self.f.prec_present && self.f.prec > 4 {
                    s = format!("U+{:0w$X}", u, w = self.f.prec);
                }
                if self.f.sharp
                    && u <= 0x10FFFF
                    && let Some(c) = char::from_u32(u as u32)
                    && is_print(c)
                {
                    s.push_str(" '");
                    s.push(c);
                    s.push('\'');
                }
                let z = self.f.zero;
                self.f.zero = false;
                self.pad(&s);
                self.f.zero = z;
            }
            _ => self.bad_verb(verb, v),
        }
    }

    fn fmt_int_base(&mut self, u: u64, base: u64, signed: bool, verb: char, digits: &str) {
        let negative = signed && (u as i64) < 0;
        let mut u = if negative {
            (u as i64).unsigned_abs()
        } else {
            u
        };
        let mut prec = 0usize;
        if self.f.prec_present {
            prec = self.f.prec;
            if prec == 0 && u == 0 {
                let z = self.f.zero;
                self.f.zero = false;
                let w = self.f.wid;
                self.write_padding(w);
                self.f.zero = z;
                return;
            }
        } else if self.f.zero && !self.f.minus && self.f.wid_present {
            prec = self.f.wid;
            if negative || self.f.plus || self.f.space {
                prec = prec.saturating_sub(1);
            }
        }
        let d = digits.as_bytes();
        let mut rev: Vec<u8> = Vec::with_capacity(24);
        if u == 0 {
            rev.push(b'0');
        }
        while u > 0 {
            rev.push(d[(u % base) as usize]);
            u /= base;
        }
        while rev.len() < prec {
            rev.push(b'0');
        }
        if self.f.sharp {
            match base {
                2 => {
                    rev.push(b'b');
                    rev.push(b'0');
                }
                8 if rev.last() != Some(&b'0') => {
                    rev.push(b'0');
                }
                16 => {
                    rev.push(if d[10] == b'a' { b'x' } else { b'X' });
                    rev.push(b'0');
                }
                _ => {}
            }
        }
        if verb == 'O' {
            rev.push(b'o');
            rev.push(b'0');
        }
        if negative {
            rev.push(b'-');
        } else if self.f.plus {
            rev.push(b'+');
        } else if self.f.space {
            rev.push(b' ');
        }
        rev.reverse();
        let s = String::from_utf8(rev).unwrap_or_default();
        let z = self.f.zero;
        self.f.zero = false;
        self.pad(&s);
        self.f.zero = z;
    }

    fn fmt_float(&mut self, x: f64, verb: char, v: &Value) {
        let (fverb, prec) = match verb {
            'v' => ('g', -1),
            'b' | 'g' | 'G' | 'x' | 'X' => (verb, -1),
            'f' | 'e' | 'E' => (verb, 6),
            'F' => ('f', 6),
            _ => {
                self.bad_verb(verb, v);
                return;
            }
        };
        let prec = if self.f.prec_present {
            self.f.prec as i64
        } else {
            prec
        };
        let mut num = format_float(x, fverb, prec);
        if !(num.starts_with('-') || num.starts_with('+')) {
            num.insert(0, '+');
        }
        if self.f.space && num.starts_with('+') && !self.f.plus {
            num.replace_range(0..1, " ");
        }
        let b1 = num.as_bytes().get(1).copied();
        if b1 == Some(b'I') || b1 == Some(b'N') {
            let z = self.f.zero;
            self.f.zero = false;
            if b1 == Some(b'N') && !self.f.space && !self.f.plus {
                num.remove(0);
            }
            self.pad(&num);
            self.f.zero = z;
            return;
        }
        if self.f.sharp && fverb != 'b' {
            let mut digits: i64 = match fverb {
                'v' | 'g' | 'G' | 'x' => {
                    if prec == -1 {
                        6
                    } else {
                        prec
                    }
                }
                _ => 0,
            };
            let mut tail = String::new();
            let mut body = String::new();
            let mut has_dot = false;
            let mut saw_nonzero = false;
            let chars: Vec<char> = num.chars().collect();
            let mut i = 1;
            while i < chars.len() {
                let c = chars[i];
                match c {
                    '.' => {
                        has_dot = true;
                        body.push(c);
                    }
                    'p' | 'P' => {
                        tail = chars[i..].iter().collect();
                        break;
                    }
                    'e' | 'E' if fverb != 'x' && fverb != 'X' => {
                        tail = chars[i..].iter().collect();
                        break;
                    }
                    _ => {
                        if c != '0' {
                            saw_nonzero = true;
                        }
                        if saw_nonzero {
                            digits -= 1;
                        }
                        body.push(c);
                    }
                }
                i += 1;
            }
            if !has_dot {
                if body == "0" {
                    digits -= 1;
                }
                body.push('.');
            }
            while digits > 0 {
                body.push('0');
                digits -= 1;
            }
            num = format!("{}{}{}", &num[..1], body, tail);
        }
        if self.f.plus || !num.starts_with('+') {
            if self.f.zero && !self.f.minus && self.f.wid_present && self.f.wid > num.len() {
                let sign = num.remove(0);
                self.buf.push(sign);
                let w = self.f.wid - num.len() - 1;
                self.write_padding(w);
                self.buf.push_str(&num);
                return;
            }
            self.pad(&num);
            return;
        }
        let rest = num[1..].to_string();
        self.pad(&rest);
    }
}

/// Go's `parseArgNumber`: the zero-based index inside `[n]`, bytes consumed, success.
fn parse_arg_number(f: &[u8]) -> (i64, usize, bool) {
    if f.len() < 3 {
        return (0, 1, false);
    }
    for i in 1..f.len() {
        if f[i] == b']' {
            let (w, ok, newi) = parsenum(&f[..i], 1);
            if !ok || newi != i {
                return (0, i + 1, false);
            }
            return (w as i64 - 1, i + 1, true);
        }
    }
    (0, 1, false)
}

fn int_from_arg(a: &[Value], arg_num: usize) -> (i64, bool, usize) {
    let mut n = arg_num;
    let mut num = 0;
    let mut ok = false;
    if arg_num < a.len() {
        match &a[arg_num] {
            Value::Int(i) | Value::Int64(i) => {
                num = *i;
                ok = true;
            }
            Value::Uint(u) if *u <= i64::MAX as u64 => {
                num = *u as i64;
                ok = true;
            }
            _ => {}
        }
        n = arg_num + 1;
        if !(-1_000_000..=1_000_000).contains(&num) {
            num = 0;
            ok = false;
        }
    }
    (num, ok, n)
}

/// Decimal digits of a float: `digits` (no leading zeros), decimal point position `dp`.
struct Decimal {
    digits: Vec<u8>,
    dp: i32,
}

/// Shortest round-trip digits (Go's `strconv` shortest).
fn shortest_digits(x: f64) -> Decimal {
    let s = format!("{:e}", x.abs());
    decimal_from_exp(&s)
}

/// Digits rounded to `n` significant digits (n >= 1).
fn rounded_digits(x: f64, n: usize) -> Decimal {
    let s = format!("{:.*e}", n.saturating_sub(1), x.abs());
    decimal_from_exp(&s)
}

fn decimal_from_exp(s: &str) -> Decimal {
    let (mant, exp) = s.split_once('e').unwrap_or((s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut digits: Vec<u8> = mant.bytes().filter(|c| c.is_ascii_digit()).collect();
    if digits.iter().all(|&c| c == b'0') {
        return Decimal {
            digits: Vec::new(),
            dp: 0,
        };
    }
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    Decimal {
        digits,
        dp: exp + 1,
    }
}

fn fmt_e(out: &mut String, d: &Decimal, prec: i64, e: char) {
    let first = d.digits.first().copied().unwrap_or(b'0');
    out.push(first as char);
    if prec > 0 {
        out.push('.');
        let mut i = 1usize;
        let m = (d.digits.len()).min(prec as usize + 1);
        if i < m {
            out.push_str(std::str::from_utf8(&d.digits[i..m]).unwrap_or(""));
            i = m;
        }
        while (i as i64) <= prec {
            out.push('0');
            i += 1;
        }
    }
    out.push(e);
    let mut exp = d.dp - 1;
    if d.digits.is_empty() {
        exp = 0;
    }
    if exp < 0 {
        out.push('-');
        exp = -exp;
    } else {
        out.push('+');
    }
    if exp < 10 {
        out.push('0');
    }
    out.push_str(&exp.to_string());
}

fn fmt_f(out: &mut String, d: &Decimal, prec: i64) {
    if d.dp > 0 {
        let m = (d.digits.len()).min(d.dp as usize);
        out.push_str(std::str::from_utf8(&d.digits[..m]).unwrap_or(""));
        for _ in m..d.dp as usize {
            out.push('0');
        }
    } else {
        out.push('0');
    }
    if prec > 0 {
        out.push('.');
        for i in 1..=prec {
            let j = d.dp as i64 + i - 1;
            let c = if j >= 0 && (j as usize) < d.digits.len() {
                d.digits[j as usize] as char
            } else {
                '0'
            };
            out.push(c);
        }
    }
}

/// Go's `strconv.FormatFloat(x, fmt, prec, 64)` for fmt in `e E f g G` (`prec` -1 = shortest).
pub fn format_float(x: f64, fmt: char, prec: i64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    let mut out = String::new();
    if x.is_sign_negative() {
        out.push('-');
    }
    let shortest = prec < 0;
    match fmt {
        'e' | 'E' => {
            let d = if shortest {
                shortest_digits(x)
            } else {
                rounded_digits(x, prec as usize + 1)
            };
            let p = if shortest {
                (d.digits.len() as i64 - 1).max(0)
            } else {
                prec
            };
            fmt_e(&mut out, &d, p, fmt);
        }
        'f' | 'F' => {
            if shortest {
                let d = shortest_digits(x);
                let p = (d.digits.len() as i64 - d.dp as i64).max(0);
                fmt_f(&mut out, &d, p);
            } else {
                let s = format!("{:.*}", prec as usize, x.abs());
                out.push_str(&s);
            }
        }
        'g' | 'G' => {
            let ech = if fmt == 'g' { 'e' } else { 'E' };
            let (d, mut p) = if shortest {
                let d = shortest_digits(x);
                let n = d.digits.len() as i64;
                (d, n)
            } else {
                let p = if prec == 0 { 1 } else { prec };
                (rounded_digits(x, p as usize), p)
            };
            let nd = d.digits.len() as i64;
            let dp = d.dp as i64;
            let mut eprec = p;
            if eprec > nd && nd >= dp {
                eprec = nd;
            }
            if shortest {
                eprec = 6;
            }
            let exp = dp - 1;
            if exp < -4 || exp >= eprec {
                if p > nd {
                    p = nd;
                }
                fmt_e(&mut out, &d, p - 1, ech);
            } else {
                if p > dp {
                    p = nd;
                }
                fmt_f(&mut out, &d, (p - dp).max(0));
            }
        }
        'b' => {
            let bits = x.to_bits();
            let mut exp = ((bits >> 52) & 0x7FF) as i64;
            let mut mant = bits & ((1u64 << 52) - 1);
            if exp == 0 {
                exp += 1;
            } else {
                mant |= 1u64 << 52;
            }
            exp += -1023 - 52;
            out.push_str(&mant.to_string());
            out.push('p');
            if exp >= 0 {
                out.push('+');
            }
            out.push_str(&exp.to_string());
        }
        'x' | 'X' => fmt_x(&mut out, x, prec, fmt),
        _ => {
            out.push('%');
            out.push(fmt);
        }
    }
    out
}

/// Go's `strconv` hexadecimal float format (`%x`, `%X`).
fn fmt_x(out: &mut String, x: f64, prec: i64, fmt: char) {
    let bits = x.to_bits();
    let mut exp = ((bits >> 52) & 0x7FF) as i64;
    let mut mant = bits & ((1u64 << 52) - 1);
    if exp == 0 {
        exp += 1;
    } else {
        mant |= 1u64 << 52;
    }
    exp -= 1023;
    if mant == 0 {
        exp = 0;
    }
    mant <<= 60 - 52;
    while mant != 0 && mant & (1u64 << 60) == 0 {
        mant <<= 1;
        exp -= 1;
    }
    if (0..15).contains(&prec) {
        let shift = (prec * 4) as u32;
        let extra = (mant << shift) & ((1u64 << 60) - 1);
        mant >>= 60 - shift;
        if extra | (mant & 1) > 1u64 << 59 {
            mant += 1;
        }
        mant <<= 60 - shift;
        if mant & (1u64 << 61) != 0 {
            mant >>= 1;
            exp += 1;
        }
    }
    let hex: &[u8] = if fmt == 'X' {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    out.push('0');
    out.push(fmt);
    out.push((b'0' + ((mant >> 60) & 1) as u8) as char);
    mant <<= 4;
    if prec < 0 && mant != 0 {
        out.push('.');
        while mant != 0 {
            out.push(hex[((mant >> 60) & 15) as usize] as char);
            mant <<= 4;
        }
    } else if prec > 0 {
        out.push('.');
        for _ in 0..prec {
            out.push(hex[((mant >> 60) & 15) as usize] as char);
            mant <<= 4;
        }
    }
    out.push(if fmt == 'X' { 'P' } else { 'p' });
    if exp < 0 {
        out.push('-');
        exp = -exp;
    } else {
        out.push('+');
    }
    if exp < 10 {
        out.push('0');
    }
    out.push_str(&exp.to_string());
}

/// Go's `unicode.IsPrint` approximation: graphic characters and ASCII space.
pub fn is_print(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    let u = c as u32;
    // format characters (Cf), private use, surrogates/noncharacters, unassigned specials
    !matches!(u,
        0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x180E | 0x200B..=0x200F | 0x202A..=0x202E
        | 0x2060..=0x206F | 0xFEFF | 0xFFF9..=0xFFFB | 0xE000..=0xF8FF | 0xFFFE | 0xFFFF
        | 0xF0000..=0x10FFFF | 0xE0000..=0xE007F)
}

fn quote_with(s: &str, ascii_only: bool) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        escape_rune(&mut out, c, '"', ascii_only);
    }
    out.push('"');
    out
}

fn escape_rune(out: &mut String, c: char, quote: char, ascii_only: bool) {
    if c == quote || c == '\\' {
        out.push('\\');
        out.push(c);
        return;
    }
    if ascii_only {
        if c.is_ascii() && is_print(c) {
            out.push(c);
            return;
        }
    } else if is_print(c) {
        out.push(c);
        return;
    }
    match c {
        '\x07' => out.push_str("\\a"),
        '\x08' => out.push_str("\\b"),
        '\x0c' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\x0b' => out.push_str("\\v"),
        c if (c as u32) < 0x20 || c as u32 == 0x7f => {
            out.push_str(&format!("\\x{:02x}", c as u32));
        }
        c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
        c => out.push_str(&format!("\\U{:08x}", c as u32)),
    }
}

/// The length of the first `n` Go runes of `b` (each invalid byte counts as one rune).
fn go_prefix_len(b: &[u8], n: usize) -> usize {
    let mut i = 0;
    for _ in 0..n {
        if i >= b.len() {
            break;
        }
        i += kubepkg_value::go_decode_rune(&b[i..]).1;
    }
    i
}

/// Go's `strconv.Quote` (or `QuoteToASCII`) of string bytes: invalid bytes become `\xNN`.
pub fn quote_bytes(b: &[u8], ascii_only: bool) -> String {
    let mut out = String::with_capacity(b.len() + 2);
    out.push('"');
    let mut i = 0;
    while i < b.len() {
        let (c, w) = kubepkg_value::go_decode_rune(&b[i..]);
        match c {
            Some(c) => escape_rune(&mut out, c, '"', ascii_only),
            None => out.push_str(&format!("\\x{:02x}", b[i])),
        }
        i += w;
    }
    out.push('"');
    out
}

/// Go's `strconv.Quote`.
pub fn quote(s: &str) -> String {
    quote_with(s, false)
}

/// Go's `strconv.QuoteToASCII`.
pub fn quote_ascii(s: &str) -> String {
    quote_with(s, true)
}

/// Go's `strconv.QuoteRune` (or `QuoteRuneToASCII`).
pub fn quote_rune(c: char, ascii: bool) -> String {
    let mut out = String::from("'");
    escape_rune(&mut out, c, '\'', ascii);
    out.push('\'');
    out
}

fn can_backquote(s: &str) -> bool {
    s.chars()
        .all(|c| c != '`' && c != '\u{FFFD}' && (c == '\t' || !(c.is_control() || c == '\u{7f}')))
}

/// Go's `%#U` of a rune: `U+0041 'A'`.
pub fn format_unicode_hash(c: char) -> String {
    if is_print(c) {
        format!("U+{:04X} '{}'", c as u32, c)
    } else {
        format!("U+{:04X}", c as u32)
    }
}

/// Days since 1970-01-01 to (year, month, day) (proleptic Gregorian).
pub(crate) fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Go's `time.Time.String()`: `2006-01-02 15:04:05.999999999 -0700 MST`.
pub fn format_time(t: &GoTime) -> String {
    let local = t.unix_secs + t.offset_secs as i64;
    let days = local.div_euclid(86_400);
    let secs = local.rem_euclid(86_400);
    let (y, mo, d) = civil_from_days(days);
    let mut s = format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
        y,
        mo,
        d,
        secs / 3600,
        (secs / 60) % 60,
        secs % 60
    );
    if t.nanos > 0 {
        let mut frac = format!("{:09}", t.nanos);
        while frac.ends_with('0') {
            frac.pop();
        }
        s.push('.');
        s.push_str(&frac);
    }
    let off = t.offset_secs;
    let sign = if off < 0 { '-' } else { '+' };
    let a = off.unsigned_abs();
    s.push_str(&format!(" {}{:02}{:02}", sign, a / 3600, (a / 60) % 60));
    let zone = if t.zone.is_empty() {
        // A zone without a name (`time.FixedZone("", off)`, what parsing `+02:00` gives
        // outside the local zone): Go's `MST` element prints the offset as `-0700` does.
        format!("{}{:02}{:02}", sign, a / 3600, (a / 60) % 60)
    } else {
        t.zone.clone()
    };
    s.push(' ');
    s.push_str(&zone);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_go() {
        assert_eq!(format_value(&Value::Float(1_000_000.0)), "1e+06");
        assert_eq!(format_value(&Value::Float(100_000.0)), "100000");
        assert_eq!(format_value(&Value::Float(3.5)), "3.5");
        assert_eq!(format_value(&Value::Float(0.00001)), "1e-05");
        assert_eq!(format_value(&Value::Float(0.0001)), "0.0001");
        assert_eq!(format_value(&Value::Float(1234567.0)), "1.234567e+06");
        assert_eq!(format_value(&Value::Float(-0.0)), "-0");
        assert_eq!(format_value(&Value::Float(f64::INFINITY)), "+Inf");
        assert_eq!(sprintf("%.2f", &[Value::Float(12.34567)]), "12.35");
        assert_eq!(sprintf("%e", &[Value::Float(1234.5678)]), "1.234568e+03");
        assert_eq!(sprintf("%g", &[Value::Float(1e21)]), "1e+21");
        assert_eq!(sprintf("%.3g", &[Value::Float(1234.5678)]), "1.23e+03");
        assert_eq!(sprintf("%8.3f|", &[Value::Float(-12.34567)]), " -12.346|");
        assert_eq!(sprintf("%08.3f", &[Value::Float(-12.34567)]), "-012.346");
    }

    #[test]
    fn verbs_and_errors_match_go() {
        assert_eq!(sprintf("%d", &[Value::str("x")]), "%!d(string=x)");
        assert_eq!(sprintf("%d %d", &[Value::Int(1)]), "1 %!d(MISSING)");
        assert_eq!(
            sprintf("%d", &[Value::Int(1), Value::Int(2)]),
            "1%!(EXTRA int=2)"
        );
        assert_eq!(sprintf("%", &[]), "%!(NOVERB)");
        assert_eq!(
            sprintf("%5s|%-5s|", &[Value::str("ab"), Value::str("cd")]),
            "   ab|cd   |"
        );
        assert_eq!(sprintf("%05d", &[Value::Int(-42)]), "-0042");
        assert_eq!(
            sprintf(
                "%x %X %o %b",
                &[
                    Value::Int(255),
                    Value::Int(255),
                    Value::Int(8),
                    Value::Int(5)
                ]
            ),
            "ff FF 10 101"
        );
        assert_eq!(sprintf("%#x", &[Value::Int(255)]), "0xff");
        assert_eq!(sprintf("%q", &[Value::str("a\"b\n")]), "\"a\\\"b\\n\"");
        assert_eq!(
            sprintf(
                "%c|%U|%#U",
                &[Value::Int(65), Value::Int(65), Value::Int(65)]
            ),
            "A|U+0041|U+0041 'A'"
        );
        assert_eq!(sprintf("%t", &[Value::Bool(true)]), "true");
        assert_eq!(sprintf("%v", &[Value::Nil]), "<nil>");
        assert_eq!(sprintf("%s", &[Value::Nil]), "%!s(<nil>)");
        assert_eq!(sprintf("%T", &[Value::list(vec![])]), "[]interface {}");
        assert_eq!(sprintf("%x", &[Value::str("hi")]), "6869");
        assert_eq!(sprintf("%.2s", &[Value::str("hello")]), "he");
        assert_eq!(sprintf("%6.2f%%", &[Value::Float(12.345)]), " 12.35%");
        assert_eq!(sprintf("%+d", &[Value::Int(5)]), "+5");
        assert_eq!(
            sprintf("%d", &[Value::list(vec![Value::Int(1), Value::str("a")])]),
            "[1 %!d(string=a)]"
        );
    }

    #[test]
    fn collections_print_like_go() {
        let m = Value::map(
            [
                ("b".to_string(), Value::Int(2)),
                ("a".to_string(), Value::Float(1.5)),
            ]
            .into_iter()
            .collect(),
        );
        assert_eq!(format_value(&m), "map[a:1.5 b:2]");
        let l = Value::list(vec![Value::str("a"), Value::Nil, Value::Bool(true)]);
        assert_eq!(format_value(&l), "[a <nil> true]");
        assert_eq!(
            sprint(&[Value::Int(1), Value::Int(2), Value::str("x"), Value::Int(3)]),
            "1 2x3"
        );
        assert_eq!(sprintln(&[Value::str("a"), Value::str("b")]), "a b\n");
        assert_eq!(
            format_value(&Value::Bytes(vec![104, 105].into())),
            "[104 105]"
        );
    }

    #[test]
    fn times_print_like_go() {
        let t = GoTime {
            unix_secs: 0,
            nanos: 500_000_000,
            offset_secs: 0,
            zone: "UTC".into(),
        };
        assert_eq!(format_time(&t), "1970-01-01 00:00:00.5 +0000 UTC");
    }
}
