//! The seam between the package layer's plain JSON values and the chart layer's value model.
//!
//! The package layer keeps values as `serde_json` data (easy to record, diff and explain); the
//! chart layer (`kubepkg-chart`) renders over [`kubepkg_value::Value`], Go's `interface{}` as Helm
//! sees it. Numbers keep their Go type across the seam: a YAML number is a `float64`, a `--set`
//! integer an `int64`. Once the chart crate publishes its coalescing and rendering entry points,
//! the orchestrator's cluster side calls them with [`to_chart_value`]'s output. The conversions
//! live in the chart crate (`kubepkg_chart::json_values`), which needs them for `Chart.yaml`'s
//! JSON form too.

pub use kubepkg_chart::json_values::{from_chart_value, to_chart_map, to_chart_value};

#[cfg(test)]
mod tests {
    use super::*;
    use kubepkg_value::{Value as GoValue, map_read};
    use serde_json::json;

    #[test]
    fn numbers_keep_their_go_type_across_the_seam() {
        let v = json!({"file": 2.0, "set": 2, "list": [1.5, "a", null], "m": {"b": true}});
        let g = to_chart_value(&v);
        let GoValue::Map(m) = &g else {
            panic!("not a map")
        };
        let m = map_read(m);
        assert!(matches!(m["file"], GoValue::Float(f) if f == 2.0));
        assert!(matches!(m["set"], GoValue::Int64(2)));
        drop(m);
        assert_eq!(from_chart_value(&g), v);
    }
}
