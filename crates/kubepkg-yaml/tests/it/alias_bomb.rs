//! The "billion laughs" document, shared by the integration tests and `decode.rs`'s unit tests
//! (which include this file by path).

/// 13 levels of 9 aliases each, which would expand to 9^13 (2.5e12) scalars.
pub fn alias_bomb() -> String {
    let mut src = String::from(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    let mut prev = 'a';
    for n in "bcdefghijklm".chars() {
        src.push_str(&format!(
            "{n}: &{n} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"
        ));
        prev = n;
    }
    src
}
