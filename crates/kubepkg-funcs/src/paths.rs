//! stub

use kubepkg_template::Function;

pub(crate) fn functions() -> Vec<Function> {
    Vec::new()
}
