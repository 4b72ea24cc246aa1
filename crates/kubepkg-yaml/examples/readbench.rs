//! Times reading and writing a YAML file: `cargo run --release -p kubepkg-yaml --example readbench FILE`.
fn main() {
    let path = std::env::args().nth(1).expect("file");
    let src = std::fs::read_to_string(path).expect("read");
    let t = std::time::Instant::now();
    let v = kubepkg_yaml::from_yaml_str(&src).expect("parse");
    let read = t.elapsed();
    let t = std::time::Instant::now();
    let y = kubepkg_yaml::to_yaml(&v).expect("write");
    let write = t.elapsed();
    println!(
        "rust read {read:?} write {write:?} ({} bytes in, {} bytes out)",
        src.len(),
        y.len()
    );
}
