//! Every case Go answered in `testdata/go-stdlib.tsv` (recorded by `oracle/regen.sh`), asked
//! again of this crate. A mismatch names the case, Go's answer and ours.

use crate::{fmt, json, slog, strconv, time};

/// Undo the oracle's field escapes (`\\ \t \n \r \xNN`) into Go string bytes.
fn unescape(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            match b[i + 1] {
                b'\\' => out.push(b'\\'),
                b't' => out.push(b'\t'),
                b'n' => out.push(b'\n'),
                b'r' => out.push(b'\r'),
                b'x' => {
                    let h = std::str::from_utf8(&b[i + 2..i + 4]).unwrap();
                    out.push(u8::from_str_radix(h, 16).unwrap());
                    i += 4;
                    continue;
                }
                c => panic!("bad escape \\{}", c as char),
            }
            i += 2;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

fn text(s: &str) -> String {
    String::from_utf8(unescape(s)).expect("a text field is UTF-8")
}

fn float(bits: &str) -> f64 {
    f64::from_bits(u64::from_str_radix(bits, 16).unwrap())
}

fn float_bits(f: f64) -> String {
    // Any NaN is the same answer, whatever its payload.
    if f.is_nan() {
        return "NaN".into();
    }
    format!("{:016x}", f.to_bits())
}

/// Cases where this crate knowingly differs from Go, as (kind, first input). The list may only
/// shrink: a gap that starts to agree with Go fails the test until it is taken off.
const KNOWN_GAPS: &[(&str, &str)] = &[
    // Hexadecimal floats: no caller hands them over (see strconv::parse_float).
    ("parse_float", "0x1p-2"),
];

fn or_err<T: ToString, E: ToString>(r: Result<T, E>) -> String {
    match r {
        Ok(v) => v.to_string(),
        Err(e) => format!("ERR {}", e.to_string()),
    }
}

fn location(name: &str) -> time::Location {
    time::load_location(name).unwrap_or_else(|| panic!("zone {name} is not in the database"))
}

/// Our answer for one case (its fields after the kind, Go's answer last).
fn answer(kind: &str, f: &[&str]) -> Option<String> {
    Some(match kind {
        "ftoa" => strconv::format_float(
            float(f[0]),
            f[1].chars().next()?,
            f[2].parse().ok()?,
            f[3].parse().ok()?,
        ),
        "json_float" => json::format_float64(float(f[0])).unwrap_or_else(|| "ERR".into()),
        "json_field" => {
            // The object's keys in order, each holding its index; what each field of Go's
            // struct was left with.
            let keys = text(f[0]);
            let keys: Vec<&str> = keys.split('\n').collect();
            let entries = || keys.iter().enumerate().map(|(i, k)| (*k, i.to_string()));
            let got = |name: &str| json::field(entries(), name).unwrap_or_default();
            let filled = |name: &str| {
                let mut last = String::new();
                let _: Result<(), ()> = json::fill_fields(entries(), &[name], |_, v| {
                    last = v;
                    Ok(())
                });
                last
            };
            let (api, kind, name, ann) = (
                got("apiVersion"),
                got("kind"),
                got("name"),
                got("annotations"),
            );
            // `fill_fields` leaves what `field` picks.
            assert_eq!(
                [
                    filled("apiVersion"),
                    filled("kind"),
                    filled("name"),
                    filled("annotations")
                ],
                [api.clone(), kind.clone(), name.clone(), ann.clone()],
                "{keys:?}"
            );
            format!("apiVersion={api} kind={kind} name={name} annotations={ann}")
        }
        "match" => or_err(crate::path::matches(&text(f[0]), &text(f[1]))),
        "sprintf_float" => fmt::sprintf_float(&text(f[0]), float(f[1]))?,
        "sprintf_int" => fmt::sprintf_int(&text(f[0]), f[1].parse().ok()?)?,
        "quote" => {
            let s = unescape(f[0]);
            let ascii = strconv::quote_bytes(&s, true);
            let back = strconv::can_backquote(&s);
            format!("{}\t{ascii}\t{back}", strconv::quote_bytes(&s, false))
        }
        "slog" => {
            let level = match f[0] {
                "INFO" => slog::Level::Info,
                "WARN" => slog::Level::Warn,
                _ => return None,
            };
            let t = text(f[1]);
            slog::Record::new(level, t.clone())
                .attr("key", t)
                .to_string()
        }
        "quote_rune" => {
            let c = strconv::rune(f[0].parse().ok()?);
            format!(
                "{}\t{}",
                strconv::quote_rune(c, false),
                strconv::quote_rune(c, true)
            )
        }
        "parse_int" => or_err(strconv::parse_int(
            &text(f[0]),
            f[1].parse().ok()?,
            f[2].parse().ok()?,
        )),
        "parse_uint" => or_err(strconv::parse_uint(
            &text(f[0]),
            f[1].parse().ok()?,
            f[2].parse().ok()?,
        )),
        "atoi" => or_err(strconv::atoi(&text(f[0]))),
        "parse_float" => {
            or_err(strconv::parse_float(&text(f[0]), f[1].parse().ok()?).map(float_bits))
        }
        "duration_string" => time::duration_string(f[0].parse().ok()?),
        "parse_duration" => or_err(time::parse_duration(&text(f[0])).map(|d| d.nanos())),
        "round" => time::Duration(f[0].parse().ok()?)
            .round(time::Duration(f[1].parse().ok()?))
            .nanos()
            .to_string(),
        "time_string" | "format" | "fields" => {
            let zone = if kind == "fields" { f[1] } else { f[2] };
            let nanos = if kind == "fields" {
                0
            } else {
                f[1].parse().ok()?
            };
            let t = location(zone).at(f[0].parse().ok()?, nanos);
            match kind {
                "time_string" => t.string(),
                "format" => t.format(&text(f[3])),
                _ => {
                    let (y, mo, d) = t.date();
                    let (h, mi, s) = t.clock();
                    format!("{y} {mo} {d} {h} {mi} {s} {} {}", t.year_day(), t.weekday())
                }
            }
        }
        "civil" => {
            let days: i64 = f[0].parse().ok()?;
            let (y, m, d) = time::civil::from_days(days);
            assert_eq!(time::civil::to_days(y, m, d), days);
            format!(
                "{y} {m} {d} {} {}",
                time::civil::year_day(days),
                time::civil::weekday(days)
            )
        }
        "load_location" => time::load_location(&text(f[0])).is_some().to_string(),
        "parse" => or_err(
            time::parse_in_location(&text(f[0]), &text(f[1]), &location(f[2]))
                .map(|t| format!("{} {} {} {}", t.unix_secs, t.nanos, t.offset_secs, t.zone)),
        ),
        _ => return None,
    })
}

#[test]
fn every_recorded_go_answer_is_ours() {
    let golden = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/go-stdlib.tsv"
    ))
    .expect("the golden file (oracle/regen.sh writes it)");
    let mut failures = Vec::new();
    let mut cases = 0;
    for (n, line) in golden.lines().enumerate() {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let kind = fields[0];
        // Go's answer is the last field, but for `quote`/`quote_rune` the last two or three.
        let answers = match kind {
            "quote" => 3,
            "quote_rune" => 2,
            _ => 1,
        };
        let (inputs, want) = fields[1..].split_at(fields.len() - 1 - answers);
        let mut want = want.iter().map(|w| text(w)).collect::<Vec<_>>().join("\t");
        if kind == "parse_float" && !want.starts_with("ERR") {
            want = float_bits(float(&want));
        }
        cases += 1;
        if KNOWN_GAPS.contains(&(kind, inputs[0])) {
            if answer(kind, inputs).as_deref() == Some(want.as_str()) {
                failures.push(format!(
                    "line {}: {kind} {inputs:?} agrees with Go now: take it off KNOWN_GAPS",
                    n + 1
                ));
            }
            continue;
        }
        match answer(kind, inputs) {
            Some(got) if got == want => {}
            got => failures.push(format!(
                "line {}: {kind} {inputs:?}\n   go: {want}\n  ours: {}",
                n + 1,
                got.unwrap_or_else(|| "<case not understood>".into())
            )),
        }
    }
    assert!(cases > 10_000, "only {cases} cases read");
    assert!(
        failures.is_empty(),
        "{} of {cases} cases differ from Go:\n{}",
        failures.len(),
        failures
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
