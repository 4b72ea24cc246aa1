//! Go's `fmt` printing of [`Value`]s: `Sprint`, `Sprintln`, `Sprintf` with Go's verbs, flags,
//! width and precision, Go's float formatting (`strconv` shortest `'g'`: `1e+06`, `3.5`,
//! `1e-05`), maps as `map[a:1 b:2]`, slices as `[a b]`, nil as `<nil>`, and Go's error
//! annotations (`%!d(string=x)`, `%!v(MISSING)`, `%!(EXTRA int=1)`, `%!(NOVERB)`). This is
//! Go's `fmt/print.go` over the value model; the flags, padding and the text of numbers,
//! quoted strings and times (`fmt/format.go`, `strconv`, `time`) come from `kubepkg-gostd`.
//!
//! Go strings are bytes, and so is what `fmt` produces: a string holding bytes that are not
//! UTF-8 ([`Value::NonUtf8String`]) prints its exact bytes (`%s`, `%v`), its bytes in hex (`%x`)
//! or escaped (`%q` → `"\xff"`). The `*_value` functions return the Go string exactly (a
//! [`Value`] string of either variant); the `String`-returning ones decode invalid bytes as
//! U+FFFD, which only differs for such strings.

use kubepkg_gostd::fmt::{Flags, Fmt};
use kubepkg_value::{ElemType, Value, go_lossy, map_read};

/// Bytes made by `fmt` as text (invalid UTF-8 decoded as U+FFFD, per byte like Go's `range`).
fn into_text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| go_lossy(e.as_bytes()))
}

/// The bytes a fresh printer holds after `print`.
fn printed(print: impl FnOnce(&mut Printer)) -> Vec<u8> {
    let mut p = Printer::default();
    print(&mut p);
    p.fmt.buf
}

fn sprint_into(p: &mut Printer, args: &[Value]) {
    let mut prev_string = false;
    for (i, a) in args.iter().enumerate() {
        let is_string = a.is_go_string();
        if i > 0 && !is_string && !prev_string {
            p.fmt.write_char(' ');
        }
        p.print_arg(a, 'v');
        prev_string = is_string;
    }
}

/// `fmt.Sprint(args...)`: operands separated by a space when neither side is a string.
pub fn sprint(args: &[Value]) -> String {
    into_text(printed(|p| sprint_into(p, args)))
}

/// `fmt.Sprint(args...)` as the exact Go string it makes.
pub fn sprint_value(args: &[Value]) -> Value {
    Value::from_go_bytes(printed(|p| sprint_into(p, args)))
}

fn sprintln_into(p: &mut Printer, args: &[Value]) {
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            p.fmt.write_char(' ');
        }
        p.print_arg(a, 'v');
    }
    p.fmt.write_char('\n');
}

/// `fmt.Sprintln(args...)`: operands always separated by spaces, newline appended.
pub fn sprintln(args: &[Value]) -> String {
    into_text(printed(|p| sprintln_into(p, args)))
}

/// `fmt.Sprintln(args...)` as the exact Go string it makes.
pub fn sprintln_value(args: &[Value]) -> Value {
    Value::from_go_bytes(printed(|p| sprintln_into(p, args)))
}

/// `fmt.Sprint(v)` of one value.
pub fn format_value(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        _ => into_text(printed(|p| p.print_arg(v, 'v'))),
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
                fmt: Fmt {
                    buf: std::mem::take(out),
                    flags: Flags::default(),
                },
                ..Printer::default()
            };
            p.print_arg(v, 'v');
            *out = p.fmt.buf;
        }
    }
}

/// `fmt.Sprintf(format, args...)`.
pub fn sprintf(format: &str, args: &[Value]) -> String {
    into_text(printed(|p| p.do_printf(format, args)))
}

/// `fmt.Sprintf(format, args...)` as the exact Go string it makes.
pub fn sprintf_value(format: &str, args: &[Value]) -> Value {
    Value::from_go_bytes(printed(|p| p.do_printf(format, args)))
}
#[derive(Default)]
struct Printer {
    fmt: Fmt,
    reordered: bool,
    good_arg_num: bool,
    /// Go's `fmt` recurses into a map that holds itself until its stack overflows; the guard
    /// stops there, records the cycle ([`kubepkg_value::walk::note_fault`], which the executor
    /// turns into a template error) and prints nothing more.
    guard: kubepkg_value::walk::Guard,
    stopped: bool,
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
                self.fmt.write_str(&format[lasti..i]);
            }
            if i >= end {
                break;
            }
            i += 1;
            self.fmt.flags = Flags::default();
            'simple: while i < end {
                let c = fb[i];
                match c {
                    b'#' => self.fmt.flags.sharp = true,
                    b'0' => self.fmt.flags.zero = !self.fmt.flags.minus,
                    b'+' => self.fmt.flags.plus = true,
                    b'-' => {
                        self.fmt.flags.minus = true;
                        self.fmt.flags.zero = false;
                    }
                    b' ' => self.fmt.flags.space = true,
                    _ => {
                        if c.is_ascii_lowercase() && arg_num < a.len() {
                            if c == b'v' {
                                self.fmt.flags.sharp_v = self.fmt.flags.sharp;
                                self.fmt.flags.sharp = false;
                                self.fmt.flags.plus_v = self.fmt.flags.plus;
                                self.fmt.flags.plus = false;
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
                self.fmt.flags.wid_present = ok;
                if !ok {
                    self.fmt.write_str("%!(BADWIDTH)");
                }
                if w < 0 {
                    self.fmt.flags.wid = w.unsigned_abs() as usize;
                    self.fmt.flags.minus = true;
                    self.fmt.flags.zero = false;
                } else {
                    self.fmt.flags.wid = w as usize;
                }
                after_index = false;
            } else {
                let (w, ok, ni) = parsenum(fb, i);
                self.fmt.flags.wid = w;
                self.fmt.flags.wid_present = ok;
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
                    self.fmt.flags.prec_present = ok;
                    if p < 0 {
                        self.fmt.flags.prec = 0;
                        self.fmt.flags.prec_present = false;
                    } else {
                        self.fmt.flags.prec = p as usize;
                    }
                    if !ok {
                        self.fmt.write_str("%!(BADPREC)");
                    }
                    after_index = false;
                } else {
                    let (p, ok, ni) = parsenum(fb, i);
                    i = ni;
                    self.fmt.flags.prec = if ok { p } else { 0 };
                    self.fmt.flags.prec_present = true;
                }
            }
            if !after_index {
                (arg_num, i, after_index) = self.arg_number(arg_num, fb, i, a.len());
            }
            let _ = after_index;
            if i >= end {
                self.fmt.write_str("%!(NOVERB)");
                break;
            }
            let verb = format[i..].chars().next().unwrap_or('?');
            i += verb.len_utf8();
            if verb == '%' {
                self.fmt.write_char('%');
            } else if !self.good_arg_num {
                self.bad_arg_num(verb);
            } else if arg_num >= a.len() {
                self.fmt.write_str("%!");
                self.fmt.write_char(verb);
                self.fmt.write_str("(MISSING)");
            } else {
                if verb == 'v' {
                    self.fmt.flags.sharp_v = self.fmt.flags.sharp;
                    self.fmt.flags.sharp = false;
                    self.fmt.flags.plus_v = self.fmt.flags.plus;
                    self.fmt.flags.plus = false;
                }
                self.print_arg(&a[arg_num], verb);
                arg_num += 1;
            }
        }
        if !self.reordered && arg_num < a.len() {
            self.fmt.flags = Flags::default();
            self.fmt.write_str("%!(EXTRA ");
            for (k, arg) in a[arg_num..].iter().enumerate() {
                if k > 0 {
                    self.fmt.write_str(", ");
                }
                self.typed_arg(arg);
            }
            self.fmt.write_char(')');
        }
    }

    fn bad_arg_num(&mut self, verb: char) {
        self.fmt.write_str("%!");
        self.fmt.write_char(verb);
        self.fmt.write_str("(BADINDEX)");
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

    fn bad_verb(&mut self, verb: char, arg: &Value) {
        self.fmt.write_str("%!");
        self.fmt.write_char(verb);
        self.fmt.write_char('(');
        self.typed_arg(arg);
        self.fmt.write_char(')');
    }

    /// An operand in an error annotation: `<nil>`, or its type and value (`int=1`).
    fn typed_arg(&mut self, arg: &Value) {
        if arg.is_nil() {
            self.fmt.write_str("<nil>");
        } else {
            self.fmt.write_str(&arg.type_name());
            self.fmt.write_char('=');
            self.print_arg(arg, 'v');
        }
    }

    fn print_arg(&mut self, arg: &Value, verb: char) {
        if arg.is_nil() {
            match verb {
                'T' | 'v' => self.fmt.pad("<nil>"),
                _ => self.bad_verb(verb, arg),
            }
            return;
        }
        if verb == 'T' {
            let t = arg.type_name();
            self.fmt.fmt_s(t.as_bytes());
            return;
        }
        if verb == 'p' {
            match arg {
                Value::Map(_) | Value::List(..) | Value::Bytes(_) | Value::Object(_) => {
                    self.fmt.pad("0xc000010000")
                }
                _ => self.bad_verb('p', arg),
            }
            return;
        }
        self.print_value(arg, verb, 0);
    }

    /// The elements of a list at `depth`, separated by `sep`.
    fn print_items(&mut self, items: &[Value], sep: &str, verb: char, depth: usize) {
        for (i, x) in items.iter().enumerate() {
            if i > 0 {
                self.fmt.write_str(sep);
            }
            self.print_value(x, verb, depth + 1);
        }
    }

    fn print_value(&mut self, v: &Value, verb: char, depth: usize) {
        if !matches!(v, Value::List(..) | Value::Map(_)) {
            return self.print_value_inner(v, verb, depth);
        }
        if self.stopped {
            return;
        }
        if let Err(r) = self.guard.enter(v) {
            kubepkg_value::walk::note_fault(r);
            self.stopped = true;
            return;
        }
        kubepkg_value::walk::grow(|| self.print_value_inner(v, verb, depth));
        self.guard.leave(v);
    }

    fn print_value_inner(&mut self, v: &Value, verb: char, depth: usize) {
        match v {
            Value::Nil => {
                if depth == 0 {
                    self.print_arg(v, verb)
                } else if self.fmt.flags.sharp_v {
                    self.fmt.write_str("interface {}(nil)")
                } else {
                    self.fmt.write_str("<nil>")
                }
            }
            Value::Bool(b) => match verb {
                't' | 'v' => self.fmt.pad(if *b { "true" } else { "false" }),
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
                if self.fmt.flags.sharp_v {
                    self.fmt.write_str(&v.type_name());
                    self.fmt.write_char('{');
                    self.print_items(items, ", ", verb, depth);
                    self.fmt.write_char('}');
                    return;
                }
                self.fmt.write_char('[');
                self.print_items(items, " ", verb, depth);
                self.fmt.write_char(']');
            }
            Value::Map(m) => {
                let ty = m.map_type().type_name();
                let m = map_read(m);
                if self.fmt.flags.sharp_v {
                    self.fmt.write_str(ty);
                    self.fmt.write_char('{');
                } else {
                    self.fmt.write_str("map[");
                }
                for (i, (k, x)) in m.iter().enumerate() {
                    if i > 0 {
                        if self.fmt.flags.sharp_v {
                            self.fmt.write_str(", ");
                        } else {
                            self.fmt.write_char(' ');
                        }
                    }
                    self.fmt_string(k, verb, &Value::str(k));
                    self.fmt.write_char(':');
                    self.print_value(x, verb, depth + 1);
                }
                self.fmt
                    .write_char(if self.fmt.flags.sharp_v { '}' } else { ']' });
            }
            Value::Time(t) => {
                let s = t.string();
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
            _ => self.fmt.pad(s),
        }
    }

    fn fmt_string(&mut self, s: &str, verb: char, v: &Value) {
        match verb {
            'v' => {
                if self.fmt.flags.sharp_v {
                    self.fmt.fmt_q(s.as_bytes())
                } else {
                    self.fmt.fmt_s(s.as_bytes())
                }
            }
            's' => self.fmt.fmt_s(s.as_bytes()),
            'x' => self.fmt.fmt_sx(s.as_bytes(), false),
            'X' => self.fmt.fmt_sx(s.as_bytes(), true),
            'q' => self.fmt.fmt_q(s.as_bytes()),
            _ => self.bad_verb(verb, v),
        }
    }

    /// A Go string whose bytes are not UTF-8: precision and width count Go's runes (each
    /// invalid byte is one), `%s`/`%v` write the bytes, `%q` escapes them as `\xff`.
    fn fmt_non_utf8(&mut self, b: &[u8], verb: char, v: &Value) {
        match verb {
            'v' if self.fmt.flags.sharp_v => self.fmt.fmt_q(b),
            'v' | 's' => self.fmt.fmt_s(b),
            'x' => self.fmt.fmt_sx(b, false),
            'X' => self.fmt.fmt_sx(b, true),
            'q' => self.fmt.fmt_q(b),
            _ => self.bad_verb(verb, v),
        }
    }

    fn fmt_bytes(&mut self, b: &[u8], verb: char, v: &Value) {
        match verb {
            'v' | 'd' => {
                if self.fmt.flags.sharp_v {
                    self.fmt.write_str("[]byte{");
                    for (i, c) in b.iter().enumerate() {
                        if i > 0 {
                            self.fmt.write_str(", ");
                        }
                        self.fmt.write_str(&format!("0x{c:x}"));
                    }
                    self.fmt.write_char('}');
                    return;
                }
                self.fmt.write_char('[');
                for (i, c) in b.iter().enumerate() {
                    if i > 0 {
                        self.fmt.write_char(' ');
                    }
                    self.fmt.fmt_integer(u64::from(*c), 10, false, verb, false);
                }
                self.fmt.write_char(']');
            }
            's' | 'q' => match std::str::from_utf8(b) {
                Ok(s) if verb == 's' => self.fmt.fmt_s(s.as_bytes()),
                Ok(s) => self.fmt.fmt_q(s.as_bytes()),
                Err(_) => self.fmt_non_utf8(b, verb, v),
            },
            'x' => self.fmt.fmt_sx(b, false),
            'X' => self.fmt.fmt_sx(b, true),
            _ => {
                let _ = v;
                self.fmt.write_char('[');
                for (i, c) in b.iter().enumerate() {
                    if i > 0 {
                        self.fmt.write_char(' ');
                    }
                    self.fmt_integer(*c as u64, false, verb, &Value::Uint(*c as u64));
                }
                self.fmt.write_char(']');
            }
        }
    }

    fn fmt_integer(&mut self, u: u64, signed: bool, verb: char, v: &Value) {
        if self.fmt.integer(u, signed, verb).is_err() {
            self.bad_verb(verb, v);
        }
    }

    fn fmt_float(&mut self, x: f64, verb: char, v: &Value) {
        if self.fmt.float(x, 64, verb).is_err() {
            self.bad_verb(verb, v);
        }
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

/// Go's `%#U` of a rune: `U+0041 'A'`.
pub fn format_unicode_hash(c: char) -> String {
    let mut f = Fmt::default();
    f.flags.sharp = true;
    f.fmt_unicode(u64::from(u32::from(c)));
    go_lossy(&f.buf)
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
        let t = kubepkg_value::GoTime {
            unix_secs: 0,
            nanos: 500_000_000,
            offset_secs: 0,
            zone: "UTC".into(),
        };
        assert_eq!(
            format_value(&Value::Time(std::sync::Arc::new(t))),
            "1970-01-01 00:00:00.5 +0000 UTC"
        );
    }
}
