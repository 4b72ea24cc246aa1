//! [`report`]: an error with its causes as one line, what the CLI prints and the controller
//! writes in conditions.

/// An error and each cause its own text does not already say, joined by `: ` (typed errors
/// keep their causes as sources and often name them in their message too; a cause is printed
/// once). What the CLI prints after `Error: ` and what the controller writes in conditions.
pub fn report(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = String::new();
    let mut cause = Some(e);
    while let Some(c) = cause {
        let text = c.to_string();
        if !text.is_empty() && !out.contains(&text) {
            if !out.is_empty() {
                out.push_str(": ");
            }
            out.push_str(&text);
        }
        cause = c.source();
    }
    out
}
